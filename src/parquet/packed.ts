// Columns of one row group as packed bytes, for rewriting parquet without a JS object per value
// (compaction, issue 6): every value is a byte span of one buffer — fixed-width types as their
// little-endian parquet PLAIN bytes, BYTE_ARRAY as the raw bytes with an offsets table — plus a null
// flag per row. Reading decodes flat (non-nested) column chunks of PLAIN / dictionary pages, v1 or v2;
// anything else raises PackedUnsupported so the caller can take its general path instead.
import type { ColumnChunk, Compressors, ParquetType, SchemaElement } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { decompressPage } from 'hyparquet/src/datapage.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { equalBytes, hashBytes, moveBytes, ViewCache, viewOf } from '../util/byte-spans.ts';

const ENCODER = new TextEncoder();

/** The input needs the general (object) path: an encoding, type or layout this reader does not take. */
export class PackedUnsupported extends Error {}

/** Bytes per value of a fixed-width physical type; 0 = variable (BYTE_ARRAY). BOOLEAN is one byte (0/1) here. */
export function widthOf(type: ParquetType | undefined): number {
  switch (type) {
    case 'BOOLEAN':
      return 1;
    case 'INT32':
    case 'FLOAT':
      return 4;
    case 'INT64':
    case 'DOUBLE':
      return 8;
    case 'BYTE_ARRAY':
      return 0;
    default:
      throw new PackedUnsupported(`physical type ${type} is not packed`);
  }
}

/**
 * A growable packed column. Value i is data[offsets[i], offsets[i+1]) for BYTE_ARRAY and
 * data[i*width, (i+1)*width) for fixed widths; null values have an empty span (BYTE_ARRAY) or zero
 * bytes (fixed) and nulls[i] = 1.
 */
export class PackedColumn {
  readonly width: number;
  data: Uint8Array;
  offsets: Int32Array;
  nulls: Uint8Array;
  length = 0;
  /** bytes used in data */
  size = 0;
  nullCount = 0;

  /**
   * `shared`: its buffers are SharedArrayBuffers, so another thread can read the column where it is
   * (posted as its fields; see wireColumn) instead of a copy.
   */
  constructor(
    readonly type: ParquetType,
    capacity = 1024,
    bytesHint = 0,
    readonly shared = false,
  ) {
    this.width = widthOf(type);
    this.data = this.bytes(Math.max(64, this.width ? capacity * this.width : bytesHint || capacity * 16));
    this.offsets = this.ints(this.width ? 0 : capacity + 1);
    this.nulls = this.bytes(capacity);
  }

  private bytes(n: number): Uint8Array {
    return this.shared ? new Uint8Array(new SharedArrayBuffer(n)) : new Uint8Array(n);
  }

  private ints(n: number): Int32Array {
    return this.shared ? new Int32Array(new SharedArrayBuffer(4 * n)) : new Int32Array(n);
  }

  /** Empties the column, keeping its buffers. */
  reset(): void {
    this.length = 0;
    this.size = 0;
    this.nullCount = 0;
  }

  private growRows(extra: number): void {
    const need = this.length + extra;
    if (need <= this.nulls.length) return;
    const cap = Math.max(need, this.nulls.length * 2);
    const nulls = this.bytes(cap);
    nulls.set(this.nulls.subarray(0, this.length));
    this.nulls = nulls;
    if (!this.width) {
      const offsets = this.ints(cap + 1);
      offsets.set(this.offsets.subarray(0, this.length + 1));
      this.offsets = offsets;
    }
  }

  private growBytes(extra: number): void {
    const need = this.size + extra;
    if (need <= this.data.length) return;
    const data = this.bytes(Math.max(need, this.data.length * 2));
    data.set(this.data.subarray(0, this.size));
    this.data = data;
  }

  private readonly views = new ViewCache();
  /** A DataView over data (made again only when data was replaced). */
  view(): DataView {
    return this.views.get(this.data);
  }

  /** Start (inclusive) and end (exclusive) of value i's bytes. */
  start(i: number): number {
    return this.width ? i * this.width : this.offsets[i]!;
  }
  end(i: number): number {
    return this.width ? (i + 1) * this.width : this.offsets[i + 1]!;
  }

