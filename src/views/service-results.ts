// compactions, timeline, cleans, rollbacks, savepoints, restores, desc: one call per command.
import { TblError } from '../errors/index.ts';
import {
  decodeCleanMetadata,
  decodeRestoreMetadata,
  decodeRestorePlan,
  decodeRollbackMetadata,
} from '../metadata/index.ts';
import type { Table } from '../table/index.ts';
import { loadCompactionPlan, loadCompactions, loadRollbackInfo, requireMergeOnRead } from '../table/queries.ts';
import type { Instant } from '../timeline/index.ts';
import { compactionColumns, compactionPlanColumns, toPlanRows } from './compactions.ts';
import { result, type TableResult } from './result.ts';
import {
  cleanColumns,
  cleanPartitionColumns,
  propertyColumns,
  restoreColumns,
  rollbackColumns,
  rollbackFileColumns,
  savepointColumns,
  type CleanRow,
  type RestoreRow,
  type RollbackFileRow,
  type RollbackRow,
} from './services.ts';
import { actionWithRollbackInfo, timelineColumns, toTimelineRow } from './timeline.ts';

export async function compactionsShowAll(table: Table, extra: boolean): Promise<TableResult> {
  requireMergeOnRead(table);
  return result(compactionColumns(extra), await loadCompactions(table));
}

export async function compactionShow(table: Table, instant: string, partition?: string): Promise<TableResult> {
  requireMergeOnRead(table);
  return result(compactionPlanColumns, toPlanRows(await loadCompactionPlan(table, instant), partition));
}

export async function timelineShow(
  table: Table,
  opts: { incomplete: boolean; rollbackInfo: boolean; seconds: boolean },
): Promise<TableResult> {
  const tl = await table.timeline();
  const instants = opts.incomplete ? tl.pending() : [...tl.instants];
  const info = opts.rollbackInfo ? await loadRollbackInfo(table, tl) : undefined;
  const rows = instants.map((i) =>
    toTimelineRow(i, info ? actionWithRollbackInfo(i, info.rollsBack, info.rolledBackBy) : i.action),
  );
  return result(timelineColumns(opts.seconds), rows);
}

function path(table: Table, i: Instant): { path: string } {
  return { path: table.storage.uri(i.files[i.state]!.path) };
}

export async function cleansShow(table: Table): Promise<TableResult> {
  const tl = await table.timeline();
  const cleans = tl.completed().filter((i) => i.action === 'clean').reverse();
  const rows = await tl.mapRead(cleans, 'COMPLETED', (b, i): CleanRow => {
    const m = decodeCleanMetadata(b, path(table, i));
    return {
      cleanTime: i.requestedTime,
      earliestCommitRetained: m.earliestCommitToRetain,
      totalFilesDeleted: m.totalFilesDeleted,
      timeTakenMillis: m.timeTakenInMillis,
    };
  });
  return result(cleanColumns, rows);
}

export async function cleanShowPartitions(table: Table, instant: string): Promise<TableResult> {
  const tl = await table.timeline();
  const i = tl.find(instant).find((x) => x.action === 'clean' && x.state === 'COMPLETED');
  if (!i) throw new TblError('not-found', `Clean ${instant} not found in metadata of ${table.uri}`, { instant, path: table.uri });
  const m = decodeCleanMetadata(await tl.read(i), path(table, i));
  const rows = Object.entries(m.partitionMetadata ?? {}).map(([p, pm]) => ({
    partitionPath: p,
    policy: pm.policy,
    deleted: pm.successDeleteFiles?.length ?? 0,
    failed: pm.failedDeleteFiles?.length ?? 0,
  }));
  return result(cleanPartitionColumns, rows);
}

async function completedRollbacks(table: Table) {
  const tl = await table.timeline();
  const rbs = tl.completed().filter((i) => i.action === 'rollback').reverse();
  return tl.mapRead(rbs, 'COMPLETED', (b, i) => ({ instant: i, meta: decodeRollbackMetadata(b, path(table, i)) }));
}

