// rleHybrid writes the bytes hyparquet-writer's writeRleBitPackedHybrid writes (the row writer's
// pages use that one; both writers must agree byte for byte): runs, bit-packed groups and their mix,
// every bit width a level or dictionary index takes, lengths off the 8-value groups.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { rleHybrid } from '../../src/parquet/rle-hybrid.ts';

function reference(values: Int32Array, bitWidth: number, prefix?: number): number[] {
  const w = new ByteWriter();
  if (prefix !== undefined) w.appendUint8(prefix);
  writeRleBitPackedHybrid(w, values, bitWidth);
  return [...new Uint8Array(w.getBytes())];
}

describe('rleHybrid', () => {
  it('the same bytes as hyparquet-writer on runs, groups and mixes of them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.record({ v: fc.nat(), len: fc.integer({ min: 1, max: 30 }) }), { maxLength: 40 }),
        fc.boolean(),
        (bitWidth, runs, withPrefix) => {
          const max = bitWidth === 0 ? 0 : 2 ** bitWidth - 1;
          const values = Int32Array.from(runs.flatMap((r) => Array.from({ length: r.len }, () => (max === 0 ? 0 : r.v % (max + 1)))));
          const prefix = withPrefix ? bitWidth : undefined;
          expect([...rleHybrid(values, values.length, bitWidth, prefix)]).toEqual(reference(values, bitWidth, prefix));
        },
      ),
    );
  });

  it('long runs (varint headers of several bytes) and all-present definition levels', () => {
    for (const n of [1, 7, 8, 9, 100_000, 1_048_577]) {
      const ones = new Uint8Array(n).fill(1);
      expect([...rleHybrid(ones, n, 1)]).toEqual(reference(Int32Array.from(ones), 1));
    }
  });
});
