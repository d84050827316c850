// The held fields of a clustering group (held-columns.ts): values appended chunk by chunk as packed
// bytes (strings of few distinct values as a dictionary, given up past its limit) sort as the
// reference comparator sort over the values the row path reads (nulls first, UTF-8 byte order, NaN
// last, -0 = 0, longs exact past 2^53, ties stable), and gathering them in that order gives those
// values in that order, nulls included, a part at a time (empty chunks stepped over); integer fields
// rank by offset, made dense when too wide; writeSorted in many parts writes the one-part file, its
// bloom filters built at each key's row too.
import fc from 'fast-check';
import type { ParquetType } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { PackedColumn } from '../../src/parquet/packed.ts';
import { BloomWork, openFileWriter, sortedOrder, writeSorted, type ColumnSink } from '../../src/services/rewrite/cluster-write.ts';
import { HoodieBloomFilter } from '../../src/parquet/bloom.ts';
import type { GivenBloom, HoodiePackedColumnWriter } from '../../src/parquet/write-packed.ts';
import { withHoodieMetaFields } from '../../src/parquet/write.ts';
import { parquetReadObjects } from 'hyparquet';
import type { ClusterJob } from '../../src/services/rewrite/cluster-job.ts';
import { GatherScratch, HELD_DICTIONARY_LIMIT, HeldColumn, partOrder, partOrders } from '../../src/services/rewrite/held-columns.ts';
import { compareValues, sortPermutation, type SortColumn, type SortValue } from '../../src/services/rewrite/sort-order.ts';
import { joinFileData } from '../../src/storage/index.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Kind {
  type: ParquetType;
  sort: SortColumn['kind'];
  values: fc.Arbitrary<SortValue>;
  /** the value as the row path reads it back from the packed bytes */
  read: (v: SortValue) => SortValue;
  put: (c: PackedColumn, v: SortValue) => void;
}

const scratch = new DataView(new ArrayBuffer(8));
const bytes = new Uint8Array(scratch.buffer);
const fixed = (w: number, set: (v: SortValue) => void) => (c: PackedColumn, v: SortValue) => {
  set(v);
  c.appendBytes(bytes, 0, w);
};

const kinds: Record<string, Kind> = {
  string: {
    type: 'BYTE_ARRAY',
    sort: 'string',
    values: fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('a', 'b', '\uffff', '\u{1F600}', '\ue000')),
    read: (v) => dec.decode(enc.encode(v as string)),
    put: (c, v) => c.appendBytes(enc.encode(v as string)),
  },
  // many distinct values: the dictionary is given up part-way
  wide: {
    type: 'BYTE_ARRAY',
    sort: 'string',
    values: fc.integer({ min: 0, max: 3 * HELD_DICTIONARY_LIMIT }).map((k) => `k${k}`),
    read: (v) => v,
    put: (c, v) => c.appendBytes(enc.encode(v as string)),
  },
  binary: { type: 'BYTE_ARRAY', sort: 'binary', values: fc.uint8Array({ maxLength: 3 }), read: (v) => v, put: (c, v) => c.appendBytes(v as Uint8Array) },
  long: {
    type: 'INT64',
    sort: 'long',
    values: fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.bigInt({ min: -5n, max: 5n })),
    read: (v) => v,
    put: fixed(8, (v) => scratch.setBigInt64(0, v as bigint, true)),
  },
  int: { type: 'INT32', sort: 'int', values: fc.integer({ min: -3, max: 3 }), read: (v) => v, put: fixed(4, (v) => scratch.setInt32(0, v as number, true)) },
  double: {
    type: 'DOUBLE',
    sort: 'double',
    values: fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, 1.5)),
    read: (v) => v,
    put: fixed(8, (v) => scratch.setFloat64(0, v as number, true)),
  },
  float: {
    type: 'FLOAT',
    sort: 'float',
    values: fc.oneof(fc.float(), fc.constantFrom(0, -0, Number.NaN)),
    read: (v) => Math.fround(v as number),
    put: fixed(4, (v) => scratch.setFloat32(0, v as number, true)),
  },
  boolean: { type: 'BOOLEAN', sort: 'boolean', values: fc.boolean(), read: (v) => v, put: fixed(1, (v) => (bytes[0] = v ? 1 : 0)) },
};

