// The packed form of openHoodieParquetWriter (compaction, issue 6): row groups arrive as PackedColumns
// (packed.ts) and are encoded straight from their bytes — no JS value per row — as hyparquet-writer
// encodes them: DATA_PAGE_V2 pages split at the same page size, a dictionary when it at least halves
// the plain bytes (same sampling rule), min/max/null/NaN statistics, an offset index for multi-page
// chunks. GZIP pages are compressed on libuv's thread pool while the caller merges the next row group.
// The file framing, indexes and footer are hyparquet-writer's ParquetWriter; the Hudi footer keys
// (bloom filter, min/max record key, Avro schema) are the row writer's.
import { gzip } from 'node:zlib';
import type { ColumnChunk, Encoding, OffsetIndex, SchemaElement } from 'hyparquet';
import { ParquetWriter } from 'hyparquet-writer';
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { snappyCompress } from './snappy.ts';
import { TblError } from '../errors/index.ts';
import { BloomBatch, HoodieBloomFilter } from './bloom.ts';
import { columnOfIds, PackedColumn, pageLocationsOf, SpanSet } from './packed.ts';
import { rleHybrid } from './rle-hybrid.ts';
import { compareBytes, concatBytes, equalBytes, moveBytes, viewOf } from '../util/byte-spans.ts';
import { ChunkWriter, closeHoodieFile, closeHoodieFileParts, DEFAULT_ROW_GROUP_ROWS, type HoodieParquetParts, type HoodieParquetWriterOptions } from './write-incremental.ts';
import { gzipLevelOf, hoodieWriterOptions, prepareHoodieSchema, RecordKeyTracker, writeFailed, type HoodieParquetFile, type ParquetCodec } from './write.ts';

const NO_BYTES: Uint8Array = new Uint8Array(0);

// Scratch arrays of the encoder, reused column after column (each is consumed before the next column
// starts): large typed arrays per page and column would otherwise make most of this thread's GC work.
const scratch = { ints: [new Int32Array(1024), new Int32Array(1024)], levels: new Uint8Array(1024) };
function scratchInts(k: 0 | 1, n: number): Int32Array {
  if (scratch.ints[k]!.length < n) scratch.ints[k] = new Int32Array(n);
  return scratch.ints[k]!.subarray(0, n);
}
function scratchLevels(n: number): Uint8Array {
  if (scratch.levels.length < n) scratch.levels = new Uint8Array(n);
  return scratch.levels.subarray(0, n);
}

type Codec = 'GZIP' | 'SNAPPY' | 'UNCOMPRESSED';

function unsupportedCodec(codec: unknown): TblError {
  return new TblError('usage', `parquet codec ${String(codec)} cannot be written (GZIP, SNAPPY or UNCOMPRESSED)`);
}

/** The codec, checked: the writer takes exactly these three (a codec given from JS or over the worker wire is not typed). */
export function packedCodecOf(codec: unknown): Codec {
  switch (codec) {
    case 'GZIP':
    case 'SNAPPY':
    case 'UNCOMPRESSED':
      return codec;
    default:
      throw unsupportedCodec(codec);
  }
}

export function compress(codec: Codec, level: number, b: Uint8Array): Promise<Uint8Array> {
  switch (codec) {
    case 'UNCOMPRESSED':
      return Promise.resolve(b);
    case 'SNAPPY':
      return Promise.resolve(b.length === 0 ? b : snappyCompress(b));
    case 'GZIP':
      // on libuv's pool; the same bytes as the row writer's gzipSync at this level (an empty page too).
      // One output chunk the size of the input: zlib's default 16 KiB chunks make a trip to the pool
      // and back per chunk (~0.1 s of this thread's time on the compaction bench)
      return new Promise((resolve, reject) =>
        gzip(b, { level, chunkSize: Math.max(16384, b.length + 1024) }, (e, out) => (e ? reject(e) : resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)))),
      );
    default:
      throw unsupportedCodec(codec);
  }
}

// ---- dictionary ----

/**
 * hyparquet-writer's useDictionary rule on packed values: the indexes per row (-1 = null; a scratch
 * array, valid until the next column), or undefined for PLAIN.
 */
function dictionaryFor(col: PackedColumn): { dict: PackedColumn; indexes: Int32Array } | undefined {
  if (col.type === 'BOOLEAN') return undefined;
  const n = col.length;
  const dv = col.view();
  const prefix = col.width ? 0 : 4;
  const sizeOf = (i: number) => col.end(i) - col.start(i) + prefix;
  // sample: reject columns whose sampled distinct bytes exceed 90% of the sampled bytes
  const sampleSize = Math.min(n, 1000);
  const sample = new SpanSet(col.type, sampleSize);
  let sampleDistinct = 0;
  let sampleTotal = 0;
  let sawNull = false;
  for (let k = 0; k < sampleSize; k++) {
    const i = sampleSize === 1 ? 0 : Math.floor((k * (n - 1)) / (sampleSize - 1));
    if (col.nulls[i]) {
      sawNull = true;
      continue;
    }
    const before = sample.dict.length;
    sample.indexOf(col.data, dv, col.start(i), col.end(i));
    const size = sizeOf(i);
    if (sample.dict.length > before) sampleDistinct += size;
    sampleTotal += size;
  }
  void sawNull;
  if (!sampleTotal || sampleDistinct / sampleTotal > 0.9) return undefined;
  const set = new SpanSet(col.type, 1024);
  const indexes = scratchInts(0, n);
  let total = 0;
  let nonNull = 0;
  // the last two distinct values met: runs of one value (commit times, partitions) and runs broken
  // by single others (a compaction's updated rows among base rows) skip the hash table
  let ps = 0;
  let pe = -1;
  let pi = -1;
  let qs = 0;
  let qe = -1;
  let qi = -1;
  const d = col.data;
  for (let i = 0; i < n; i++) {
    if (col.nulls[i]) {
      indexes[i] = -1;
      continue;
    }
    const s = col.start(i);
    const e = col.end(i);
    if (pi >= 0 && pe - ps === e - s && equalBytes(d, dv, ps, d, dv, s, e - s)) indexes[i] = pi;
    else {
      const x = qi >= 0 && qe - qs === e - s && equalBytes(d, dv, qs, d, dv, s, e - s) ? qi : set.indexOf(d, dv, s, e);
      indexes[i] = x;
      qs = ps;
      qe = pe;
      qi = pi;
      ps = s;
      pe = e;
      pi = x;
    }
    total += e - s;
    nonNull++;
  }
  const dict = set.dict;
  const bitWidth = Math.ceil(Math.log2(dict.length));
  const indexSize = Math.ceil((nonNull * bitWidth) / 8);
  const plainSize = total + nonNull * prefix;
  const dictSize = dict.size + dict.length * prefix;
  if (2 * (dictSize + indexSize) > plainSize) return undefined;
  return { dict, indexes };
}

