// Hudi instant times: yyyyMMddHHmmssSSS (17 digits) or yyyyMMddHHmmss (14, pre-0.10).
// They compare as strings (0.x HoodieTimeline.compareTimestamps).

export function isInstantTime(s: string): boolean {
  return /^\d{14}$|^\d{17}$/.test(s);
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/** Formats a date as a 17-digit instant, in UTC or in the local zone of this process. */
export function formatInstantTime(d: Date, zone: 'UTC' | 'LOCAL' = 'LOCAL'): string {
  const utc = zone === 'UTC';
  const y = utc ? d.getUTCFullYear() : d.getFullYear();
  const mo = (utc ? d.getUTCMonth() : d.getMonth()) + 1;
  const da = utc ? d.getUTCDate() : d.getDate();
  const h = utc ? d.getUTCHours() : d.getHours();
  const mi = utc ? d.getUTCMinutes() : d.getMinutes();
  const s = utc ? d.getUTCSeconds() : d.getSeconds();
  const ms = utc ? d.getUTCMilliseconds() : d.getMilliseconds();
  return `${pad(y, 4)}${pad(mo, 2)}${pad(da, 2)}${pad(h, 2)}${pad(mi, 2)}${pad(s, 2)}${pad(ms, 3)}`;
}

/**
 * Parses an instant time into a Date. 14-digit times get 999 ms (DEFAULT_MILLIS_EXT);
 * longer metadata-table service times (<17 digits>001) are trimmed to 17.
 */
export function parseInstantTime(t: string, zone: 'UTC' | 'LOCAL' = 'LOCAL'): Date | undefined {
  if (!/^\d{14,}$/.test(t)) return undefined;
  const s = t.length === 14 ? `${t}999` : t.slice(0, 17);
  const n = (a: number, b: number) => Number(s.slice(a, b));
  const parts = [n(0, 4), n(4, 6) - 1, n(6, 8), n(8, 10), n(10, 12), n(12, 14), n(14, 17)] as const;
  const d = zone === 'UTC' ? new Date(Date.UTC(...parts)) : new Date(...parts);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function compareInstantTimes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
