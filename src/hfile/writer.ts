// HFile v3 writer, the HBase 2.4 variant that Hudi 0.14–1.0 write (format-mdt-write.md §5.9): minor
// version 3, CRC32C checksums per 16 KiB chunk, full KeyValue keys, HBase's shortened "fake" keys in
// the data index, and HBase's multi-level index once a leaf chunk reaches hfile.index.block.max.size.
// Ported from HBase HFileWriterImpl, HFileBlock.Writer and HFileBlockIndex.BlockIndexWriter.
import { gzipSync } from 'node:zlib';
import { crc32c } from '../config/crc32c.ts';
import { TblError } from '../errors/index.ts';
import {
  BLOCK_HEADER_SIZE,
  BLOCK_MAGIC,
  BYTES_PER_CHECKSUM,
  CHECKSUM_CRC32C,
  CODECS,
  TRAILER_SIZE,
  type BlockKind,
} from './format.ts';

export interface HFileCell {
  /** the row (a Hudi record key); strings are written as UTF-8 */
  key: Uint8Array | string;
  value: Uint8Array;
}

export interface HFileWriteOptions {
  /** a data block is cut once its uncompressed cells reach this many bytes (default 1 MiB, Hudi's) */
  blockSize?: number;
  /** per-block compression (default GZ, hoodie.hfile.compression.algorithm) */
  codec?: 'GZ' | 'NONE';
  /** caller file-info entries (`schema`, `bloomFilterTypeCode`, `minRecordKey`, …); `hfile.*` is reserved */
  fileInfo?: Record<string, Uint8Array | string>;
  /** META blocks (base files: `bloomFilter`), stored in name order as HBase does */
  metaBlocks?: { name: string; bytes: Uint8Array }[];
  /** hfile.CREATE_TIME_TS (default 0: Hudi's HFileContext never sets it) */
  createTimeMs?: number;
  /** trailer comparator (default Hudi's org.apache.hudi.io.storage.HoodieHBaseKVComparator) */
  comparatorClassName?: string;
  /** hfile.index.block.max.size (default 128 KiB) */
  maxIndexChunkSize?: number;
  /** hfile.index.block.min.entries (default 16) */
  minIndexEntries?: number;
  /** replaces the GZ compressor (tests substitute Java's own gzip members to compare whole files) */
  compressor?: (payload: Uint8Array) => Uint8Array;
}