/**
 * Values given as indexes into a dictionary of distinct values (ids[i]: row i's index, -1 = null;
 * `col` their nulls), a column of a larger one's: dictionaryFor's decision and result, from the
 * indexes instead of hashing every value — the same sample, the same first-appearance order, the same
 * size rule.
 */
export interface ValueIds {
  ids: Int32Array;
  /** the distinct values (never null) */
  values: PackedColumn;
  /**
   * `col` holds the nulls only, no bytes (every value's offsets 0): its values are those of the
   * ids, taken from `values` only where the dictionary is not kept. Not for the record key.
   */
  onlyIds?: boolean;
}

function dictionaryOfIds(col: PackedColumn, given: ValueIds): { dict: PackedColumn; indexes: Int32Array } | null {
  if (col.type === 'BOOLEAN') return null;
  const { ids, values } = given;
  const n = col.length;
  const prefix = values.width ? 0 : 4;
  const sizeOf = (x: number) => values.end(x) - values.start(x) + prefix;
  const local = new Int32Array(values.length).fill(-1);
  const sampleSize = Math.min(n, 1000);
  let sampleDistinct = 0;
  let sampleTotal = 0;
  for (let k = 0; k < sampleSize; k++) {
    const i = sampleSize === 1 ? 0 : Math.floor((k * (n - 1)) / (sampleSize - 1));
    const x = ids[i]!;
    if (x < 0) continue;
    const size = sizeOf(x);
    if (local[x] === -1) {
      local[x] = 0;
      sampleDistinct += size;
    }
    sampleTotal += size;
  }
  if (!sampleTotal || sampleDistinct / sampleTotal > 0.9) return null;
  local.fill(-1);
  const dict = new PackedColumn(col.type, 64);
  const indexes = scratchInts(0, n);
  // the values' bytes in all: a fixed width times the values, else summed from the offsets
  const w = values.width;
  const vo = values.offsets;
  let total = 0;
  let nonNull = 0;
  for (let i = 0; i < n; i++) {
    const x = ids[i]!;
    if (x < 0) {
      indexes[i] = -1;
      continue;
    }
    let l = local[x]!;
    if (l < 0) {
      l = local[x] = dict.length;
      dict.appendBytes(values.data, values.start(x), values.end(x));
    }
    indexes[i] = l;
    if (!w) total += vo[x + 1]! - vo[x]!;
    nonNull++;
  }
  if (w) total = nonNull * w;
  const bitWidth = Math.ceil(Math.log2(dict.length));
  const indexSize = Math.ceil((nonNull * bitWidth) / 8);
  const plainSize = total + nonNull * prefix;
  const dictSize = dict.size + dict.length * prefix;
  if (2 * (dictSize + indexSize) > plainSize) return null;
  return { dict, indexes };
}

// ---- statistics ----

interface Stats {
  min_value?: unknown;
  max_value?: unknown;
  null_count: bigint;
  nan_count?: bigint;
}

/** min/max over the non-null values of `col` (or of its dictionary, which holds exactly those values). */
function statistics(col: PackedColumn, values: PackedColumn, element: SchemaElement): Stats {
  const stats: Stats = { null_count: BigInt(col.nullCount) };
  const float = element.type === 'FLOAT' || element.type === 'DOUBLE';
  if (float) stats.nan_count = 0n;
  const d = values.data;
  const dv = values.view();
  let lo = -1;
  let hi = -1;
  let nan = 0;
  if (element.type === 'BYTE_ARRAY') {
    for (let i = 0; i < values.length; i++) {
      if (values.nulls[i]) continue;
      const s = values.start(i);
      const e = values.end(i);
      // increasing values (keys, sequence numbers) are decided by one comparison
      if (hi < 0) lo = hi = i;
      else if (compareBytes(d, dv, s, e, d, dv, values.start(hi), values.end(hi)) > 0) hi = i;
      else if (compareBytes(d, dv, s, e, d, dv, values.start(lo), values.end(lo)) < 0) lo = i;
    }
    if (lo >= 0) {
      stats.min_value = d.slice(values.start(lo), values.end(lo));
      stats.max_value = d.slice(values.start(hi), values.end(hi));
    }
    return stats;
  }
  if (element.type === 'INT64') {
    // compared as (high, low) words: a BigInt per value cost more than the rest of the column's stats
    let mh = 0;
    let ml = 0;
    let xh = 0;
    let xl = 0;
    let any = false;
    for (let i = 0; i < values.length; i++) {
      if (values.nulls[i]) continue;
      const at = values.start(i);
      const h = dv.getInt32(at + 4, true);
      const l = dv.getUint32(at, true);
      if (!any) {
        mh = xh = h;
        ml = xl = l;
        any = true;
        continue;
      }
      if (h < mh || (h === mh && l < ml)) {
        mh = h;
        ml = l;
      }
      if (h > xh || (h === xh && l > xl)) {
        xh = h;
        xl = l;
      }
    }
    if (any) {
      stats.min_value = (BigInt(mh) << 32n) | BigInt(ml);
      stats.max_value = (BigInt(xh) << 32n) | BigInt(xl);
    }
    return stats;
  }
  let min: number | undefined;
  let max: number | undefined;
  for (let i = 0; i < values.length; i++) {
    if (values.nulls[i]) continue;
    const at = values.start(i);
    let v: number;
    switch (element.type) {
      case 'INT32':
        v = dv.getInt32(at, true);
        break;
      case 'FLOAT':
        v = dv.getFloat32(at, true);
        break;
      case 'DOUBLE':
        v = dv.getFloat64(at, true);
        break;
      default:
        v = d[at]!;
    }
    if (float && Number.isNaN(v)) {
      nan++;
      continue;
    }
    if (min === undefined || v < min) min = v;
    if (max === undefined || v > max) max = v;
  }
  // NaN counts every NaN row, not distinct dictionary entries
  if (float) {
    if (values !== col && nan > 0) {
      nan = 0;
      const cv = col.view();
      for (let i = 0; i < col.length; i++) {
        if (col.nulls[i]) continue;
        const at = col.start(i);
        if (Number.isNaN(element.type === 'FLOAT' ? cv.getFloat32(at, true) : cv.getFloat64(at, true))) nan++;
      }
    }
    stats.nan_count = BigInt(nan);
  }
  if (min !== undefined) {
    if (element.type === 'BOOLEAN') {
      stats.min_value = min === 1;
      stats.max_value = max === 1;
    } else {
      stats.min_value = min === 0 ? -0 : min;
      stats.max_value = max === 0 ? 0 : max;
    }
  }
  return stats;
}

