// The order clustering writes a group's records in (format-services-write.md §2.5 step 3):
// 'linear' = lexicographic by the sort columns as Spark's Dataset.sort orders them (ascending, nulls
// first, strings by UTF-8 bytes, numbers by value); 'z-order' / 'hilbert' = Hudi's space-filling curves
// (SpaceCurveSortingHelper.orderDataFrameByMappingValues): each column mapped to 8 bytes (BinaryUtil)
// and the bits interleaved, or to a long and indexed on a 63-bit Hilbert curve (davidmoten
// HilbertCurve, HilbertCurveUtils.indexBytes), then sorted by those bytes. With one column Hudi only
// range-partitions by it; sorting by it linearly gives the same ranges, sorted within.
import { TblError } from '../../errors/index.ts';
import type { AvroRecordSchema, AvroType } from '../../parquet/write.ts';

export type Layout = 'linear' | 'z-order' | 'hilbert';

/** Spark's data type of a sort column, as HoodieSparkUtils converts the Avro type. */
export type SortKind = 'long' | 'int' | 'double' | 'float' | 'string' | 'boolean' | 'binary' | 'date' | 'timestamp' | 'decimal';

export interface SortColumn {
  name: string;
  /** position in the writer schema (meta fields included): Hudi's dimension order follows it */
  index: number;
  kind: SortKind;
  /** timestamps: units per millisecond (micros 1000, millis 1) */
  perMilli?: number;
  /** decimals: scale */
  scale?: number;
}

/** A value as the merge gives it: null, number, bigint (longs, decimals unscaled, raw timestamps), string, boolean, bytes. */
export type SortValue = null | undefined | number | bigint | string | boolean | Uint8Array;

function nonNull(t: AvroType): AvroType {
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== 'null');
    return rest.length === 1 ? rest[0]! : t;
  }
  return t;
}

/** The sort columns of `schema`, checked: they must exist and be of a type Hudi can sort by. */
export function sortColumnsOf(schema: AvroRecordSchema, names: string[]): SortColumn[] {
  return names.map((name) => {
    const index = schema.fields.findIndex((f) => f.name === name);
    if (index < 0) throw new TblError('usage', `sort column ${JSON.stringify(name)} is not a field of the table schema (${schema.fields.map((f) => f.name).join(', ')})`);
    const t = nonNull(schema.fields[index]!.type);
    const prim = typeof t === 'string' ? t : !Array.isArray(t) && typeof t === 'object' ? (t as { type: string }).type : undefined;
    const logical = typeof t === 'object' && !Array.isArray(t) ? (t as { logicalType?: string }).logicalType : undefined;
    const fail = () => new TblError('usage', `sort column ${name} has type ${JSON.stringify(t)}; clustering sorts by numbers, strings, booleans, dates, timestamps, decimals and bytes`);
    if (logical === 'decimal') return { name, index, kind: 'decimal', scale: (t as { scale?: number }).scale ?? 0 };
    if (logical === 'date' && prim === 'int') return { name, index, kind: 'date' };
    if ((logical === 'timestamp-micros' || logical === 'local-timestamp-micros') && prim === 'long') return { name, index, kind: 'timestamp', perMilli: 1000 };
    if ((logical === 'timestamp-millis' || logical === 'local-timestamp-millis') && prim === 'long') return { name, index, kind: 'timestamp', perMilli: 1 };
    switch (prim) {
      case 'long':
        return { name, index, kind: 'long' };
      case 'int':
        return { name, index, kind: 'int' };
      case 'double':
        return { name, index, kind: 'double' };
      case 'float':
        return { name, index, kind: 'float' };
      case 'string':
      case 'enum':
        return { name, index, kind: 'string' };
      case 'boolean':
        return { name, index, kind: 'boolean' };
      case 'bytes':
      case 'fixed':
        return { name, index, kind: 'binary' };
      default:
        throw fail();
    }
  });
}

const utf8 = new TextEncoder();

/** UTF-16 strings in code point order (= UTF-8 byte order, Spark's UTF8String order). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates stand for code points above U+FFFF: move them past U+E000..U+FFFF
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Two values of one column, ascending, nulls first (Spark's default ascending order). */
export function compareValues(a: SortValue, b: SortValue): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') {
    // Spark: NaN is larger than every other value and equal to itself; -0.0 = 0.0
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a < b ? -1 : a > b ? 1 : 0;
  throw new TblError('bug', `cannot compare sort values ${String(a)} and ${String(b)}`);
}