export async function showRollbacks(table: Table): Promise<TableResult> {
  const rows: RollbackRow[] = [];
  for (const { instant, meta } of await completedRollbacks(table)) {
    for (const c of meta.commitsRollback ?? []) {
      rows.push({
        instant: instant.requestedTime,
        rolledBackInstant: c,
        totalFilesDeleted: meta.totalFilesDeleted,
        timeTakenMillis: meta.timeTakenInMillis,
        totalPartitions: Object.keys(meta.partitionMetadata ?? {}).length,
      });
    }
  }
  return result(rollbackColumns, rows);
}

export async function showRollback(table: Table, instant: string): Promise<TableResult> {
  const found = (await completedRollbacks(table)).find((r) => r.instant.requestedTime === instant);
  if (!found) throw new TblError('not-found', `Rollback ${instant} not found in ${table.uri}`, { instant, path: table.uri });
  const rolled = `[${(found.meta.commitsRollback ?? []).join(', ')}]`;
  const rows: RollbackFileRow[] = [];
  for (const [p, pm] of Object.entries(found.meta.partitionMetadata ?? {})) {
    for (const f of pm.successDeleteFiles ?? []) rows.push({ instant, rolledBackInstants: rolled, partition: p, deletedFile: f, succeeded: true });
    for (const f of pm.failedDeleteFiles ?? []) rows.push({ instant, rolledBackInstants: rolled, partition: p, deletedFile: f, succeeded: false });
  }
  return result(rollbackFileColumns, rows);
}

export async function savepointsShow(table: Table): Promise<TableResult> {
  const tl = await table.timeline();
  const sps = tl.completed().filter((i) => i.action === 'savepoint').map((i) => i.requestedTime).reverse();
  return result(savepointColumns, sps);
}

async function restoreRows(table: Table, i: Instant): Promise<RestoreRow[]> {
  const tl = await table.timeline();
  if (i.state === 'COMPLETED') {
    const m = decodeRestoreMetadata(await tl.read(i), path(table, i));
    return (m.instantsToRollback ?? []).map((r) => ({
      instant: i.requestedTime,
      restoredInstant: r,
      timeTaken: m.timeTakenInMillis,
      state: 'COMPLETED',
    }));
  }
  if (!i.files.REQUESTED) return [];
  const plan = decodeRestorePlan(await tl.read(i, 'REQUESTED'), { path: table.storage.uri(i.files.REQUESTED.path) });
  return (plan.instantsToRollback ?? []).map((r) => ({ instant: i.requestedTime, restoredInstant: r.commitTime, timeTaken: '', state: i.state }));
}

export async function showRestores(table: Table, includeInflights: boolean): Promise<TableResult> {
  const tl = await table.timeline();
  const restores = tl.instants.filter((i) => i.action === 'restore' && (includeInflights || i.state === 'COMPLETED')).reverse();
  const rows = (await Promise.all(restores.map((i) => restoreRows(table, i)))).flat();
  return result(restoreColumns, rows);
}

export async function showRestore(table: Table, instant: string): Promise<TableResult> {
  const tl = await table.timeline();
  const i = tl.find(instant).find((x) => x.action === 'restore');
  if (!i) throw new TblError('not-found', `Restore ${instant} not found in ${table.uri}`, { instant, path: table.uri });
  return result(restoreColumns, await restoreRows(table, i));
}

/** desc: basePath, metaPath, fileSystem, then hoodie.properties sorted by key (hudi-cli prints hash order). */
export function describe(table: Table): TableResult {
  const rows = [
    { property: 'basePath', value: table.storage.uri(table.basePath) },
    { property: 'metaPath', value: table.storage.uri(table.metaPath) },
    { property: 'fileSystem', value: table.storage.scheme },
    ...[...table.config.props.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([property, value]) => ({ property, value })),
  ];
  return result(propertyColumns, rows);
}
