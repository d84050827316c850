// A clustering group's merged rows, held between the merge and the sorted write (cluster-op.ts): per
// field, the packed chunks the merge produced, trimmed to their size, or — for a field of few
// distinct values (commit times, partition paths, enum-like columns, quantities) — one dictionary
// and an index per row, which the writer's dictionary takes as they are. Sorting ranks the sort fields from these bytes (no value decoded per row); writing
// gathers the output a field at a time, a few row groups at a time, into reused buffers, and each
// field is let go once it is written.
import type { ParquetType } from 'hyparquet';
import { columnOfIds, PackedColumn, SpanSet } from '../../parquet/packed.ts';
import type { ValueIds } from '../../parquet/write-packed.ts';
import { compareBytes, equalBytes, moveBytes, viewOf } from '../../util/byte-spans.ts';
import { rankNumbers, rankValues, type Ranked, type SortColumn, type SortValue } from './sort-order.ts';

/** Distinct values above which a field is held as its packed bytes rather than a dictionary (ids are 16-bit). */
export const HELD_DICTIONARY_LIMIT = 16_384;

/** Types held as a dictionary while their distinct values are few (booleans are bits already). */
const DICTIONARY_TYPES: readonly ParquetType[] = ['BYTE_ARRAY', 'INT32', 'INT64', 'FLOAT', 'DOUBLE'];

const text = new TextDecoder();
let zeros = new Uint8Array(65_536);
/** null flags of a chunk without nulls: a view of one shared zero buffer (never written) */
function noNulls(n: number): Uint8Array {
  if (zeros.length < n) zeros = new Uint8Array(n);
  return zeros.subarray(0, n);
}

/** A copy of `c` in buffers of its exact size. */
function trimmed(c: PackedColumn): PackedColumn {
  const t = new PackedColumn(c.type, 0);
  t.data = c.data.slice(0, c.size);
  if (!c.width) t.offsets = c.offsets.slice(0, c.length + 1);
  t.nulls = c.nullCount === 0 ? noNulls(c.length) : c.nulls.slice(0, c.length);
  t.length = c.length;
  t.size = c.size;
  t.nullCount = c.nullCount;
  return t;
}

/**
 * The buffers gathered values are built in, reused part after part (each part is encoded before
 * the buffers are gathered into again): without them every part of the output would be a fresh
 * allocation, which the allocator only gets back after a major GC.
 */
export class GatherScratch {
  /** `shared`: in SharedArrayBuffers, for a gathered column another thread encodes where it is */
  constructor(readonly shared = false) {
    this.data = this.buffer(0);
  }
  private data: ArrayBufferLike;
  private offsets: Int32Array = new Int32Array(0);
  private nulls: Uint8Array = new Uint8Array(0);
  private ids: Int32Array = new Int32Array(0);
  private buffer(n: number): ArrayBufferLike {
    return this.shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n);
  }
  bytes(n: number): Uint8Array {
    if (this.data.byteLength < n) this.data = this.buffer(Math.max(n, Math.ceil(this.data.byteLength * 1.25)));
    return new Uint8Array(this.data, 0, n);
  }
  /** zero-filled */
  nullFlags(n: number): Uint8Array {
    if (this.nulls.length < n) this.nulls = new Uint8Array(this.buffer(n));
    const b = this.nulls.subarray(0, n);
    b.fill(0);
    return b;
  }
  ints(n: number): Int32Array {
    if (this.offsets.length < n) this.offsets = new Int32Array(this.buffer(4 * n));
    return this.offsets.subarray(0, n);
  }
  indexes(n: number): Int32Array {
    if (this.ids.length < n) this.ids = new Int32Array(this.buffer(4 * n));
    return this.ids.subarray(0, n);
  }
}

/**
 * Output rows [from, to) of an order (perm[i] = the held row output row i takes), listed in held
 * order: held[k] ascending, at[k] = its output row - from. Gathered in this order, the held chunks
 * are read front to back and the values written into the part's own buffers, which stay in cache;
 * gathered in output order, every value read was a cache miss (strings 2.5×, longs 4× slower at
 * 1M rows).
 */
export interface PartOrder {
  held: Int32Array;
  at: Int32Array;
}

/** A part's rows by chunk (HeldColumn.spans). */
interface Spans {
  from: Int32Array;
  first: Int32Array;
}

export function partOrder(perm: Int32Array, from: number, to: number): PartOrder {
  return partOrders(perm, [from, to])[0]!;
}