// ---- pages ----

interface Page {
  dictionary: boolean;
  levels: Uint8Array;
  values: Uint8Array;
  numValues: number;
  numNulls: number;
  firstRow: number;
  encoding: Encoding;
}

/** PLAIN bytes of the non-null values [from, to) of `col`, in a fresh buffer (the column's buffers get reused). */
function plainBytes(col: PackedColumn, from: number, to: number): Uint8Array {
  const nulls = col.nulls;
  if (col.type === 'BOOLEAN') {
    const out = new Uint8Array((to - from + 7) >> 3);
    let bit = 0;
    for (let i = from; i < to; i++) {
      if (nulls[i]) continue;
      if (col.data[i]) out[bit >> 3]! |= 1 << (bit & 7);
      bit++;
    }
    return out.subarray(0, (bit + 7) >> 3);
  }
  const w = col.width;
  const d = col.data;
  if (w) {
    if (col.nullsIn(from, to) === 0) return d.slice(from * w, to * w);
    const out = new Uint8Array((to - from) * w);
    let at = 0;
    for (let i = from; i < to; i++) {
      if (nulls[i]) continue;
      for (let k = i * w; k < (i + 1) * w; k++) out[at++] = d[k]!;
    }
    return out.subarray(0, at);
  }
  const o = col.offsets;
  let size = 0;
  for (let i = from; i < to; i++) if (!nulls[i]) size += 4 + o[i + 1]! - o[i]!;
  const out = new Uint8Array(size);
  const ov = viewOf(out);
  const dv = col.view();
  let at = 0;
  for (let i = from; i < to; i++) {
    if (nulls[i]) continue;
    const s = o[i]!;
    const len = o[i + 1]! - s;
    ov.setUint32(at, len, true);
    at += 4;
    if (len <= 64) moveBytes(d, dv, s, out, ov, at, len);
    else out.set(d.subarray(s, s + len), at);
    at += len;
  }
  return out;
}

/**
 * A column whose n values are all `value` (never null), as dictionaryFor would see it: the dictionary
 * of that one value from 2 rows on (one row stays PLAIN, as hyparquet-writer's rules give).
 */
function constantColumn(type: PackedColumn['type'], value: Uint8Array, n: number): { col: PackedColumn; dict?: { dict: PackedColumn; indexes: Int32Array } } {
  const col = new PackedColumn(type, n < 2 ? 1 : 0);
  if (n < 2) {
    for (let i = 0; i < n; i++) col.appendBytes(value);
    return { col };
  }
  col.nulls = new Uint8Array(n);
  col.length = n;
  const dict = new PackedColumn(type, 1);
  dict.appendBytes(value);
  return { col, dict: { dict, indexes: new Int32Array(n) } };
}

