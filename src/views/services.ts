// cleans / rollbacks / savepoints / restores listings (hudi-cli CleansCommand, RollbacksCommand,
// SavepointsCommand, RestoresCommand).
import type { ColumnSpec } from '../render/index.ts';

export interface CleanRow {
  cleanTime: string;
  earliestCommitRetained: string;
  totalFilesDeleted: number;
  timeTakenMillis: number;
}

export const cleanColumns: ColumnSpec<CleanRow>[] = [
  { key: 'cleanTime', header: 'CleanTime', value: (r) => r.cleanTime },
  { key: 'earliestCommandRetained', header: 'EarliestCommandRetained', value: (r) => r.earliestCommitRetained },
  { key: 'totalFilesDeleted', header: 'Total Files Deleted', value: (r) => r.totalFilesDeleted },
  { key: 'totalTimeTaken', header: 'Total Time Taken', value: (r) => r.timeTakenMillis },
];

export interface CleanPartitionRow {
  partitionPath: string;
  policy: string;
  deleted: number;
  failed: number;
}

export const cleanPartitionColumns: ColumnSpec<CleanPartitionRow>[] = [
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.partitionPath },
  { key: 'cleaningPolicy', header: 'Cleaning policy', value: (r) => r.policy },
  { key: 'totalFilesSuccessfullyDeleted', header: 'Total Files Successfully Deleted', value: (r) => r.deleted },
  { key: 'totalFailedDeletions', header: 'Total Failed Deletions', value: (r) => r.failed },
];

export interface RollbackRow {
  instant: string;
  rolledBackInstant: string;
  totalFilesDeleted: number;
  timeTakenMillis: number;
  totalPartitions: number;
}

export const rollbackColumns: ColumnSpec<RollbackRow>[] = [
  { key: 'instant', header: 'Instant', value: (r) => r.instant },
  { key: 'rolledbackInstant', header: 'Rolledback Instant', value: (r) => r.rolledBackInstant },
  { key: 'totalFilesDeleted', header: 'Total Files Deleted', value: (r) => r.totalFilesDeleted },
  { key: 'timeTakenInMillis', header: 'Time taken in millis', value: (r) => r.timeTakenMillis },
  { key: 'totalPartitions', header: 'Total Partitions', value: (r) => r.totalPartitions },
];

export interface RollbackFileRow {
  instant: string;
  rolledBackInstants: string;
  partition: string;
  deletedFile: string;
  succeeded: boolean;
}

export const rollbackFileColumns: ColumnSpec<RollbackFileRow>[] = [
  { key: 'instant', header: 'Instant', value: (r) => r.instant },
  { key: 'rolledbackInstant', header: 'Rolledback Instant', value: (r) => r.rolledBackInstants },
  { key: 'partition', header: 'Partition', value: (r) => r.partition },
  { key: 'deletedFile', header: 'Deleted File', value: (r) => r.deletedFile },
  { key: 'succeeded', header: 'Succeeded', value: (r) => r.succeeded },
];

export const savepointColumns: ColumnSpec<string>[] = [{ key: 'savepointTime', header: 'SavepointTime', value: (t) => t }];

export interface RestoreRow {
  instant: string;
  restoredInstant: string;
  timeTaken: number | string;
  state: string;
}

export const restoreColumns: ColumnSpec<RestoreRow>[] = [
  { key: 'instant', header: 'Instant', value: (r) => r.instant },
  { key: 'restoredInstant', header: 'Restored Instant', value: (r) => r.restoredInstant },
  { key: 'timeTakenInMillis', header: 'Time taken in millis', value: (r) => r.timeTaken },
  { key: 'restoreState', header: 'Restore State', value: (r) => r.state },
];

export interface PropertyRow {
  property: string;
  value: string;
}

export const propertyColumns: ColumnSpec<PropertyRow>[] = [
  { key: 'property', header: 'Property', value: (r) => r.property },
  { key: 'value', header: 'Value', value: (r) => r.value },
];
