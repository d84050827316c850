// LogIndex against a Map of strings, the structure it replaces: the same keys in first-seen order, the
// same winner per key under the delta-merge rule, found by string and by UTF-8 bytes — with non-ASCII
// keys, keys without a faithful UTF-8 form (lone surrogates), deletes without a key, and growth.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BlockRecords, deltaReplaces, LogIndex, mergeConfigFromProperties, type Ordering } from '../../src/merge/index.ts';
import { viewOf } from '../../src/util/byte-spans.ts';

const config = mergeConfigFromProperties({ 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.table.recordkey.fields': 'id' });
const utf8 = new TextEncoder();

interface Rec {
  key: string | null;
  ts: number;
  deleted: boolean;
  asBytes: boolean;
}

const keyArb = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((n) => `key-${n}`),
  fc.constantFrom('é', 'ü-1', '日本', '\u{1F600}', 'a\uD800', '\uDC00b', ''),
);
const recArb: fc.Arbitrary<Rec> = fc.record({ key: fc.option(keyArb, { freq: 10 }), ts: fc.integer({ min: 0, max: 5 }), deleted: fc.boolean(), asBytes: fc.boolean() });

function blockOf(recs: Rec[]): BlockRecords {
  const b = new BlockRecords(undefined);
  for (const [i, r] of recs.entries()) {
    const o: Ordering = { values: [r.ts], classes: ['Long'] };
    const wellFormed = r.key !== null && (r.key as unknown as { isWellFormed(): boolean }).isWellFormed();
    if (r.asBytes && wellFormed) {
      const bytes = utf8.encode(`xx${r.key}`);
      b.addBytes(bytes, 2, bytes.length, o, r.deleted, i, i + 1);
    } else b.addKey(r.key, o, r.deleted, i, i + 1);
  }
  return b;
}

describe('LogIndex', () => {
  it('agrees with a Map of strings under the delta-merge rule (keys, order, winners, lookups)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(recArb, { maxLength: 30 }), { maxLength: 6 }), (blocks) => {
        const index = new LogIndex();
        const ref = new Map<string, { r: Rec; block: number; i: number }>();
        for (const [k, recs] of blocks.entries()) {
          const b = blockOf(recs);
          for (let i = 0; i < recs.length; i++) {
            index.merge(b, i, config);
            const r = recs[i]!;
            if (r.key === null) continue;
            const cur = ref.get(r.key);
            const o = (x: Rec): Ordering => ({ values: [x.ts], classes: ['Long'] });
            if (!cur || deltaReplaces(cur.r.deleted, o(cur.r), r.deleted, o(r), config)) ref.set(r.key, { r, block: k, i });
          }
        }
        expect(index.keys()).toEqual([...ref.keys()]);
        for (const [id, [key, w]] of [...ref.entries()].entries()) {
          expect(index.findKey(key)).toBe(id);
          expect(index.deleted(id)).toBe(w.r.deleted);
          expect(index.ordering(id).values).toEqual([w.r.ts]);
          if ((key as unknown as { isWellFormed(): boolean }).isWellFormed()) {
            const kb = utf8.encode(key);
            expect(index.find(kb, viewOf(kb), 0, kb.length)).toBe(id);
            expect([...index.keyUtf8(id)]).toEqual([...kb]);
          }
        }
        expect(index.findKey('absent')).toBe(-1);
        expect(index.find(utf8.encode('absent'), viewOf(utf8.encode('absent')), 0, 6)).toBe(-1);
      }),
    );
  });

  it('grows past its first table and buffers', () => {
    const index = new LogIndex();
    const b = new BlockRecords(undefined);
    const n = 50_000;
    for (let i = 0; i < n; i++) b.addKey(`k${i}`.repeat(1 + (i % 3)), { values: [i], classes: ['Long'] }, false, i, i + 1);
    for (let i = 0; i < n; i++) index.merge(b, i, config);
    expect(index.size).toBe(n);
    for (const i of [0, 1, 1023, 1024, 4095, 4096, n - 1]) expect(index.findKey(`k${i}`.repeat(1 + (i % 3)))).toBe(i);
  });
});
