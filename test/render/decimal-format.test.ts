import { describe, expect, it } from 'vitest';
import { decimalHash00 } from '../../src/render/index.ts';
import fc from 'fast-check';
import { humanReadableByteCount, javaFixed } from '../../src/util/index.ts';
import { javaFixedGeneral } from '../../src/util/bytes.ts';

describe('Java number formats hudi-cli prints', () => {
  it('DecimalFormat("#.00"): no leading zero, two decimals, HALF_EVEN', () => {
    expect(decimalHash00(0.5)).toBe('.50');
    expect(decimalHash00(6)).toBe('6.00');
    expect(decimalHash00(40 / 3)).toBe('13.33');
    expect(decimalHash00(0.125)).toBe('.12');
    expect(decimalHash00(0.375)).toBe('.38');
  });
  it('String.format("%.1f") rounds the shortest decimal HALF_UP; bytes use 1024 units labelled KB/MB', () => {
    expect(javaFixed(1.05, 1)).toBe('1.1');
    expect(javaFixed(0.25, 1)).toBe('0.3');
    expect(humanReadableByteCount(-1)).toBe('-1.0 B');
    expect(humanReadableByteCount(512)).toBe('512.0 B');
    expect(humanReadableByteCount(445_542)).toBe('435.1 KB');
    expect(humanReadableByteCount(3 * 1024 ** 3)).toBe('3.0 GB');
  });
});

describe('javaFixed fast path', () => {
  it('equals the general rounding for any double, one or two digits (byte counts, ratios, tiny and huge values)', () => {
    const samples = [0, -0, 1, 9.95, 0.05, 0.04999, 1e-7, 1.5e-7, 1.23e-7, 1e20, 1.25e21, 999.95, 1023.99, 234.375, Number.MIN_VALUE];
    for (const v of samples) for (const d of [1, 2]) expect(javaFixed(v, d), `${v}`).toBe(javaFixedGeneral(v, d));
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true }), fc.integer({ min: 0, max: 1 << 30 }).map((n) => n / 1024), fc.integer({ min: 0, max: 99999 }).map((n) => n / 1000)), (v) => {
        expect(javaFixed(v, 1)).toBe(javaFixedGeneral(v, 1));
      }),
      { numRuns: 5000 },
    );
  });
});
