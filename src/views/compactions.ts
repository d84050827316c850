// compactions show all / compaction show (hudi-cli CompactionCommand).
import type { ColumnSpec } from '../render/index.ts';
import { javaDouble } from '../render/index.ts';
import type { CompactionPlan } from '../metadata/index.ts';
import { javaMapToString } from './java-map.ts';

export interface CompactionRow {
  instant: string;
  state: string;
  plan: CompactionPlan;
}

export function compactionColumns(includeExtraMetadata: boolean): ColumnSpec<CompactionRow>[] {
  const cols: ColumnSpec<CompactionRow>[] = [
    { key: 'compactionInstantTime', header: 'Compaction Instant Time', value: (r) => r.instant },
    { key: 'state', header: 'State', value: (r) => r.state },
    { key: 'totalFileIdsToBeCompacted', header: 'Total FileIds to be Compacted', value: (r) => r.plan.operations?.length ?? 0 },
  ];
  if (includeExtraMetadata) {
    cols.push({ key: 'extraMetadata', header: 'Extra Metadata', value: (r) => javaMapToString(r.plan.extraMetadata) });
  }
  return cols;
}

type Operation = NonNullable<CompactionPlan['operations']>[number];

export function toPlanRows(plan: CompactionPlan, partition?: string): Operation[] {
  return (plan.operations ?? []).filter((op) => partition === undefined || op.partitionPath === partition);
}

export const compactionPlanColumns: ColumnSpec<Operation>[] = [
  { key: 'partitionPath', header: 'Partition Path', value: (o) => o.partitionPath ?? null },
  { key: 'fileId', header: 'FileId', value: (o) => o.fileId ?? null },
  { key: 'baseInstant', header: 'Base-Instant', value: (o) => o.baseInstantTime ?? null },
  { key: 'dataFilePath', header: 'Data File Path', value: (o) => o.dataFilePath ?? null },
  { key: 'totalDeltaFiles', header: 'Total Delta Files', value: (o) => o.deltaFilePaths?.length ?? 0 },
  {
    key: 'metrics',
    header: 'getMetrics',
    value: (o) => (o.metrics ? javaMapToString(o.metrics, (v) => javaDouble(Number(v))) : ''),
  },
];
