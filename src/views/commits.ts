// commits show / commit showpartitions / commit showfiles / commit show_write_stats rows and columns
// (hudi-cli CommitsCommand, newest version; headers verbatim).
import type { ColumnSpec } from '../render/index.ts';
import type { CommitMetadata, WriteStat } from '../metadata/index.ts';
import { commitTotals } from '../metadata/index.ts';
import type { Instant } from '../timeline/index.ts';
import { bytesHuman } from './format.ts';

export interface CommitRow {
  instant: Instant;
  metadata: CommitMetadata;
}

type Totals = ReturnType<typeof commitTotals>;
interface CommitSummary extends Totals {
  commitTime: string;
  action: string;
  operationType: string | null;
}

export function toCommitSummary({ instant, metadata }: CommitRow): CommitSummary {
  return {
    commitTime: instant.requestedTime,
    action: instant.action,
    operationType: metadata.operationType,
    ...commitTotals(metadata),
  };
}

export function toCommitSummaries(rows: CommitRow[]): CommitSummary[] {
  return rows.map(toCommitSummary);
}

/** Rows from totals read straight off the instant files (loadCommitTotals). */
export function toCommitSummariesFromTotals(rows: { instant: Instant; totals: Totals & { operationType: string | null } }[]): CommitSummary[] {
  return rows.map(({ instant, totals }) => ({ commitTime: instant.requestedTime, action: instant.action, ...totals }));
}

export const commitColumns: ColumnSpec<CommitSummary>[] = [
  { key: 'commitTime', header: 'CommitTime', value: (r) => r.commitTime },
  { key: 'totalBytesWritten', header: 'Total Bytes Written', value: (r) => r.totalBytesWritten, format: bytesHuman },
  { key: 'totalFilesAdded', header: 'Total Files Added', value: (r) => r.totalFilesInsert },
  { key: 'totalFilesUpdated', header: 'Total Files Updated', value: (r) => r.totalFilesUpdated },
  { key: 'totalPartitionsWritten', header: 'Total Partitions Written', value: (r) => r.totalPartitionsWritten },
  { key: 'totalRecordsWritten', header: 'Total Records Written', value: (r) => r.totalRecordsWritten },
  { key: 'totalUpdateRecordsWritten', header: 'Total Update Records Written', value: (r) => r.totalUpdateRecordsWritten },
  { key: 'totalErrors', header: 'Total Errors', value: (r) => r.totalWriteErrors },
];

interface StatRow {
  action: string;
  instant: string;
  stat: WriteStat;
}

/** One row per write stat; `partition` filters rows (hudi-cli's --partition). */
export function toWriteStatRows(rows: CommitRow[], partition?: string): StatRow[] {
  const out: StatRow[] = [];
  for (const { instant, metadata } of rows) {
    for (const [p, stats] of Object.entries(metadata.partitionToWriteStats)) {
      if (partition !== undefined && p !== partition) continue;
      for (const stat of stats) out.push({ action: instant.action, instant: instant.requestedTime, stat });
    }
  }
  return out;
}

export const commitExtraColumns: ColumnSpec<StatRow>[] = [
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'instant', header: 'Instant', value: (r) => r.instant },
  { key: 'partition', header: 'Partition', value: (r) => r.stat.partitionPath },
  { key: 'fileId', header: 'FileId', value: (r) => r.stat.fileId },
  { key: 'previousCommit', header: 'Previous Commit', value: (r) => r.stat.prevCommit },
  { key: 'numWrites', header: 'Num Writes', value: (r) => r.stat.numWrites },
  { key: 'numInserts', header: 'Num Inserts', value: (r) => r.stat.numInserts },
  { key: 'numDeletes', header: 'Num Deletes', value: (r) => r.stat.numDeletes },
  { key: 'numUpdateWrites', header: 'Num Update Writes', value: (r) => r.stat.numUpdateWrites },
  { key: 'totalErrors', header: 'Total Errors', value: (r) => r.stat.totalWriteErrors },
  { key: 'totalLogBlocks', header: 'Total Log Blocks', value: (r) => r.stat.totalLogBlocks },
  { key: 'totalCorruptLogBlocks', header: 'Total Corrupt LogBlocks', value: (r) => r.stat.totalCorruptLogBlock },
  { key: 'totalRollbackBlocks', header: 'Total Rollback Blocks', value: (r) => r.stat.totalRollbackBlocks },
  { key: 'totalLogRecords', header: 'Total Log Records', value: (r) => r.stat.totalLogRecords },
  {
    key: 'totalUpdatedRecordsCompacted',
    header: 'Total Updated Records Compacted',
    value: (r) => r.stat.totalUpdatedRecordsCompacted,
  },
  { key: 'totalBytesWritten', header: 'Total Bytes Written', value: (r) => r.stat.totalWriteBytes, format: bytesHuman },
];