export const HOODIE_KV_COMPARATOR = 'org.apache.hudi.io.storage.HoodieHBaseKVComparator';
const DEFAULT_BLOCK_SIZE = 1024 * 1024;
const DEFAULT_MAX_CHUNK_SIZE = 128 * 1024;
const DEFAULT_MIN_INDEX_ENTRIES = 16;
const MAX_ROW_LENGTH = 0x7fff;
const MINOR_VERSION = 3;
const MAJOR_VERSION = 3;
/** family length 0, timestamp Long.MAX_VALUE (HConstants.LATEST_TIMESTAMP), type Put (4) */
const PUT_SUFFIX = Uint8Array.of(0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 4);
/** the same with type Maximum (255): PrivateCellUtil.createFirstOnRow, HBase's index "fake" keys */
const FIRST_ON_ROW_SUFFIX = Uint8Array.of(0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
const RESERVED_INFO = new Set(['KEY_VALUE_VERSION', 'MAX_MEMSTORE_TS_KEY']);

const utf8 = new TextEncoder();
const utf8Dec = new TextDecoder();

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function shown(key: Uint8Array): string {
  const s = JSON.stringify(utf8Dec.decode(key));
  return s.length > 80 ? `${s.slice(0, 77)}…"` : s;
}

/** A growable big-endian byte buffer. */
class Bytes {
  buf: Uint8Array;
  len = 0;
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v;
    return this;
  }
  i16(v: number): this {
    this.ensure(2);
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = v & 0xff;
    return this;
  }
  i32(v: number): this {
    this.ensure(4);
    setI32(this.buf, this.len, v);
    this.len += 4;
    return this;
  }
  i64(v: number): this {
    this.ensure(8);
    setI64(this.buf, this.len, v);
    this.len += 8;
    return this;
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  /** protobuf base-128 varint; negative numbers as their 64-bit two's complement (10 bytes) */
  varint(v: number): this {
    if (v < 0) {
      let x = BigInt.asUintN(64, BigInt(v));
      while (x >= 0x80n) {
        this.u8(Number(x & 0x7fn) | 0x80);
        x >>= 7n;
      }
      return this.u8(Number(x));
    }
    while (v >= 0x80) {
      this.u8((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    return this.u8(v);
  }
  /** Hadoop WritableUtils.writeVInt of a non-negative int: one byte below 128, else -112 - n and n bytes */
  hadoopVInt(v: number): this {
    if (v <= 127) return this.u8(v);
    const n = hadoopVIntSize(v) - 1;
    this.u8((-112 - n) & 0xff);
    for (let i = n - 1; i >= 0; i--) this.u8((v >>> (8 * i)) & 0xff);
    return this;
  }
  view(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

function setI32(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 24) & 0xff;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

function setI64(b: Uint8Array, o: number, v: number): void {
  const hi = Math.floor(v / 2 ** 32);
  setI32(b, o, hi | 0);
  setI32(b, o + 4, (v - hi * 2 ** 32) >>> 0);
}

function hadoopVIntSize(v: number): number {
  if (v <= 127) return 1;
  let n = 1;
  for (let t = v; t !== 0; t >>>= 8) n++;
  return n;
}

/** KeyValue key of a Put cell: int16 row length, row, family length 0, timestamp, type. */
function cellKey(row: Uint8Array, suffix = PUT_SUFFIX): Uint8Array {
  const k = new Uint8Array(2 + row.length + suffix.length);
  k[0] = row.length >>> 8;
  k[1] = row.length & 0xff;
  k.set(row, 2);
  k.set(suffix, 2 + row.length);
  return k;
}

/**
 * HFileWriterImpl.getMidpoint for two different rows: the shortest row r with left < r ≤ right
 * that getMinimumMidpointArray finds, as a first-on-row key; the first block gets its real first key.
 */
function indexKey(left: Uint8Array | undefined, right: Uint8Array): Uint8Array {
  if (!left) return cellKey(right);
  const min = Math.min(left.length, right.length);
  let d = 0;
  while (d < min && left[d] === right[d]) d++;
  let mid: Uint8Array;
  if (d >= min) {
    mid = right.subarray(0, d + 1); // left is a prefix of right
  } else if (left[d]! < 0xff && left[d]! + 1 < right[d]!) {
    mid = new Uint8Array(d + 1);
    mid.set(left.subarray(0, d));
    mid[d] = left[d]! + 1;
  } else {
    mid = right.subarray(0, d + 1);
  }
  return cellKey(mid, FIRST_ON_ROW_SUFFIX);
}

/** HFileBlockIndex.BlockIndexChunk: index entries that become a leaf, intermediate or root block. */
class IndexChunk {
  keys: Uint8Array[] = [];
  offsets: number[] = [];
  sizes: number[] = [];
  /** cumulative leaf-level entry counts (root chunk of a multi-level index only) */
  subEntries: number[] = [];
  private nonRootEntries = 0;
  rootSize = 0;

  get count(): number {
    return this.keys.length;
  }

  add(key: Uint8Array, offset: number, size: number, subEntries = -1): void {
    this.nonRootEntries += 12 + key.length;
    this.rootSize += 12 + hadoopVIntSize(key.length) + key.length;
    this.keys.push(key);
    this.offsets.push(offset);
    this.sizes.push(size);
    if (subEntries >= 0) this.subEntries.push(subEntries);
  }

  nonRootSize(): number {
    return 4 + 4 * (this.count + 1) + this.nonRootEntries;
  }

  /** int32 n, n+1 int32 offsets of the entries (after this secondary index), entries (offset, size, key) */
  writeNonRoot(): Uint8Array {
    const b = new Bytes(this.nonRootSize()).i32(this.count);
    let at = 0;
    for (const k of this.keys) {
      b.i32(at);
      at += 12 + k.length;
    }
    b.i32(at);
    for (let i = 0; i < this.count; i++) b.i64(this.offsets[i]!).i32(this.sizes[i]!).bytes(this.keys[i]!);
    return b.view();
  }

  /** entries (int64 offset, int32 size, vint key length, key), then the mid-key metadata if any */
  writeRoot(midKey?: Uint8Array): Uint8Array {
    const b = new Bytes(this.rootSize + 16);
    for (let i = 0; i < this.count; i++) b.i64(this.offsets[i]!).i32(this.sizes[i]!).hadoopVInt(this.keys[i]!.length).bytes(this.keys[i]!);
    if (midKey) b.bytes(midKey);
    return b.view();
  }

  /** getMidKeyMetadata: the leaf block holding the middle entry and its position there */
  midKeyMetadata(): Uint8Array {
    const total = this.subEntries[this.count - 1]!;
    const mid = Math.floor((total - 1) / 2);
    // first i with subEntries[i] > mid (Collections.binarySearch's insertion point, exact match + 1)
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (this.subEntries[m]! <= mid) lo = m + 1;
      else hi = m;
    }
    const before = lo > 0 ? this.subEntries[lo - 1]! : 0;
    return new Bytes(16).i64(this.offsets[lo]!).i32(this.sizes[lo]!).i32(mid - before).view();
  }
}

interface Written {
  offset: number;
  onDiskSize: number;
}

/** Writes one HFile into memory, cell by cell, in strictly ascending key order. */
export class HFileWriter {
  private readonly blockSize: number;
  private readonly codec: 'GZ' | 'NONE';
  private readonly maxChunk: number;
  private readonly minEntries: number;
  private readonly opts: HFileWriteOptions;

  private readonly out: Uint8Array[] = [];
  private pos = 0;
  private readonly prevByKind = new Map<BlockKind, number>();

  private block = new Bytes(1024);
  private writing = false;
  private firstKeyInBlock: Uint8Array | undefined;
  private lastKey: Uint8Array | undefined;
  private lastKeyOfPreviousBlock: Uint8Array | undefined;

  private entryCount = 0;
  private totalKeyLength = 0;
  private totalValueLength = 0;
  private totalUncompressedBytes = 0;
  private firstDataBlockOffset = -1;
  private lastDataBlockOffset = -1;

  // BlockIndexWriter state
  private rootChunk = new IndexChunk();
  private inlineChunk: IndexChunk | undefined = new IndexChunk();
  private numLevels = 1;
  private totalIndexEntries = 0;
  private indexUncompressedSize = 0;
  private finished = false;

  constructor(opts: HFileWriteOptions = {}) {
    this.opts = opts;
    this.blockSize = opts.blockSize ?? DEFAULT_BLOCK_SIZE;
    this.codec = opts.codec ?? 'GZ';
    this.maxChunk = opts.maxIndexChunkSize ?? DEFAULT_MAX_CHUNK_SIZE;
    this.minEntries = opts.minIndexEntries ?? DEFAULT_MIN_INDEX_ENTRIES;
    if (!Number.isSafeInteger(this.blockSize) || this.blockSize <= 0) throw new TblError('bug', `HFile writer: bad block size ${this.blockSize}`);
    if (this.codec !== 'GZ' && this.codec !== 'NONE') throw new TblError('bug', `HFile writer: unsupported codec ${String(this.codec)}`);
    if (!Number.isSafeInteger(this.maxChunk) || this.maxChunk <= 0) throw new TblError('bug', `HFile writer: bad index chunk size ${this.maxChunk}`);
    if (!Number.isSafeInteger(this.minEntries) || this.minEntries < 2) throw new TblError('bug', `HFile writer: index blocks need at least 2 entries, got ${this.minEntries}`);
    for (const k of Object.keys(opts.fileInfo ?? {})) {
      if (k.startsWith('hfile.') || RESERVED_INFO.has(k)) throw new TblError('bug', `HFile writer: file-info key ${JSON.stringify(k)} is written by the writer itself`);
    }
  }

  /** Appends a cell; keys must ascend strictly by unsigned bytes (Hudi de-duplicates MDT records first). */
  append(key: Uint8Array | string, value: Uint8Array): void {
    if (this.finished) throw new TblError('bug', 'HFile writer: append after finish');
    // a copy of byte keys: the last key is kept for the order check and the index
    const row = typeof key === 'string' ? utf8.encode(key) : key.slice();
    if (row.length > MAX_ROW_LENGTH) {
      throw new TblError('bug', `HFile writer: key of ${row.length} bytes is longer than HBase's ${MAX_ROW_LENGTH}`, { key: utf8Dec.decode(row.subarray(0, 64)) });
    }
    if (this.lastKey && compareBytes(this.lastKey, row) >= 0) {
      const what = compareBytes(this.lastKey, row) === 0 ? 'duplicate key' : 'key out of order';
      throw new TblError('bug', `HFile writer: ${what}: ${shown(row)} after ${shown(this.lastKey)}`, { key: utf8Dec.decode(row) });
    }
    // HFileWriterImpl.checkBlockBoundary: cut before the cell once the block has reached the size
    if (this.writing && this.block.len >= this.blockSize) {
      this.finishBlock();
      this.writeInlineBlocks(false);
    }
    if (!this.writing) this.newBlock();
    const keyLen = row.length + 12;
    this.block.i32(keyLen).i32(value.length).i16(row.length).bytes(row).bytes(PUT_SUFFIX).bytes(value).u8(0); // MVCC vlong 0
    this.totalKeyLength += keyLen;
    this.totalValueLength += value.length;
    this.firstKeyInBlock ??= row;
    this.lastKey = row;
    this.entryCount++;
  }

  /** Writes the index, meta blocks, file info and trailer; returns the whole file. */
  finish(): Uint8Array {
    if (this.finished) throw new TblError('bug', 'HFile writer: finish called twice');
    this.finished = true;
    this.finishBlock();
    this.writeInlineBlocks(true);

    // meta blocks, sorted by name bytes (appendMetaBlock keeps equal names in insertion order)
    const enc = (this.opts.metaBlocks ?? []).map((m, i) => ({ name: utf8.encode(m.name), bytes: m.bytes, i }));
    enc.sort((a, b) => compareBytes(a.name, b.name) || a.i - b.i);
    const metaIndex = new IndexChunk();
    for (const m of enc) {
      const w = this.writeBlock('META', m.bytes);
      this.totalUncompressedBytes += BLOCK_HEADER_SIZE + m.bytes.length;
      metaIndex.add(m.name, w.offset, w.onDiskSize);
    }

    // data index: intermediate levels while the root is too big, then the root (writeIndexBlocks)
    const midKey = this.numLevels > 1 ? this.rootChunk.midKeyMetadata() : undefined;
    if (this.inlineChunk) {
      while (this.rootChunk.rootSize > this.maxChunk && this.rootChunk.count > this.minEntries && this.numLevels < 16) {
        this.rootChunk = this.writeIntermediateLevel(this.rootChunk);
        this.numLevels++;
      }
    }
    const rootOffset = this.pos;
    const root = this.rootChunk.writeRoot(midKey);
    this.writeBlock('ROOT_INDEX', root);
    this.indexUncompressedSize += root.length;

    const meta = metaIndex.writeRoot();
    this.writeBlock('ROOT_INDEX', meta);
    this.totalUncompressedBytes += BLOCK_HEADER_SIZE + meta.length;

    const fileInfoOffset = this.pos;
    const info = this.fileInfoPayload();
    this.writeBlock('FILE_INFO', info);
    this.totalUncompressedBytes += BLOCK_HEADER_SIZE + info.length;

    this.writeTrailer(fileInfoOffset, rootOffset, enc.length);
    const file = new Uint8Array(this.pos);
    let o = 0;
    for (const piece of this.out) {
      file.set(piece, o);
      o += piece.length;
    }
    this.out.length = 0;
    return file;
  }

  private newBlock(): void {
    this.writing = true;
    this.block.len = 0;
    this.firstKeyInBlock = undefined;
    if (this.lastKey) this.lastKeyOfPreviousBlock = this.lastKey;
  }

  private finishBlock(): void {
    if (!this.writing || this.block.len === 0) return;
    this.writing = false;
    if (this.firstDataBlockOffset < 0) this.firstDataBlockOffset = this.pos;
    this.lastDataBlockOffset = this.pos;
    const payload = this.block.view();
    const w = this.writeBlock('DATA', payload);
    this.inlineChunk!.add(indexKey(this.lastKeyOfPreviousBlock, this.firstKeyInBlock!), w.offset, w.onDiskSize);
    this.totalIndexEntries++;
    this.totalUncompressedBytes += BLOCK_HEADER_SIZE + payload.length;
  }

  /** BlockIndexWriter.shouldWriteBlock / writeInlineBlock / blockWritten for the leaf level. */
  private writeInlineBlocks(closing: boolean): void {
    for (;;) {
      const chunk = this.inlineChunk;
      if (!chunk || chunk.count === 0) return;
      if (closing && this.rootChunk.count === 0) {
        // too few entries for a leaf block: they become the (single-level) root
        this.rootChunk = chunk;
        this.inlineChunk = undefined;
        return;
      }
      if (!closing && chunk.nonRootSize() < this.maxChunk) return;
      const payload = chunk.writeNonRoot();
      const firstKey = chunk.keys[0]!;
      this.inlineChunk = new IndexChunk();
      const w = this.writeBlock('LEAF_INDEX', payload);
      this.indexUncompressedSize += payload.length;
      this.totalUncompressedBytes += BLOCK_HEADER_SIZE + payload.length;
      if (this.rootChunk.count === 0) this.numLevels = 2;
      this.rootChunk.add(firstKey, w.offset, w.onDiskSize, this.totalIndexEntries);
    }
  }

  private writeIntermediateLevel(level: IndexChunk): IndexChunk {
    const parent = new IndexChunk();
    let cur = new IndexChunk();
    const flush = (): void => {
      const payload = cur.writeNonRoot();
      const w = this.writeBlock('INTERMEDIATE_INDEX', payload);
      this.indexUncompressedSize += payload.length;
      parent.add(cur.keys[0]!, w.offset, w.onDiskSize);
      cur = new IndexChunk();
    };
    for (let i = 0; i < level.count; i++) {
      cur.add(level.keys[i]!, level.offsets[i]!, level.sizes[i]!);
      // HBASE-16288: i counts over the whole level, so only the first chunk waits for minEntries
      if (i >= this.minEntries && cur.rootSize >= this.maxChunk) flush();
    }
    if (cur.count > 0) flush();
    return parent;
  }

  private compress(payload: Uint8Array): Uint8Array {
    if (this.codec === 'NONE') return payload;
    if (this.opts.compressor) return this.opts.compressor(payload);
    const z = gzipSync(payload);
    // java.util.zip.GZIPOutputStream's fixed header (HBase ReusableStreamGzipCodec): XFL 0, OS 0 (zlib writes OS 3)
    z[8] = 0;
    z[9] = 0;
    return z;
  }

  /** HFileBlock.Writer: header, compressed payload, one CRC32C per 16 KiB of header + payload. */
  private writeBlock(kind: BlockKind, payload: Uint8Array): Written {
    const body = this.compress(payload);
    const dataLen = BLOCK_HEADER_SIZE + body.length;
    const chunks = Math.ceil(dataLen / BYTES_PER_CHECKSUM);
    const b = new Uint8Array(dataLen + 4 * chunks);
    const magic = BLOCK_MAGIC[kind];
    for (let i = 0; i < 8; i++) b[i] = magic.charCodeAt(i);
    setI32(b, 8, b.length - BLOCK_HEADER_SIZE);
    setI32(b, 12, payload.length);
    setI64(b, 16, this.prevByKind.get(kind) ?? -1);
    b[24] = CHECKSUM_CRC32C;
    setI32(b, 25, BYTES_PER_CHECKSUM);
    setI32(b, 29, dataLen);
    b.set(body, BLOCK_HEADER_SIZE);
    for (let c = 0; c < chunks; c++) {
      const s = c * BYTES_PER_CHECKSUM;
      setI32(b, dataLen + 4 * c, crc32c(b, s, Math.min(dataLen, s + BYTES_PER_CHECKSUM)));
    }
    const offset = this.pos;
    this.prevByKind.set(kind, offset);
    this.out.push(b);
    this.pos += b.length;
    return { offset, onDiskSize: b.length };
  }

  /** "PBUF" + delimited InfoProto { repeated BytesBytesPair map_entry = 1 }, keys in byte order (HFileInfo). */
  private fileInfoPayload(): Uint8Array {
    const n = this.entryCount;
    const entries = new Map<string, Uint8Array>();
    for (const [k, v] of Object.entries(this.opts.fileInfo ?? {})) entries.set(k, typeof v === 'string' ? utf8.encode(v) : v);
    entries.set('KEY_VALUE_VERSION', new Bytes(4).i32(1).view());
    entries.set('MAX_MEMSTORE_TS_KEY', new Bytes(8).i64(0).view());
    if (this.lastKey) entries.set('hfile.LASTKEY', cellKey(this.lastKey));
    entries.set('hfile.AVG_KEY_LEN', new Bytes(4).i32(n === 0 ? 0 : Math.floor(this.totalKeyLength / n)).view());
    entries.set('hfile.CREATE_TIME_TS', new Bytes(8).i64(this.opts.createTimeMs ?? 0).view());
    entries.set('hfile.AVG_VALUE_LEN', new Bytes(4).i32(n === 0 ? 0 : Math.floor(this.totalValueLength / n)).view());
    const sorted = [...entries].map(([k, v]) => [utf8.encode(k), v] as const).sort((a, b) => compareBytes(a[0], b[0]));
    const msg = new Bytes(1024);
    for (const [k, v] of sorted) {
      const pairLen = 1 + varintSize(k.length) + k.length + 1 + varintSize(v.length) + v.length;
      msg.u8(0x0a).varint(pairLen).u8(0x0a).varint(k.length).bytes(k).u8(0x12).varint(v.length).bytes(v);
    }
    return new Bytes(msg.len + 16).u8(0x50).u8(0x42).u8(0x55).u8(0x46).varint(msg.len).bytes(msg.view()).view();
  }

  /** FixedFileTrailer v3: magic, delimited FileTrailerProto, zero padding, int32 (minor << 24 | major). */
  private writeTrailer(fileInfoOffset: number, rootOffset: number, metaCount: number): void {
    const p = new Bytes(256)
      .u8(0x08).varint(fileInfoOffset)
      .u8(0x10).varint(rootOffset)
      .u8(0x18).varint(this.indexUncompressedSize)
      .u8(0x20).varint(this.totalUncompressedBytes + TRAILER_SIZE)
      .u8(0x28).varint(this.rootChunk.count)
      .u8(0x30).varint(metaCount)
      .u8(0x38).varint(this.entryCount)
      .u8(0x40).varint(this.numLevels)
      .u8(0x48).varint(this.firstDataBlockOffset)
      .u8(0x50).varint(this.lastDataBlockOffset);
    const cmp = utf8.encode(this.opts.comparatorClassName ?? HOODIE_KV_COMPARATOR);
    p.u8(0x5a).varint(cmp.length).bytes(cmp);
    p.u8(0x60).varint(CODECS.indexOf(this.codec));
    const t = new Uint8Array(TRAILER_SIZE);
    const head = new Bytes(p.len + 16);
    for (let i = 0; i < 8; i++) head.u8(BLOCK_MAGIC.TRAILER.charCodeAt(i));
    head.varint(p.len).bytes(p.view());
    if (head.len > TRAILER_SIZE - 4) throw new TblError('bug', `HFile writer: trailer of ${head.len} bytes does not fit`);
    t.set(head.view());
    setI32(t, TRAILER_SIZE - 4, (MINOR_VERSION << 24) | MAJOR_VERSION);
    this.out.push(t);
    this.pos += t.length;
  }
}

function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** Writes cells (strictly ascending keys) as one HFile. */
export function writeHFile(cells: Iterable<HFileCell>, opts: HFileWriteOptions = {}): Uint8Array {
  const w = new HFileWriter(opts);
  for (const c of cells) w.append(c.key, c.value);
  return w.finish();
}
