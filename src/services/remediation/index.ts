// Remediation without Spark (issue 15): rollback, failed writes, savepoints and restore, markers,
// compaction repairs, repairs and table configs — each a dry run first, all on the shared write path.
export * from './report.ts';
export * from './rollback.ts';
export * from './failed.ts';
export * from './savepoint.ts';
export * from './restore.ts';
export * from './markers.ts';
export * from './compaction-admin.ts';
export * from './repairs.ts';
