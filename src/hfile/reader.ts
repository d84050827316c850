// HFile v3 reader: trailer → load-on-open section (root data index, meta index, file info) →
// multi-level index walk down to the leaf entries → data blocks of KeyValues. Keys compare on the
// row bytes only (what Hudi stores as the record key), unsigned lexicographically.
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import {
  TRAILER_SIZE,
  decodeBlock,
  decodeDelimitedProto,
  decodeProto,
  hfileError,
  parseTrailer,
  readHadoopVLong,
  readI32,
  readI64,
  readU16,
  type Block,
  type BlockKind,
  type HFileTrailer,
} from './format.ts';

export interface HFileRecord {
  /** row key as UTF-8 text (Hudi record keys are strings) */
  key: string;
  keyBytes: Uint8Array;
  value: Uint8Array;
}

export interface DataBlockEntry {
  /** row part of the index key; may be a shortened "fake" key ≤ the block's real first key */
  indexKey: Uint8Array;
  offset: number;
  /** on-disk size including header and checksums */
  size: number;
}

/** Where a cursor landed: on the key, on the first larger key, or nowhere (past the last key). */
export type SeekResult = 'found' | 'not-found' | 'eof';

const utf8 = new TextDecoder();
const utf8Enc = new TextEncoder();

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function startsWith(a: Uint8Array, prefix: Uint8Array): boolean {
  if (a.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false;
  return true;
}

function toBytes(k: string | Uint8Array): Uint8Array {
  return typeof k === 'string' ? utf8Enc.encode(k) : k;
}

/** Row bytes of an HBase KeyValue key: int16 row length, row, family, qualifier, ts, type. */
function rowOf(key: Uint8Array): Uint8Array {
  if (key.length < 2) return key.subarray(0, 0);
  const n = readU16(key, 0);
  return key.subarray(2, Math.min(2 + n, key.length));
}

/** Reads `[offset, offset+length)` of the file. */
type ReadAt = (offset: number, length: number) => Promise<Uint8Array>;

export interface OpenHFileOptions {
  /** file size if known (saves a stat) */
  size?: number;
  /** files up to this size are read whole (default 8 MiB, like hoodie.metadata.file.cache.max.size.mb's spirit) */
  wholeReadMaxBytes?: number;
}

export class HFileReader {
  readonly path: string;
  readonly trailer: HFileTrailer;
  readonly fileInfo: ReadonlyMap<string, Uint8Array>;
  /** leaf-level data block index, in key order */
  readonly dataBlocks: readonly DataBlockEntry[];
  readonly metaBlocks: ReadonlyMap<string, { offset: number; size: number }>;
  private readonly readAt: ReadAt;
  private cache: { offset: number; records: HFileRecord[] } | undefined;

  private constructor(
    path: string,
    trailer: HFileTrailer,
    fileInfo: Map<string, Uint8Array>,
    dataBlocks: DataBlockEntry[],
    metaBlocks: Map<string, { offset: number; size: number }>,
    readAt: ReadAt,
  ) {
    this.path = path;
    this.trailer = trailer;
    this.fileInfo = fileInfo;
    this.dataBlocks = dataBlocks;
    this.metaBlocks = metaBlocks;
    this.readAt = readAt;
  }

  /** An HFile already in memory (a metadata-table HFILE_DATA log block's content, or a small base file). */
  static async fromBytes(bytes: Uint8Array, path = '<bytes>'): Promise<HFileReader> {
    const readAt: ReadAt = async (o, n) => {
      if (o < 0 || o + n > bytes.length) throw hfileError(path, `range ${o}+${n} is past the end of ${bytes.length} bytes`);
      return bytes.subarray(o, o + n);
    };
    return HFileReader.init(path, bytes.length, readAt, bytes.subarray(Math.max(0, bytes.length - TRAILER_SIZE)));
  }

  /** Opens a file through Storage: whole when small, else the trailer, load-on-open section and blocks on demand. */
  static async open(storage: Storage, path: string, opts: OpenHFileOptions = {}): Promise<HFileReader> {
    const size = opts.size ?? (await storage.stat(path)).size;
    if (size <= (opts.wholeReadMaxBytes ?? 8 * 1024 * 1024)) {
      return HFileReader.fromBytes(await storage.readFile(path), path);
    }
    if (size < TRAILER_SIZE) throw hfileError(path, `too small for an HFile trailer (${size} bytes)`);
    const readAt: ReadAt = async (o, n) => {
      if (o < 0 || o + n > size) throw hfileError(path, `range ${o}+${n} is past the end of ${size} bytes`);
      const got = await storage.readRange(path, o, n);
      if (got.length !== n) throw hfileError(path, `short read at ${o}: ${got.length} of ${n} bytes`);
      return got;
    };
    return HFileReader.init(path, size, readAt, await readAt(size - TRAILER_SIZE, TRAILER_SIZE));
  }

  private static async init(path: string, size: number, readAt: ReadAt, trailerBytes: Uint8Array): Promise<HFileReader> {
    const trailer = parseTrailer(trailerBytes, path);
    const loadOnOpen = trailer.loadOnOpenDataOffset;
    if (loadOnOpen < 0 || loadOnOpen > size - TRAILER_SIZE) {
      throw hfileError(path, `load-on-open offset ${loadOnOpen} is outside the file (${size} bytes)`);
    }
    const tail = await readAt(loadOnOpen, size - TRAILER_SIZE - loadOnOpen);
    const at = (fileOffset: number, expect: BlockKind): Block => {
      const b = decodeBlock(tail, fileOffset - loadOnOpen, trailer.compression, path, fileOffset);
      if (b.header.kind !== expect) throw hfileError(path, `expected a ${expect} block at offset ${fileOffset}, found ${b.header.kind}`);
      return b;
    };

    // Root data index, then the meta index right after it.
    const root = at(loadOnOpen, 'ROOT_INDEX');
    let entries = parseRootIndex(root.data, trailer.dataIndexCount, path);
    const metaIndex = at(loadOnOpen + root.onDiskSize, 'ROOT_INDEX');
    const metaBlocks = new Map<string, { offset: number; size: number }>();
    for (const e of parseRootIndex(metaIndex.data, trailer.metaIndexCount, path)) {
      metaBlocks.set(utf8.decode(e.key), { offset: e.offset, size: e.size });
    }

    const info = at(trailer.fileInfoOffset, 'FILE_INFO');
    const fileInfo = parseFileInfo(info.data, path);

    // Multi-level index: root entries point at intermediate blocks, which point at leaf blocks.
    for (let level = 1; level < trailer.numDataIndexLevels; level++) {
      const next: RawIndexEntry[] = [];
      for (const e of entries) {
        const bytes = await readAt(e.offset, e.size);
        const b = decodeBlock(bytes, 0, trailer.compression, path, e.offset);
        if (b.header.kind !== 'LEAF_INDEX' && b.header.kind !== 'INTERMEDIATE_INDEX') {
          throw hfileError(path, `expected an index block at offset ${e.offset}, found ${b.header.kind}`);
        }
        next.push(...parseNonRootIndex(b.data, path, e.offset));
      }
      entries = next;
    }
    const dataBlocks = entries.map((e) => ({ indexKey: rowOf(e.key), offset: e.offset, size: e.size }));

    // Hudi never writes MVCC timestamps; a file with them would have a longer per-cell suffix.
    const kvVersion = fileInfo.get('KEY_VALUE_VERSION');
    const maxTs = fileInfo.get('MAX_MEMSTORE_TS_KEY');
    if (kvVersion && kvVersion.length >= 4 && readI32(kvVersion, 0) === 1 && maxTs && maxTs.length >= 8 && readI64(maxTs, 0) > 0) {
      throw new TblError('unsupported', `HFile ${path}: MVCC timestamps are not supported`, { path });
    }
    return new HFileReader(path, trailer, fileInfo, dataBlocks, metaBlocks, readAt);
  }

  get entryCount(): number {
    return this.trailer.entryCount;
  }

  /** The Avro schema Hudi stores in the file info (key "schema"), if any. */
  get avroSchemaJson(): string | undefined {
    const s = this.fileInfo.get('schema');
    return s ? utf8.decode(s) : undefined;
  }

  /** Last row key from the file info (hfile.LASTKEY). */
  get lastKey(): string | undefined {
    const k = this.fileInfo.get('hfile.LASTKEY');
    return k ? utf8.decode(rowOf(k)) : undefined;
  }

  fileInfoString(key: string): string | undefined {
    const v = this.fileInfo.get(key);
    return v ? utf8.decode(v) : undefined;
  }

  /** Raw content of a named meta block (e.g. a bloom filter). */
  async metaBlock(name: string): Promise<Uint8Array | undefined> {
    const e = this.metaBlocks.get(name);
    if (!e) return undefined;
    const b = decodeBlock(await this.readAt(e.offset, e.size), 0, this.trailer.compression, this.path, e.offset);
    if (b.header.kind !== 'META') throw hfileError(this.path, `expected a META block at offset ${e.offset}, found ${b.header.kind}`);
    return b.data;
  }

  /** Decoded records of data block `i` (the last block read is cached). */
  async blockRecords(i: number): Promise<HFileRecord[]> {
    const e = this.dataBlocks[i];
    if (!e) throw new RangeError(`no data block ${i}`);
    if (this.cache?.offset === e.offset) return this.cache.records;
    const b = decodeBlock(await this.readAt(e.offset, e.size), 0, this.trailer.compression, this.path, e.offset);
    if (b.header.kind !== 'DATA') throw hfileError(this.path, `expected a DATA block at offset ${e.offset}, found ${b.header.kind}`);
    const records = parseKeyValues(b.data, this.path, e.offset);
    this.cache = { offset: e.offset, records };
    return records;
  }

  /** Every record in key order. */
  async *scan(): AsyncGenerator<HFileRecord> {
    for (let i = 0; i < this.dataBlocks.length; i++) yield* await this.blockRecords(i);
  }

  async readAll(): Promise<HFileRecord[]> {
    const out: HFileRecord[] = [];
    for await (const r of this.scan()) out.push(r);
    return out;
  }

  /** Index of the first block that can hold a key ≥ `key`. */
  private startBlock(key: Uint8Array): number {
    // Last block whose index key is strictly below `key`: a block whose index key equals it may be
    // preceded by one that ends with the same (non-unique) key; a fake first key is ≤ the real one.
    let lo = 0;
    let hi = this.dataBlocks.length - 1;
    let ans = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compareBytes(this.dataBlocks[mid]!.indexKey, key) < 0) {
        ans = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return ans;
  }

  /** A cursor on the first record with key ≥ `key`. */
  async seekTo(key: string | Uint8Array): Promise<HFileCursor> {
    const k = toBytes(key);
    const cur = new HFileCursor(this);
    if (this.dataBlocks.length === 0) return cur.markEof();
    for (let b = this.startBlock(k); b < this.dataBlocks.length; b++) {
      const recs = await this.blockRecords(b);
      let lo = 0;
      let hi = recs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareBytes(recs[mid]!.keyBytes, k) < 0) lo = mid + 1;
        else hi = mid;
      }
      if (lo < recs.length) return cur.at(b, lo, compareBytes(recs[lo]!.keyBytes, k) === 0 ? 'found' : 'not-found');
    }
    return cur.markEof();
  }

  /** A cursor on the first record. */
  async seekToFirst(): Promise<HFileCursor> {
    const cur = new HFileCursor(this);
    for (let b = 0; b < this.dataBlocks.length; b++) {
      if ((await this.blockRecords(b)).length > 0) return cur.at(b, 0, 'found');
    }
    return cur.markEof();
  }

  /** The first record with exactly this key. */
  async get(key: string | Uint8Array): Promise<HFileRecord | undefined> {
    const c = await this.seekTo(key);
    return c.result === 'found' ? c.record : undefined;
  }

  /** All records with exactly this key (HFiles may hold duplicates). */
  async getAll(key: string | Uint8Array): Promise<HFileRecord[]> {
    const k = toBytes(key);
    const out: HFileRecord[] = [];
    const c = await this.seekTo(k);
    while (c.record && compareBytes(c.record.keyBytes, k) === 0) {
      out.push(c.record);
      await c.next();
    }
    return out;
  }

  /** Records whose key starts with `prefix`, in key order. */
  async *scanPrefix(prefix: string | Uint8Array): AsyncGenerator<HFileRecord> {
    const p = toBytes(prefix);
    const c = await this.seekTo(p);
    while (c.record && startsWith(c.record.keyBytes, p)) {
      yield c.record;
      await c.next();
    }
  }
}