// ---- BinaryUtil / mapColumnValueTo8Bytes ----

const LONG_MAX = (1n << 63n) - 1n;

function longBytes(v: bigint, out: Uint8Array, at: number): void {
  const u = BigInt.asUintN(64, v);
  const hi = Number(u >> 32n);
  const lo = Number(u & 0xffffffffn);
  out[at] = hi >>> 24;
  out[at + 1] = (hi >>> 16) & 255;
  out[at + 2] = (hi >>> 8) & 255;
  out[at + 3] = hi & 255;
  out[at + 4] = lo >>> 24;
  out[at + 5] = (lo >>> 16) & 255;
  out[at + 6] = (lo >>> 8) & 255;
  out[at + 7] = lo & 255;
}

/** paddingTo8Byte: shorter arrays right-aligned after zeros, longer ones cut to their first 8 bytes. */
function pad8(b: Uint8Array, out: Uint8Array, at: number): void {
  out.fill(0, at, at + 8);
  if (b.length >= 8) out.set(b.subarray(0, 8), at);
  else out.set(b, at + 8 - b.length);
}

const F64 = new Float64Array(1);
const F64B = new Uint8Array(F64.buffer);

function toBig(v: SortValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  throw new TblError('bug', `expected an integer sort value, got ${String(v)}`);
}

/** Epoch millis of a date (days) or timestamp (raw units) value, as java.sql Date/Timestamp.getTime() (UTC). */
function millisOf(c: SortColumn, v: SortValue): bigint {
  if (c.kind === 'date') return toBig(v) * 86_400_000n;
  const raw = toBig(v);
  const per = BigInt(c.perMilli ?? 1);
  // floor division, as Timestamp.getTime of a pre-epoch instant
  return raw >= 0n || raw % per === 0n ? raw / per : raw / per - 1n;
}

/** Decimal.longValue(): the unscaled value divided by 10^scale, truncated. */
function decimalLong(c: SortColumn, v: SortValue): bigint {
  const unscaled = typeof v === 'bigint' ? v : toBig(v);
  return BigInt.asIntN(64, unscaled / 10n ** BigInt(c.scale ?? 0));
}

function doubleTo8(d: number, out: Uint8Array, at: number): void {
  F64[0] = d;
  // big-endian raw bits
  for (let k = 0; k < 8; k++) out[at + k] = F64B[7 - k]!;
  if (d > 0) out[at] = out[at]! ^ 0x80;
  if (d < 0) for (let k = 0; k < 8; k++) out[at + k] = ~out[at + k]! & 255;
}

/** mapColumnValueTo8Bytes for one value (null → the type's stand-in, as Hudi). */
function to8Bytes(c: SortColumn, v: SortValue, out: Uint8Array, at: number): void {
  const isNull = v === null || v === undefined;
  switch (c.kind) {
    case 'long':
      return longBytes((isNull ? LONG_MAX : toBig(v)) ^ (1n << 63n), out, at);
    case 'date':
    case 'timestamp':
      return longBytes((isNull ? LONG_MAX : millisOf(c, v)) ^ (1n << 63n), out, at);
    case 'decimal':
      return longBytes((isNull ? LONG_MAX : decimalLong(c, v)) ^ (1n << 63n), out, at);
    case 'double':
    case 'float':
      return doubleTo8(isNull ? (c.kind === 'double' ? Number.MAX_VALUE : 3.4028234663852886e38) : (v as number), out, at);
    case 'int': {
      const x = ((isNull ? 2147483647 : Number(v)) ^ (1 << 31)) >>> 0;
      out.fill(0, at, at + 4);
      out[at + 4] = x >>> 24;
      out[at + 5] = (x >>> 16) & 255;
      out[at + 6] = (x >>> 8) & 255;
      out[at + 7] = x & 255;
      return;
    }
    case 'string':
      return pad8(utf8.encode(isNull ? '' : (v as string)), out, at);
    case 'boolean':
      // intTo8Byte(value ? 1 : 0), null as false
      return to8Bytes({ ...c, kind: 'int' }, v === true ? 1 : 0, out, at);
    case 'binary':
      return pad8(isNull ? new Uint8Array([0]) : (v as Uint8Array), out, at);
  }
}

