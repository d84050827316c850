export { scanTable, heartbeatOf, instantStateOf, instantStateIn, dirSummary, HEARTBEAT_EXPIRY_MS, type TableScan, type InstantState, type ScanOptions, type ScanProgress, type ScanScope, type InstantWrites, type MarkerDir, type OutsideDir, type MdtFiles } from './scan.ts';
export type { PartitionSummary, FileCandidate } from './listing.ts';
export { findCollisions, bucketCountOf, type CollisionOptions } from './collisions.ts';
export { findOrphans, deleteOrphans, instantKeepReason, ROLL_BACK_FIRST, isFlinkLeftover, isOutsideDir, trashDir, DEFAULT_OLDER_THAN_MS, type OrphanOptions, type DeleteOptions, type DeleteResult } from './orphans.ts';
export { doctor, compactionBacklog, groupSizes, pendingInstants, BACKLOG_WARN, type DoctorReport, type DoctorCheck, type DoctorOptions, type BacklogEntry, type PendingEntry } from './doctor.ts';
export { tableMetrics, renderPrometheus, type MetricSample } from './metrics.ts';
export { COLLISION_TEXT, ORPHAN_TEXT, ORPHAN_NEXT_STEP } from './runbook.ts';
export { worst, SEVERITY_RANK, type Severity, type Finding, type CollisionKind, type Orphan, type OrphanKind } from './types.ts';

export { progressLine, formatProgress, type ProgressSink, type ProgressLine } from './progress.ts';