/** A forward cursor over the records of one reader. */
export class HFileCursor {
  private block = 0;
  private index = 0;
  private records: HFileRecord[] = [];
  result: SeekResult = 'eof';

  constructor(private readonly reader: HFileReader) {}

  /** @internal */
  async at(block: number, index: number, result: SeekResult): Promise<this> {
    this.block = block;
    this.index = index;
    this.records = await this.reader.blockRecords(block);
    this.result = result;
    return this;
  }

  /** @internal */
  markEof(): this {
    this.records = [];
    this.index = 0;
    this.block = this.reader.dataBlocks.length;
    this.result = 'eof';
    return this;
  }

  /** The record under the cursor, undefined past the end. */
  get record(): HFileRecord | undefined {
    return this.records[this.index];
  }

  /** Moves to the next record; false at the end of the file. */
  async next(): Promise<boolean> {
    if (this.block >= this.reader.dataBlocks.length) return false;
    this.index++;
    while (this.index >= this.records.length) {
      this.block++;
      this.index = 0;
      if (this.block >= this.reader.dataBlocks.length) {
        this.records = [];
        return false;
      }
      this.records = await this.reader.blockRecords(this.block);
    }
    return true;
  }
}

interface RawIndexEntry {
  key: Uint8Array;
  offset: number;
  size: number;
}