/** BinaryUtil.convertBytesToLong(paddingTo8Byte(b)) */
function bytesToLong(b: Uint8Array): bigint {
  const p = new Uint8Array(8);
  pad8(b, p, 0);
  let x = 0n;
  for (let k = 0; k < 8; k++) x = (x << 8n) | BigInt(p[k]!);
  return BigInt.asIntN(64, x);
}

/** mapColumnValueToLong for one value. */
function toLong(c: SortColumn, v: SortValue): bigint {
  if (v === null || v === undefined) return c.kind === 'boolean' ? 0n : LONG_MAX;
  switch (c.kind) {
    case 'long':
    case 'int':
      return toBig(v);
    case 'double':
    case 'float': {
      F64[0] = v as number;
      return new DataView(F64.buffer).getBigInt64(0, true);
    }
    case 'string':
      return bytesToLong(utf8.encode(v as string));
    case 'date':
    case 'timestamp':
      return millisOf(c, v);
    case 'decimal':
      return decimalLong(c, v);
    case 'boolean':
      return v === true ? LONG_MAX : 0n;
    case 'binary':
      return bytesToLong(v as Uint8Array);
  }
}

/** BinaryUtil.interleaving(buffers, 8): bit k of every column in turn, most significant first. */
function interleave(cols: Uint8Array, n: number, out: Uint8Array, at: number): void {
  out.fill(0, at, at + 8 * n);
  let pos = 0;
  for (let bit = 0; bit < 64; bit++) {
    const byte = bit >>> 3;
    const mask = 0x80 >>> (bit & 7);
    for (let i = 0; i < n; i++, pos++) if (cols[i * 8 + byte]! & mask) out[at + (pos >>> 3)] = out[at + (pos >>> 3)]! | (0x80 >>> (pos & 7));
  }
}

/** HilbertCurve.bits(63).dimensions(n).index(point) as big-endian bytes, then paddingToNByte(toByteArray, 63). */
export function hilbertKey(point: bigint[]): Uint8Array {
  const n = point.length;
  const bits = 63;
  const x = point.map((v) => BigInt.asUintN(64, v));
  // transposedIndex (Skilling's AxestoTranspose)
  for (let q = 1n << BigInt(bits - 1); q > 1n; q >>= 1n) {
    const p = q - 1n;
    for (let i = 0; i < n; i++) {
      if ((x[i]! & q) !== 0n) x[0] = x[0]! ^ p;
      else {
        const t = (x[0]! ^ x[i]!) & p;
        x[0] = x[0]! ^ t;
        x[i] = x[i]! ^ t;
      }
    }
  }
  for (let i = 1; i < n; i++) x[i] = x[i]! ^ x[i - 1]!;
  let t = 0n;
  for (let q = 1n << BigInt(bits - 1); q > 1n; q >>= 1n) if ((x[n - 1]! & q) !== 0n) t ^= q - 1n;
  for (let i = 0; i < n; i++) x[i] = x[i]! ^ t;
  // toIndex: bits 62..0 of each coordinate in turn, most significant first
  const width = Math.ceil((bits * n) / 8);
  const be = new Uint8Array(width);
  let bIndex = bits * n - 1;
  for (let b = bits - 1; b >= 0; b--) {
    const mask = 1n << BigInt(b);
    for (let j = 0; j < n; j++, bIndex--) if ((x[j]! & mask) !== 0n) be[width - 1 - (bIndex >>> 3)] = be[width - 1 - (bIndex >>> 3)]! | (1 << (bIndex & 7));
  }
  // BigInteger.toByteArray (minimal two's complement of a positive number), then paddingToNByte(…, 63)
  let s = 0;
  while (s < width - 1 && be[s] === 0) s++;
  let minimal = be.subarray(s);
  if (minimal[0]! & 0x80) {
    const m = new Uint8Array(minimal.length + 1);
    m.set(minimal, 1);
    minimal = m;
  }
  const out = new Uint8Array(63);
  if (minimal.length >= 63) out.set(minimal.subarray(0, 63));
  else out.set(minimal, 63 - minimal.length);
  return out;
}

/** The iteration order of a java.util.HashMap<Integer, …> built from these keys in this order. */
export function javaIntHashMapOrder(keys: number[]): number[] {
  let cap = 16;
  while (keys.length > cap * 0.75) cap *= 2;
  const bucket = (k: number) => (k ^ (k >>> 16)) & (cap - 1);
  return keys.map((k, i) => ({ k, i })).sort((a, b) => bucket(a.k) - bucket(b.k) || a.i - b.i).map((e) => e.k);
}