interface PartitionRow {
  action: string;
  partitionPath: string;
  filesAdded: number;
  filesUpdated: number;
  recordsInserted: number;
  recordsUpdated: number;
  bytesWritten: number;
  errors: number;
}

/** commit showpartitions: a file is added when prevCommit is the string "null" (HoodieWriteStat.NULL_COMMIT). */
export function toPartitionRows({ instant, metadata }: CommitRow): PartitionRow[] {
  return Object.entries(metadata.partitionToWriteStats).map(([p, stats]) => {
    const r: PartitionRow = {
      action: instant.action,
      partitionPath: p,
      filesAdded: 0,
      filesUpdated: 0,
      recordsInserted: 0,
      recordsUpdated: 0,
      bytesWritten: 0,
      errors: 0,
    };
    for (const s of stats) {
      if (isNullCommit(s.prevCommit)) r.filesAdded++;
      else {
        r.filesUpdated++;
        r.recordsUpdated += s.numUpdateWrites;
      }
      r.recordsInserted += s.numInserts;
      r.bytesWritten += s.totalWriteBytes;
      r.errors += s.totalWriteErrors;
    }
    return r;
  });
}

export function isNullCommit(prev: string | null): boolean {
  return prev === null || prev === 'null';
}

export const commitPartitionColumns: ColumnSpec<PartitionRow>[] = [
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.partitionPath },
  { key: 'totalFilesAdded', header: 'Total Files Added', value: (r) => r.filesAdded },
  { key: 'totalFilesUpdated', header: 'Total Files Updated', value: (r) => r.filesUpdated },
  { key: 'totalRecordsInserted', header: 'Total Records Inserted', value: (r) => r.recordsInserted },
  { key: 'totalRecordsUpdated', header: 'Total Records Updated', value: (r) => r.recordsUpdated },
  { key: 'totalBytesWritten', header: 'Total Bytes Written', value: (r) => r.bytesWritten, format: bytesHuman },
  { key: 'totalErrors', header: 'Total Errors', value: (r) => r.errors },
];

export const commitFileColumns: ColumnSpec<StatRow>[] = [
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.stat.partitionPath },
  { key: 'fileId', header: 'FileId', value: (r) => r.stat.fileId },
  { key: 'previousCommit', header: 'Previous Commit', value: (r) => r.stat.prevCommit },
  { key: 'totalRecordsUpdated', header: 'Total Records Updated', value: (r) => r.stat.numUpdateWrites },
  { key: 'totalRecordsWritten', header: 'Total Records Written', value: (r) => r.stat.numWrites },
  { key: 'totalBytesWritten', header: 'Total Bytes Written', value: (r) => r.stat.totalWriteBytes },
  { key: 'totalErrors', header: 'Total Errors', value: (r) => r.stat.totalWriteErrors },
  { key: 'fileSize', header: 'File Size', value: (r) => r.stat.fileSizeInBytes },
];

interface WriteStatsRow {
  action: string;
  bytes: number;
  records: number;
}

export function toWriteStatsRow({ instant, metadata }: CommitRow): WriteStatsRow {
  const t = commitTotals(metadata);
  return { action: instant.action, bytes: t.totalBytesWritten, records: t.totalRecordsWritten };
}

export const commitWriteStatsColumns: ColumnSpec<WriteStatsRow>[] = [
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'totalBytesWritten', header: 'Total Bytes Written for entire commit', value: (r) => r.bytes },
  { key: 'totalRecordsWritten', header: 'Total Records Written for entire commit', value: (r) => r.records },
  {
    key: 'avgRecordSize',
    header: 'Avg record size for entire commit',
    value: (r) => (r.records === 0 ? 0 : Math.ceil(r.bytes / r.records)),
  },
];