/** `given`: the dictionary decided already (null: none), else dictionaryFor decides. */
function columnPages(col: PackedColumn, element: SchemaElement, pageSize: number, given?: { dict: PackedColumn; indexes: Int32Array } | null, withStats = true): { pages: Page[]; dict?: PackedColumn; stats?: Stats } {
  const d = given === undefined ? dictionaryFor(col) : given;
  const n = col.length;
  const optional = element.repetition_type !== 'REQUIRED';
  if (!optional && col.nullCount) throw new Error(`parquet required value is undefined in ${element.name}`);
  const stats = withStats ? statistics(col, d ? d.dict : col, element) : undefined;
  // hyparquet-writer writes a BOOLEAN chunk of more than 16 values RLE-encoded (writeColumn)
  const booleanRle = col.type === 'BOOLEAN' && !d && n > 16;
  // page boundaries on the estimated value sizes hyparquet-writer uses (indexes count 4 bytes)
  const bounds: number[] = [0];
  let acc = 0;
  let start = 0;
  const nulls = col.nulls;
  if (col.type === 'BOOLEAN' && !d) {
    for (let i = 0; i < n; i++) {
      const size = nulls[i] ? 0 : 0.125;
      acc += size;
      if (acc >= pageSize && i > start) {
        bounds.push(i);
        start = i;
        acc = size;
      }
    }
  } else if (d || col.width) {
    // integer sizes (one loop per kind: this runs over every value of every column)
    const w = d ? 4 : col.width;
    if (col.nullCount === 0) {
      // without nulls every page but the last holds the same number of values
      const per = Math.max(1, Math.ceil(pageSize / w) - 1);
      for (let i = per; i < n; i += per) bounds.push(i);
    } else {
      for (let i = 0; i < n; i++) {
        const size = nulls[i] ? 0 : w;
        acc += size;
        if (acc >= pageSize && i > start) {
          bounds.push(i);
          start = i;
          acc = size;
        }
      }
    }
  } else {
    // a page ends at the first value past `start` whose bytes bring it to pageSize: the offsets
    // sum the sizes (a null's span is empty), so it is found by bisection
    const o = col.offsets;
    for (;;) {
      const base = o[start]!;
      let lo = start + 1;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (o[mid + 1]! - base >= pageSize) hi = mid;
        else lo = mid + 1;
      }
      if (lo >= n) break;
      bounds.push(lo);
      start = lo;
    }
  }
  bounds.push(n);
  const pages: Page[] = [];
  for (let p = 0; p + 1 < bounds.length; p++) {
    const from = bounds[p]!;
    const to = bounds[p + 1]!;
    if (from === to) continue;
    let numNulls = 0;
    let levelBytes = NO_BYTES;
    if (optional) {
      const levels = scratchLevels(to - from);
      if (col.nullCount === 0) levels.fill(1);
      else {
        for (let i = from; i < to; i++) {
          levels[i - from] = nulls[i] ? 0 : 1;
          numNulls += nulls[i]!;
        }
      }
      levelBytes = rleHybrid(levels, levels.length, 1);
    }
    let values: Uint8Array;
    if (d) {
      let idx: Int32Array;
      let maxIndex = 0;
      if (numNulls === 0) {
        // the page's indexes as they are; a whole chunk's use every dictionary entry
        idx = d.indexes.subarray(from, to);
        if (from === 0 && to === n) maxIndex = d.dict.length - 1;
        else for (let i = 0; i < idx.length; i++) if (idx[i]! > maxIndex) maxIndex = idx[i]!;
      } else {
        idx = scratchInts(1, to - from - numNulls);
        let k = 0;
        for (let i = from; i < to; i++) {
          const x = d.indexes[i]!;
          if (x < 0) continue;
          idx[k++] = x;
          if (x > maxIndex) maxIndex = x;
        }
      }
      const bitWidth = Math.ceil(Math.log2(maxIndex + 1));
      values = rleHybrid(idx, idx.length, bitWidth, bitWidth);
    } else if (booleanRle) values = rleBooleans(col, from, to);
    else values = plainBytes(col, from, to);
    pages.push({
      dictionary: false,
      levels: levelBytes,
      values,
      numValues: to - from,
      numNulls,
      firstRow: from,
      encoding: d ? 'RLE_DICTIONARY' : booleanRle ? 'RLE' : 'PLAIN',
    });
  }
  return { pages, dict: d?.dict, stats };
}

/** The non-null booleans of rows [from, to) RLE/bit-packed at width 1, after their 4-byte byte length (as hyparquet-writer's RLE pages). */
function rleBooleans(col: PackedColumn, from: number, to: number): Uint8Array {
  const bits = scratchLevels(to - from);
  let k = 0;
  for (let i = from; i < to; i++) if (!col.nulls[i]) bits[k++] = col.data[i] ? 1 : 0;
  const body = rleHybrid(bits, k, 1);
  const out = new Uint8Array(4 + body.length);
  viewOf(out).setUint32(0, body.length, true);
  out.set(body, 4);
  return out;
}

interface EncodedColumn {
  element: SchemaElement;
  dict?: { values: Uint8Array; count: number; compressed: Promise<Uint8Array> };
  pages: (Page & { compressed: Promise<Uint8Array> })[];
  /** undefined: written without statistics (statistics: false) */
  stats?: Stats;
  rows: number;
  verbatim?: VerbatimChunk;
}

/**
 * A column chunk of another file holding exactly this row group's values of the column, written
 * as it is (pages, dictionary, statistics) instead of encoding the values again: a compacted row group
 * whose rows are its base row group's, in order, with this column unchanged. `bytes` = the chunk's
 * bytes from `begin`, its offset in that file.
 */
export interface VerbatimChunk {
  bytes: Uint8Array;
  begin: number;
  meta: NonNullable<ColumnChunk['meta_data']>;
}

/** Whether a chunk of another file can stand for column `element` in this writer's file. */
export function verbatimFits(meta: NonNullable<ColumnChunk['meta_data']>, from: SchemaElement, element: SchemaElement, codec: ParquetCodec | undefined): boolean {
  const st = meta.statistics;
  // plain strings and integers only: their statistics read back and write again exactly
  const plainString = element.type === 'BYTE_ARRAY' && element.converted_type === 'UTF8' && (element.logical_type === undefined || element.logical_type.type === 'STRING');
  const plainInt = (element.type === 'INT32' || element.type === 'INT64') && element.converted_type === undefined && element.logical_type === undefined;
  return (
    (plainString || plainInt) &&
    meta.type === element.type &&
    from.type === element.type &&
    from.converted_type === element.converted_type &&
    from.repetition_type === element.repetition_type &&
    meta.codec === (codec ?? 'GZIP') &&
    st !== undefined &&
    st.null_count !== undefined &&
    (st.null_count === meta.num_values || (st.min_value !== undefined && st.max_value !== undefined))
  );
}

/**
 * The first `rows` keys are those of a file whose footer filter holds them in that order (a compaction
 * that keeps every base row and key): the filter is resumed from it instead of hashing them again.
 */
export interface BloomSeed {
  serialized: string;
  typeCode?: string;
  rows: number;
}

/** One row group encoded and compressed: its bytes (own buffer) and offsets relative to its first byte. */
interface EncodedGroup {
  rows: number;
  bytes: Uint8Array;
  /** offsets relative to `bytes` */
  columns: ColumnChunk[];
  /** per column, page locations relative to `bytes` (only for chunks of several pages) */
  offsetIndexes: (OffsetIndex | undefined)[];
}

/** One column chunk encoded and compressed: its bytes (in parts, copied once into the group's), metadata and page locations relative to its first byte. */
interface EncodedChunk {
  parts: Uint8Array[];
  size: number;
  chunk: ColumnChunk;
  offsetIndex: OffsetIndex | undefined;
}