/**
 * The stable order of indexes 0..n-1 by unsigned 64-bit keys, given as (low, high) 32-bit word pairs
 * (`keys[2i]`, `keys[2i + 1]`): an LSD radix sort by bytes, skipping the bytes all keys share. The
 * key words still needed travel with the indexes, so every pass reads its input in order (reading
 * `keys` through the permuted indexes missed the cache once per row and pass: ~5× slower at 1M rows).
 */
export function radixOrder(keys: Uint32Array): Int32Array {
  const n = keys.length >> 1;
  // the eight byte histograms in one read
  const hist = new Int32Array(8 * 256);
  for (let i = 0; i < n; i++) {
    const lo = keys[2 * i]!;
    const hi = keys[2 * i + 1]!;
    hist[lo & 255]!++;
    hist[256 + ((lo >>> 8) & 255)]!++;
    hist[512 + ((lo >>> 16) & 255)]!++;
    hist[768 + (lo >>> 24)]!++;
    hist[1024 + (hi & 255)]!++;
    hist[1280 + ((hi >>> 8) & 255)]!++;
    hist[1536 + ((hi >>> 16) & 255)]!++;
    hist[1792 + (hi >>> 24)]!++;
  }
  const passes: number[] = [];
  for (let p = 0; p < 8; p++) {
    // a byte every key shares: the first key's digit counts them all
    const digit = ((p < 4 ? keys[0]! : keys[1]!) >>> ((p & 3) * 8)) & 255;
    if (hist[p * 256 + digit]! !== n) passes.push(p);
  }
  let idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  if (passes.length === 0) return idx;
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = keys[2 * i]!;
    hi[i] = keys[2 * i + 1]!;
  }
  let idx2 = new Int32Array(n);
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  for (let q = 0; q < passes.length; q++) {
    const p = passes[q]!;
    const shift = (p & 3) * 8;
    const count = hist.subarray(p * 256, p * 256 + 256);
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    const later = passes.slice(q + 1);
    const carryLo = later.some((x) => x < 4);
    const carryHi = later.some((x) => x >= 4);
    const src = p < 4 ? lo : hi;
    // one loop per carried set: a branch per row would cost as much as the carrying saves
    if (carryLo && carryHi) {
      for (let i = 0; i < n; i++) {
        const at = count[(src[i]! >>> shift) & 255]!++;
        idx2[at] = idx[i]!;
        lo2[at] = lo[i]!;
        hi2[at] = hi[i]!;
      }
    } else if (carryHi) {
      for (let i = 0; i < n; i++) {
        const at = count[(src[i]! >>> shift) & 255]!++;
        idx2[at] = idx[i]!;
        hi2[at] = hi[i]!;
      }
    } else if (carryLo) {
      for (let i = 0; i < n; i++) {
        const at = count[(src[i]! >>> shift) & 255]!++;
        idx2[at] = idx[i]!;
        lo2[at] = lo[i]!;
      }
    } else {
      for (let i = 0; i < n; i++) idx2[count[(src[i]! >>> shift) & 255]!++] = idx[i]!;
    }
    [idx, idx2] = [idx2, idx];
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
  }
  return idx;
}

/**
 * The stable order of unsigned 32-bit keys (radixOrder for keys that fit a word, the usual combined
 * rank): three passes of 11-bit digits, a digit every key shares skipped. `keys` is taken over
 * (reordered in place as it goes).
 */
export function radixOrder32(keys: Uint32Array): Int32Array {
  const n = keys.length;
  const R = 2048;
  const hist = new Int32Array(3 * R);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    hist[k & 2047]!++;
    hist[R + ((k >>> 11) & 2047)]!++;
    hist[2 * R + (k >>> 22)]!++;
  }
  const passes: number[] = [];
  for (let p = 0; p < 3; p++) if (n > 0 && hist[p * R + ((keys[0]! >>> (11 * p)) & 2047)]! !== n) passes.push(p);
  let idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  if (passes.length === 0) return idx;
  let key: Uint32Array = keys;
  let idx2 = new Int32Array(n);
  let key2: Uint32Array = new Uint32Array(passes.length > 1 ? n : 0);
  for (const [q, p] of passes.entries()) {
    const shift = 11 * p;
    const count = hist.subarray(p * R, p * R + R);
    let sum = 0;
    for (let d = 0; d < R; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    if (q < passes.length - 1) {
      for (let i = 0; i < n; i++) {
        const k = key[i]!;
        const at = count[(k >>> shift) & 2047]!++;
        idx2[at] = idx[i]!;
        key2[at] = k;
      }
      [key, key2] = [key2, key];
    } else {
      for (let i = 0; i < n; i++) idx2[count[(key[i]! >>> shift) & 2047]!++] = idx[i]!;
    }
    [idx, idx2] = [idx2, idx];
  }
  return idx;
}

