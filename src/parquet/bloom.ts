// Hudi's record-key bloom filter as stored in the parquet footer key `org.apache.hudi.bloomfilter`:
// Base64 of a Hadoop-format filter (org.apache.hudi.common.bloom.InternalBloomFilter /
// InternalDynamicBloomFilter, DataOutputStream big-endian), hashed with Hudi's port of MurmurHash2.
// Bit-compatible with Java so Hudi's bloom index can prune with the files we write.
import { TblError } from '../errors/index.ts';

export type BloomFilterType = 'SIMPLE' | 'DYNAMIC_V0';

/** org.apache.hadoop.util.hash.Hash constants. */
const MURMUR_HASH = 1;
const FILTER_VERSION = -1;

export interface BloomFilterOptions {
  type?: BloomFilterType;
  /** hoodie.index.bloom.num_entries (60000) */
  numEntries?: number;
  /** hoodie.index.bloom.fpp (1e-9) */
  fpp?: number;
  /** hoodie.bloom.index.filter.dynamic.max.entries (100000) */
  maxEntries?: number;
}

export const BLOOM_DEFAULTS = { type: 'DYNAMIC_V0', numEntries: 60000, fpp: 0.000000001, maxEntries: 100000 } as const;

/** BloomFilterUtils.getBitSize / getNumHashes. */
export function bloomBitSize(numEntries: number, fpp: number): number {
  return Math.ceil(numEntries * (-Math.log(fpp) / (Math.log(2) * Math.log(2))));
}
export function bloomNumHashes(bitSize: number, numEntries: number): number {
  return Math.ceil((Math.log(2) * bitSize) / numEntries);
}

/**
 * org.apache.hudi.common.util.hash.MurmurHash.hash(data, 0, len, seed) (Hudi's port of Hadoop's
 * MurmurHash2, whose tail order differs): Java signed bytes, int arithmetic.
 */