/** The parts joined; one part that is its whole buffer is returned as it is. */
function joinParts(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.byteOffset === 0 && parts[0]!.byteLength === parts[0]!.buffer.byteLength) return parts[0]!;
  return concatBytes(parts, size);
}

export type PackedWriterOptions = HoodieParquetWriterOptions & {
  bloomSeed?: BloomSeed;
  constants?: (Uint8Array | undefined)[];
  /**
   * The bloom filter is built in two threads, each key added at its row (HoodieBloomFilter.addBytesAt):
   * this writer hashes the keys of rows r with r % every === 0 (every 0: none), the other keys' bits
   * come with finish.
   */
  bloomShared?: { every: number };
};

/** A filter's bits built elsewhere (HoodieBloomFilter.addBytesAt), for PackedWriterOptions.bloomShared. */
export interface GivenBloom {
  filter: HoodieBloomFilter;
  /** keys added (one per row) */
  keys: number;
}

/** Encodes row groups into EncodedGroups (pages, dictionaries, statistics, compression). */
interface PackedGroupEncoder {
  readonly groupRows: number;
  readonly elements: SchemaElement[];
  /** the key column's index in the fields (-1: none) */
  readonly keyIndex: number;
  /** The group's row count (0: nothing to write), checked against the schema and groupRows. */
  check(columns: PackedColumn[]): number;
  /** Checks and encodes now (the columns can be reused once this returns); resolves once compressed. */
  encode(columns: PackedColumn[], verbatim?: (VerbatimChunk | undefined)[]): { rows: number; group: Promise<EncodedGroup> };
  /** Column j of a group of n rows as its chunk (encoded now, the column reusable on return; resolves once compressed). */
  encodeChunk(col: PackedColumn, j: number, n: number, ids?: ValueIds): Promise<EncodedChunk>;
  /** A group of n rows from its chunks in column order. */
  group(chunks: EncodedChunk[], n: number): EncodedGroup;
}

