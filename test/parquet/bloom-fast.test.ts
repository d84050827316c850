// The write path's bloom filter shortcuts: PositionHasher (per-key word mixing done once, no
// allocation) gives bloomPositions' positions; add(string) and addBytes give the same filter; resume
// continues a serialized filter exactly as the filter that kept adding would; hash4 (four keys at once)
// gives hash's positions, and BloomBatch the filter of the keys added one by one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomBatch, HoodieBloomFilter, PositionHasher, bloomPositions, type BloomFilterOptions } from '../../src/parquet/bloom.ts';

const utf8 = new TextEncoder();

describe('PositionHasher', () => {
  it('equals bloomPositions for any key (ASCII, multi-byte, every tail length), at any offset', () => {
    const h = new PositionHasher(30, 2587966);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80, unit: 'binary' }), fc.nat(7), (s, pad) => {
        const key = utf8.encode(s);
        const buf = new Uint8Array(pad + key.length + 3);
        buf.set(key, pad);
        expect(Array.from(h.hash(buf, pad, pad + key.length))).toEqual(bloomPositions(key, 30, 2587966));
      }),
      { numRuns: 500 },
    );
  });

  it('hash4 gives each lane the positions hash gives it: any four keys of one length, at any offsets', () => {
    const h = new PositionHasher(30, 2587966);
    const one = new PositionHasher(30, 2587966);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.array(fc.uint8Array({ minLength: 70, maxLength: 70 }), { minLength: 4, maxLength: 4 }), fc.array(fc.nat(5), { minLength: 4, maxLength: 4 }), (length, bytes, pads) => {
        const bufs = bytes.map((b, l) => {
          const buf = new Uint8Array(pads[l]! + length);
          buf.set(b.subarray(0, length), pads[l]!);
          return buf;
        });
        const got = Array.from(h.hash4(bufs[0]!, pads[0]!, bufs[1]!, pads[1]!, bufs[2]!, pads[2]!, bufs[3]!, pads[3]!, length));
        const want = bufs.flatMap((b, l) => Array.from(one.hash(b, pads[l]!, pads[l]! + length)));
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
    // Java's Math.abs(x % vs) with negative x and remainders of 0 (the unsigned remainder's edge cases), many of each
    const small = new PositionHasher(3, 7);
    for (let i = 0; i < 300; i++) {
      const key = utf8.encode(`k${i}`);
      expect(Array.from(small.hash(key, 0, key.length))).toEqual(bloomPositions(key, 3, 7));
    }
  });

  it('refuses an empty key as bloomPositions does', () => {
    expect(() => new PositionHasher(3, 100).hash(new Uint8Array(4), 2, 2)).toThrow(/must not be empty/);
  });
});

