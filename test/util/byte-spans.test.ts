// The word-at-a-time byte-span primitives against byte-at-a-time references, on spans of every
// length around the 4-byte steps, at unaligned offsets of different arrays.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareBytes, equalBytes, hashBytes, moveBytes, viewOf } from '../../src/util/byte-spans.ts';

/** `b` placed at offset `at` of a larger array (an unaligned view of its own buffer). */
function placed(b: Uint8Array, at: number): { a: Uint8Array; s: number } {
  const a = new Uint8Array(b.length + at + 3).fill(0xaa);
  a.set(b, at);
  return { a: a.subarray(1), s: at - 1 };
}

const bytesArb = fc.uint8Array({ maxLength: 40 });
const offArb = fc.integer({ min: 1, max: 7 });

describe('byte spans', () => {
  it('compareBytes orders as Buffer.compare; equalBytes agrees; equal spans hash alike', () => {
    fc.assert(
      fc.property(bytesArb, bytesArb, offArb, offArb, fc.boolean(), (x, y0, ox, oy, same) => {
        const y = same ? x.slice() : y0;
        const p = placed(x, ox);
        const q = placed(y, oy);
        const c = compareBytes(p.a, viewOf(p.a), p.s, p.s + x.length, q.a, viewOf(q.a), q.s, q.s + y.length);
        expect(Math.sign(c)).toBe(Buffer.compare(Buffer.from(x), Buffer.from(y)));
        const eq = x.length === y.length && equalBytes(p.a, viewOf(p.a), p.s, q.a, viewOf(q.a), q.s, x.length);
        expect(eq).toBe(Buffer.compare(Buffer.from(x), Buffer.from(y)) === 0);
        if (eq) expect(hashBytes(p.a, viewOf(p.a), p.s, p.s + x.length)).toBe(hashBytes(q.a, viewOf(q.a), q.s, q.s + y.length));
      }),
    );
  });

  it('moveBytes copies exactly the span', () => {
    fc.assert(
      fc.property(bytesArb, offArb, offArb, (x, ox, oy) => {
        const p = placed(x, ox);
        const dst = new Uint8Array(x.length + oy + 4).fill(0x55);
        moveBytes(p.a, viewOf(p.a), p.s, dst, viewOf(dst), oy, x.length);
        expect([...dst.subarray(oy, oy + x.length)]).toEqual([...x]);
        expect(dst.subarray(0, oy).every((v) => v === 0x55) && dst.subarray(oy + x.length).every((v) => v === 0x55)).toBe(true);
      }),
    );
  });

  it('the hash spreads keys differing in one byte over the low bits', () => {
    const enc = new TextEncoder();
    const low = new Set<number>();
    for (let i = 0; i < 4096; i++) {
      const k = enc.encode(`key-${String(i).padStart(8, '0')}`);
      low.add(hashBytes(k, viewOf(k), 0, k.length) & 4095);
    }
    // a uniform hash fills ~63% of 4096 slots with 4096 keys
    expect(low.size).toBeGreaterThan(2300);
  });
});