  isNull(i: number): boolean {
    return this.nulls[i] === 1;
  }

  appendNull(): void {
    this.growRows(1);
    if (this.width) {
      this.growBytes(this.width);
      this.data.fill(0, this.size, this.size + this.width);
      this.size += this.width;
    }
    this.nulls[this.length] = 1;
    this.nullCount++;
    this.length++;
    if (!this.width) this.offsets[this.length] = this.size;
  }

  /** Appends one value given as its bytes (data[start, end)). */
  appendBytes(src: Uint8Array, start = 0, end = src.length): void {
    const len = end - start;
    if (this.width && len !== this.width) throw new Error(`value of ${len} bytes in a ${this.type} column`);
    this.growRows(1);
    this.growBytes(len);
    const d = this.data;
    let at = this.size;
    if (len <= 32) for (let k = start; k < end; k++) d[at++] = src[k]!;
    else {
      d.set(src.subarray(start, end), at);
      at += len;
    }
    this.size = at;
    this.nulls[this.length] = 0;
    this.length++;
    if (!this.width) this.offsets[this.length] = at;
  }

  /** Appends a string as its UTF-8 bytes (BYTE_ARRAY), without an intermediate buffer. */
  appendString(v: string): void {
    const n = v.length;
    this.growRows(1);
    this.growBytes(n * 3);
    const d = this.data;
    let at = this.size;
    let i = 0;
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) break;
      d[at++] = c;
    }
    if (i < n) at = this.size + ENCODER.encodeInto(v, d.subarray(this.size)).written;
    this.size = at;
    this.nulls[this.length] = 0;
    this.length++;
    if (!this.width) this.offsets[this.length] = at;
  }

  /**
   * Appends a PLAIN BYTE_ARRAY page's values (length-prefixed, from bytes[at]) for pageRows rows, nulls[i]
   * = 1 taking no value; returns the position after the last value.
   */
  appendPlainByteArrays(bytes: Uint8Array, at: number, pageRows: number, nulls: Uint8Array | undefined): number {
    this.growRows(pageRows);
    this.growBytes(bytes.length - at);
    const d = this.data;
    const dv = this.view();
    const bv = viewOf(bytes);
    const o = this.offsets;
    const nl = this.nulls;
    let size = this.size;
    let row = this.length;
    for (let i = 0; i < pageRows; i++, row++) {
      if (nulls && nulls[i]) {
        nl[row] = 1;
        this.nullCount++;
        o[row + 1] = size;
        continue;
      }
      if (at + 4 > bytes.length) throw new Error(`byte array length runs past its page`);
      const len = bv.getUint32(at, true);
      at += 4;
      if (at + len > bytes.length) throw new Error(`byte array of ${len} bytes runs past its page`);
      if (len <= 64) moveBytes(bytes, bv, at, d, dv, size, len);
      else d.set(bytes.subarray(at, at + len), size);
      size += len;
      at += len;
      nl[row] = 0;
      o[row + 1] = size;
    }
    this.size = size;
    this.length = row;
    return at;
  }

  /** Appends dict[idx[k]] per non-null row of a page (nulls[i] = 1 takes no index). */
  appendDictValues(dict: PackedColumn, idx: Int32Array, pageRows: number, nulls: Uint8Array | undefined): void {
    if (dict.length === 1 && !nulls) return this.appendRepeated(dict, idx, pageRows);
    this.growRows(pageRows);
    const w = this.width;
    let bytes = 0;
    let k = 0;
    for (let i = 0; i < pageRows; i++) {
      if (nulls && nulls[i]) {
        bytes += w;
        continue;
      }
      const x = idx[k++]!;
      if (x < 0 || x >= dict.length) throw new Error(`dictionary index ${x} out of ${dict.length}`);
      bytes += w || dict.offsets[x + 1]! - dict.offsets[x]!;
    }
    this.growBytes(bytes);
    const d = this.data;
    const dd = dict.data;
    const dv = this.view();
    const ddv = dict.view();
    const o = this.offsets;
    const nl = this.nulls;
    let size = this.size;
    let row = this.length;
    k = 0;
    for (let i = 0; i < pageRows; i++, row++) {
      if (nulls && nulls[i]) {
        nl[row] = 1;
        this.nullCount++;
        if (w) d.fill(0, size, (size += w));
        else o[row + 1] = size;
        continue;
      }
      const x = idx[k++]!;
      nl[row] = 0;
      if (w === 8) {
        // INT64/DOUBLE as two words (bit patterns kept: no float conversion)
        dv.setInt32(size, ddv.getInt32(8 * x, true), true);
        dv.setInt32(size + 4, ddv.getInt32(8 * x + 4, true), true);
        size += 8;
      } else if (w === 4) {
        dv.setInt32(size, ddv.getInt32(4 * x, true), true);
        size += 4;
      } else {
        const s = w ? x * w : dict.offsets[x]!;
        const n = w || dict.offsets[x + 1]! - s;
        moveBytes(dd, ddv, s, d, dv, size, n);
        size += n;
        if (!w) o[row + 1] = size;
      }
    }
    this.size = size;
    this.length = row;
  }

  /** Appends value i of `src` (same type). */
  appendFrom(src: PackedColumn, i: number): void {
    if (src.nulls[i] === 1) this.appendNull();
    else this.appendBytes(src.data, src.start(i), src.end(i));
  }

  /**
   * appendDictValues for a dictionary of one value and no nulls (a base file's commit time, partition
   * path, file name): the value's bytes doubled into place, the offsets by arithmetic.
   */
  private appendRepeated(dict: PackedColumn, idx: Int32Array, pageRows: number): void {
    for (let k = 0; k < pageRows; k++) if (idx[k] !== 0) throw new Error(`dictionary index ${idx[k]} out of 1`);
    const len = dict.end(0) - dict.start(0);
    this.growRows(pageRows);
    this.growBytes(len * pageRows);
    const d = this.data;
    const from = this.size;
    const total = len * pageRows;
    if (total > 0) {
      d.set(dict.data.subarray(dict.start(0), dict.end(0)), from);
      for (let have = len; have < total; have *= 2) d.copyWithin(from + have, from, from + Math.min(have, total - have));
    }
    const row = this.length;
    this.nulls.fill(0, row, row + pageRows);
    if (!this.width) {
      const o = this.offsets;
      for (let i = 1; i <= pageRows; i++) o[row + i] = from + i * len;
    }
    this.size = from + total;
    this.length += pageRows;
  }

  /** Appends values [from, to) of `src` (same type) in one copy. */
  appendRange(src: PackedColumn, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    this.growRows(n);
    const s = src.start(from);
    const e = src.end(to - 1);
    this.growBytes(e - s);
    // runs between replaced rows are short: a loop beats subarray + set below ~64 bytes
    if (e - s <= 64) moveBytes(src.data, src.view(), s, this.data, this.view(), this.size, e - s);
    else this.data.set(src.data.subarray(s, e), this.size);
    if (src.nullCount === 0) {
      if (n > 16) this.nulls.fill(0, this.length, this.length + n);
      else for (let i = this.length; i < this.length + n; i++) this.nulls[i] = 0;
    } else {
      const nl = this.nulls;
      const sn = src.nulls;
      for (let i = from, at = this.length; i < to; i++) {
        nl[at++] = sn[i]!;
        this.nullCount += sn[i]!;
      }
    }
    if (!this.width) {
      const shift = this.size - s;
      const o = this.offsets;
      const so = src.offsets;
      const base = this.length - from;
      for (let i = from + 1; i <= to; i++) o[base + i] = so[i]! + shift;
    }
    this.size += e - s;
    this.length += n;
  }

  /**
   * Appends value row[i] of column srcs[chunk[i]] for i in [from, to) (same type): the gather of a
   * sorted output. Fixed-width values are copied as 32-bit words (bit-exact, NaN payloads too).
   */
  appendGather(srcs: readonly PackedColumn[], chunk: Int32Array, row: Int32Array, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    this.growRows(n);
    const nl = this.nulls;
    const at0 = this.length;
    let nullCount = 0;
    if (srcs.every((c) => c.nullCount === 0)) nl.fill(0, at0, at0 + n);
    else {
      const nullsOf = srcs.map((c) => c.nulls);
      for (let i = from; i < to; i++) {
        const x = nullsOf[chunk[i]!]![row[i]!]!;
        nl[at0 + i - from] = x;
        nullCount += x;
      }
    }
    const w = this.width;
    if (w === 4 || w === 8) {
      this.growBytes(n * w);
      const words = w >> 2;
      const dst = new Int32Array(this.data.buffer, this.data.byteOffset, this.data.byteLength >> 2);
      const views = srcs.map((c) => new Int32Array(c.data.buffer, c.data.byteOffset, c.data.byteLength >> 2));
      let d = this.size >> 2;
      for (let i = from; i < to; i++) {
        const v = views[chunk[i]!]!;
        const s = row[i]! * words;
        dst[d++] = v[s]!;
        if (words === 2) dst[d++] = v[s + 1]!;
      }
      this.size += n * w;
    } else if (w) {
      this.growBytes(n * w);
      const d = this.data;
      let at = this.size;
      for (let i = from; i < to; i++) {
        const src = srcs[chunk[i]!]!;
        const s = row[i]! * w;
        for (let k = 0; k < w; k++) d[at++] = src.data[s + k]!;
      }
      this.size = at;
    } else {
      const offsOf = srcs.map((c) => c.offsets);
      const dataOf = srcs.map((c) => c.data);
      let bytes = 0;
      for (let i = from; i < to; i++) {
        const so = offsOf[chunk[i]!]!;
        const r = row[i]!;
        bytes += so[r + 1]! - so[r]!;
      }
      this.growBytes(bytes);
      const d = this.data;
      const o = this.offsets;
      let at = this.size;
      let k = at0;
      for (let i = from; i < to; i++) {
        const c = chunk[i]!;
        const so = offsOf[c]!;
        const sd = dataOf[c]!;
        const r = row[i]!;
        const s = so[r]!;
        const e = so[r + 1]!;
        if (e - s <= 32) for (let b = s; b < e; b++) d[at++] = sd[b]!;
        else {
          d.set(sd.subarray(s, e), at);
          at += e - s;
        }
        o[++k] = at;
      }
      this.size = at;
    }
    this.nullCount += nullCount;
    this.length += n;
  }

  /**
   * Values [from, to) as a column of their own, its bytes and null flags views of this column's (its
   * offsets rebased, a copy): valid while this column is not written again.
   */
  slice(from: number, to: number): PackedColumn {
    const c = new PackedColumn(this.type, 0);
    const s = this.start(from);
    const e = to > from ? this.end(to - 1) : s;
    c.data = this.data.subarray(s, e);
    c.size = e - s;
    c.nulls = this.nulls.subarray(from, to);
    c.length = to - from;
    c.nullCount = from === 0 && to === this.length ? this.nullCount : this.nullsIn(from, to);
    if (!this.width) {
      const o = new Int32Array(to - from + 1);
      const so = this.offsets;
      for (let i = from; i <= to; i++) o[i - from] = so[i]! - s;
      c.offsets = o;
    }
    return c;
  }

  /**
   * Rows [from, to) for reading only, in this column's buffers: a byte array's offsets stay those of
   * the whole column (its data is this column's up to the last value), so nothing is copied.
   */
  window(from: number, to: number): PackedColumn {
    if (this.width) return this.slice(from, to);
    const c = new PackedColumn(this.type, 0);
    const s = this.start(from);
    const e = to > from ? this.end(to - 1) : s;
    c.data = this.data.subarray(0, e);
    c.offsets = this.offsets.subarray(from, to + 1);
    c.size = e - s;
    c.nulls = this.nulls.subarray(from, to);
    c.length = to - from;
    c.nullCount = from === 0 && to === this.length ? this.nullCount : this.nullsIn(from, to);
    return c;
  }

  /** Number of nulls among values [from, to). */
  nullsIn(from: number, to: number): number {
    if (this.nullCount === 0) return 0;
    let c = 0;
    for (let i = from; i < to; i++) c += this.nulls[i]!;
    return c;
  }
}

