// timeline show active|incomplete (hudi-cli TimelineCommand): one row per instant in timeline order,
// with the mtime of each state's file; hudi-cli adds the `No.` row-number column.
import type { ColumnSpec } from '../render/index.ts';
import type { Instant, State } from '../timeline/index.ts';

export interface TimelineRow {
  instant: Instant;
  /** action cell, possibly with rollback info lines */
  actionText: string;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** SimpleDateFormat("MM-dd HH:mm[:ss]") in this process's time zone. */
export function formatModTime(ms: number | undefined, seconds: boolean): string {
  if (ms === undefined || ms === 0) return '-'; // 0: the file went away after the listing
  const d = new Date(ms);
  const base = `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return seconds ? `${base}:${pad(d.getSeconds())}` : base;
}

/**
 * Rollback info as hudi-cli renders it: a rollback's action becomes `rollback\nRolls back\n<ts>`,
 * an instant that was rolled back becomes `<action>\nRolled back by\n<rb1>,\n<rb2>`.
 */
export function actionWithRollbackInfo(
  instant: Instant,
  rollsBack: Map<string, string>,
  rolledBackBy: Map<string, string[]>,
): string {
  if (instant.action === 'rollback') return `rollback\nRolls back\n${rollsBack.get(instant.requestedTime) ?? '-'}`;
  const by = rolledBackBy.get(instant.requestedTime);
  return by ? `${instant.action}\nRolled back by\n${by.join(',\n')}` : instant.action;
}

export function timelineColumns(seconds: boolean): ColumnSpec<TimelineRow>[] {
  // mtimes are read only for the rows shown (listing may defer stat)
  const t = (s: State) => (r: TimelineRow) => r.instant.files[s]?.mtimeMs ?? null;
  const fmt = (v: unknown) => formatModTime(v === null ? undefined : Number(v), seconds);
  return [
    { key: 'instant', header: 'Instant', value: (r) => r.instant.requestedTime },
    { key: 'action', header: 'Action', value: (r) => r.actionText },
    { key: 'state', header: 'State', value: (r) => r.instant.state },
    { key: 'requestedTime', header: 'Requested\nTime', value: t('REQUESTED'), format: fmt },
    { key: 'inflightTime', header: 'Inflight\nTime', value: t('INFLIGHT'), format: fmt },
    { key: 'completedTime', header: 'Completed\nTime', value: t('COMPLETED'), format: fmt },
  ];
}

export function toTimelineRow(instant: Instant, actionText: string = instant.action): TimelineRow {
  return { instant, actionText };
}

export interface InflightRow {
  instant: Instant;
}

/** commits show_infights: plain table CommitTime / Action / State. */
export const inflightColumns: ColumnSpec<Instant>[] = [
  { key: 'commitTime', header: 'CommitTime', value: (i) => i.requestedTime },
  { key: 'action', header: 'Action', value: (i) => i.action },
  { key: 'state', header: 'State', value: (i) => i.state },
];