/**
 * Ranks 1..distinct of numbers in compareValues order (0 where nulls[i]): NaN largest, -0 = 0, as Spark
 * orders them. The doubles' bits made unsigned-sortable, radix-ordered, ranked in that order.
 */
export function rankNumbers(xs: Float64Array, nulls: Uint8Array): Ranked {
  const n = xs.length;
  const f = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    // one NaN, one zero; nulls sort anywhere (they take rank 0)
    f[i] = nulls[i] ? 0 : x === 0 ? 0 : Number.isNaN(x) ? Number.NaN : x;
  }
  const w = new Uint32Array(f.buffer);
  for (let i = 0; i < n; i++) {
    // sign set: every bit flipped (more negative = smaller); else the sign bit set
    if (w[2 * i + 1]! & 0x80000000) {
      w[2 * i] = ~w[2 * i]! >>> 0;
      w[2 * i + 1] = ~w[2 * i + 1]! >>> 0;
    } else w[2 * i + 1] = (w[2 * i + 1]! | 0x80000000) >>> 0;
  }
  const order = radixOrder(w);
  const rank = new Int32Array(n);
  let d = 0;
  let lo = -1;
  let hi = -1;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (nulls[i]) continue;
    if (w[2 * i] !== lo || w[2 * i + 1] !== hi) {
      d++;
      lo = w[2 * i]!;
      hi = w[2 * i + 1]!;
    }
    rank[i] = d;
  }
  return { rank, distinct: d };
}

/** Ranks 1..distinct of values in compareValues order (0 = null), computed without a comparator where the values allow. */
export function rankValues(values: SortValue[]): Ranked {
  const n = values.length;
  const rank = new Int32Array(n);
  let kind: 'number' | 'bigint' | 'other' | undefined;
  let safe = true;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const k = typeof v === 'number' ? 'number' : typeof v === 'bigint' ? 'bigint' : 'other';
    if (k === 'bigint' && ((v as bigint) < -9007199254740991n || (v as bigint) > 9007199254740991n)) safe = false;
    if (kind === undefined) kind = k;
    else if (kind !== k) kind = kind === 'other' || k === 'other' ? 'other' : 'bigint';
  }
  if (kind === undefined) return { rank, distinct: 0 };
  if ((kind === 'number' || kind === 'bigint') && (kind === 'number' || safe)) {
    const xs = new Float64Array(n);
    const nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) nulls[i] = 1;
      else xs[i] = Number(v);
    }
    return rankNumbers(xs, nulls);
  }
  // strings, booleans, bytes, exact longs: distinct values ordered once with compareValues
  const ids = new Map<unknown, number>();
  const distinct: SortValue[] = [];
  const keyOf = (v: SortValue): unknown => (v instanceof Uint8Array ? `b:${Buffer.from(v).toString('hex')}` : v);
  const idOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const k = keyOf(v);
    let id = ids.get(k);
    if (id === undefined) {
      id = distinct.push(v) - 1;
      ids.set(k, id);
    }
    idOf[i] = id;
  }
  const order = distinct.map((_, i) => i).sort((a, b) => compareValues(distinct[a], distinct[b]));
  const rankOfId = new Int32Array(distinct.length);
  let r = 0;
  for (let k = 0; k < order.length; k++) {
    if (k === 0 || compareValues(distinct[order[k]!], distinct[order[k - 1]!]) !== 0) r++;
    rankOfId[order[k]!] = r;
  }
  for (let i = 0; i < n; i++) if (idOf[i]! >= 0) rank[i] = rankOfId[idOf[i]!]!;
  return { rank, distinct: r };
}

/**
 * A sort column's rows as integers in its order: 1..distinct (0 = null). Not every rank need be taken
 * (a long's offset from its minimum, say); `densify` then gives the dense ranks of the same order,
 * for when the combined rank would not be exact.
 */