export function murmurHash(data: Uint8Array, seed: number): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = seed ^ length;
  const len4 = length >> 2;
  const sb = (i: number) => (data[i]! << 24) >> 24; // Java byte (signed)
  for (let i = 0; i < len4; i++) {
    const o = i << 2;
    let k = sb(o + 3);
    k = (k << 8) | (data[o + 2]! & 0xff);
    k = (k << 8) | (data[o + 1]! & 0xff);
    k = (k << 8) | (data[o]! & 0xff);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const left = length - (len4 << 2);
  if (left !== 0) {
    // Hudi's port reads the tail from the end (data[length - 3] << 16, …), unlike Hadoop's MurmurHash
    // (data[len_m + 2] << 16, …): the two differ for 2- and 3-byte tails, and Hudi files use Hudi's
    if (left >= 3) h ^= sb(length - 3) << 16;
    if (left >= 2) h ^= sb(length - 2) << 8;
    if (left >= 1) h ^= sb(length - 1);
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Hadoop HashFunction.hash: chained murmur, Math.abs(initval % vectorSize) with Java int remainder. */
export function bloomPositions(key: Uint8Array, nbHash: number, vectorSize: number): number[] {
  if (key.length === 0) throw new TblError('parquet', 'bloom filter key must not be empty');
  const out = new Array<number>(nbHash);
  let initval = 0;
  for (let i = 0; i < nbHash; i++) {
    initval = murmurHash(key, initval);
    out[i] = Math.abs(initval % vectorSize);
  }
  return out;
}

/**
 * bloomPositions without allocation, for the write path (1M keys × 30 hashes per compacted file):
 * MurmurHash2's per-word mixing does not depend on the seed, so each key's words are mixed once and
 * only the seed-dependent part runs per hash. Same positions as bloomPositions (tested).
 */
export class PositionHasher {
  private words = new Int32Array(64);
  readonly positions: Int32Array;
  constructor(
    private readonly nbHash: number,
    private readonly vectorSize: number,
  ) {
    this.positions = new Int32Array(nbHash);
  }
  /** Fills `positions` for key bytes [start, end) of `data`. */
  hash(data: Uint8Array, start: number, end: number): Int32Array {
    const m = 0x5bd1e995;
    const length = end - start;
    if (length === 0) throw new TblError('parquet', 'bloom filter key must not be empty');
    const len4 = length >> 2;
    if (len4 > this.words.length) this.words = new Int32Array(len4 * 2);
    const words = this.words;
    for (let i = 0; i < len4; i++) {
      const o = start + (i << 2);
      let k = (data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24)) | 0;
      k = Math.imul(k, m);
      k ^= k >>> 24;
      words[i] = Math.imul(k, m);
    }
    const left = length - (len4 << 2);
    // Java bytes are signed: the tail bytes sign-extend before the shifts; read from the end as Hudi does
    let tail = 0;
    if (left >= 3) tail ^= ((data[end - 3]! << 24) >> 24) << 16;
    if (left >= 2) tail ^= ((data[end - 2]! << 24) >> 24) << 8;
    if (left >= 1) tail ^= (data[end - 1]! << 24) >> 24;
    const pos = this.positions;
    const nb = this.nbHash;
    const vs = this.vectorSize;
    let initval = 0;
    for (let n = 0; n < nb; n++) {
      let h = initval ^ length;
      for (let i = 0; i < len4; i++) h = Math.imul(h, m) ^ words[i]!;
      if (left !== 0) h = Math.imul(h ^ tail, m);
      h ^= h >>> 13;
      h = Math.imul(h, m);
      h ^= h >>> 15;
      initval = h | 0;
      pos[n] = absMod(initval, vs);
    }
    return pos;
  }

  private words4 = new Int32Array(256);
  private tails4 = new Int32Array(4);
  /** hash4's positions: lane l's at [l · nbHash, (l + 1) · nbHash) */
  private positions4: Int32Array | undefined;

  /**
   * hash() of four keys of one `length` at once, lane l's bytes at data_l[start_l, start_l + length):
   * their 30-hash chains are independent, so interleaved they run ~1.7× faster than one by one.
   */
  hash4(d0: Uint8Array, s0: number, d1: Uint8Array, s1: number, d2: Uint8Array, s2: number, d3: Uint8Array, s3: number, length: number): Int32Array {
    const m = 0x5bd1e995;
    if (length === 0) throw new TblError('parquet', 'bloom filter key must not be empty');
    const len4 = length >> 2;
    if (len4 * 4 > this.words4.length) this.words4 = new Int32Array(len4 * 8);
    this.mix4(d0, s0, length, 0);
    this.mix4(d1, s1, length, 1);
    this.mix4(d2, s2, length, 2);
    this.mix4(d3, s3, length, 3);
    const W = this.words4;
    const T = this.tails4;
    const t0 = T[0]!;
    const t1 = T[1]!;
    const t2 = T[2]!;
    const t3 = T[3]!;
    const tail = (length & 3) !== 0;
    const nb = this.nbHash;
    const vs = this.vectorSize;
    const pos = (this.positions4 ??= new Int32Array(4 * nb));
    const n4 = len4 << 2;
    let i0 = 0;
    let i1 = 0;
    let i2 = 0;
    let i3 = 0;
    for (let n = 0; n < nb; n++) {
      let h0 = i0 ^ length;
      let h1 = i1 ^ length;
      let h2 = i2 ^ length;
      let h3 = i3 ^ length;
      for (let i = 0; i < n4; i += 4) {
        h0 = Math.imul(h0, m) ^ W[i]!;
        h1 = Math.imul(h1, m) ^ W[i + 1]!;
        h2 = Math.imul(h2, m) ^ W[i + 2]!;
        h3 = Math.imul(h3, m) ^ W[i + 3]!;
      }
      if (tail) {
        h0 = Math.imul(h0 ^ t0, m);
        h1 = Math.imul(h1 ^ t1, m);
        h2 = Math.imul(h2 ^ t2, m);
        h3 = Math.imul(h3 ^ t3, m);
      }
      h0 ^= h0 >>> 13;
      h1 ^= h1 >>> 13;
      h2 ^= h2 >>> 13;
      h3 ^= h3 >>> 13;
      h0 = Math.imul(h0, m);
      h1 = Math.imul(h1, m);
      h2 = Math.imul(h2, m);
      h3 = Math.imul(h3, m);
      i0 = (h0 ^ (h0 >>> 15)) | 0;
      i1 = (h1 ^ (h1 >>> 15)) | 0;
      i2 = (h2 ^ (h2 >>> 15)) | 0;
      i3 = (h3 ^ (h3 >>> 15)) | 0;
      pos[n] = absMod(i0, vs);
      pos[nb + n] = absMod(i1, vs);
      pos[2 * nb + n] = absMod(i2, vs);
      pos[3 * nb + n] = absMod(i3, vs);
    }
    return pos;
  }

  /** Lane l's words of hash4 (interleaved: word i of lane l at 4i + l) and its tail. */
  private mix4(data: Uint8Array, start: number, length: number, lane: number): void {
    const m = 0x5bd1e995;
    const W = this.words4;
    const len4 = length >> 2;
    for (let i = 0; i < len4; i++) {
      const o = start + (i << 2);
      let k = (data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24)) | 0;
      k = Math.imul(k, m);
      k ^= k >>> 24;
      W[(i << 2) + lane] = Math.imul(k, m);
    }
    const left = length - (len4 << 2);
    const end = start + length;
    let tail = 0;
    if (left >= 3) tail ^= ((data[end - 3]! << 24) >> 24) << 16;
    if (left >= 2) tail ^= ((data[end - 2]! << 24) >> 24) << 8;
    if (left >= 1) tail ^= (data[end - 1]! << 24) >> 24;
    this.tails4[lane] = tail;
  }
}