/** Root index block: n × (int64 offset, int32 size, Hadoop vlong key length, key). */
function parseRootIndex(data: Uint8Array, n: number, path: string): RawIndexEntry[] {
  const out: RawIndexEntry[] = [];
  let o = 0;
  for (let i = 0; i < n; i++) {
    if (o + 13 > data.length) throw hfileError(path, `root index entry ${i} of ${n} runs past its block`);
    const offset = readI64(data, o);
    const size = readI32(data, o + 8);
    const [klen, m] = readHadoopVLong(data, o + 12);
    const ks = o + 12 + m;
    if (klen < 0 || ks + klen > data.length) throw hfileError(path, `root index entry ${i} has a bad key length ${klen}`);
    out.push({ key: data.subarray(ks, ks + klen), offset, size });
    o = ks + klen;
  }
  return out;
}

/** Leaf / intermediate index block: int32 n, (n+1) int32 secondary offsets, then entries. */
function parseNonRootIndex(data: Uint8Array, path: string, fileOffset: number): RawIndexEntry[] {
  const n = readI32(data, 0);
  const base = 4 + 4 * (n + 1);
  if (n < 0 || base > data.length) throw hfileError(path, `index block at offset ${fileOffset} has a bad entry count ${n}`);
  const out: RawIndexEntry[] = [];
  for (let i = 0; i < n; i++) {
    const start = base + readI32(data, 4 + 4 * i);
    const end = base + readI32(data, 4 + 4 * (i + 1));
    if (start + 12 > end || end > data.length) throw hfileError(path, `index block at offset ${fileOffset}: entry ${i} is malformed`);
    out.push({ offset: readI64(data, start), size: readI32(data, start + 8), key: data.subarray(start + 12, end) });
  }
  return out;
}