/** Distinct values by content: an open-addressing table of dictionary indexes. */
export class SpanSet {
  readonly dict: PackedColumn;
  private table: Int32Array;
  private hashes: Int32Array;
  constructor(type: PackedColumn['type'], expected: number) {
    this.dict = new PackedColumn(type, 64);
    let size = 64;
    while (size < expected * 2) size <<= 1;
    this.table = new Int32Array(size).fill(-1);
    this.hashes = new Int32Array(64);
  }
  /** The dictionary index of data[s, e) (dv: its view), added if new. */
  indexOf(data: Uint8Array, dv: DataView, s: number, e: number): number {
    const h = hashBytes(data, dv, s, e);
    const mask = this.table.length - 1;
    const dict = this.dict;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const j = this.table[slot]!;
      if (j < 0) {
        const idx = dict.length;
        dict.appendBytes(data, s, e);
        if (idx >= this.hashes.length) {
          const hs = new Int32Array(this.hashes.length * 2);
          hs.set(this.hashes);
          this.hashes = hs;
        }
        this.hashes[idx] = h;
        this.table[slot] = idx;
        if (dict.length * 2 > this.table.length) this.rehash();
        return idx;
      }
      if (this.hashes[j] === h && dict.end(j) - dict.start(j) === e - s && equalBytes(dict.data, dict.view(), dict.start(j), data, dv, s, e - s)) return j;
    }
  }
  private rehash(): void {
    const table = new Int32Array(this.table.length * 2).fill(-1);
    const mask = table.length - 1;
    for (let j = 0; j < this.dict.length; j++) {
      let slot = this.hashes[j]! & mask;
      while (table[slot]! >= 0) slot = (slot + 1) & mask;
      table[slot] = j;
    }
    this.table = table;
  }
}

