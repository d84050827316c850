// Linear clustering order: the rank-and-native-sort path equals a plain comparator sort with
// compareValues (Spark's ascending order: nulls first, code point order for strings, NaN last,
// -0 = 0, longs exact past 2^53), over random columns of every value kind; stable for ties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStrings, compareValues, radixOrder, radixOrder32, sortPermutation, type SortColumn, type SortValue } from '../../src/services/rewrite/sort-order.ts';

const kinds: Record<string, fc.Arbitrary<SortValue>> = {
  long: fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.bigInt({ min: -5n, max: 5n })),
  int: fc.integer({ min: -3, max: 3 }),
  double: fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, 1.5)),
  string: fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('a', 'b', '\uffff', '\u{1F600}')),
  boolean: fc.boolean(),
  binary: fc.uint8Array({ maxLength: 3 }),
};

describe('linear sort order', () => {
  it('ranked sort = comparator sort', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...Object.keys(kinds)), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer(),
        (cols, n, seed) => {
          const data = cols.map((k, c) => fc.sample(fc.option(kinds[k]!, { nil: null }), { numRuns: n, seed: seed + c }));
          const columns: SortColumn[] = cols.map((k, i) => ({ name: `c${i}`, index: i, kind: k === 'double' ? 'double' : k === 'int' ? 'int' : k === 'long' ? 'long' : (k as SortColumn['kind']) }));
          const got = [...sortPermutation(n, columns, 'linear', (c, i) => data[c]![i]!)];
          const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
            for (const d of data) {
              const r = compareValues(d[x]!, d[y]!);
              if (r !== 0) return r;
            }
            return x - y;
          });
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('many distinct values in several columns (combined ranks past 2^53): the comparator fallback', () => {
    const n = 3000;
    const data = [0, 1, 2, 3].map((c) => Array.from({ length: n }, (_, i) => ((i * (7919 + c * 104729)) % 2999) * (c % 2 ? 1 : -1) + 0.5));
    const columns: SortColumn[] = data.map((_, i) => ({ name: `c${i}`, index: i, kind: 'double' }));
    const got = [...sortPermutation(n, columns, 'linear', (c, i) => data[c]![i]!)];
    const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      for (const d of data) if (d[x] !== d[y]) return d[x]! - d[y]!;
      return x - y;
    });
    expect(got).toEqual(want);
  });

  it('strings in code point order (UTF-8 byte order), not UTF-16 order', () => {
    expect(compareStrings('\uffff', '\u{1F600}')).toBeLessThan(0);
    expect('\uffff' < '\u{1F600}').toBe(false);
    const enc = new TextEncoder();
    const a = enc.encode('\uffff');
    const b = enc.encode('\u{1F600}');
    expect(a[0]! < b[0]!).toBe(true);
  });

  it('radixOrder32 = a stable sort by the unsigned 32-bit keys (digits shared by all keys, ties, every digit)', () => {
    const word = fc.oneof(fc.constantFrom(0, 1, 0x7ff, 0x800, 0x3fffff, 0x400000, 0xffc00000, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 5 }));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 300 }), (ws) => {
        const want = ws.map((_, i) => i).sort((x, y) => ws[x]! - ws[y]! || x - y);
        expect([...radixOrder32(new Uint32Array(ws))]).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('radixOrder = a stable sort by the unsigned 64-bit keys (bytes shared by all keys, ties, every word)', () => {
    // words drawn from few values, so that ties and bytes shared by every key are common, or from all of them
    const word = fc.oneof(fc.constantFrom(0, 1, 0x100, 0xff000000, 0xffffffff, 0x80000000), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { maxLength: 300 }), (pairs) => {
        const keys = new Uint32Array(pairs.flat());
        const big = (i: number) => (BigInt(keys[2 * i + 1]!) << 32n) | BigInt(keys[2 * i]!);
        const want = pairs.map((_, i) => i).sort((x, y) => (big(x) < big(y) ? -1 : big(x) > big(y) ? 1 : x - y));
        expect([...radixOrder(keys)]).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