/**
 * The PartOrders of consecutive parts, output rows [bounds[p], bounds[p + 1]) each: one pass over
 * the held rows in ascending order, each dealt to its part (no sort: a held row's place comes from
 * the inverse of the order).
 */
export function partOrders(perm: Int32Array, bounds: readonly number[]): PartOrder[] {
  const parts = bounds.length - 1;
  const lo = bounds[0]!;
  const hi = bounds[parts]!;
  // each held row's output row (-1: outside the parts)
  let top = -1;
  for (let i = lo; i < hi; i++) top = Math.max(top, perm[i]!);
  const place = new Int32Array(top + 1).fill(-1);
  for (let i = lo; i < hi; i++) place[perm[i]!] = i;
  const orders = Array.from({ length: parts }, (_, p) => ({ held: new Int32Array(bounds[p + 1]! - bounds[p]!), at: new Int32Array(bounds[p + 1]! - bounds[p]!) }));
  const fill = new Int32Array(parts);
  for (let h = 0; h < place.length; h++) {
    const o = place[h]!;
    if (o < 0) continue;
    // the last part starting at or before o
    let a = 0;
    let b = parts;
    while (b - a > 1) {
      const m = (a + b) >> 1;
      if (bounds[m]! <= o) a = m;
      else b = m;
    }
    const q = fill[a]!++;
    orders[a]!.held[q] = h;
    orders[a]!.at[q] = o - bounds[a]!;
  }
  return orders;
}

/** Gathered values; a dictionary field's also as indexes into its distinct values (-1: null). */
export interface Gathered {
  col: PackedColumn;
  ids?: ValueIds;
}

/** One field's values of every held row, in merge order (chunk after chunk). */
export class HeldColumn {
  readonly width: number;
  /** plain form: the chunks' values */
  private plain: PackedColumn[] = [];
  /** dictionary form (few distinct values): the distinct values, and per chunk each row's index + 1 (0: null) */
  private set: SpanSet | undefined;
  private ids: Uint16Array[] = [];
  length = 0;
  /** bytes of all values */
  size = 0;
  nullCount = 0;

  constructor(readonly type: ParquetType) {
    this.width = new PackedColumn(type, 0).width;
    if (DICTIONARY_TYPES.includes(type)) this.set = new SpanSet(type, 64);
  }

  get isDictionary(): boolean {
    return this.set !== undefined;
  }

  /** Appends a chunk (copied: `c` can be reused on return). */
  append(c: PackedColumn): void {
    this.length += c.length;
    this.size += c.size;
    this.nullCount += c.nullCount;
    const set = this.set;
    if (set) {
      const ids = new Uint16Array(c.length);
      const d = c.data;
      const dv = c.view();
      const w = this.width;
      // runs of one value (a file's commit time, a partition) skip the hash table
      let ps = 0;
      let pe = -1;
      let pi = 0;
      let i = 0;
      for (; i < c.length; i++) {
        if (c.nulls[i]) continue;
        const s = w ? i * w : c.offsets[i]!;
        const e = w ? s + w : c.offsets[i + 1]!;
        if (pi > 0 && pe - ps === e - s && equalBytes(d, dv, ps, d, dv, s, e - s)) ids[i] = pi;
        else {
          pi = ids[i] = set.indexOf(d, dv, s, e) + 1;
          ps = s;
          pe = e;
          if (set.dict.length > HELD_DICTIONARY_LIMIT) break;
        }
      }
      if (i === c.length) {
        this.ids.push(ids);
        return;
      }
      // too many distinct values: held as bytes from now on
      this.toPlain();
    }
    this.plain.push(trimmed(c));
  }

