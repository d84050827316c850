// Java's default string conversions, which hudi-cli applies when a column has no converter.

import type { Raw } from './table-model.ts';

/** Java String.valueOf for the raw values we carry: null → "null", booleans "true"/"false". */
export function javaValueOf(raw: Raw): string {
  if (raw === null) return 'null';
  return String(raw);
}

/**
 * Java Double.toString: always a fraction part ("1.0"), scientific notation outside [1e-3, 1e7)
 * ("1.0E7", "1.5E-4"). JS gives the same shortest digits, only the layout differs. Use it as the
 * `format` of columns whose Java type is double (ratios such as "Delta To Base Ratio").
 */
export function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(v);
  const sign = v < 0 ? '-' : '';
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(abs); // JS uses exponents only below 1e-6 or from 1e21, outside this range
    return sign + (s.includes('.') ? s : `${s}.0`);
  }
  // Scientific: d.dddE±n with at least one fraction digit.
  const [mant, exp] = abs.toExponential().split('e') as [string, string];
  const m = mant.includes('.') ? mant : `${mant}.0`;
  return `${sign}${m}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** DecimalFormat("#.00"): no leading zero (0.5 → ".50"), HALF_EVEN rounding. */
export function decimalHash00(v: number): string {
  const r = Math.round(v * 100);
  const cents = Math.abs(v * 100 - Math.trunc(v * 100)) === 0.5 ? 2 * Math.round((v * 100) / 2) : r;
  const s = (cents / 100).toFixed(2);
  return s.startsWith('0.') ? s.slice(1) : s.startsWith('-0.') ? `-${s.slice(2)}` : s;
}