/** The values given as indexes into `dict` (-1: null), as a packed column of `type`. */
export function columnOfIds(type: ParquetType, dict: PackedColumn, ids: ArrayLike<number>): PackedColumn {
  const c = new PackedColumn(type, ids.length);
  for (let i = 0; i < ids.length; i++) {
    const x = ids[i]!;
    if (x < 0) c.appendNull();
    else c.appendBytes(dict.data, dict.start(x), dict.end(x));
  }
  return c;
}

/** A shared column as posted to another thread: its fields, the typed arrays sharing their memory there. */
export interface WireColumn {
  type: ParquetType;
  length: number;
  size: number;
  nullCount: number;
  data: Uint8Array;
  offsets: Int32Array;
  nulls: Uint8Array;
}

export function wireColumn(c: PackedColumn): WireColumn {
  if (!c.shared) throw new Error('a column crosses threads without a copy only when shared');
  return { type: c.type, length: c.length, size: c.size, nullCount: c.nullCount, data: c.data, offsets: c.offsets, nulls: c.nulls };
}

/** The column another thread posted (wireColumn), read where it is: valid until that thread writes it again. */
export function columnOfWire(w: WireColumn): PackedColumn {
  const c = new PackedColumn(w.type, 0);
  c.data = w.data;
  c.offsets = w.offsets;
  c.nulls = w.nulls;
  c.length = w.length;
  c.size = w.size;
  c.nullCount = w.nullCount;
  return c;
}