  /**
   * Appends a chunk given as a dictionary and each row's index into it (-1: null), as read from a
   * dictionary-encoded parquet chunk: no value is decoded or hashed per row, each distinct one once.
   * The same as appending the values (the same ids in the same order of first appearance).
   */
  appendIds(dict: PackedColumn, idx: Int32Array): void {
    const set = this.set;
    const n = idx.length;
    if (!set) {
      this.append(columnOfIds(this.type, dict, idx));
      return;
    }
    const ids = new Uint16Array(n);
    // the dictionary's entries met so far: their held id + 1
    const held = new Int32Array(dict.length);
    const dv = dict.view();
    const w = this.width;
    let size = 0;
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const x = idx[i]!;
      if (x < 0) {
        nulls++;
        if (w) size += w;
        continue;
      }
      let h = held[x]!;
      if (h === 0) {
        h = held[x] = set.indexOf(dict.data, dv, dict.start(x), dict.end(x)) + 1;
        if (set.dict.length > HELD_DICTIONARY_LIMIT) {
          // too many distinct values: held as bytes from now on
          this.toPlain();
          this.append(columnOfIds(this.type, dict, idx));
          return;
        }
      }
      ids[i] = h;
      size += dict.end(x) - dict.start(x);
    }
    this.ids.push(ids);
    this.length += n;
    this.size += size;
    this.nullCount += nulls;
  }

  /** The dictionary form given up: every chunk held as its bytes. */
  private toPlain(): void {
    const dict = this.set!.dict;
    this.set = undefined;
    this.plain = this.ids.map((ids) => {
      const c = new PackedColumn(this.type, ids.length);
      for (const x of ids) {
        if (x === 0) c.appendNull();
        else c.appendBytes(dict.data, dict.start(x - 1), dict.end(x - 1));
      }
      return trimmed(c);
    });
    this.ids = [];
  }

  /** Lets the values go (the field is written). */
  release(): void {
    this.plain = [];
    this.ids = [];
    this.set = undefined;
  }

  /** The plain chunks (plain form only). */
  chunks(): readonly PackedColumn[] {
    return this.plain;
  }

  /**
   * The values of a part of the output (partOrder) as one packed column in `scratch`'s buffers
   * (valid until the next gather into it); `bytes` false: a dictionary field's as its ids alone
   * (ValueIds.onlyIds), the writer takes the bytes it needs from the distinct values.
   */
  gather(o: PartOrder, scratch: GatherScratch, bytes = true): Gathered {
    const out = new PackedColumn(this.type, 0);
    out.length = o.at.length;
    const spans = this.spans(o);
    if (this.set) return this.gatherDictionary(out, o, spans, scratch, bytes);
    return { col: this.gatherPlain(out, o, spans, scratch) };
  }

  /**
   * Rows [k0, k1) of a part (partOrder) of a byte-array field, in held order: `fn` gets each value's
   * bytes and its row in the part (nulls skipped).
   */
  eachBytes(o: PartOrder, k0: number, k1: number, fn: (data: Uint8Array, start: number, end: number, at: number) => void): void {
    if (this.width) throw new Error('eachBytes: not a byte-array field');
    const { from, first } = this.spans(o);
    const { held, at } = o;
    const nc = from.length - 1;
    let c = 0;
    for (let k = k0; k < k1; k++) {
      while (from[c + 1]! <= k && c < nc - 1) c++;
      const r = held[k]! - first[c]!;
      if (this.set) {
        const x = this.ids[c]![r]! - 1;
        if (x >= 0) fn(this.set.dict.data, this.set.dict.start(x), this.set.dict.end(x), at[k]!);
      } else {
        const src = this.plain[c]!;
        if (!src.nulls[r]) fn(src.data, src.offsets[r]!, src.offsets[r + 1]!, at[k]!);
      }
    }
  }

  /**
   * Where the part's rows lie, chunk by chunk: rows [from[c], from[c + 1]) of `o` are chunk c's,
   * row held[k] - first[c] of it (held is ascending: one binary search per chunk).
   */
  private spans(o: PartOrder): Spans {
    const lengths = this.set ? this.ids.map((x) => x.length) : this.plain.map((x) => x.length);
    const { held } = o;
    const from = new Int32Array(lengths.length + 1);
    const first = new Int32Array(lengths.length + 1);
    let lo = 0;
    for (let c = 0; c <= lengths.length; c++) {
      let hi = held.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (held[mid]! < first[c]!) lo = mid + 1;
        else hi = mid;
      }
      from[c] = lo;
      if (c < lengths.length) first[c + 1] = first[c]! + lengths[c]!;
    }
    from[lengths.length] = held.length;
    return { from, first };
  }

  private gatherPlain(out: PackedColumn, o: PartOrder, { from, first }: Spans, scratch: GatherScratch): PackedColumn {
    const { held, at } = o;
    const n = at.length;
    const srcs = this.plain;
    const w = this.width;
    out.nulls = scratch.nullFlags(n);
    if (this.nullCount > 0) {
      let nc = 0;
      for (const [c, src] of srcs.entries()) {
        const nulls = src.nulls;
        const base = first[c]!;
        for (let k = from[c]!; k < from[c + 1]!; k++) {
          const x = nulls[held[k]! - base]!;
          out.nulls[at[k]!] = x;
          nc += x;
        }
      }
      out.nullCount = nc;
    }
    if (w === 4 || w === 8) {
      // 32-bit words (bit-exact, NaN payloads too)
      out.data = scratch.bytes(n * w);
      const dst = new Int32Array(out.data.buffer, 0, (n * w) >> 2);
      for (const [c, src] of srcs.entries()) {
        const v = new Int32Array(src.data.buffer, src.data.byteOffset, src.data.byteLength >> 2);
        const base = first[c]!;
        if (w === 8) {
          for (let k = from[c]!; k < from[c + 1]!; k++) {
            const s = (held[k]! - base) << 1;
            const d = at[k]! << 1;
            dst[d] = v[s]!;
            dst[d + 1] = v[s + 1]!;
          }
        } else {
          for (let k = from[c]!; k < from[c + 1]!; k++) dst[at[k]!] = v[held[k]! - base]!;
        }
      }
      out.size = n * w;
      return out;
    }
    if (w) {
      out.data = scratch.bytes(n * w);
      const dst = out.data;
      for (const [c, src] of srcs.entries()) {
        const data = src.data;
        const base = first[c]!;
        for (let k = from[c]!; k < from[c + 1]!; k++) {
          const s = (held[k]! - base) * w;
          const d = at[k]! * w;
          for (let q = 0; q < w; q++) dst[d + q] = data[s + q]!;
        }
      }
      out.size = n * w;
      return out;
    }
    // each value's length at its output row, summed into the offsets; then the bytes
    const off = scratch.ints(n + 1);
    off[0] = 0;
    for (const [c, src] of srcs.entries()) {
      const so = src.offsets;
      const base = first[c]!;
      for (let k = from[c]!; k < from[c + 1]!; k++) {
        const r = held[k]! - base;
        off[at[k]! + 1] = so[r + 1]! - so[r]!;
      }
    }
    for (let i = 0; i < n; i++) off[i + 1]! += off[i]!;
    const d = scratch.bytes(off[n]!);
    const dv = viewOf(d);
    for (const [c, src] of srcs.entries()) {
      const so = src.offsets;
      const data = src.data;
      const sv = src.view();
      const base = first[c]!;
      for (let k = from[c]!; k < from[c + 1]!; k++) {
        const r = held[k]! - base;
        const s = so[r]!;
        moveBytes(data, sv, s, d, dv, off[at[k]!]!, so[r + 1]! - s);
      }
    }
    out.data = d;
    out.offsets = off;
    out.size = off[n]!;
    return out;
  }

  private gatherDictionary(out: PackedColumn, o: PartOrder, { from, first }: Spans, scratch: GatherScratch, withBytes: boolean): Gathered {
    const { held, at } = o;
    const n = at.length;
    const dict = this.set!.dict;
    const w = this.width;
    const picked = scratch.indexes(n);
    const dictOffsets = dict.offsets;
    let bytes = 0;
    let nc = 0;
    for (const [c, ids] of this.ids.entries()) {
      const base = first[c]!;
      for (let k = from[c]!; k < from[c + 1]!; k++) {
        const x = ids[held[k]! - base]! - 1;
        picked[at[k]!] = x;
        if (x < 0) nc++;
        else if (!w) bytes += dictOffsets[x + 1]! - dictOffsets[x]!;
      }
    }
    const nulls = scratch.nullFlags(n);
    out.nulls = nulls;
    out.nullCount = nc;
    if (w) return { col: this.fixedOfIds(out, picked, scratch), ids: { ids: picked, values: dict } };
    const off = scratch.ints(n + 1);
    if (!withBytes) {
      for (let k = 0; k < n; k++) if (picked[k]! < 0) nulls[k] = 1;
      off.fill(0);
      out.data = scratch.bytes(0);
      out.offsets = off;
      return { col: out, ids: { ids: picked, values: dict, onlyIds: true } };
    }
    const d = scratch.bytes(bytes);
    const dv = viewOf(d);
    const dd = dict.data;
    const ddv = dict.view();
    off[0] = 0;
    let pos = 0;
    for (let k = 0; k < n; k++) {
      const x = picked[k]!;
      if (x < 0) nulls[k] = 1;
      else {
        const s = dictOffsets[x]!;
        const len = dictOffsets[x + 1]! - s;
        moveBytes(dd, ddv, s, d, dv, pos, len);
        pos += len;
      }
      off[k + 1] = pos;
    }
    out.data = d;
    out.offsets = off;
    out.size = pos;
    return { col: out, ids: { ids: picked, values: dict } };
  }

  /** A fixed-width dictionary field's gathered values: each row's value from the distinct values (nulls zero). */
  private fixedOfIds(out: PackedColumn, picked: Int32Array, scratch: GatherScratch): PackedColumn {
    const n = picked.length;
    const w = this.width;
    const dict = this.set!.dict;
    out.data = scratch.bytes(n * w);
    out.size = n * w;
    const nulls = out.nulls;
    if (w === 4 || w === 8) {
      // 32-bit words (bit-exact, NaN payloads too)
      const q = w >> 2;
      const dst = new Int32Array(out.data.buffer, 0, n * q);
      const src = new Int32Array(dict.data.buffer, dict.data.byteOffset, dict.length * q);
      for (let k = 0; k < n; k++) {
        const x = picked[k]!;
        const d = k * q;
        if (x < 0) {
          nulls[k] = 1;
          dst[d] = 0;
          if (q === 2) dst[d + 1] = 0;
        } else {
          dst[d] = src[x * q]!;
          if (q === 2) dst[d + 1] = src[x * q + 1]!;
        }
      }
      return out;
    }
    throw new Error(`held dictionary of ${this.type} values`);
  }

  /**
   * Ranks 1..distinct of every held row's value in compareValues order (0 = null), or undefined when
   * only the general path can rank it (longs beyond 2^53).
   */
  rank(c: SortColumn): Ranked | undefined {
    const n = this.length;
    if (this.type === 'BYTE_ARRAY') {
      // strings by their UTF-8 bytes (= code point order, Spark's), bytes unsigned: the distinct
      // values ordered once, each row ranked through its index
      const set = this.set ?? new SpanSet('BYTE_ARRAY', 1024);
      const idsOf: ArrayLike<number>[] = this.set ? this.ids : this.plain.map((p) => {
        const ids = new Int32Array(p.length);
        const dv = p.view();
        for (let i = 0; i < p.length; i++) ids[i] = p.nulls[i] ? 0 : set.indexOf(p.data, dv, p.offsets[i]!, p.offsets[i + 1]!) + 1;
        return ids;
      });
      const dict = set.dict;
      const dd = dict.data;
      const ddv = dict.view();
      const order = Array.from({ length: dict.length }, (_, i) => i).sort((a, b) => compareBytes(dd, ddv, dict.start(a), dict.end(a), dd, ddv, dict.start(b), dict.end(b)));
      // distinct by content: one rank each
      const rankOfId = new Int32Array(dict.length);
      for (let k = 0; k < order.length; k++) rankOfId[order[k]!] = k + 1;
      const rank = new Int32Array(n);
      let g = 0;
      for (const ids of idsOf) for (let i = 0; i < ids.length; i++, g++) rank[g] = ids[i] === 0 ? 0 : rankOfId[ids[i]! - 1]!;
      return { rank, distinct: dict.length };
    }
    if (this.set) {
      // the distinct values ranked, each row through its index
      const dict = this.set.dict;
      const ranked = rankNumbersOf([dict], this.type);
      if (!ranked) return undefined;
      const perRow = (r: Ranked): Ranked => {
        const rank = new Float64Array(n);
        let g = 0;
        for (const ids of this.ids) for (let i = 0; i < ids.length; i++, g++) rank[g] = ids[i] === 0 ? 0 : r.rank[ids[i]! - 1]!;
        return { rank, distinct: r.distinct, densify: r.densify && (() => perRow(r.densify!())) };
      };
      return perRow(ranked);
    }
    void c;
    return rankNumbersOf(this.plain, this.type);
  }

  /** Every held row's value as the sort compares it (the general path: z-order, hilbert, longs beyond 2^53). */
  values(c: SortColumn): SortValue[] {
    const out = new Array<SortValue>(this.length);
    let g = 0;
    if (this.set) {
      const dict = this.set.dict;
      const decoded = Array.from({ length: dict.length }, (_, x) => valueOf(dict, x, c));
      for (const ids of this.ids) for (let i = 0; i < ids.length; i++) out[g++] = ids[i] === 0 ? null : decoded[ids[i]! - 1]!;
      return out;
    }
    for (const p of this.plain) for (let i = 0; i < p.length; i++) out[g++] = valueOf(p, i, c);
    return out;
  }
}