/** The values as held columns, appended in chunks of the given sizes (the last takes the rest, empty ones too). */
function hold(kind: Kind, values: SortValue[], sizes: number[]): HeldColumn {
  const h = new HeldColumn(kind.type);
  let at = 0;
  for (const [k, size] of [...sizes, values.length].entries()) {
    const end = k === sizes.length ? values.length : Math.min(values.length, at + size);
    const c = new PackedColumn(kind.type, 16);
    for (; at < end; at++) (values[at] === null ? c.appendNull() : kind.put(c, values[at]!));
    h.append(c);
  }
  return h;
}

function read(c: PackedColumn, i: number, kind: Kind): SortValue {
  if (c.nulls[i]) return null;
  const s = c.start(i);
  const dv = c.view();
  switch (kind.type) {
    case 'BYTE_ARRAY':
      return kind.sort === 'binary' ? c.data.slice(s, c.end(i)) : dec.decode(c.data.subarray(s, c.end(i)));
    case 'INT64':
      return dv.getBigInt64(s, true);
    case 'INT32':
      return dv.getInt32(s, true);
    case 'DOUBLE':
      return dv.getFloat64(s, true);
    case 'FLOAT':
      return dv.getFloat32(s, true);
    default:
      return c.data[s] === 1;
  }
}

