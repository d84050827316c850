// A progress line for long work (compaction, the triage scan): what is done of the total, throughput and ETA,
// fitted to the width. Formatting only; commands/progress.ts decides when and where it is drawn.
import { humanDuration } from './time-chart.ts';

export interface ProgressState {
  label: string;
  done: number;
  total: number;
  unit: string;
  records: number;
  bytes: number;
  elapsedMs: number;
  /** the work has no records to count (archival) */
  noRecords?: boolean;
  /** the work's bytes are not counted (a clean's deletes): the rate is in units per second */
  noBytes?: boolean;
  /** shown instead of records, bytes and rate (work that counts something else) */
  facts?: string[];
}

/** 1.2k, 3.4M: counts for a narrow line. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
}

/** 512 B, 3.4 MB (decimal, like a disk or a network shows them). */
export function shortBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** The ETA from the pace so far (undefined until something is done). */
export function eta(s: Pick<ProgressState, 'done' | 'total' | 'elapsedMs'>): number | undefined {
  if (s.done === 0 || s.done >= s.total) return undefined;
  return (s.elapsedMs / s.done) * (s.total - s.done);
}

function facts(s: ProgressState): string[] {
  const secs = Math.max(0.001, s.elapsedMs / 1000);
  const e = eta(s);
  return [
    `${s.done}/${s.total} ${s.unit}`,
    // work without records (archival: instants) shows none rather than "0 records"
    ...(s.facts ?? [
      ...(s.noRecords ? [] : [`${shortCount(s.records)} records`]),
      ...(s.noBytes ? [`${shortCount(Math.round(s.done / secs))} ${s.unit}/s`] : [shortBytes(s.bytes), `${shortBytes(Math.round(s.bytes / secs))}/s`]),
    ]),
    e === undefined ? `elapsed ${humanDuration(s.elapsedMs)}` : `ETA ${humanDuration(e)}`,
  ];
}

const BAR = 20;

/**
 * `label ▕████░░░░▏ 3/10 file groups · 1.2M records · 45 MB · 1.5 MB/s · ETA 1 m 10 s` in at most
 * `width` columns: the label gives way first, then the bar; the bar keeps its width as the text changes.
 */
export function progressBar(s: ProgressState, width: number): string {
  const text = facts(s).join(' · ');
  const fill = s.total === 0 ? BAR : Math.round((Math.min(s.done, s.total) / s.total) * BAR);
  const bar = `▕${'█'.repeat(fill)}${'░'.repeat(BAR - fill)}▏`;
  for (const line of [`${s.label} ${bar} ${text}`, `${bar} ${text}`, text]) if ([...line].length <= width) return line;
  return [...text].slice(0, Math.max(0, width - 1)).join('') + '…';
}

/** The plain line --verbose prints in a pipe. */
export function progressLine(s: ProgressState): string {
  return `${s.label}: ${facts(s).join(', ')}`;
}