/**
 * Math.abs(x % vs) of Java ints (vs > 0): |x| as an unsigned 32-bit value (−2^31 → 2^31, as Java's
 * remainder-then-abs gives) mod vs — an unsigned remainder, which V8 compiles to one division,
 * where its signed `%` checks for a −0 result.
 */
function absMod(x: number, vs: number): number {
  const sign = x >> 31;
  return (((x ^ sign) - sign) >>> 0) % vs;
}

/** Keys waiting for three more of their length (BloomBatch). */
interface Lane {
  data: Uint8Array[];
  start: number[];
  row: number[];
  n: number;
}

/** One Hadoop BloomFilter row (InternalBloomFilter). */
class BitRow {
  readonly bits: Uint8Array;
  constructor(readonly vectorSize: number, bits?: Uint8Array) {
    this.bits = bits ?? new Uint8Array(Math.ceil(vectorSize / 8));
  }
  add(positions: ArrayLike<number>, from = 0, to = positions.length): void {
    const bits = this.bits;
    for (let i = from; i < to; i++) {
      const p = positions[i]!;
      bits[p >> 3]! |= 1 << (p & 7);
    }
  }
  has(positions: number[]): boolean {
    return positions.every((p) => (this.bits[p >> 3]! & (1 << (p & 7))) !== 0);
  }
}

const utf8 = new TextEncoder();

export class HoodieBloomFilter {
  readonly type: BloomFilterType;
  readonly nbHash: number;
  readonly vectorSize: number;
  readonly hashType: number;
  /** DYNAMIC_V0 only: keys per row, keys in the last row, bound on total keys. */
  nr: number;
  currentNbRecord: number;
  maxNr: number;
  rows: BitRow[];
  private reachedMax = false;
  private curMatrixIndex = 0;
  private hasher: PositionHasher | undefined;
  private scratch = new Uint8Array(256);

  private constructor(type: BloomFilterType, nbHash: number, vectorSize: number, hashType: number, nr: number, maxNr: number, rows: BitRow[]) {
    this.type = type;
    this.nbHash = nbHash;
    this.vectorSize = vectorSize;
    this.hashType = hashType;
    this.nr = nr;
    this.maxNr = maxNr;
    this.currentNbRecord = 0;
    this.rows = rows;
  }

  /** BloomFilterFactory.createBloomFilter with Hudi's defaults. */
  static create(opts: BloomFilterOptions = {}): HoodieBloomFilter {
    const type = opts.type ?? BLOOM_DEFAULTS.type;
    const numEntries = opts.numEntries ?? BLOOM_DEFAULTS.numEntries;
    const fpp = opts.fpp ?? BLOOM_DEFAULTS.fpp;
    const maxEntries = opts.maxEntries ?? BLOOM_DEFAULTS.maxEntries;
    const vectorSize = bloomBitSize(numEntries, fpp);
    const nbHash = bloomNumHashes(vectorSize, numEntries);
    return new HoodieBloomFilter(type, nbHash, vectorSize, MURMUR_HASH, numEntries, maxEntries, [new BitRow(vectorSize)]);
  }