function openPackedGroupEncoder(opts: PackedWriterOptions): PackedGroupEncoder {
  const { schema } = opts;
  const constants = opts.constants ?? [];
  const p = prepareHoodieSchema(schema, opts.recordKeyField);
  const groupRows = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_ROWS;
  const pageSize = opts.pageSize ?? 1048576;
  const codec = packedCodecOf(opts.codec ?? 'GZIP');
  const level = gzipLevelOf(opts.gzipLevel);
  const withStats = opts.statistics !== false;
  const elements = p.parquetSchema.slice(1);
  if (elements.length !== schema.fields.length) throw writeFailed(schema, new PackedWriteError('nested fields are not written packed'));
  const keyIndex = schema.fields.findIndex((f) => f.name === p.keyField);

  // one column chunk's bytes: page headers and page bytes in order (the uncompressed pages are let
  // go); offsets relative to the chunk's first byte
  const layoutColumn = async (c: EncodedColumn): Promise<EncodedChunk> => {
    const parts: Uint8Array[] = [];
    let at = 0;
    const put = (b: Uint8Array): void => {
      parts.push(b);
      at += b.length;
    };
    const header = (h: Parameters<typeof writePageHeader>[1]): void => {
      const w = new ByteWriter(64);
      writePageHeader(w, h);
      put(w.getBytes());
    };
    let chunk: ColumnChunk;
    let offsetIndex: OffsetIndex | undefined;
    if (c.verbatim) {
      const { bytes, begin, meta } = c.verbatim;
      put(bytes);
      const rel = (o: bigint) => BigInt(Number(o) - begin);
      chunk = {
        meta_data: {
          ...meta,
          path_in_schema: [c.element.name],
          data_page_offset: rel(meta.data_page_offset),
          dictionary_page_offset: meta.dictionary_page_offset ? rel(meta.dictionary_page_offset) : undefined,
          index_page_offset: undefined,
          bloom_filter_offset: undefined,
          bloom_filter_length: undefined,
          statistics: { null_count: meta.statistics!.null_count, min_value: meta.statistics!.min_value, max_value: meta.statistics!.max_value },
        },
        file_offset: 0n,
      };
      // the copied pages' locations, as the encoder records them for a chunk of several pages
      const locations = pageLocationsOf(bytes, 0, Number(meta.num_values));
      offsetIndex = locations.length > 1 ? { page_locations: locations } : undefined;
    } else {
      let uncompressed = 0;
      let dictionaryOffset: bigint | undefined;
      const encodings: Encoding[] = [];
      if (c.dict) {
        const bytes = await c.dict.compressed;
        dictionaryOffset = BigInt(at);
        const h = at;
        header({
          type: 'DICTIONARY_PAGE',
          uncompressed_page_size: c.dict.values.length,
          compressed_page_size: bytes.length,
          dictionary_page_header: { num_values: c.dict.count, encoding: 'PLAIN' },
        });
        uncompressed += at - h + c.dict.values.length;
        put(bytes);
        encodings.push('PLAIN');
      }
      const dataEncoding: Encoding = c.dict ? 'RLE_DICTIONARY' : (c.pages[0]?.encoding ?? 'PLAIN');
      encodings.push(dataEncoding);
      const dataOffset = BigInt(at);
      const locations: OffsetIndex['page_locations'] = [];
      for (const page of c.pages) {
        const bytes = await page.compressed;
        const pageOffset = at;
        header({
          type: 'DATA_PAGE_V2',
          uncompressed_page_size: page.levels.length + page.values.length,
          compressed_page_size: page.levels.length + bytes.length,
          data_page_header_v2: {
            num_values: page.numValues,
            num_nulls: page.numNulls,
            num_rows: page.numValues,
            encoding: page.encoding as never,
            definition_levels_byte_length: page.levels.length,
            repetition_levels_byte_length: 0,
            is_compressed: true,
          },
        });
        uncompressed += at - pageOffset + page.levels.length + page.values.length;
        put(page.levels);
        put(bytes);
        locations.push({ offset: BigInt(pageOffset), compressed_page_size: at - pageOffset, first_row_index: BigInt(page.firstRow) });
      }
      chunk = {
        meta_data: {
          type: c.element.type!,
          encodings,
          path_in_schema: [c.element.name],
          codec,
          num_values: BigInt(c.rows),
          total_compressed_size: BigInt(at),
          total_uncompressed_size: BigInt(uncompressed),
          data_page_offset: dataOffset,
          dictionary_page_offset: dictionaryOffset,
          statistics: c.stats as NonNullable<ColumnChunk['meta_data']>['statistics'],
          // hyparquet-writer leaves the encoding stats out with the statistics
          encoding_stats: c.stats && [
            ...(c.dict ? [{ page_type: 'DICTIONARY_PAGE' as const, encoding: 'PLAIN' as const, count: 1 }] : []),
            { page_type: 'DATA_PAGE_V2' as const, encoding: dataEncoding, count: c.pages.length },
          ],
        },
        file_offset: 0n,
      };
      offsetIndex = locations.length > 1 ? { page_locations: locations } : undefined;
    }
    return { parts, size: at, chunk, offsetIndex };
  };

  // the group's bytes: its column chunks in order, each chunk's offsets moved to where it lands
  const layout = (chunks: EncodedChunk[], rows: number): EncodedGroup => {
    const columns: ColumnChunk[] = [];
    const offsetIndexes: (OffsetIndex | undefined)[] = [];
    let at = 0;
    for (const { size, chunk, offsetIndex } of chunks) {
      const by = BigInt(at);
      const m = chunk.meta_data!;
      m.data_page_offset += by;
      if (m.dictionary_page_offset !== undefined) m.dictionary_page_offset += by;
      chunk.file_offset += by;
      if (offsetIndex) for (const l of offsetIndex.page_locations) l.offset += by;
      columns.push(chunk);
      offsetIndexes.push(offsetIndex);
      at += size;
    }
    return { rows, bytes: joinParts(chunks.flatMap((c) => c.parts), at), columns, offsetIndexes };
  };

  /** Encodes column j of a group of n rows now (pages, dictionary, statistics; compression started). */
  const encodeColumn = (col: PackedColumn, j: number, n: number, v: VerbatimChunk | undefined, ids?: ValueIds): EncodedColumn => {
    const element = elements[j]!;
    if (v) {
      if (Number(v.meta.num_values) !== n) throw new Error(`a column chunk of ${v.meta.num_values} values for a row group of ${n} rows`);
      return { element, pages: [], stats: { null_count: 0n }, rows: n, verbatim: v };
    }
    const constant = constants[j] ? constantColumn(col.type, constants[j]!, n) : undefined;
    let given: ReturnType<typeof dictionaryOfIds> | undefined;
    if (ids && !constant) {
      given = dictionaryOfIds(col, ids);
      // no dictionary: the values written plain
      if (!given && ids.onlyIds) col = columnOfIds(col.type, ids.values, ids.ids.subarray(0, col.length));
    }
    const { pages, dict, stats } = constant ? columnPages(constant.col, element, pageSize, constant.dict, withStats) : columnPages(col, element, pageSize, given, withStats);
    let dictPart: EncodedColumn['dict'];
    if (dict) {
      const values = plainBytes(dict, 0, dict.length);
      dictPart = { values, count: dict.length, compressed: compress(codec, level, values) };
    }
    const encoded: EncodedColumn = { element, dict: dictPart, pages: pages.map((pg) => ({ ...pg, compressed: compress(codec, level, pg.values) })), stats, rows: n };
    // no rejection goes unobserved: a failed compression rejects this chunk
    encoded.dict?.compressed.catch(() => undefined);
    for (const pg of encoded.pages) pg.compressed.catch(() => undefined);
    return encoded;
  };

  const check = (columns: PackedColumn[]): number => {
    const n = columns.find((_, j) => !constants[j])?.length ?? 0;
    if (n === 0) return 0;
    if (n > groupRows || columns.length !== elements.length || columns.some((c, j) => !constants[j] && c.length !== n)) {
      throw writeFailed(schema, new Error(`row group of ${n} rows (at most ${groupRows}) with ${columns.length} columns of lengths ${columns.map((c) => c.length).join(',')}`));
    }
    return n;
  };

  return {
    groupRows,
    elements,
    keyIndex,
    check,
    encode(columns, verbatim) {
      const n = check(columns);
      let chunks: Promise<EncodedChunk>[];
      try {
        chunks = columns.map((col, j) => layoutColumn(encodeColumn(col, j, n, verbatim?.[j])));
      } catch (e) {
        throw writeFailed(schema, e);
      }
      for (const c of chunks) c.catch(() => undefined);
      const group = Promise.all(chunks)
        .then((cs) => layout(cs, n))
        .catch((e: unknown) => {
          throw writeFailed(schema, e);
        });
      return { rows: n, group };
    },
    encodeChunk(col, j, n, ids) {
      try {
        const c = layoutColumn(encodeColumn(col, j, n, undefined, ids));
        c.catch(() => undefined);
        return c;
      } catch (e) {
        throw writeFailed(schema, e);
      }
    },
    group(chunks, n) {
      return layout(chunks, n);
    },
  };
}

/**
 * Builds the file from EncodedGroups placed in file order: offsets moved to where each lands, the
 * record keys tracked in file order (bloom filter, min/max keys), the indexes and footer written by
 * hyparquet-writer's ParquetWriter with the Hudi footer keys.
 */
interface PackedFileAssembler {
  /** Tracks the keys of the next rows in file order (call before or after placing their group, in order). */
  addKeys(col: PackedColumn): void;
  place(group: EncodedGroup): void;
  finish(): HoodieParquetFile & { size: number };
  /** finish, the file in its parts; `given`: the other thread's bloom bits (bloomShared) */
  finishParts(given?: GivenBloom): HoodieParquetParts;
}