/**
 * Ranks 1..distinct of the values of numeric chunks, in compareValues order (0 = null), or undefined
 * for longs beyond 2^53 (a double would merge distinct ones).
 */
function rankNumbersOf(chunks: readonly PackedColumn[], type: ParquetType): Ranked | undefined {
  const n = chunks.reduce((m, p) => m + p.length, 0);
  const xs = new Float64Array(n);
  const nulls = new Uint8Array(n);
  let g = 0;
  // one loop per type (this runs over every row of a sort field)
  for (const p of chunks) {
    const dv = p.view();
    const pn = p.nulls;
    const m = p.length;
    if (p.nullCount > 0) for (let i = 0; i < m; i++) nulls[g + i] = pn[i]!;
    switch (type) {
      case 'INT32':
        for (let i = 0; i < m; i++) xs[g + i] = dv.getInt32(4 * i, true);
        break;
      case 'INT64':
        for (let i = 0; i < m; i++) {
          const hi = dv.getInt32(8 * i + 4, true);
          // beyond ±2^53 a double would merge distinct longs (a null's zero bytes are 0)
          if (hi < -0x200000 || hi >= 0x200000) return undefined;
          xs[g + i] = hi * 4294967296 + dv.getUint32(8 * i, true);
        }
        break;
      case 'FLOAT':
        for (let i = 0; i < m; i++) xs[g + i] = dv.getFloat32(4 * i, true);
        break;
      case 'DOUBLE':
        for (let i = 0; i < m; i++) xs[g + i] = dv.getFloat64(8 * i, true);
        break;
      default:
        for (let i = 0; i < m; i++) xs[g + i] = p.data[i]!;
    }
    // a null's value is 0, as before
    if (p.nullCount > 0) for (let i = 0; i < m; i++) if (pn[i]) xs[g + i] = 0;
    g += m;
  }
  if (type === 'INT32' || type === 'INT64') {
    // integers: their offsets from the minimum are ranks already (no sort to rank them), as long as
    // the offsets are exact
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      if (nulls[i]) continue;
      const x = xs[i]!;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    if (max - min + 1 <= Number.MAX_SAFE_INTEGER) {
      for (let i = 0; i < n; i++) xs[i] = nulls[i] ? 0 : xs[i]! - min + 1;
      return { rank: xs, distinct: min <= max ? max - min + 1 : 0, densify: () => rankNumbers(xs, nulls) };
    }
  }
  return rankNumbers(xs, nulls);
}