  /** Adds a key (hashed as its UTF-8 bytes, as Java's key.getBytes(UTF_8)). */
  add(key: string): void {
    // ASCII keys (the common case) are copied straight into a reused buffer
    const n = key.length;
    if (n * 3 > this.scratch.length) this.scratch = new Uint8Array(n * 3);
    const buf = this.scratch;
    let i = 0;
    for (; i < n; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0x80) break;
      buf[i] = c;
    }
    if (i === n) return this.addBytes(buf, 0, n);
    const { written } = utf8.encodeInto(key, buf);
    this.addBytes(buf, 0, written);
  }

  /** Adds the key whose UTF-8 bytes are data[start, end). */
  addBytes(data: Uint8Array, start = 0, end = data.length): void {
    const pos = this.positionHasher().hash(data, start, end);
    this.rows[this.nextRow()]!.add(pos);
  }

  /** The hasher of this filter's sizes. */
  positionHasher(): PositionHasher {
    return (this.hasher ??= new PositionHasher(this.nbHash, this.vectorSize));
  }

  /** InternalDynamicBloomFilter.add / getActiveStandardBF: the row the next add sets its bits in (the add counted). */
  nextRow(): number {
    if (this.type === 'SIMPLE') return 0;
    let r: number;
    if (this.reachedMax) {
      r = this.curMatrixIndex++ % this.rows.length;
    } else if (this.currentNbRecord >= this.nr && this.rows.length * this.nr < this.maxNr) {
      this.rows.push(new BitRow(this.vectorSize));
      this.currentNbRecord = 0;
      r = this.rows.length - 1;
    } else if (this.currentNbRecord >= this.nr) {
      this.reachedMax = true;
      r = 0;
    } else {
      r = this.rows.length - 1;
    }
    this.currentNbRecord++;
    return r;
  }

  /** The row the `ordinal`-th add of a fresh filter sets its bits in (addBytesAt), opened if need be. */
  rowAt(ordinal: number): number {
    const r = this.type === 'SIMPLE' ? 0 : dynamicRowOf(ordinal, this.nr, this.maxNr);
    while (this.rows.length <= r) this.rows.push(new BitRow(this.vectorSize));
    return r;
  }

  /** Sets hashed positions [from, to) of `pos` in row r. */
  setBits(r: number, pos: ArrayLike<number>, from = 0, to = pos.length): void {
    this.rows[r]!.add(pos, from, to);
  }

  /**
   * Adds the key data[start, end) as the `ordinal`-th add (from 0) of a fresh filter would: each
   * ordinal's row is fixed by InternalDynamicBloomFilter's bookkeeping and setting bits commutes, so
   * keys can be added in any order, split over filters and `merge`d — once `settle(total)` sets the
   * counters, the bytes are those of the `total` adds in ordinal order. For filters that only take
   * adds this way (no add/addBytes, not resumed).
   */
  addBytesAt(data: Uint8Array, start: number, end: number, ordinal: number): void {
    const pos = this.positionHasher().hash(data, start, end);
    this.rows[this.rowAt(ordinal)]!.add(pos);
  }

  /** The bits of `other` (same options, filled by addBytesAt) added to this filter's. */
  merge(other: HoodieBloomFilter): void {
    if (other.type !== this.type || other.vectorSize !== this.vectorSize || other.nbHash !== this.nbHash) throw new TblError('parquet', 'bloom filters of different shapes cannot be merged');
    other.rows.forEach((o, r) => {
      while (this.rows.length <= r) this.rows.push(new BitRow(this.vectorSize));
      const bits = this.rows[r]!.bits;
      for (let i = 0; i < bits.length; i++) bits[i]! |= o.bits[i]!;
    });
  }

  /** After addBytesAt of ordinals [0, total) (over this filter and those merged in): the counters as `total` adds leave them. */
  settle(total: number): void {
    if (this.type === 'SIMPLE') return;
    const s = dynamicState(total, this.nr, this.maxNr);
    if (this.rows.length > s.rows) throw new TblError('parquet', `bloom filter has ${this.rows.length} rows, more than ${total} adds make`);
    while (this.rows.length < s.rows) this.rows.push(new BitRow(this.vectorSize));
    this.currentNbRecord = s.current;
    this.reachedMax = s.reachedMax;
    this.curMatrixIndex = s.cur;
  }

  /**
   * The filter a fresh `create(opts)` would be after its first `keys` adds, taken from a serialized
   * filter built that way (the base file's footer filter when a compaction keeps every base key in
   * order): the counters Java does not serialize (maxNr, the round-robin position) are derived from
   * `keys`. Undefined when the serialized filter cannot be that state (other sizes, type or counts).
   */
  static resume(serialized: string, typeCode: string | undefined, keys: number, opts: BloomFilterOptions = {}): HoodieBloomFilter | undefined {
    const fresh = HoodieBloomFilter.create(opts);
    let f: HoodieBloomFilter;
    try {
      f = HoodieBloomFilter.deserialize(serialized, typeCode);
    } catch {
      return undefined;
    }
    if (f.type !== fresh.type || f.nbHash !== fresh.nbHash || f.vectorSize !== fresh.vectorSize || f.hashType !== fresh.hashType) return undefined;
    if (f.rows.some((r) => r.vectorSize !== fresh.vectorSize)) return undefined;
    if (f.type === 'SIMPLE') return f;
    const s = dynamicState(keys, fresh.nr, fresh.maxNr);
    if (f.nr !== fresh.nr || f.rows.length !== s.rows || f.currentNbRecord !== s.current) return undefined;
    f.maxNr = fresh.maxNr;
    f.reachedMax = s.reachedMax;
    f.curMatrixIndex = s.cur;
    return f;
  }

  mightContain(key: string): boolean {
    const pos = bloomPositions(utf8.encode(key), this.nbHash, this.vectorSize);
    return this.rows.some((r) => r.has(pos));
  }

  /** DataOutputStream bytes (what Base64 wraps). */
  toBytes(): Uint8Array {
    const rowBytes = Math.ceil(this.vectorSize / 8);
    const header = 13;
    const size = this.type === 'SIMPLE' ? header + rowBytes : header + 12 + this.rows.length * (header + rowBytes);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    let o = 0;
    const writeHeader = () => {
      dv.setInt32(o, FILTER_VERSION);
      dv.setInt32(o + 4, this.nbHash);
      dv.setInt8(o + 8, this.hashType);
      dv.setInt32(o + 9, this.vectorSize);
      o += header;
    };
    writeHeader();
    if (this.type === 'SIMPLE') {
      out.set(this.rows[0]!.bits, o);
      return out;
    }
    dv.setInt32(o, this.nr);
    dv.setInt32(o + 4, this.currentNbRecord);
    dv.setInt32(o + 8, this.rows.length);
    o += 12;
    for (const r of this.rows) {
      writeHeader();
      out.set(r.bits, o);
      o += rowBytes;
    }
    return out;
  }

  /** SimpleBloomFilter / HoodieDynamicBoundedBloomFilter.serializeToString. */
  serialize(): string {
    return Buffer.from(this.toBytes()).toString('base64');
  }

  /**
   * BloomFilterFactory.fromString(serialized, typeCode). `typeCode` is the footer key
   * hoodie_bloom_filter_type_code; absent means SIMPLE.
   */
  static deserialize(serialized: string, typeCode: string | undefined): HoodieBloomFilter {
    return HoodieBloomFilter.fromBytes(Buffer.from(serialized, 'base64'), typeCode);
  }

  /** The filter of its toBytes() (what `deserialize` reads once Base64 is undone). */
  static fromBytes(bytes: Uint8Array, typeCode: string | undefined): HoodieBloomFilter {
    const type: BloomFilterType = typeCode === undefined || typeCode === 'SIMPLE' ? 'SIMPLE' : typeCode === 'DYNAMIC_V0' ? 'DYNAMIC_V0' : bad(`unknown bloom filter type code ${typeCode}`);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let o = 0;
    const need = (n: number) => {
      if (o + n > bytes.length) bad(`bloom filter truncated at byte ${o} of ${bytes.length}`);
    };
    const readHeader = () => {
      need(4);
      const ver = dv.getInt32(o);
      o += 4;
      let nbHash: number;
      let hashType: number;
      if (ver > 0) {
        nbHash = ver; // legacy Hadoop format: no hash type byte, Jenkins
        hashType = 0;
      } else {
        if (ver !== FILTER_VERSION) bad(`unsupported bloom filter version ${ver}`);
        need(5);
        nbHash = dv.getInt32(o);
        hashType = dv.getInt8(o + 4);
        o += 5;
      }
      need(4);
      const vectorSize = dv.getInt32(o);
      o += 4;
      if (vectorSize <= 0 || nbHash <= 0) bad(`invalid bloom filter header (vectorSize ${vectorSize}, nbHash ${nbHash})`);
      return { nbHash, hashType, vectorSize };
    };
    const readRow = (vectorSize: number) => {
      const n = Math.ceil(vectorSize / 8);
      need(n);
      const row = new BitRow(vectorSize, new Uint8Array(bytes.subarray(o, o + n)));
      o += n;
      return row;
    };
    const h = readHeader();
    if (h.hashType !== MURMUR_HASH) bad(`bloom filter hash type ${h.hashType} is not MURMUR_HASH`);
    if (type === 'SIMPLE') {
      const f = new HoodieBloomFilter('SIMPLE', h.nbHash, h.vectorSize, h.hashType, 0, 0, [readRow(h.vectorSize)]);
      return f;
    }
    need(12);
    const nr = dv.getInt32(o);
    const current = dv.getInt32(o + 4);
    const len = dv.getInt32(o + 8);
    o += 12;
    const rows: BitRow[] = [];
    for (let i = 0; i < len; i++) {
      const rh = readHeader();
      rows.push(readRow(rh.vectorSize));
    }
    // maxNr is not serialized (Java leaves it 0 after readFields); keep it unbounded-equivalent.
    const f = new HoodieBloomFilter('DYNAMIC_V0', h.nbHash, h.vectorSize, h.hashType, nr, 0, rows);
    f.currentNbRecord = current;
    if (o !== bytes.length) bad(`bloom filter has ${bytes.length - o} trailing bytes`);
    return f;
  }
}