// ---- reading ----

interface Reader {
  view: DataView;
  offset: number;
}

const PLAIN_ENCODINGS = new Set(['PLAIN', 'PLAIN_DICTIONARY', 'RLE_DICTIONARY', 'RLE', 'BIT_PACKED']);

/** Whether readPackedChunkBytes can read this column chunk (checked before anything is written). */
export function packedReadable(chunk: ColumnChunk, element: SchemaElement): boolean {
  const md = chunk.meta_data;
  if (!md || chunk.file_path) return false;
  if (element.repetition_type === 'REPEATED' || element.num_children) return false;
  try {
    widthOf(md.type);
  } catch {
    return false;
  }
  return md.encodings.every((e) => PLAIN_ENCODINGS.has(e));
}

/** PLAIN values (count of them) at reader into `out`. */
function readPlainInto(out: PackedColumn, r: Reader, count: number, nulls: Uint8Array | undefined, pageRows: number): void {
  const bytes = new Uint8Array(r.view.buffer, r.view.byteOffset, r.view.byteLength);
  let v = r.offset;
  const w = out.width;
  if (out.type === 'BOOLEAN') {
    let bit = 0;
    for (let i = 0; i < pageRows; i++) {
      if (nulls && nulls[i]) {
        out.appendNull();
        continue;
      }
      BOOL[0] = (bytes[v + (bit >> 3)]! >> (bit & 7)) & 1;
      out.appendBytes(BOOL, 0, 1);
      bit++;
    }
    r.offset = v + ((count + 7) >> 3);
    return;
  }
  if (!nulls && w) {
    // one copy for the page
    const tmp = new PackedColumn(out.type, 0);
    tmp.data = bytes.subarray(v, v + count * w);
    tmp.nulls = new Uint8Array(count);
    tmp.length = count;
    tmp.size = count * w;
    out.appendRange(tmp, 0, count);
    r.offset = v + count * w;
    return;
  }
  if (!w) {
    r.offset = out.appendPlainByteArrays(bytes, v, pageRows, nulls);
    return;
  }
  for (let i = 0; i < pageRows; i++) {
    if (nulls && nulls[i]) {
      out.appendNull();
      continue;
    }
    out.appendBytes(bytes, v, v + w);
    v += w;
  }
  r.offset = v;
}