/** File info block: "PBUF" + delimited InfoProto { repeated BytesBytesPair map_entry = 1 }. */
function parseFileInfo(data: Uint8Array, path: string): Map<string, Uint8Array> {
  if (data.length < 4 || data[0] !== 0x50 || data[1] !== 0x42 || data[2] !== 0x55 || data[3] !== 0x46) {
    throw hfileError(path, 'file info block lacks the PBUF magic');
  }
  const out = new Map<string, Uint8Array>();
  const msg = decodeDelimitedProto(data, 4);
  for (const pair of msg.get(1) ?? []) {
    if (!(pair instanceof Uint8Array)) continue;
    const f = decodeProto(pair); // an embedded BytesBytesPair {bytes first = 1; bytes second = 2}
    const k = f.get(1)?.[0];
    const v = f.get(2)?.[0];
    if (k instanceof Uint8Array && v instanceof Uint8Array) out.set(utf8.decode(k), v);
  }
  return out;
}

/** KeyValues of a data block: int32 keyLen, int32 valueLen, key, value, 1-byte MVCC version (always 0). */
function parseKeyValues(data: Uint8Array, path: string, fileOffset: number): HFileRecord[] {
  const out: HFileRecord[] = [];
  let o = 0;
  while (o < data.length) {
    if (o + 8 > data.length) throw hfileError(path, `data block at offset ${fileOffset}: truncated cell at ${o}`);
    const klen = readI32(data, o);
    const vlen = readI32(data, o + 4);
    const ks = o + 8;
    if (klen < 2 || vlen < 0 || ks + klen + vlen + 1 > data.length) {
      throw hfileError(path, `data block at offset ${fileOffset}: bad cell lengths at ${o} (key ${klen}, value ${vlen})`);
    }
    const keyBytes = rowOf(data.subarray(ks, ks + klen));
    out.push({ key: utf8.decode(keyBytes), keyBytes, value: data.subarray(ks + klen, ks + klen + vlen) });
    o = ks + klen + vlen + 1;
  }
  return out;
}
