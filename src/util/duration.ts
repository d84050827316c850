/** Parses `1h`, `30m`, `90s`, `2d`, `500ms` or a bare number of seconds into milliseconds. */
export function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?$/.exec(v.trim());
  if (!m) throw new Error(`expected a duration such as 30m, 1h, 2d, got '${v}'`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const mult = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' || unit === 'min' ? 60_000 : unit === 'h' ? 3_600_000 : 86_400_000;
  return Math.round(n * mult);
}