/** Value i of a packed column for sorting (strings decoded, INT64 as a number when exact, else bigint). */
export function valueOf(col: PackedColumn, i: number, c: SortColumn): SortValue {
  if (col.nulls[i]) return null;
  const s = col.start(i);
  const dv = col.view();
  switch (col.type) {
    case 'BYTE_ARRAY':
      return c.kind === 'binary' ? col.data.slice(s, col.end(i)) : text.decode(col.data.subarray(s, col.end(i)));
    case 'INT32':
      return dv.getInt32(s, true);
    case 'INT64': {
      // a number when exact (no BigInt allocated per row); the sort compares both kinds alike
      const hi = dv.getInt32(s + 4, true);
      if (hi >= -0x200000 && hi < 0x200000) return hi * 4294967296 + dv.getUint32(s, true);
      return dv.getBigInt64(s, true);
    }
    case 'FLOAT':
      return dv.getFloat32(s, true);
    case 'DOUBLE':
      return dv.getFloat64(s, true);
    default:
      return col.data[s] === 1;
  }
}

/** Ranks of a held sort field: from its bytes when it allows, else through its values. */
export function rankHeld(col: HeldColumn, c: SortColumn): Ranked {
  return col.rank(c) ?? rankValues(col.values(c));
}

/** The merged rows of a group, field by field (undefined: a field not held, the file name). */
export class HeldRows {
  readonly columns: (HeldColumn | undefined)[];
  rows = 0;

  constructor(types: (ParquetType | undefined)[]) {
    this.columns = types.map((t) => (t ? new HeldColumn(t) : undefined));
  }

  /** Appends one merged chunk (its columns by field; those not held are ignored). */
  append(columns: PackedColumn[]): void {
    const n = Math.max(0, ...columns.map((c, j) => (this.columns[j] ? c.length : 0)));
    if (n === 0) return;
    for (const [j, h] of this.columns.entries()) {
      if (!h) continue;
      if (columns[j]!.length !== n) throw new Error(`held chunk of ${n} rows with a column of ${columns[j]!.length}`);
      h.append(columns[j]!);
    }
    this.rows += n;
  }
}
