// The write path's bloom filter shortcuts: PositionHasher (per-key word mixing done once, no
// allocation) gives bloomPositions' positions; add(string) and addBytes give the same filter; resume
// continues a serialized filter exactly as the filter that kept adding would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HoodieBloomFilter, PositionHasher, bloomPositions, type BloomFilterOptions } from '../../src/parquet/bloom.ts';

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
