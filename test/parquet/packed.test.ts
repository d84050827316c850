// PackedColumn's bulk appends (PLAIN pages, dictionary indexes, ranges of another column) against
// the values one at a time: byte values of every length around the word-copy steps (0–80 bytes),
// nulls, fixed-width columns, appends after existing content and past the buffers' first size.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackedColumn } from '../../src/parquet/packed.ts';

const valueArb = fc.option(fc.uint8Array({ minLength: 0, maxLength: 80 }), { freq: 6 });

function values(c: PackedColumn): (number[] | null)[] {
  return Array.from({ length: c.length }, (_, i) => (c.nulls[i] ? null : [...c.data.subarray(c.start(i), c.end(i))]));
}

function filled(vs: (Uint8Array | null)[], type: 'BYTE_ARRAY' | 'INT64' = 'BYTE_ARRAY'): PackedColumn {
  const c = new PackedColumn(type, 4, 8);
  for (const v of vs) {
    if (v === null) c.appendNull();
    else c.appendBytes(v);
  }
  return c;
}

const plain = (vs: (Uint8Array | null)[]): (number[] | null)[] => vs.map((v) => (v === null ? null : [...v]));

describe('PackedColumn bulk appends', () => {
  it('appendPlainByteArrays reads a PLAIN page (nulls take no value) after existing values', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { maxLength: 8 }), fc.array(valueArb, { maxLength: 200 }), (before, vs) => {
        const page: number[] = [7, 7]; // the page's values start at 2
        for (const v of vs) if (v) page.push(v.length & 0xff, (v.length >> 8) & 0xff, 0, 0, ...v);
        const col = filled(before);
        const end = col.appendPlainByteArrays(Uint8Array.from(page), 2, vs.length, Uint8Array.from(vs.map((v) => (v === null ? 1 : 0))));
        expect(end).toBe(page.length);
        expect(values(col)).toEqual([...plain(before), ...plain(vs)]);
        expect(col.nullCount).toBe([...before, ...vs].filter((v) => v === null).length);
      }),
    );
  });

  it('a PLAIN value running past its page is an error', () => {
    const col = new PackedColumn('BYTE_ARRAY');
    expect(() => col.appendPlainByteArrays(Uint8Array.from([9, 0, 0, 0, 1, 2]), 0, 1, undefined)).toThrow(/runs past its page/);
    expect(() => col.appendPlainByteArrays(Uint8Array.from([9, 0]), 0, 1, undefined)).toThrow(/runs past its page/);
  });

  it('appendDictValues expands indexes (byte arrays and 8-byte values)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 0, maxLength: 80 }), { minLength: 1, maxLength: 20 }), fc.array(fc.option(fc.nat(), { freq: 5 }), { maxLength: 200 }), fc.boolean(), (dictValues, picks, fixed) => {
        const dv = fixed ? dictValues.map((v) => Uint8Array.from({ length: 8 }, (_, k) => v[k] ?? k)) : dictValues;
        const dict = filled(dv, fixed ? 'INT64' : 'BYTE_ARRAY');
        const idx = Int32Array.from(picks.filter((p) => p !== null).map((p) => p! % dv.length));
        const col = filled(fixed ? [new Uint8Array(8)] : [Uint8Array.from([1, 2, 3])], fixed ? 'INT64' : 'BYTE_ARRAY');
        // no null flags at all when there is no null (the reader's shape for pages without nulls)
        col.appendDictValues(dict, idx, picks.length, picks.includes(null) ? Uint8Array.from(picks.map((p) => (p === null ? 1 : 0))) : undefined);
        let k = 0;
        expect(values(col).slice(1)).toEqual(picks.map((p) => (p === null ? null : [...dv[idx[k++]!]!])));
        // a fixed-width null holds zero bytes
        if (fixed) picks.forEach((p, i) => p === null && expect([...col.data.subarray(col.start(i + 1), col.end(i + 1))]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]));
      }),
    );
  });

  it('a dictionary of one value: every index must be 0', () => {
    const dict = filled([Uint8Array.from([1, 2, 3])]);
    const col = new PackedColumn('BYTE_ARRAY');
    expect(() => col.appendDictValues(dict, Int32Array.from([0, 1]), 2, undefined)).toThrow(/dictionary index 1 out of 1/);
  });

  it('appendRange copies values [from, to) of another column, nulls and offsets included', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { maxLength: 8 }), fc.array(valueArb, { minLength: 1, maxLength: 120 }), fc.nat(), fc.nat(), (before, vs, a, b) => {
        const src = filled(vs);
        const from = a % (vs.length + 1);
        const to = from + (b % (vs.length - from + 1));
        const col = filled(before);
        col.appendRange(src, from, to);
        expect(values(col)).toEqual([...plain(before), ...plain(vs.slice(from, to))]);
        expect(col.nullCount).toBe([...before, ...vs.slice(from, to)].filter((v) => v === null).length);
      }),
    );
  });
});
