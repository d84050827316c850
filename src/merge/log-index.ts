// The merged log map in typed arrays (issue 6): per record key its ordering, delete flag and where the
// record's Avro bytes are, the keys as UTF-8 bytes in an open-addressing table. A map of strings and
// one object per key cost more in allocation and GC than the scan that fills it (250k keys: ~0.25 s on
// the compaction bench), and compaction looks base keys up by their bytes, never decoding them.
import { decodeAvroRecord } from '../logfile/index.ts';
import type { Ordering } from './ordering.ts';
import { equalBytes, hashBytes, moveBytes, viewOf, ViewCache } from '../util/byte-spans.ts';
import type { MergeConfig } from './config.ts';
import { deltaReplaces, type Row } from './scan.ts';

/** An Avro data block's content and writer schema, shared by the records read from it. */
export interface AvroSource {
  content: Uint8Array;
  schema: string;
  /** records decode with compaction's exact values (content.ts avroTypeFor) */
  exact?: boolean;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

function grow<T extends Int32Array | Uint8Array>(a: T, need: number): T {
  if (a.length >= need) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** A string as a map key of well-formed UTF-16: a lone surrogate has no UTF-8 bytes of its own. */
function wellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * One log block's records in stack order before the stack is resolved: keys as bytes of `keys`
 * (an Avro record's key copied from its bytes, a string key encoded), or a string kept as it is when it
 * has no faithful UTF-8 form; a delete without a key counts as a log record and is never applied.
 */
export class BlockRecords {
  count = 0;
  keys: Uint8Array;
  private keyAt = 0;
  keyEnd: Int32Array;
  /** 1: a delete without a key */
  keyless: Uint8Array;
  deleted: Uint8Array;
  recStart: Int32Array;
  recEnd: Int32Array;
  orderings: Ordering[] = [];
  /** records not held as Avro bytes (parquet/HFile data blocks), by index */
  rows?: Map<number, Row>;
  /** keys without a faithful UTF-8 form, by index */
  oddKeys?: Map<number, string>;
  /** `expected`: the block's record count when known (no growing) */
  constructor(
    readonly source: AvroSource | undefined,
    expected = 256,
  ) {
    const n = Math.max(16, expected);
    this.keys = new Uint8Array(16 * n);
    this.keyEnd = new Int32Array(n);
    this.keyless = new Uint8Array(n);
    this.deleted = new Uint8Array(n);
    this.recStart = new Int32Array(n);
    this.recEnd = new Int32Array(n);
  }

  private next(ordering: Ordering, deleted: boolean, start: number, end: number): number {
    const i = this.count++;
    if (i === this.keyEnd.length) {
      const n = 2 * i;
      this.keyEnd = grow(this.keyEnd, n);
      this.keyless = grow(this.keyless, n);
      this.deleted = grow(this.deleted, n);
      this.recStart = grow(this.recStart, n);
      this.recEnd = grow(this.recEnd, n);
    }
    this.orderings[i] = ordering;
    this.deleted[i] = deleted ? 1 : 0;
    this.recStart[i] = start;
    this.recEnd[i] = end;
    return i;
  }

  keyStart(i: number): number {
    return i === 0 ? 0 : this.keyEnd[i - 1]!;
  }

  private readonly views = new ViewCache();
  /** A DataView over keys (made again when keys grew). */
  keysView(): DataView {
    return this.views.get(this.keys);
  }

  /** A record whose key is bytes [s, e) of `from` (an Avro string's UTF-8 bytes). */
  addBytes(from: Uint8Array, s: number, e: number, ordering: Ordering, deleted: boolean, start: number, end: number): void {
    const i = this.next(ordering, deleted, start, end);
    this.keys = grow(this.keys, this.keyAt + e - s);
    const k = this.keys;
    let at = this.keyAt;
    for (let x = s; x < e; x++) k[at++] = from[x]!;
    this.keyAt = at;
    this.keyEnd[i] = at;
    this.keyless[i] = 0;
  }

  /** A record with a string key (null: a delete without a key); `row` when it is not held as Avro bytes. */
  addKey(key: string | null, ordering: Ordering, deleted: boolean, start = 0, end = 0, row?: Row): void {
    const i = this.next(ordering, deleted, start, end);
    this.keyless[i] = key === null ? 1 : 0;
    if (row) (this.rows ??= new Map()).set(i, row);
    if (key !== null && !wellFormed(key)) (this.oddKeys ??= new Map()).set(i, key);
    else if (key !== null) {
      this.keys = grow(this.keys, this.keyAt + 3 * key.length);
      this.keyAt += utf8.encodeInto(key, this.keys.subarray(this.keyAt)).written;
    }
    this.keyEnd[i] = this.keyAt;
  }
}

/**
 * The merged log map: entries numbered in first-seen order (inserts come out in arrival order), a
 * later record of a key taking its entry's place when the delta-merge rule says so.
 */
export class LogIndex {
  size = 0;
  private keyBytes: Uint8Array;
  private keyEnds: Int32Array;
  private sources: (AvroSource | undefined)[] = [];
  private recStarts: Int32Array;
  private recEnds: Int32Array;
  private deletes: Uint8Array;
  private orderings: Ordering[] = [];
  /** set by a merge when a base row with the entry's key was seen */
  matched: Uint8Array;
  private rows = new Map<number, Row>();
  /** keys without a faithful UTF-8 form (never met in bytes): by string */
  private odd = new Map<string, number>();
  private oddKeyOf = new Map<number, string>();
  /** open addressing: [hash, entry + 1] per slot (0 = empty) */
  private table: Int32Array;
  private mask: number;
  /**
   * One bit per 2 table slots, set by the hashes of the keys: a base row whose key is not in the
   * map (most of them) is told so by this small array instead of a probe of the large table.
   */
  private filter: Uint8Array;
  private filterShift: number;
  /** a DataView over keyBytes */
  private kv: DataView;
  /** findKey's UTF-8 bytes of the key */
  private scratch = new Uint8Array(256);

  /** `expected`: the number of records to be merged, when known (an upper bound of the entries: no growing) */
  constructor(expected = 0) {
    const n = Math.max(1024, expected);
    this.keyBytes = new Uint8Array(16 * n);
    this.kv = viewOf(this.keyBytes);
    this.keyEnds = new Int32Array(n);
    this.recStarts = new Int32Array(n);
    this.recEnds = new Int32Array(n);
    this.deletes = new Uint8Array(n);
    this.matched = new Uint8Array(n);
    let slots = 1024;
    while (slots < 2 * n) slots *= 2;
    this.table = new Int32Array(2 * slots);
    this.mask = slots - 1;
    this.filter = new Uint8Array((2 * slots) / 8);
    this.filterShift = 32 - Math.log2(2 * slots);
  }

  private filterBit(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.filterShift;
  }

  private mark(h: number): void {
    const b = this.filterBit(h);
    this.filter[b >>> 3]! |= 1 << (b & 7);
  }

  private keyStart(id: number): number {
    return id === 0 ? 0 : this.keyEnds[id - 1]!;
  }

  private probe(d: Uint8Array, dv: DataView, s: number, e: number, h: number): number {
    const t = this.table;
    const len = e - s;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const j = t[2 * slot + 1]! - 1;
      if (j < 0) return -1 - slot;
      if (t[2 * slot] !== h) continue;
      const ks = j === 0 ? 0 : this.keyEnds[j - 1]!;
      if (this.keyEnds[j]! - ks === len && equalBytes(this.keyBytes, this.kv, ks, d, dv, s, len)) return j;
    }
  }

  /** The entry whose key is the UTF-8 bytes [s, e) of d (dv: its view), or -1. */
  find(d: Uint8Array, dv: DataView, s: number, e: number): number {
    const h = hashBytes(d, dv, s, e);
    const b = this.filterBit(h);
    if ((this.filter[b >>> 3]! & (1 << (b & 7))) === 0) return -1;
    const j = this.probe(d, dv, s, e, h);
    return j < 0 ? -1 : j;
  }

  /** The entry of a key given as a string, or -1. */
  findKey(key: string): number {
    if (!wellFormed(key)) return this.odd.get(key) ?? -1;
    if (this.scratch.length < 3 * key.length) this.scratch = new Uint8Array(3 * key.length);
    const n = utf8.encodeInto(key, this.scratch).written;
    return this.find(this.scratch, viewOf(this.scratch), 0, n);
  }

  key(id: number): string {
    return this.oddKeyOf.get(id) ?? text.decode(this.keyBytes.subarray(this.keyStart(id), this.keyEnds[id]!));
  }

  /** The key's UTF-8 bytes to write (for a key held as bytes, a view valid while the index lives). */
  keyUtf8(id: number): Uint8Array {
    const odd = this.oddKeyOf.get(id);
    return odd === undefined ? this.keyBytes.subarray(this.keyStart(id), this.keyEnds[id]!) : utf8.encode(odd);
  }

  deleted(id: number): boolean {
    return this.deletes[id] === 1;
  }

  ordering(id: number): Ordering {
    return this.orderings[id]!;
  }

  /** Where the record's Avro bytes are (Avro data blocks): content[start, end) in the block's writer schema. */
  avroBytes(id: number): { content: Uint8Array; schema: string; start: number; end: number } | undefined {
    const src = this.sources[id];
    if (this.deletes[id] || !src || this.rows.has(id)) return undefined;
    return { content: src.content, schema: src.schema, start: this.recStarts[id]!, end: this.recEnds[id]! };
  }

  /** The full record (a fresh object per call for Avro records); undefined for deletes. */
  record(id: number): Row | undefined {
    if (this.deletes[id]) return undefined;
    const row = this.rows.get(id);
    if (row) return row;
    const src = this.sources[id]!;
    return decodeAvroRecord(src.content.subarray(this.recStarts[id]!, this.recEnds[id]!), src.schema, src.exact) as Row;
  }

  /** Entries 0..size-1: their keys in first-seen order. */
  keys(): string[] {
    return Array.from({ length: this.size }, (_, id) => this.key(id));
  }

  private set(id: number, b: BlockRecords, i: number): void {
    this.sources[id] = b.source;
    this.recStarts[id] = b.recStart[i]!;
    this.recEnds[id] = b.recEnd[i]!;
    this.deletes[id] = b.deleted[i]!;
    this.orderings[id] = b.orderings[i]!;
    const row = b.rows?.get(i);
    if (row) this.rows.set(id, row);
    else if (this.rows.size > 0) this.rows.delete(id);
  }

  private add(b: BlockRecords, i: number, s: number, e: number): number {
    const id = this.size++;
    if (id === this.keyEnds.length) {
      const n = 2 * id;
      this.keyEnds = grow(this.keyEnds, n);
      this.recStarts = grow(this.recStarts, n);
      this.recEnds = grow(this.recEnds, n);
      this.deletes = grow(this.deletes, n);
      this.matched = grow(this.matched, n);
    }
    const at = this.keyStart(id);
    if (this.keyBytes.length < at + e - s) {
      this.keyBytes = grow(this.keyBytes, at + e - s);
      this.kv = viewOf(this.keyBytes);
    }
    moveBytes(b.keys, b.keysView(), s, this.keyBytes, this.kv, at, e - s);
    this.keyEnds[id] = at + e - s;
    this.set(id, b, i);
    return id;
  }

  private rehash(): void {
    const size = 2 * (this.mask + 1);
    const t = new Int32Array(2 * size);
    this.mask = size - 1;
    this.filter = new Uint8Array((2 * size) / 8);
    this.filterShift--;
    for (let slot = 0; slot < this.table.length / 2; slot++) {
      const j = this.table[2 * slot + 1]!;
      if (j === 0) continue;
      const h = this.table[2 * slot]!;
      let to = h & this.mask;
      while (t[2 * to + 1] !== 0) to = (to + 1) & this.mask;
      t[2 * to] = h;
      t[2 * to + 1] = j;
      this.mark(h);
    }
    this.table = t;
  }

  /**
   * Merges record i of block b into the map: a new key gets an entry; a known one takes the record
   * when the delta-merge rule says so.
   */
  merge(b: BlockRecords, i: number, config: MergeConfig): void {
    if (b.keyless[i]) return;
    const odd = b.oddKeys?.get(i);
    if (odd !== undefined) {
      const j = this.odd.get(odd);
      if (j === undefined) {
        const id = this.add(b, i, 0, 0);
        this.odd.set(odd, id);
        this.oddKeyOf.set(id, odd);
      } else if (deltaReplaces(this.deletes[j] === 1, this.orderings[j]!, b.deleted[i] === 1, b.orderings[i]!, config)) this.set(j, b, i);
      return;
    }
    const s = b.keyStart(i);
    const e = b.keyEnd[i]!;
    const kv = b.keysView();
    const h = hashBytes(b.keys, kv, s, e);
    const j = this.probe(b.keys, kv, s, e, h);
    if (j >= 0) {
      if (deltaReplaces(this.deletes[j] === 1, this.orderings[j]!, b.deleted[i] === 1, b.orderings[i]!, config)) this.set(j, b, i);
      return;
    }
    const slot = -1 - j;
    const id = this.add(b, i, s, e);
    this.table[2 * slot] = h;
    this.table[2 * slot + 1] = id + 1;
    this.mark(h);
    if (2 * this.size > this.mask + 1) this.rehash();
  }
}
