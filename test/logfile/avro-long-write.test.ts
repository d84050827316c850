// The log writer's Avro long (avroTypeFor): safe numbers go straight to the tap, bigints and unsafe
// numbers through the exact path. Both must give the zigzag varint Avro specifies, checked against
// plain avsc for the numbers it takes and against a varint built here from the bigint for the rest.
import avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { avroTypeFor } from '../../src/logfile/index.ts';

const ours = avroTypeFor(JSON.stringify({ type: 'record', name: 'r', fields: [{ name: 'v', type: 'long' }] }));
const plain = avro.Type.forSchema({ type: 'record', name: 'r', fields: [{ name: 'v', type: 'long' }] });

function zigzagVarint(v: bigint): number[] {
  let u = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  const out: number[] = [];
  do {
    const b = Number(u & 0x7fn);
    u >>= 7n;
    out.push(u > 0n ? b | 0x80 : b);
  } while (u > 0n);
  return out;
}

describe('avro long writes (log blocks)', () => {
  const edges = [0, -0, 1, -1, 63, -64, 64, 2 ** 30 - 1, 2 ** 30, -(2 ** 30), -(2 ** 30) - 1, 2 ** 31, 2 ** 32 + 5, 2 ** 52, -(2 ** 52), 2 ** 52 + 1, -(2 ** 52) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

  it('safe numbers: the zigzag varint plain avsc writes, and read back', () => {
    for (const v of edges) {
      expect([...ours.toBuffer({ v })], String(v)).toEqual(zigzagVarint(BigInt(v)));
      // past 2^52 plain avsc's float doubling is inexact (and it refuses ±(2^53 - 1))
      if (Math.abs(v) <= 2 ** 52) expect([...ours.toBuffer({ v })], String(v)).toEqual([...plain.toBuffer({ v })]);
      expect(ours.fromBuffer(ours.toBuffer({ v })).v).toBe(v === 0 ? 0 : v);
    }
    fc.assert(
      fc.property(fc.maxSafeInteger(), (v) => {
        expect([...ours.toBuffer({ v })]).toEqual(zigzagVarint(BigInt(v)));
      }),
    );
  });

  it('bigints and unsafe numbers: the 64-bit zigzag varint, read back exactly', () => {
    const big = [2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 12345678901234567n];
    for (const v of big) {
      expect([...ours.toBuffer({ v })], String(v)).toEqual(zigzagVarint(v));
      expect(ours.fromBuffer(ours.toBuffer({ v })).v).toBe(v);
    }
    expect([...ours.toBuffer({ v: 2 ** 60 })]).toEqual(zigzagVarint(2n ** 60n));
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (v) => {
        expect([...ours.toBuffer({ v })]).toEqual(zigzagVarint(v));
      }),
    );
  });
});