describe('held fields', () => {
  it('sort (ranked from the packed bytes) = comparator sort; gather gives the values in that order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...Object.keys(kinds)), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 300 }),
        fc.array(fc.integer({ min: 0, max: 80 }), { maxLength: 6 }),
        fc.integer(),
        (names, n, sizes, seed) => {
          const ks = names.map((k) => kinds[k]!);
          const data = ks.map((k, c) => fc.sample(fc.option(k.values, { nil: null, freq: 4 }), { numRuns: n, seed: seed + c }));
          const held = ks.map((k, c) => hold(k, data[c]!, sizes));
          const seen = data.map((d, c) => d.map((v) => (v === null ? null : ks[c]!.read(v))));
          const columns: SortColumn[] = ks.map((k, i) => ({ name: `c${i}`, index: i, kind: k.sort }));
          const job = { layout: 'linear' } as ClusterJob;
          const perm = sortedOrder(job, columns, n, (c) => held[c.index]!);
          const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
            for (const d of seen) {
              const r = compareValues(d[x]!, d[y]!);
              if (r !== 0) return r;
            }
            return x - y;
          });
          expect([...perm]).toEqual(want);
          const gs = new GatherScratch();
          for (const [c, h] of held.entries()) {
            // the whole order, then a middle range of it
            const all = h.gather(partOrder(perm, 0, n), gs).col;
            expect(Array.from({ length: n }, (_, i) => read(all, i, ks[c]!))).toEqual(want.map((i) => seen[c]![i]));
            const from = Math.floor(n / 3);
            const to = Math.max(from, n - 1);
            const part = h.gather(partOrder(perm, from, to), gs).col;
            expect(Array.from({ length: part.length }, (_, i) => read(part, i, ks[c]!))).toEqual(want.slice(from, to).map((i) => seen[c]![i]));
            expect(part.nullCount).toBe(want.slice(from, to).filter((i) => seen[c]![i] === null).length);
            // a dictionary field's ids: each row's index into the distinct values; a string field's
            // ids alone (no bytes) when asked, a fixed-width field's values come with them
            if (h.isDictionary) {
              const full = h.gather(partOrder(perm, from, to), gs);
              const fullIds = [...full.ids!.ids];
              const fullNulls = [...full.col.nulls];
              const values = full.ids!.values;
              expect(fullIds.map((x) => (x < 0 ? null : read(values, x, ks[c]!)))).toEqual(want.slice(from, to).map((i) => seen[c]![i]));
              const bare = h.gather(partOrder(perm, from, to), gs, false);
              expect([...bare.ids!.ids]).toEqual(fullIds);
              expect([...bare.col.nulls]).toEqual(fullNulls);
              if (ks[c]!.type === 'BYTE_ARRAY') {
                expect(bare.ids!.onlyIds).toBe(true);
                expect([bare.col.size, bare.col.data.length, bare.col.nullCount]).toEqual([0, 0, full.col.nullCount]);
                expect(bare.col.slice(0, bare.col.length).size).toBe(0);
              } else {
                expect(bare.ids!.onlyIds).toBeUndefined();
                expect(Array.from({ length: bare.col.length }, (_, i) => read(bare.col, i, ks[c]!))).toEqual(want.slice(from, to).map((i) => seen[c]![i]));
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('strings of few distinct values are held as a dictionary, given up past its limit', () => {
    const few = hold(kinds.string!, ['a', 'b', null, 'a'], [2]);
    expect(few.isDictionary).toBe(true);
    const n = 2 * HELD_DICTIONARY_LIMIT;
    const values = Array.from({ length: n }, (_, i) => (i % 97 === 0 ? null : `v${(i * 7919) % n}`));
    const many = hold(kinds.wide!, values, [100, 5000]);
    expect(many.isDictionary).toBe(false);
    expect(many.length).toBe(n);
    const perm = sortedOrder({ layout: 'linear' } as ClusterJob, [{ name: 'w', index: 0, kind: 'string' }], n, () => many);
    const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => compareValues(values[x]!, values[y]!) || x - y);
    expect([...perm]).toEqual(want);
    const all = many.gather(partOrder(perm, 0, n), new GatherScratch()).col;
    expect(Array.from({ length: n }, (_, i) => read(all, i, kinds.wide!))).toEqual(want.map((i) => values[i]));
  });

  it('appendIds (a dictionary-encoded chunk as its dictionary and indexes) holds what appending the values holds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('string', 'wide', 'int', 'long', 'double'),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 120 }), fc.boolean()), { minLength: 1, maxLength: 5 }),
        fc.integer(),
        (name, chunks, seed) => {
          const kind = kinds[name]!;
          const byIds = new HeldColumn(kind.type);
          const byValues = new HeldColumn(kind.type);
          let all: SortValue[] = [];
          for (const [c, [distinct, rows, nulls]] of chunks.entries()) {
            // a dictionary (maybe with entries no row uses), indexes into it
            const dictValues = fc.sample(kind.values, { numRuns: distinct, seed: seed + c });
            const dict = new PackedColumn(kind.type, 8);
            for (const v of dictValues) kind.put(dict, v);
            const idx = Int32Array.from(fc.sample(fc.integer({ min: nulls ? -1 : 0, max: distinct - 1 }), { numRuns: rows, seed: seed + 100 + c }));
            if (rows === 0) continue;
            byIds.appendIds(dict, idx);
            const values = new PackedColumn(kind.type, 8);
            for (const x of idx) {
              if (x < 0) values.appendNull();
              else values.appendBytes(dict.data, dict.start(x), dict.end(x));
            }
            byValues.append(values);
            all = all.concat([...idx].map((x) => (x < 0 ? null : kind.read(dictValues[x]!))));
          }
          expect([byIds.isDictionary, byIds.length, byIds.size, byIds.nullCount]).toEqual([byValues.isDictionary, byValues.length, byValues.size, byValues.nullCount]);
          const n = all.length;
          const column: SortColumn = { name: 'v', index: 0, kind: kind.sort };
          const perm = sortedOrder({ layout: 'linear' } as ClusterJob, [column], n, () => byIds);
          expect([...perm]).toEqual([...sortedOrder({ layout: 'linear' } as ClusterJob, [column], n, () => byValues)]);
          const a = byIds.gather(partOrder(perm, 0, n), new GatherScratch());
          const b = byValues.gather(partOrder(perm, 0, n), new GatherScratch());
          expect(Array.from({ length: n }, (_, i) => read(a.col, i, kind))).toEqual(Array.from({ length: n }, (_, i) => read(b.col, i, kind)));
          expect(Array.from({ length: n }, (_, i) => read(a.col, i, kind))).toEqual([...perm].map((i) => all[i]));
          expect(a.ids && [...a.ids.ids]).toEqual(b.ids && [...b.ids.ids]);
        },
      ),
      { numRuns: 150 },
    );
    // past the limit inside one chunk: held as bytes, as appending the values
    const n = HELD_DICTIONARY_LIMIT + 2000;
    const dict = new PackedColumn('BYTE_ARRAY', 8);
    for (let i = 0; i < n; i++) dict.appendString(`d${i}`);
    // every entry used (n % 11 !== 0: each index has a row that is not null)
    const idx = Int32Array.from({ length: 3 * n }, (_, i) => (i % 11 === 0 ? -1 : i % n));
    const h = new HeldColumn('BYTE_ARRAY');
    h.appendIds(dict, idx.subarray(0, 100));
    h.appendIds(dict, idx);
    expect([h.isDictionary, h.length, h.chunks().length, h.nullCount]).toEqual([false, 3 * n + 100, 2, [...idx.subarray(0, 100), ...idx].filter((x) => x < 0).length]);
  });

  it('numbers of few distinct values are held as a dictionary too, given up past its limit (ranked, gathered as when plain)', () => {
    const n = 2 * HELD_DICTIONARY_LIMIT;
    const cases: [Kind, (i: number) => SortValue][] = [
      [kinds.int!, (i) => ((i * 7919) % n) - 5000],
      [kinds.long!, (i) => BigInt((i * 7919) % n) * 3_000_000_000n - 7n],
      [kinds.double!, (i) => ((i * 7919) % n) / 7 - 100],
      [kinds.float!, (i) => Math.fround(((i * 7919) % n) / 4 - 50)],
    ];
    for (const [kind, value] of cases) {
      const column: SortColumn = { name: 'v', index: 0, kind: kind.sort };
      for (const distinct of [n, 500]) {
        const values = Array.from({ length: n }, (_, i) => (i % 97 === 0 ? null : value(i % distinct)));
        const h = hold(kind, values, [100, 5000]);
        expect(h.isDictionary, `${kind.type}, ${distinct} distinct`).toBe(distinct < HELD_DICTIONARY_LIMIT);
        const perm = sortedOrder({ layout: 'linear' } as ClusterJob, [column], n, () => h);
        const seen = values.map((v) => (v === null ? null : kind.read(v)));
        const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => compareValues(seen[x]!, seen[y]!) || x - y);
        expect([...perm], `${kind.type}, ${distinct} distinct`).toEqual(want);
        const all = h.gather(partOrder(perm, 0, n), new GatherScratch()).col;
        expect(Array.from({ length: n }, (_, i) => read(all, i, kind))).toEqual(want.map((i) => seen[i]));
      }
    }
  });

  it('z-order and hilbert over fields held as a dictionary (ints, longs, strings): the order of their values', () => {
    const n = 3000;
    const qty = Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : ((i * 31) % 500) - 100));
    const ts = Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000 + ((i * 104729) % 86_400_000)));
    const city = Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : `c${i % 7}`));
    const held = [hold(kinds.int!, qty, [1000, 1000]), hold(kinds.long!, ts, [1500]), hold(kinds.string!, city, [700, 0, 900])];
    expect(held.map((h) => h.isDictionary)).toEqual([true, true, true]);
    const seen = [qty, ts, city];
    const columns: SortColumn[] = [
      { name: 'qty', index: 0, kind: 'int' },
      { name: 'ts', index: 1, kind: 'long' },
      { name: 'city', index: 2, kind: 'string' },
    ];
    for (const layout of ['z-order', 'hilbert'] as const) {
      for (const cols of [columns.slice(0, 2), [columns[2]!, columns[0]!]]) {
        const got = sortedOrder({ layout } as ClusterJob, cols, n, (c) => held[c.index]!);
        const want = sortPermutation(n, cols, layout, (c, i) => {
          const v = seen[cols[c]!.index]![i]!;
          return typeof v === 'bigint' ? Number(v) : v;
        });
        expect([...got], `${layout}: ${cols.map((c) => c.name).join(',')}`).toEqual([...want]);
      }
    }
  });

  it('partOrder lists the rows of a part in held order; gather steps over empty chunks and writes each value at its output row', () => {
    const o = partOrder(Int32Array.from([9, 4, 0, 7, 2, 5]), 1, 5);
    expect([...o.held]).toEqual([0, 2, 4, 7]);
    expect([...o.at]).toEqual([1, 3, 0, 2]);
    // consecutive parts (one empty) in one pass: each as listed alone, held ascending
    const perm = Int32Array.from({ length: 50 }, (_, i) => (i * 17) % 50);
    const bounds = [3, 10, 10, 31, 50];
    const all = partOrders(perm, bounds);
    expect(all.map((x) => x.at.length)).toEqual([7, 0, 21, 19]);
    for (const [p, x] of all.entries()) {
      const want = Array.from({ length: bounds[p + 1]! - bounds[p]! }, (_, i) => ({ h: perm[bounds[p]! + i]!, at: i })).sort((a, b) => a.h - b.h);
      expect([...x.held]).toEqual(want.map((w) => w.h));
      expect([...x.at]).toEqual(want.map((w) => w.at));
    }
    // rows 0..4 in chunks [0, 2, 0, 0, 3, 0]: row 4 is the last of the fifth chunk
    const h = hold(kinds.int!, [10, 11, 12, 13, 14], [0, 2, 0, 0, 3]);
    const g = h.gather(partOrder(Int32Array.from([4, 0, 1, 2, 3]), 0, 5), new GatherScratch()).col;
    expect(Array.from({ length: 5 }, (_, i) => read(g, i, kinds.int!))).toEqual([14, 10, 11, 12, 13]);
  });

  it('integer sort fields rank by their offset from the minimum; too wide together, the widest is made dense', () => {
    const n = 500;
    // offsets spanning 100·2^44 and 12·2^36: their product is past 2^53, dense ranks (≤ 501 each) are not
    const a = Array.from({ length: n }, (_, i) => (i % 37 === 0 ? null : BigInt((((i * 7919) % 101) - 50) * 2 ** 44)));
    const b = Array.from({ length: n }, (_, i) => BigInt(((i * 104729) % 13) * 2 ** 36));
    const held = [hold(kinds.long!, a, [100, 0, 250]), hold(kinds.long!, b, [7])];
    const ranked = held.map((h, c) => h.rank({ name: `c${c}`, index: c, kind: 'long' })!);
    expect(ranked[0]!.distinct).toBe(100 * 2 ** 44 + 1);
    expect(ranked[0]!.densify).toBeDefined();
    const columns: SortColumn[] = [0, 1].map((i) => ({ name: `c${i}`, index: i, kind: 'long' }));
    const perm = sortedOrder({ layout: 'linear' } as ClusterJob, columns, n, (c) => held[c.index]!);
    const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => compareValues(a[x]!, a[y]!) || compareValues(b[x]!, b[y]!) || x - y);
    expect([...perm]).toEqual(want);
  });

  it('BloomWork: each key added at its row in its file, part after part and step by step, gives the filters of the keys added in order', () => {
    const n = 2345;
    const keys = Array.from({ length: n }, (_, i) => `key-${(i * 7919) % n}`);
    // held as bytes (over the dictionary limit) and as a dictionary
    const asBytes = () => hold(kinds.wide!, [...keys, ...Array.from({ length: HELD_DICTIONARY_LIMIT }, (_, i) => `x${i}`)], [500, 0, 700]);
    const asDictionary = () => hold(kinds.wide!, keys, [500, 0, 700]);
    expect([asBytes().isDictionary, asDictionary().isDictionary]).toEqual([false, true]);
    for (const heldOf of [asBytes, asDictionary]) {
      const perm = Int32Array.from({ length: n }, (_, i) => (i * 1031) % n);
      // two files of 1,000 and 1,345 rows, in parts of 300 rows (a file's last part shorter)
      const files = [[0, 1000], [1000, n]] as const;
      const parts = files.flatMap(([a, b], k) => Array.from({ length: Math.ceil((b - a) / 300) }, (_, p) => ({ k, from: p * 300, order: partOrder(perm, a + p * 300, Math.min(b, a + (p + 1) * 300)) })));
      const small = { numEntries: 50, maxEntries: 170, fpp: 0.01 };
      // every key here; every key but those of rows r % 3 === 0, which the other thread adds
      for (const skip of [0, 3]) {
        const held = heldOf();
        const work = new BloomWork(2, skip, small);
        work.start(held, parts);
        for (const step of [1, 7, 299, 301, 450, 1]) work.step(step);
        work.gathered();
        for (const [k, [a, b]] of files.entries()) {
          const want = HoodieBloomFilter.create(small);
          for (let i = a; i < b; i++) want.add(keys[perm[i]!]!);
          const got = work.given(k);
          const there = HoodieBloomFilter.create(small);
          for (let r = 0; skip && r < b - a; r += skip) there.addBytesAt(enc.encode(keys[perm[a + r]!]!), 0, enc.encode(keys[perm[a + r]!]!).length, r);
          expect(got.keys + (skip ? Math.ceil((b - a) / skip) : 0)).toBe(b - a);
          got.filter.merge(there);
          got.filter.settle(b - a);
          expect(got.filter.serialize(), `file ${k}, skip ${skip}`).toBe(want.serialize());
        }
        // the keys are let go once hashed
        if (!held.isDictionary) expect(held.chunks().length).toBe(0);
      }
    }
  });

  it('writeSorted in many parts writes the file one part gives: the rows in sorted order, the same bytes and keys', async () => {
    const schema = withHoodieMetaFields({ type: 'record', name: 'r', fields: [{ name: 'k', type: 'string' }, { name: 'v', type: ['null', 'long'], default: null }] });
    const n = 2345;
    const v = Array.from({ length: n }, (_, i) => (i % 17 === 0 ? null : BigInt(((i * 7919) % 1009) - 500)));
    const str = (f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));
    const values: SortValue[][] = [str((i) => `2025010100000${i % 3}000`), str((i) => `s-${i}`), str((i) => `key-${i}`), str(() => 'p'), [], str((i) => `key-${i}`), v];
    const sizes = [500, 0, 700, 1];
    const heldOf = () => values.map((vs, j) => (j === 4 ? undefined : hold(j === 6 ? kinds.long! : kinds.wide!, vs, sizes)));
    const job = { writerSchema: schema, rowGroupSize: 100, fileIdPrefixes: ['p0'], firstTask: 0, instant: '20250102000000000', targetFileMaxBytes: 1e12, slices: [], withKeys: true, codec: 'SNAPPY', layout: 'linear', sortColumns: ['v'] } as unknown as ClusterJob;
    // a sink that takes the bloom filters built while writeSorted waits (as the worker's remote sink does)
    const bloomHere = (): ColumnSink => {
      let writers: HoodiePackedColumnWriter[] = [];
      const blooms: GivenBloom[] = [];
      return {
        buffers: 1,
        shared: false,
        bloomHere: true,
        start: (layout) => void (writers = layout.map((f) => openFileWriter(job, f, true))),
        // the buffer comes back a little later, as from the other thread: writeSorted hashes meanwhile
        put: (k, j, _b, g, at) => {
          const compressed = writers[k]!.writeColumn(j, g.col, g.ids, at);
          return { released: new Promise((r) => setTimeout(r, 2)), compressed };
        },
        bloom: (k, b) => void (blooms[k] = b),
        finish: () => Promise.all(writers.map((w, k) => w.finish(blooms[k]))),
      };
    };
    const run = async (partTarget?: number, sink?: ColumnSink) => {
      const held = heldOf();
      const perm = sortedOrder(job, [{ name: 'v', index: 6, kind: 'long' }], n, (c) => held[c.index]!);
      return (await writeSorted(job, n, perm, (j) => held[j], sink, partTarget))[0]!;
    };
    const one = await run();
    const many = await run(300);
    // the filter built key by key at each key's row, over parts of 300 rows and steps across them
    expect(Buffer.compare(joinFileData((await run(300, bloomHere())).parts), joinFileData(one.parts))).toBe(0);
    const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => compareValues(v[x]!, v[y]!) || x - y);
    const rows = await parquetReadObjects({ file: new Uint8Array(joinFileData(many.parts)).buffer });
    expect(rows.map((r) => [r.k, r.v ?? null, r._hoodie_commit_seqno])).toEqual(want.map((i) => [`key-${i}`, v[i], `s-${i}`]));
    expect(many.keys).toEqual(want.map((i) => `key-${i}`));
    expect(Buffer.compare(joinFileData(many.parts), joinFileData(one.parts))).toBe(0);
    expect(many.size).toBe(joinFileData(many.parts).length);
  });
});