const BOOL = new Uint8Array(1);


/** Reused per-page arrays: pages are decoded one at a time, their levels and indexes never kept. */
let scratchInts = new Int32Array(1024);
let scratchNulls = new Uint8Array(1024);
function ints(n: number): Int32Array {
  if (scratchInts.length < n) scratchInts = new Int32Array(Math.max(n, scratchInts.length * 2));
  return scratchInts.subarray(0, n);
}

/** Dictionary indexes (count of them) into `out`, as their values. */
function readDictInto(out: PackedColumn, dict: PackedColumn, r: Reader, end: number, count: number, nulls: Uint8Array | undefined, pageRows: number): void {
  out.appendDictValues(dict, readDictIndexes(r, end, count), pageRows, nulls);
}

/** A dictionary-encoded page's `count` indexes (its bit width byte, then RLE/bit-packed runs; a scratch array). */
function readDictIndexes(r: Reader, end: number, count: number): Int32Array {
  const bitWidth = r.view.getUint8(r.offset++);
  const idx = ints(count);
  if (bitWidth) readRleBitPackedHybrid(r, bitWidth, idx, end - r.offset);
  else idx.fill(0);
  return idx;
}

/** Definition levels of a flat optional column as null flags (1 = null). */
function nullFlags(levels: Int32Array | Uint8Array, maxDef: number): { nulls: Uint8Array; nullCount: number } {
  if (scratchNulls.length < levels.length) scratchNulls = new Uint8Array(Math.max(levels.length, scratchNulls.length * 2));
  const nulls = scratchNulls.subarray(0, levels.length);
  let nullCount = 0;
  for (let i = 0; i < levels.length; i++) {
    const isNull = levels[i] !== maxDef ? 1 : 0;
    nulls[i] = isNull;
    nullCount += isNull;
  }
  return { nulls, nullCount };
}

/**
 * A v1 page's definition levels (length-prefixed RLE, bit width 1) when they are one run of 1s over
 * all `rows` (no nulls, what writers emit for a column without them): skipped, true. Else nothing read.
 */
function skipAllPresent(r: Reader, rows: number): boolean {
  const v = r.view;
  const at = r.offset;
  if (at + 4 > v.byteLength) return false;
  const len = v.getUint32(at, true);
  let p = at + 4;
  const end = p + len;
  if (end > v.byteLength) return false;
  let header = 0;
  for (let shift = 0; p < end && shift < 35; shift += 7) {
    const b = v.getUint8(p++);
    header += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      if (header % 2 !== 0 || header / 2 !== rows || p + 1 !== end || v.getUint8(p) !== 1) return false;
      r.offset = end;
      return true;
    }
  }
  return false;
}

/** [begin, end) of a column chunk in its file (dictionary page included). */
export function chunkSpan(chunk: ColumnChunk): { begin: number; end: number } {
  const md = chunk.meta_data!;
  // a dictionary page offset of 0 means none (some writers store 0), as hyparquet reads it
  const begin = Number(md.dictionary_page_offset || md.data_page_offset);
  return { begin, end: begin + Number(md.total_compressed_size) };
}

