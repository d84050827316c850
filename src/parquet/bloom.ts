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
      pos[n] = Math.abs(initval % vs);
    }
    return pos;
  }
}

/** One Hadoop BloomFilter row (InternalBloomFilter). */
class BitRow {
  readonly bits: Uint8Array;
  constructor(readonly vectorSize: number, bits?: Uint8Array) {
    this.bits = bits ?? new Uint8Array(Math.ceil(vectorSize / 8));
  }
  add(positions: ArrayLike<number>): void {
    const bits = this.bits;
    for (let i = 0; i < positions.length; i++) {
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
    this.hasher ??= new PositionHasher(this.nbHash, this.vectorSize);
    const pos = this.hasher.hash(data, start, end);
    if (this.type === 'SIMPLE') {
      this.rows[0]!.add(pos);
      return;
    }
    // InternalDynamicBloomFilter.add / getActiveStandardBF
    let row: BitRow | undefined;
    if (this.reachedMax) {
      row = this.rows[this.curMatrixIndex++ % this.rows.length];
    } else if (this.currentNbRecord >= this.nr && this.rows.length * this.nr < this.maxNr) {
      row = undefined;
    } else if (this.currentNbRecord >= this.nr) {
      this.reachedMax = true;
      row = this.rows[0];
    } else {
      row = this.rows[this.rows.length - 1];
    }
    if (!row) {
      row = new BitRow(this.vectorSize);
      this.rows.push(row);
      this.currentNbRecord = 0;
    }
    row.add(pos);
    this.currentNbRecord++;
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
    // InternalDynamicBloomFilter.add's bookkeeping for `keys` adds, without hashing
    let rows = 1;
    let current = 0;
    let reachedMax = false;
    let cur = 0;
    for (let k = 0; k < keys; k++) {
      if (reachedMax) cur++;
      else if (current >= fresh.nr && rows * fresh.nr < fresh.maxNr) {
        rows++;
        current = 0;
      } else if (current >= fresh.nr) reachedMax = true;
      current++;
    }
    if (f.nr !== fresh.nr || f.rows.length !== rows || f.currentNbRecord !== current) return undefined;
    f.maxNr = fresh.maxNr;
    f.reachedMax = reachedMax;
    f.curMatrixIndex = cur;
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
    const type: BloomFilterType = typeCode === undefined || typeCode === 'SIMPLE' ? 'SIMPLE' : typeCode === 'DYNAMIC_V0' ? 'DYNAMIC_V0' : bad(`unknown bloom filter type code ${typeCode}`);
    const bytes = Buffer.from(serialized, 'base64');
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

function bad(message: string): never {
  throw new TblError('parquet', message);
}