/**
 * Adds keys to a filter four of one length at a time (PositionHasher.hash4): each key's row is fixed
 * as it is added (the filter's bookkeeping, or its ordinal's), its bits set once hashed — bits
 * commute, so the filter ends as adding one by one leaves it. The keys' bytes must stay as they are
 * until `flush`, which hashes the keys still waiting one by one.
 */
export class BloomBatch {
  private readonly lanes = new Map<number, Lane>();
  private readonly hasher: PositionHasher;
  private readonly nb: number;
  constructor(private readonly f: HoodieBloomFilter) {
    this.hasher = f.positionHasher();
    this.nb = f.nbHash;
  }

  /** As f.addBytes. */
  add(data: Uint8Array, start: number, end: number): void {
    if (end <= start) throw new TblError('parquet', 'bloom filter key must not be empty');
    this.queue(data, start, end - start, this.f.nextRow());
  }

  /** As f.addBytesAt. */
  addAt(data: Uint8Array, start: number, end: number, ordinal: number): void {
    if (end <= start) throw new TblError('parquet', 'bloom filter key must not be empty');
    this.queue(data, start, end - start, this.f.rowAt(ordinal));
  }

  private queue(data: Uint8Array, start: number, length: number, row: number): void {
    let l = this.lanes.get(length);
    if (!l) this.lanes.set(length, (l = { data: [], start: [], row: [], n: 0 }));
    const i = l.n;
    if (i < 3) {
      l.data[i] = data;
      l.start[i] = start;
      l.row[i] = row;
      l.n = i + 1;
      return;
    }
    l.n = 0;
    const pos = this.hasher.hash4(l.data[0]!, l.start[0]!, l.data[1]!, l.start[1]!, l.data[2]!, l.start[2]!, data, start, length);
    const nb = this.nb;
    this.f.setBits(l.row[0]!, pos, 0, nb);
    this.f.setBits(l.row[1]!, pos, nb, 2 * nb);
    this.f.setBits(l.row[2]!, pos, 2 * nb, 3 * nb);
    this.f.setBits(row, pos, 3 * nb, 4 * nb);
  }