/**
 * The offset index of a flat column chunk copied as it is to file offset `at` (`bytes` = the chunk's
 * bytes): one location per data page, from the page headers, as a writer records them (header
 * included; first row = rows of the pages before). Dictionary and index pages have none.
 */
export function pageLocationsOf(bytes: Uint8Array, at: number, numValues: number): { offset: bigint; compressed_page_size: number; first_row_index: bigint }[] {
  const r: Reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const out: { offset: bigint; compressed_page_size: number; first_row_index: bigint }[] = [];
  let rows = 0;
  while (rows < numValues && r.offset < bytes.length) {
    const start = r.offset;
    const h = parquetHeader(r);
    r.offset += h.compressed_page_size;
    // flat columns: a page's values are its rows (nulls included)
    const n = h.type === 'DATA_PAGE' ? h.data_page_header!.num_values : h.type === 'DATA_PAGE_V2' ? h.data_page_header_v2!.num_rows : undefined;
    if (n === undefined) continue;
    out.push({ offset: BigInt(at + start), compressed_page_size: r.offset - start, first_row_index: BigInt(rows) });
    rows += n;
  }
  return out;
}

/** A data page of a chunk, its values still encoded: `r` at them (up to `end`), `count` non-null of `pageRows` rows. */
interface DataPage {
  encoding: string;
  r: Reader;
  end: number;
  count: number;
  nulls: Uint8Array | undefined;
  pageRows: number;
  /** the chunk's dictionary (read from its dictionary page) */
  dict: PackedColumn | undefined;
}

/**
 * Each data page of one flat column chunk, given its bytes (`bytes` = file[chunkSpan(chunk)]), in
 * order (`page` returns false to stop: the walk returns false). OPTIONAL top-level columns have
 * definition levels (max 1), REQUIRED ones none.
 */