function openPackedFileAssembler(opts: PackedWriterOptions): PackedFileAssembler {
  const { schema } = opts;
  const p = prepareHoodieSchema(schema, opts.recordKeyField);
  const seed = opts.bloomSeed && opts.bloomFilter !== false ? HoodieBloomFilter.resume(opts.bloomSeed.serialized, opts.bloomSeed.typeCode, opts.bloomSeed.rows, opts.bloomFilter) : undefined;
  if (opts.bloomSeed && opts.bloomFilter !== false && !seed) throw writeFailed(schema, new Error('the bloom filter seed does not resume'));
  const seeded = seed ? opts.bloomSeed!.rows : 0;
  const keys = new RecordKeyTracker(p.keyField, opts.bloomFilter, seed);
  // bloomShared: this thread's share of the filter, and how many keys it holds
  const every = opts.bloomShared?.every ?? 0;
  const own = opts.bloomShared && keys.bloom ? HoodieBloomFilter.create(opts.bloomFilter || {}) : undefined;
  let ownKeys = 0;
  packedCodecOf(opts.codec ?? 'GZIP');
  const sink = new ChunkWriter();
  let pq: ParquetWriter;
  try {
    pq = new ParquetWriter({ writer: sink, ...hoodieWriterOptions(p, opts) });
  } catch (e) {
    throw writeFailed(schema, e);
  }
  let keyRows = 0;
  let rowCount = 0;
  let finished = false;
  const text = new TextDecoder();

  const addKeys = (col: PackedColumn): void => {
    const first = keyRows;
    keyRows += col.length;
    const d = col.data;
    const dv = col.view();
    let lo = -1;
    let hi = -1;
    let plain = true;
    // four keys hashed at once (the keys' bytes stay put until the flush below)
    const target = own ?? keys.bloom;
    const batch = target && new BloomBatch(target);
    for (let i = 0; i < col.length; i++) {
      const s = col.start(i);
      const e = col.end(i);
      if (col.nulls[i] || e === s) throw new TblError('parquet', `row ${first + i} has no record key in ${p.keyField}`);
      if (own) {
        if (every > 0 && (first + i) % every === 0) {
          batch!.addAt(d, s, e, first + i);
          ownKeys++;
        }
      } else if (first + i >= seeded) batch?.add(d, s, e);
      // UTF-8 byte order is UTF-16 order (Java's String.compareTo) unless U+E000.. or supplementary
      // characters occur (lead bytes ≥ 0xee; ASCII words skipped four bytes at a time)
      if (plain) {
        let k = s;
        while (k + 4 <= e && (dv.getInt32(k, true) & 0x80808080) === 0) k += 4;
        for (; k < e; k++) if (d[k]! >= 0xee) plain = false;
      }
      if (hi < 0) lo = hi = i;
      else if (compareBytes(d, dv, s, e, d, dv, col.start(hi), col.end(hi)) > 0) hi = i;
      else if (compareBytes(d, dv, s, e, d, dv, col.start(lo), col.end(lo)) < 0) lo = i;
    }
    batch?.flush();
    const str = (i: number) => text.decode(d.subarray(col.start(i), col.end(i)));
    const candidates = plain ? [lo, hi] : Array.from({ length: col.length }, (_, i) => i);
    for (const i of candidates) {
      if (i < 0) continue;
      const k = str(i);
      if (keys.minKey === undefined || k < keys.minKey) keys.minKey = k;
      if (keys.maxKey === undefined || k > keys.maxKey) keys.maxKey = k;
    }
  };

  return {
    addKeys,
    place(g) {
      if (finished) throw writeFailed(schema, new Error('write after finish'));
      // the group becomes a chunk of the file as it is (no copy); its offsets move by where it starts
      sink.flush();
      const start = sink.offset;
      sink.chunks.push(g.bytes);
      sink.offset += g.bytes.length;
      const by = BigInt(start);
      let total = 0n;
      for (const [j, c] of g.columns.entries()) {
        const m = c.meta_data!;
        m.data_page_offset += by;
        if (m.dictionary_page_offset !== undefined) m.dictionary_page_offset += by;
        c.file_offset += by;
        total += m.total_uncompressed_size;
        const oi = g.offsetIndexes[j];
        if (oi) for (const l of oi.page_locations) l.offset += by;
        pq.pendingIndexes.push({ chunk: c, offsetIndex: oi } as (typeof pq.pendingIndexes)[number]);
      }
      pq.num_rows += BigInt(g.rows);
      pq.row_groups.push({ columns: g.columns as never, total_byte_size: total, num_rows: BigInt(g.rows), total_compressed_size: BigInt(g.bytes.length) });
      rowCount += g.rows;
    },
    finish() {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      if (own) throw writeFailed(schema, new Error('a shared bloom filter comes with finishParts'));
      return closeHoodieFile(pq, sink, schema, keys, rowCount, opts.recordKeyFooter !== false);
    },
    finishParts(given) {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      if (own) {
        if (!given || ownKeys + given.keys !== keyRows) throw writeFailed(schema, new Error(`the bloom filter holds ${ownKeys + (given?.keys ?? 0)} keys of ${keyRows}`));
        // a filter of another shape is refused
        try {
          own.merge(given.filter);
          own.settle(keyRows);
        } catch (e) {
          throw writeFailed(schema, e);
        }
        keys.bloom = own;
      }
      return closeHoodieFileParts(pq, sink, schema, keys, rowCount, opts.recordKeyFooter !== false);
    },
  };
}

export interface HoodiePackedWriter {
  readonly groupRows: number;
  /** rows handed to writeGroup so far */
  readonly rowCount: number;
  /** the schema's top-level parquet elements, in field order */
  readonly elements: SchemaElement[];
  /**
   * Encodes one row group (at most groupRows rows; columns in schema field order; constant columns
   * are not read; `verbatim[j]` is written instead of encoding column j) now; the returned promise
   * settles when it is compressed and appended. The columns can be reused once this returns.
   */
  writeGroup(columns: PackedColumn[], verbatim?: (VerbatimChunk | undefined)[]): Promise<void>;
  /** The most groups handed to writeGroup and not yet compressed and appended, at any one time so far. */
  readonly pendingPeak: number;
  /** Columns of an earlier group the writer is done with, emptied, for the next group (buffers reused); undefined if none. */
  recycle(): PackedColumn[] | undefined;
  finish(): Promise<HoodieParquetFile & { size: number }>;
}