export interface Ranked {
  rank: ArrayLike<number>;
  distinct: number;
  densify?: () => Ranked;
}

function spanOf(ranked: readonly Ranked[]): number {
  let span = 1;
  for (const r of ranked) span *= r.distinct + 1;
  return span;
}

/**
 * The permutation of rows 0..n-1 ordering them by their ranks, column after column (stable: equal
 * ranks keep the input order). Rows compare as small integers: when the combined rank is an exact
 * double, one radix sort of it orders them.
 */
export function permutationOfRanks(n: number, columns: readonly Ranked[]): Int32Array {
  const perm = () => Int32Array.from({ length: n }, (_, i) => i);
  if (columns.length === 0 || n < 2) return perm();
  let ranked = columns;
  let span = spanOf(ranked);
  // sparse ranks made dense, the widest first, until the combined rank is exact
  while (span > Number.MAX_SAFE_INTEGER) {
    const widest = ranked.filter((r) => r.densify).sort((a, b) => b.distinct - a.distinct)[0];
    if (!widest) break;
    const dense = widest.densify!();
    ranked = ranked.map((r) => (r === widest ? dense : r));
    span = spanOf(ranked);
  }
  if (span <= 4294967296) {
    // the combined rank in a word (the usual case): a 32-bit radix order
    const keys = new Uint32Array(n);
    if (ranked.length === 1) {
      const r = ranked[0]!.rank;
      for (let i = 0; i < n; i++) keys[i] = r[i]!;
    } else if (ranked.length === 2) {
      const a = ranked[0]!.rank;
      const b = ranked[1]!.rank;
      const m = ranked[1]!.distinct + 1;
      for (let i = 0; i < n; i++) keys[i] = a[i]! * m + b[i]!;
    } else {
      for (let i = 0; i < n; i++) {
        let k = 0;
        for (const r of ranked) k = k * (r.distinct + 1) + r.rank[i]!;
        keys[i] = k;
      }
    }
    return radixOrder32(keys);
  }
  if (span <= Number.MAX_SAFE_INTEGER) {
    // the combined rank as one exact integer, radix-ordered (stable: ties keep the input order)
    const keys = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      let k = 0;
      for (const r of ranked) k = k * (r.distinct + 1) + r.rank[i]!;
      keys[2 * i] = k >>> 0;
      keys[2 * i + 1] = Math.floor(k / 4294967296);
    }
    return radixOrder(keys);
  }
  return perm().sort((x, y) => {
    for (const r of ranked) {
      const d = r.rank[x]! - r.rank[y]!;
      if (d !== 0) return d;
    }
    return x - y;
  });
}

/**
 * The permutation of rows 0..n-1 that orders them (stable: equal keys keep their input order).
 * `value(c, i)` = sort column c's value at row i.
 */
export function sortPermutation(n: number, columns: SortColumn[], layout: Layout, value: (c: number, i: number) => SortValue): Int32Array {
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  if (columns.length === 0 || n < 2) return perm;
  if (layout === 'linear' || columns.length === 1) {
    // each column's values replaced by their rank among its distinct values (compareValues order)
    const ranked = columns.map((_, c) => {
      const a = new Array<SortValue>(n);
      for (let i = 0; i < n; i++) a[i] = value(c, i);
      return rankValues(a);
    });
    return permutationOfRanks(n, ranked);
  }
  // dimensions in the order Hudi's HashMap<schema index, field> yields them
  const order = javaIntHashMapOrder(columns.map((c) => c.index)).map((idx) => columns.findIndex((c) => c.index === idx));
  const dims = order.length;
  const width = layout === 'z-order' ? 8 * dims : 63;
  const keys = new Uint8Array(n * width);
  const scratch = new Uint8Array(8 * dims);
  for (let i = 0; i < n; i++) {
    if (layout === 'z-order') {
      for (let d = 0; d < dims; d++) to8Bytes(columns[order[d]!]!, value(order[d]!, i), scratch, 8 * d);
      interleave(scratch, dims, keys, i * width);
    } else {
      keys.set(hilbertKey(order.map((c) => toLong(columns[c]!, value(c, i)))), i * width);
    }
  }
  return perm.sort((x, y) => {
    const a = x * width;
    const b = y * width;
    for (let k = 0; k < width; k++) {
      const d = keys[a + k]! - keys[b + k]!;
      if (d !== 0) return d;
    }
    return x - y;
  });
}