function eachDataPage(bytes: Uint8Array, chunk: ColumnChunk, element: SchemaElement, compressors: Compressors, page: (p: DataPage) => boolean): boolean {
  const md = chunk.meta_data!;
  const maxDef = element.repetition_type === 'OPTIONAL' ? 1 : 0;
  const buf = bytes.buffer as ArrayBuffer;
  const view = new DataView(buf, bytes.byteOffset, bytes.byteLength);
  const r: Reader = { view, offset: 0 };
  let dict: PackedColumn | undefined;
  let rows = 0;
  const total = Number(md.num_values);
  while (rows < total && r.offset < view.byteLength) {
    const header = parquetHeader(r);
    const compressed = new Uint8Array(buf, bytes.byteOffset + r.offset, header.compressed_page_size);
    r.offset += header.compressed_page_size;
    if (header.type === 'DICTIONARY_PAGE') {
      const dh = header.dictionary_page_header!;
      if (dh.encoding !== 'PLAIN' && dh.encoding !== 'PLAIN_DICTIONARY') throw new PackedUnsupported(`dictionary encoding ${dh.encoding}`);
      const page = decompressPage(compressed, header.uncompressed_page_size, md.codec, compressors);
      dict = new PackedColumn(md.type, dh.num_values, page.length);
      readPlainInto(dict, { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, dh.num_values, undefined, dh.num_values);
      continue;
    }
    let pageView: DataView;
    let pr: Reader;
    let count: number;
    let nulls: Uint8Array | undefined;
    let encoding: string;
    let pageRows: number;
    if (header.type === 'DATA_PAGE') {
      const h = header.data_page_header!;
      const page = decompressPage(compressed, header.uncompressed_page_size, md.codec, compressors);
      pageView = new DataView(page.buffer, page.byteOffset, page.byteLength);
      pr = { view: pageView, offset: 0 };
      pageRows = h.num_values;
      count = pageRows;
      if (maxDef) {
        if (h.definition_level_encoding !== 'RLE') throw new PackedUnsupported(`definition level encoding ${h.definition_level_encoding}`);
        if (!skipAllPresent(pr, pageRows)) {
          const levels = ints(pageRows);
          readRleBitPackedHybrid(pr, 1, levels);
          const f = nullFlags(levels, maxDef);
          nulls = f.nulls;
          count -= f.nullCount;
        }
      }
      encoding = h.encoding;
    } else if (header.type === 'DATA_PAGE_V2') {
      const h = header.data_page_header_v2!;
      if (h.repetition_levels_byte_length) throw new PackedUnsupported('repetition levels in a flat column');
      const levelBytes = h.definition_levels_byte_length;
      pageRows = h.num_values;
      count = pageRows - h.num_nulls;
      // no nulls: every level is maxDef, nothing to read
      if (maxDef && levelBytes && h.num_nulls > 0) {
        const levels = ints(pageRows);
        readRleBitPackedHybrid({ view: new DataView(compressed.buffer, compressed.byteOffset, levelBytes), offset: 0 }, 1, levels, levelBytes);
        nulls = nullFlags(levels, maxDef).nulls;
      } else if (h.num_nulls) throw new PackedUnsupported('nulls without definition levels');
      const valuesIn = compressed.subarray(levelBytes);
      const values = h.is_compressed === false ? valuesIn : decompressPage(valuesIn, header.uncompressed_page_size - levelBytes, md.codec, compressors);
      pageView = new DataView(values.buffer, values.byteOffset, values.byteLength);
      pr = { view: pageView, offset: 0 };
      encoding = h.encoding;
    } else continue; // index pages
    if (!page({ encoding, r: pr, end: pageView.byteLength, count, nulls, pageRows, dict })) return false;
    rows += pageRows;
  }
  if (rows !== total) throw new Error(`column ${md.path_in_schema.join('.')}: ${rows} of ${total} values read`);
  return true;
}

/** Reads one flat column chunk into `out` (appending). */
export function readPackedChunkBytes(bytes: Uint8Array, chunk: ColumnChunk, element: SchemaElement, compressors: Compressors, out: PackedColumn): void {
  const type = chunk.meta_data!.type;
  eachDataPage(bytes, chunk, element, compressors, ({ encoding, r, end, count, nulls, pageRows, dict }) => {
    if (encoding === 'PLAIN') readPlainInto(out, r, count, nulls, pageRows);
    else if (encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY') {
      if (!dict) throw new Error('dictionary-encoded page without a dictionary');
      readDictInto(out, dict, r, end, count, nulls, pageRows);
    } else if (encoding === 'RLE' && type === 'BOOLEAN') {
      const vals = new Int32Array(count);
      readRleBitPackedHybrid(r, 1, vals);
      let k = 0;
      for (let i = 0; i < pageRows; i++) {
        if (nulls && nulls[i]) out.appendNull();
        else {
          BOOL[0] = vals[k++]! ? 1 : 0;
          out.appendBytes(BOOL, 0, 1);
        }
      }
    } else throw new PackedUnsupported(`page encoding ${encoding}`);
    return true;
  });
}

/**
 * A chunk whose every data page is dictionary-encoded, as its dictionary and each row's index into
 * it (-1: null), or undefined for a chunk with a page of another encoding (read it with
 * readPackedChunkBytes).
 */
export function readPackedChunkIds(bytes: Uint8Array, chunk: ColumnChunk, element: SchemaElement, compressors: Compressors): { dict: PackedColumn; ids: Int32Array } | undefined {
  const n = Number(chunk.meta_data!.num_values);
  const ids = new Int32Array(n);
  let row = 0;
  let dictionary: PackedColumn | undefined;
  const all = eachDataPage(bytes, chunk, element, compressors, ({ encoding, r, end, count, nulls, pageRows, dict }) => {
    if ((encoding !== 'PLAIN_DICTIONARY' && encoding !== 'RLE_DICTIONARY') || !dict || row + pageRows > n) return false;
    dictionary = dict;
    const idx = readDictIndexes(r, end, count);
    let k = 0;
    for (let i = 0; i < pageRows; i++, row++) {
      if (nulls && nulls[i]) ids[row] = -1;
      else {
        const x = idx[k++]!;
        if (x < 0 || x >= dict.length) throw new Error(`dictionary index ${x} out of ${dict.length}`);
        ids[row] = x;
      }
    }
    return true;
  });
  return all && dictionary && row === n ? { dict: dictionary, ids } : undefined;
}