describe('HoodieBloomFilter.add / addBytes / resume', () => {
  const small: BloomFilterOptions = { numEntries: 10, maxEntries: 30, fpp: 0.01 };
  const keys = Array.from({ length: 120 }, (_, i) => (i % 9 === 0 ? `clé-${i}-✓` : `key-${i}`));

  it('add(string) and addBytes(UTF-8) build the same filter', () => {
    const a = HoodieBloomFilter.create(small);
    const b = HoodieBloomFilter.create(small);
    for (const k of keys) {
      a.add(k);
      const bytes = utf8.encode(k);
      const buf = new Uint8Array(bytes.length + 2);
      buf.set(bytes, 1);
      b.addBytes(buf, 1, 1 + bytes.length);
    }
    expect(b.serialize()).toBe(a.serialize());
  });

  for (const type of ['DYNAMIC_V0', 'SIMPLE'] as const) {
    it(`${type}: resume after n keys, then more keys = the filter that kept adding`, () => {
      const opts = { ...small, type };
      for (const n of [0, 1, 9, 10, 11, 20, 21, 30, 31, 55, 100]) {
        const whole = HoodieBloomFilter.create(opts);
        const prefix = HoodieBloomFilter.create(opts);
        for (const k of keys.slice(0, n)) {
          whole.add(k);
          prefix.add(k);
        }
        const code = type === 'SIMPLE' ? undefined : 'DYNAMIC_V0';
        const resumed = HoodieBloomFilter.resume(prefix.serialize(), code, n, opts)!;
        expect(resumed, `n=${n}`).toBeDefined();
        for (const k of keys.slice(n)) {
          whole.add(k);
          resumed.add(k);
        }
        expect(resumed.serialize(), `n=${n}`).toBe(whole.serialize());
      }
    });
  }

  for (const type of ['DYNAMIC_V0', 'SIMPLE'] as const) {
    it(`${type}: keys added at their ordinals, in any order over two filters, merged and settled = the keys added in order`, () => {
      const opts = { ...small, type };
      let seed = 7;
      const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
      // around every boundary of the bookkeeping: row opened (10, 20), last row full (30), round robin after
      for (const n of [0, 1, 9, 10, 11, 19, 20, 21, 29, 30, 31, 32, 33, 55, 100, 120]) {
        const inOrder = HoodieBloomFilter.create(opts);
        for (const k of keys.slice(0, n)) inOrder.add(k);
        const a = HoodieBloomFilter.create(opts);
        const b = HoodieBloomFilter.create(opts);
        const order = Array.from({ length: n }, (_, i) => i);
        for (let i = n - 1; i > 0; i--) {
          const j = rand(i + 1);
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
        for (const i of order) {
          const bytes = utf8.encode(keys[i]!);
          (rand(2) ? a : b).addBytesAt(bytes, 0, bytes.length, i);
        }
        a.merge(b);
        a.settle(n);
        expect(a.serialize(), `n=${n}`).toBe(inOrder.serialize());
        // and it goes on as the in-order filter does
        for (const k of keys.slice(n, n + 7)) {
          a.add(k);
          inOrder.add(k);
        }
        expect(a.serialize(), `n=${n} + 7`).toBe(inOrder.serialize());
      }
    });
  }

  for (const type of ['DYNAMIC_V0', 'SIMPLE'] as const) {
    it(`${type}: BloomBatch, keys of mixed lengths added in order or at their ordinals, gives the filter of the keys added one by one`, () => {
      const opts = { ...small, type };
      // lengths 5–7 and a few longer: lanes fill and wait unevenly
      const mixed = Array.from({ length: 120 }, (_, i) => (i % 11 === 0 ? `long-key-${i}-✓` : `k-${i}`));
      for (const n of [0, 1, 3, 4, 5, 30, 31, 57, 120]) {
        const want = HoodieBloomFilter.create(opts);
        for (const k of mixed.slice(0, n)) want.add(k);
        const inOrder = HoodieBloomFilter.create(opts);
        const b = new BloomBatch(inOrder);
        // one buffer per key: each stays as it is until flush
        for (const k of mixed.slice(0, n)) b.add(utf8.encode(k), 0, utf8.encode(k).length);
        b.flush();
        expect(inOrder.serialize(), `n=${n} in order`).toBe(want.serialize());
        const atOrdinals = HoodieBloomFilter.create(opts);
        const c = new BloomBatch(atOrdinals);
        for (let i = n - 1; i >= 0; i--) {
          const bytes = utf8.encode(`..${mixed[i]!}`);
          c.addAt(bytes, 2, bytes.length, i);
        }
        c.flush();
        atOrdinals.settle(n);
        expect(atOrdinals.serialize(), `n=${n} at ordinals`).toBe(want.serialize());
      }
      expect(() => new BloomBatch(HoodieBloomFilter.create(opts)).add(new Uint8Array(3), 1, 1)).toThrow(/must not be empty/);
    });
  }

  it('refuses to merge filters of other shapes, or to settle on fewer adds than its rows hold', () => {
    const a = HoodieBloomFilter.create(small);
    expect(() => a.merge(HoodieBloomFilter.create({ ...small, numEntries: 11 }))).toThrow(/different shapes/);
    a.addBytesAt(utf8.encode('k'), 0, 1, 25);
    expect(() => a.settle(15)).toThrow(/more than 15 adds/);
  });

  it('does not resume a filter of other sizes or another key count', () => {
    const f = HoodieBloomFilter.create(small);
    for (const k of keys.slice(0, 25)) f.add(k);
    expect(HoodieBloomFilter.resume(f.serialize(), 'DYNAMIC_V0', 25, small)).toBeDefined();
    expect(HoodieBloomFilter.resume(f.serialize(), 'DYNAMIC_V0', 24, small)).toBeUndefined();
    expect(HoodieBloomFilter.resume(f.serialize(), 'DYNAMIC_V0', 25, { ...small, numEntries: 11 })).toBeUndefined();
    expect(HoodieBloomFilter.resume(f.serialize(), 'DYNAMIC_V0', 25)).toBeUndefined();
    expect(HoodieBloomFilter.resume('not base64 of a filter', 'DYNAMIC_V0', 25, small)).toBeUndefined();
  });
});
