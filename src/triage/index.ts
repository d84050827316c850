export { scanTable, heartbeatOf, instantStateOf, walk, HEARTBEAT_EXPIRY_MS, type TableScan, type ScanOptions, type InstantWrites, type WriteRef, type ListedFile, type MarkerDir, type OutsideDir } from './scan.ts';
export { findCollisions, bucketCountOf, type CollisionOptions } from './collisions.ts';
export { findOrphans, deleteOrphans, isFlinkLeftover, isOutsideDir, trashDir, DEFAULT_OLDER_THAN_MS, type OrphanOptions, type DeleteOptions, type DeleteResult } from './orphans.ts';
export { doctor, compactionBacklog, groupSizes, pendingInstants, BACKLOG_WARN, type DoctorReport, type DoctorCheck, type DoctorOptions, type BacklogEntry, type PendingEntry } from './doctor.ts';
export { tableMetrics, renderPrometheus, type MetricSample } from './metrics.ts';
export { COLLISION_TEXT, ORPHAN_TEXT, ORPHAN_NEXT_STEP } from './runbook.ts';
export { worst, SEVERITY_RANK, type Severity, type Finding, type CollisionKind, type Orphan, type OrphanKind } from './types.ts';

/** Parses `1h`, `30m`, `90s`, `2d`, `500ms` or a bare number of seconds into milliseconds. */
export function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?$/.exec(v.trim());
  if (!m) throw new Error(`expected a duration such as 30m, 1h, 2d, got '${v}'`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const mult = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' || unit === 'min' ? 60_000 : unit === 'h' ? 3_600_000 : 86_400_000;
  return Math.round(n * mult);
}