export function openHoodiePackedWriter(opts: PackedWriterOptions): HoodiePackedWriter {
  const encoder = openPackedGroupEncoder(opts);
  const file = openPackedFileAssembler(opts);
  const { schema } = opts;
  let rowCount = 0;
  let pending = 0;
  let pendingPeak = 0;
  let finished = false;
  let done: PackedColumn[] | undefined;
  // groups are placed in write order, each once its pages are compressed
  let tail: Promise<void> = Promise.resolve();
  return {
    groupRows: encoder.groupRows,
    elements: encoder.elements,
    get rowCount() {
      return rowCount;
    },
    get pendingPeak() {
      return pendingPeak;
    },
    writeGroup(columns, verbatim) {
      if (finished) throw writeFailed(schema, new Error('write after finish'));
      const n = encoder.check(columns);
      if (n === 0) return tail;
      if (encoder.keyIndex >= 0) file.addKeys(columns[encoder.keyIndex]!);
      const { group } = encoder.encode(columns, verbatim);
      rowCount += n;
      done = columns;
      pendingPeak = Math.max(pendingPeak, ++pending);
      // a failed compression rejects this group's (and later) placements
      const placed = (tail = tail.then(async () => file.place(await group)));
      placed.then(
        () => pending--,
        () => pending--,
      );
      return placed.catch((e: unknown) => {
        throw writeFailed(schema, e);
      });
    },
    recycle() {
      const c = done;
      done = undefined;
      c?.forEach((x) => x.reset());
      return c;
    },
    async finish() {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      await tail;
      return file.finish();
    },
  };
}

class PackedWriteError extends Error {}

/**
 * A file written a column at a time (clustering: the sorted output gathered field by field, so only
 * one field of the whole output is held decoded at a time): each column of all `rows` rows, in file
 * order, is cut into the row groups and encoded into their chunks; the groups are laid out once
 * every column is in. The bytes are openHoodiePackedWriter's for the same rows.
 */
export interface HoodiePackedColumnWriter {
  readonly groupRows: number;
  readonly elements: SchemaElement[];
  /**
   * Rows [at, at + col.length) of column j (schema field order; not a constant column), in order
   * from row 0, in whole row groups (`at` a multiple of groupRows; the last part may end with the
   * file); encoded now (the column can be written again on return), settles once compressed. `ids`:
   * its values as indexes into their distinct values, which spares hashing them for the dictionary
   * (same bytes).
   */
  writeColumn(j: number, col: PackedColumn, ids?: ValueIds, at?: number): Promise<void>;
  /** The file in its parts; `bloom`: the other thread's bits of the filter, with PackedWriterOptions.bloomShared */
  finish(bloom?: GivenBloom): Promise<HoodieParquetParts>;
}

export function openHoodiePackedColumnWriter(opts: PackedWriterOptions, rows: number): HoodiePackedColumnWriter {
  const encoder = openPackedGroupEncoder(opts);
  const file = openPackedFileAssembler(opts);
  const { schema } = opts;
  const constants = opts.constants ?? [];
  const R = encoder.groupRows;
  const groups = Math.ceil(rows / R);
  const J = encoder.elements.length;
  const chunks: Promise<EncodedChunk>[][] = Array.from({ length: groups }, () => new Array<Promise<EncodedChunk>>(J));
  const rowsOf = (g: number) => Math.min(R, rows - g * R);
  let finished = false;
  // rows of each column given so far
  const given = new Array<number>(J).fill(0);
  const written = new Set<number>();
  return {
    groupRows: R,
    elements: encoder.elements,
    writeColumn(j, col, ids, at = 0) {
      if (finished) throw writeFailed(schema, new Error('write after finish'));
      if (constants[j] || written.has(j) || j < 0 || j >= J) throw writeFailed(schema, new Error(`column ${j} written twice, out of range or constant`));
      const n = col.length;
      const end = at + n;
      if (ids?.onlyIds && j === encoder.keyIndex) throw writeFailed(schema, new Error('the record keys given as ids alone'));
      if (at !== given[j] || at % R !== 0 || end > rows || (n % R !== 0 && end !== rows) || (ids && ids.ids.length !== n)) {
        throw writeFailed(schema, new Error(`rows ${at}..${end} of column ${encoder.elements[j]!.name} in a file of ${rows} rows (${given[j]} given, row groups of ${R})`));
      }
      given[j] = end;
      if (end === rows) written.add(j);
      const parts: Promise<EncodedChunk>[] = [];
      for (let g = at / R; g * R < end; g++) {
        const from = g * R - at;
        // read where it is (the chunk is encoded before this returns)
        const part = col.window(from, from + rowsOf(g));
        // the keys in file order: the key column's parts come in order
        if (j === encoder.keyIndex) file.addKeys(part);
        parts.push((chunks[g]![j] = encoder.encodeChunk(part, j, rowsOf(g), ids && { ids: ids.ids.subarray(from, from + rowsOf(g)), values: ids.values, onlyIds: ids.onlyIds })));
      }
      return Promise.all(parts).then(
        () => undefined,
        (e: unknown) => {
          throw writeFailed(schema, e);
        },
      );
    },
    async finish(bloom) {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      for (let j = 0; j < J; j++) if (!constants[j] && !written.has(j)) throw writeFailed(schema, new Error(`column ${encoder.elements[j]!.name} was not written`));
      for (let g = 0; g < groups; g++) {
        for (let j = 0; j < J; j++) if (constants[j]) chunks[g]![j] = encoder.encodeChunk(new PackedColumn(encoder.elements[j]!.type!, 0), j, rowsOf(g));
        const group = encoder.group(await Promise.all(chunks[g]!), rowsOf(g));
        // the chunks are in the group's bytes now
        chunks[g] = [];
        file.place(group);
      }
      return file.finishParts(bloom);
    },
  };
}
