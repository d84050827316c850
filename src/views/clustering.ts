// `clustering show all` / `clustering show --instant T` (ours, in the style of compactions show all /
// compaction show): clustering instants of the active timeline and one plan's slices.
import { TblError } from '../errors/index.ts';
import type { ColumnSpec } from '../render/index.ts';
import { javaDouble } from '../render/index.ts';
import type { ClusteringPlan, SliceInfo } from '../metadata/index.ts';
import { readClusteringPlan } from '../services/clustering/inputs.ts';
import type { Table } from '../table/index.ts';
import type { Instant } from '../timeline/index.ts';
import { javaMapToString } from './java-map.ts';
import { result, type TableResult } from './result.ts';

export interface ClusteringRow {
  instant: string;
  state: string;
  plan: ClusteringPlan;
}

export const clusteringColumns: ColumnSpec<ClusteringRow>[] = [
  { key: 'clusteringInstantTime', header: 'Clustering Instant Time', value: (r) => r.instant },
  { key: 'state', header: 'State', value: (r) => r.state },
  { key: 'inputGroups', header: 'Input Groups', value: (r) => r.plan.inputGroups?.length ?? 0 },
  { key: 'totalFileIdsToBeClustered', header: 'Total FileIds to be Clustered', value: (r) => (r.plan.inputGroups ?? []).reduce((n, g) => n + (g.slices?.length ?? 0), 0) },
  { key: 'outputFileGroups', header: 'Output File Groups', value: (r) => (r.plan.inputGroups ?? []).reduce((n, g) => n + (g.numOutputFileGroups ?? 1), 0) },
  { key: 'strategyParams', header: 'Strategy Params', value: (r) => javaMapToString(r.plan.strategy?.strategyParams ?? {}) },
];

export interface ClusteringSliceRow {
  group: number;
  numOutputFileGroups: number;
  slice: SliceInfo;
  metrics: Record<string, number> | null;
}

export const clusteringPlanColumns: ColumnSpec<ClusteringSliceRow>[] = [
  { key: 'group', header: 'Group', value: (r) => r.group },
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.slice.partitionPath ?? null },
  { key: 'fileId', header: 'FileId', value: (r) => r.slice.fileId ?? null },
  { key: 'dataFilePath', header: 'Data File Path', value: (r) => r.slice.dataFilePath || null },
  { key: 'totalDeltaFiles', header: 'Total Delta Files', value: (r) => r.slice.deltaFilePaths?.length ?? 0 },
  { key: 'numOutputFileGroups', header: 'Output File Groups', value: (r) => r.numOutputFileGroups },
  { key: 'metrics', header: 'Group Metrics', value: (r) => (r.metrics ? javaMapToString(r.metrics, (v) => javaDouble(Number(v))) : '') },
];

/** Clustering instants (pending and completed) whose requested file holds a plan, newest first. */
async function clusteringInstants(table: Table): Promise<{ i: Instant; plan: ClusteringPlan }[]> {
  const tl = await table.timeline();
  const out: { i: Instant; plan: ClusteringPlan }[] = [];
  for (const i of tl.instants) {
    const maybe = i.effectiveAction === 'clustering' || i.stateActions.REQUESTED === 'clustering' || i.stateActions.REQUESTED === 'replacecommit';
    if (!maybe) continue;
    const plan = await readClusteringPlan(table, tl, i);
    if (plan) out.push({ i, plan });
  }
  return out.reverse();
}

export async function clusteringShowAll(table: Table): Promise<TableResult> {
  const rows: ClusteringRow[] = (await clusteringInstants(table)).map(({ i, plan }) => ({ instant: i.requestedTime, state: i.state, plan }));
  return result(clusteringColumns, rows);
}

export async function clusteringShow(table: Table, instant: string, partition?: string): Promise<TableResult> {
  const found = (await clusteringInstants(table)).find((x) => x.i.requestedTime === instant);
  if (!found) throw new TblError('not-found', `Clustering instant ${instant} not found in ${table.uri}`, { instant, path: table.uri });
  const rows: ClusteringSliceRow[] = [];
  for (const [g, group] of (found.plan.inputGroups ?? []).entries()) {
    for (const slice of group.slices ?? []) {
      if (partition !== undefined && slice.partitionPath !== partition) continue;
      rows.push({ group: g, numOutputFileGroups: group.numOutputFileGroups ?? 1, slice, metrics: group.metrics });
    }
  }
  return result(clusteringPlanColumns, rows);
}
