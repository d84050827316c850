/**
 * hudi-cli's NumericUtils.humanReadableByteCount: binary units labelled KB/MB/GB, one decimal,
 * Java %.1f rounding. -1 (missing base file) renders as "-1.0 B".
 */
export function humanReadableByteCount(bytes: number): string {
  if (bytes < 1024) return `${javaFixed(bytes, 1)} B`;
  const exp = Math.floor(Math.log(bytes) / Math.log(1024));
  const unit = 'KMGTPE'.charAt(exp - 1);
  return `${javaFixed(bytes / 1024 ** exp, 1)} ${unit}B`;
}

/**
 * Java String.format("%.Nf"): rounds the shortest decimal representation of the double
 * HALF_UP (so 1.005 → "1.01", where JS toFixed gives "1.00").
 */
export function javaFixed(v: number, digits: number): string {
  if (digits === 1 && v >= 0 && v < 1e21) {
    // the common case (byte counts), without the general path's splits: no exponent, and either
    // no fraction, exactly one digit, or a second digit that rounds down
    const s = String(v);
    const dot = s.indexOf('.');
    if (dot < 0) {
      if (s.indexOf('e') < 0) return `${s}.0`;
    } else if (s.length === dot + 2) return s;
    else if (s.indexOf('e') < 0) {
      if (s.charCodeAt(dot + 2) < 53) return s.slice(0, dot + 2);
      if (dot < 15) {
        // HALF_UP on the decimal digits: the tenths plus one, as an integer (exact below 2^53)
        const tenths = String(Number(s.slice(0, dot) + s.charAt(dot + 1)) + 1).padStart(2, '0');
        return `${tenths.slice(0, -1)}.${tenths.slice(-1)}`;
      }
    }
  }
  return javaFixedGeneral(v, digits);
}

/** javaFixed without its fast path (exported for the test that pins the two together). */
export function javaFixedGeneral(v: number, digits: number): string {
  if (!Number.isFinite(v)) return String(v);
  const neg = v < 0 || Object.is(v, -0);
  let [intPart, frac = ''] = plainDecimal(Math.abs(v)).split('.') as [string, string?];
  if (frac.length > digits) {
    const roundUp = (frac.charCodeAt(digits) - 48) >= 5;
    frac = frac.slice(0, digits);
    if (roundUp) {
      const all = (intPart + frac).split('').map(Number);
      let i = all.length - 1;
      for (; i >= 0; i--) {
        if (all[i] === 9) all[i] = 0;
        else {
          all[i]! += 1;
          break;
        }
      }
      if (i < 0) all.unshift(1);
      const s = all.join('');
      intPart = s.slice(0, s.length - digits);
      frac = s.slice(s.length - digits);
    }
  }
  frac = frac.padEnd(digits, '0');
  const out = digits > 0 ? `${intPart}.${frac}` : intPart;
  return neg && /[1-9]/.test(out) ? `-${out}` : out;
}

/** Shortest round-trip decimal without exponent notation. */
function plainDecimal(a: number): string {
  const s = String(a);
  if (!/e/i.test(s)) return s;
  const [mant, expS] = s.split(/e/i) as [string, string];
  const exp = Number(expS);
  const [i, f = ''] = mant.split('.') as [string, string?];
  const digits = i + f;
  const point = i.length + exp;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
