import { describe, expect, it } from 'vitest';
import { decimalHash00 } from '../../src/render/index.ts';
import { humanReadableByteCount, javaFixed } from '../../src/util/index.ts';

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