  /** Hashes the keys still waiting. */
  flush(): void {
    for (const [length, l] of this.lanes) {
      for (let i = 0; i < l.n; i++) this.f.setBits(l.row[i]!, this.hasher.hash(l.data[i]!, l.start[i]!, l.start[i]! + length));
      l.n = 0;
      l.data.length = 0;
    }
  }
}

/**
 * InternalDynamicBloomFilter.add's bookkeeping in closed form: rows are opened every `nr` keys while
 * rows × nr < maxNr (R of them); the add that finds the last one full sets reachedMax and takes row
 * 0; later adds go round robin from row 0.
 */
function maxRows(nr: number, maxNr: number): number {
  return Math.max(1, Math.ceil(maxNr / nr));
}

/** The row the `ordinal`-th add of a fresh filter sets its bits in. */
function dynamicRowOf(ordinal: number, nr: number, maxNr: number): number {
  const R = maxRows(nr, maxNr);
  const full = R * nr;
  if (ordinal < full) return Math.floor(ordinal / nr);
  if (ordinal === full) return 0;
  return (ordinal - full - 1) % R;
}

/** The counters after `n` adds to a fresh filter. */
function dynamicState(n: number, nr: number, maxNr: number): { rows: number; current: number; reachedMax: boolean; cur: number } {
  const R = maxRows(nr, maxNr);
  const rows = Math.min(R, Math.max(1, Math.ceil(n / nr)));
  return { rows, current: n - (rows - 1) * nr, reachedMax: n > R * nr, cur: Math.max(0, n - R * nr - 1) };
}

function bad(message: string): never {
  throw new TblError('parquet', message);
}
