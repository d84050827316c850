// Commands over the archived timeline (hudi-cli ArchivedCommitsCommand, CommitsCommand.showArchivedCommits,
// CompactionCommand.*showarchived). The archive is read only here, on request.
import { TblError } from '../errors/index.ts';
import type { ColumnSpec } from '../render/index.ts';
import { fromArchivedMetaEntry, loadArchivedTimeline, type ArchivedInstant } from '../archive/index.ts';
import { readLogFile } from '../logfile/index.ts';
import { SCHEMAS, commitMetadataFromRecord, type CommitMetadata, type CompactionPlan, type WriteStat } from '../metadata/index.ts';
import type { Table } from '../table/index.ts';
import { requireMergeOnRead } from '../table/index.ts';
import type { Instant } from '../timeline/index.ts';
import { formatInstantTime, joinPath } from '../util/index.ts';
import { commitColumns, commitExtraColumns, toCommitSummaries, toWriteStatRows } from './commits.ts';
import { compactionColumns, compactionPlanColumns, toPlanRows, type CompactionRow } from './compactions.ts';
import { avroToString, globFiles } from './logfile.ts';
import type { TableResult } from './result.ts';

/** Where the table keeps its archive: `.hoodie/<archivelog.folder>` (layout 1) or the LSM history dir (layout 2). */
export function archiveDirOf(table: Table): string {
  return table.config.layoutVersion === 1
    ? joinPath(table.metaPath, table.config.archiveFolder)
    : joinPath(table.metaPath, table.config.timelinePath, table.config.historyPath);
}

export async function loadArchive(table: Table, opts: { startTs?: string; endTs?: string; withMetadata: boolean }): Promise<ArchivedInstant[]> {
  return loadArchivedTimeline(table.storage, table.basePath, {
    layout: table.config.layoutVersion,
    archiveDir: archiveDirOf(table),
    startTs: opts.startTs,
    endTs: opts.endTs,
    withMetadata: opts.withMetadata,
  });
}

function entries(m: unknown): [string, unknown][] {
  if (m instanceof Map) return [...m.entries()].map(([k, v]) => [String(k), v]);
  if (m && typeof m === 'object') return Object.entries(m as Record<string, unknown>);
  return [];
}

/** An archived HoodieCommitMetadata record (Avro field names, nullable numbers) as the views' CommitMetadata. */
export function toCommitMetadata(raw: unknown): CommitMetadata {
  return commitMetadataFromRecord((raw ?? {}) as Record<string, unknown>);
}

function asInstant(a: ArchivedInstant): Instant {
  return {
    requestedTime: a.requestedTime,
    action: a.action as Instant['action'],
    state: 'COMPLETED',
    completionTime: a.completionTime,
    effectiveAction: a.action as Instant['action'],
    files: {},
    stateActions: {},
  } as Instant;
}

/** hudi-cli's default window: now − 10 days … now − 1 day, as instant times. */
export function defaultWindow(now: Date, startTs?: string, endTs?: string): { startTs: string; endTs: string } {
  const day = 24 * 3600 * 1000;
  return {
    startTs: startTs || formatInstantTime(new Date(now.getTime() - 10 * day)),
    endTs: endTs || formatInstantTime(new Date(now.getTime() - day)),
  };
}

const COMMIT_ACTIONS = new Set(['commit', 'deltacommit', 'replacecommit']);

// ---------------------------------------------------------------- commits showarchived

export async function commitsShowArchived(
  table: Table,
  opts: { extra: boolean; partition?: string; startTs?: string; endTs?: string; now: Date },
): Promise<TableResult> {
  const w = defaultWindow(opts.now, opts.startTs, opts.endTs);
  const archived = await loadArchive(table, { ...w, withMetadata: true });
  // findInstantsInRange(start, end): start exclusive, end inclusive; newest first
  const rows = archived
    .filter((a) => a.state === 'COMPLETED' && COMMIT_ACTIONS.has(a.action) && a.requestedTime > w.startTs && a.requestedTime <= w.endTs && a.metadata)
    .map((a) => ({ instant: asInstant(a), metadata: toCommitMetadata(a.metadata) }))
    .reverse();
  return opts.extra ? { columns: commitExtraColumns, rows: toWriteStatRows(rows, opts.partition) } : { columns: commitColumns, rows: toCommitSummaries(rows) };
}

// ---------------------------------------------------------------- compactions showarchived / compaction showarchived

function compactionPlanOf(a: ArchivedInstant): CompactionPlan | undefined {
  // layout 1: the compaction instant's entry holds the plan; layout 2: the `plan` column of the completed commit
  const p = a.plan ?? (a.action === 'compaction' ? a.metadata : undefined);
  return p && typeof p === 'object' && 'operations' in (p as object) ? (p as CompactionPlan) : undefined;
}

export async function compactionsShowArchived(
  table: Table,
  opts: { extra: boolean; startTs?: string; endTs?: string; now: Date },
): Promise<TableResult<CompactionRow>> {
  requireMergeOnRead(table);
  const w = defaultWindow(opts.now, opts.startTs, opts.endTs);
  const archived = await loadArchive(table, { ...w, withMetadata: true });
  const byInstant = new Map<string, CompactionRow>();
  for (const a of archived) {
    if (a.requestedTime <= w.startTs || a.requestedTime > w.endTs) continue;
    const plan = compactionPlanOf(a);
    if (plan) byInstant.set(a.requestedTime, { instant: a.requestedTime, state: 'COMPLETED', plan: { ...plan, operations: plan.operations ?? [] } });
  }
  const rows = [...byInstant.values()].sort((x, y) => (x.instant < y.instant ? 1 : -1));
  return { columns: compactionColumns(opts.extra), rows };
}

export async function compactionShowArchived(table: Table, instant: string, partition?: string): Promise<TableResult> {
  requireMergeOnRead(table);
  const archived = await loadArchive(table, { startTs: instant, endTs: instant, withMetadata: true });
  const plan = archived.map(compactionPlanOf).find((p) => p !== undefined);
  if (!plan) {
    throw new TblError('not-found', `Compaction instant ${instant} not found in the archived timeline of ${table.uri}`, {
      instant,
      path: table.storage.uri(archiveDirOf(table)),
    });
  }
  return { columns: compactionPlanColumns, rows: toPlanRows(plan, partition) };
}

// ---------------------------------------------------------------- show archived commits

export interface ArchivedCommitRow {
  instant: ArchivedInstant;
  details?: string;
}

export function archivedCommitColumns(withDetails: boolean): ColumnSpec<ArchivedCommitRow>[] {
  const cols: ColumnSpec<ArchivedCommitRow>[] = [
    { key: 'commitTime', header: 'CommitTime', value: (r) => r.instant.requestedTime },
    { key: 'commitType', header: 'CommitType', value: (r) => r.instant.action },
  ];
  if (withDetails) cols.push({ key: 'commitDetails', header: 'CommitDetails', value: (r) => r.details ?? '{}' });
  return cols;
}

const DETAIL_SCHEMA: Record<string, keyof typeof SCHEMAS> = {
  clean: 'HoodieCleanMetadata',
  commit: 'HoodieCommitMetadata',
  deltacommit: 'HoodieCommitMetadata',
  rollback: 'HoodieRollbackMetadata',
  savepoint: 'HoodieSavepointMetadata',
  compaction: 'HoodieCompactionPlan',
  logcompaction: 'HoodieCompactionPlan',
  replacecommit: 'HoodieReplaceCommitMetadata',
  clustering: 'HoodieReplaceCommitMetadata',
};

/** Avro toString of an archived instant's metadata; commit partition maps sorted (hudi-cli's TreeMap). */
export function archivedDetails(a: ArchivedInstant): string {
  const m = a.action === 'compaction' || a.action === 'logcompaction' ? (a.plan ?? a.metadata) : a.metadata;
  if (m === undefined || m === null) return '{}';
  const name = DETAIL_SCHEMA[a.action];
  if (!name) throw new TblError('unsupported', `Unexpected action type: ${a.action} (archived instant ${a.requestedTime})`, { instant: a.requestedTime });
  let value = m;
  if (name === 'HoodieCommitMetadata' || name === 'HoodieReplaceCommitMetadata') {
    const r = { ...(m as Record<string, unknown>) };
    for (const k of ['partitionToWriteStats', 'partitionToReplaceFileIds']) {
      if (r[k] !== null && r[k] !== undefined) r[k] = new Map(entries(r[k]).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    value = r;
  }
  return avroToString(value, SCHEMAS[name] as never);
}

export async function showArchivedCommits(table: Table, skipMetadata: boolean): Promise<TableResult<ArchivedCommitRow>> {
  const archived = await loadArchive(table, { withMetadata: !skipMetadata });
  const rows = archived
    .filter((a) => a.state === 'COMPLETED')
    .map((instant) => (skipMetadata ? { instant } : { instant, details: archivedDetails(instant) }));
  return { columns: archivedCommitColumns(!skipMetadata), rows };
}

// ---------------------------------------------------------------- show archived commit stats

export interface ArchivedStatRow {
  action: string;
  instant: string;
  stat: WriteStat;
}

const s = (key: string, header: string, f: (w: WriteStat) => unknown): ColumnSpec<ArchivedStatRow> => ({
  key,
  header,
  value: (r) => (f(r.stat) ?? null) as string | number | null,
});

export const archivedStatColumns: ColumnSpec<ArchivedStatRow>[] = [
  { key: 'action', header: 'action', value: (r) => r.action },
  { key: 'instant', header: 'instant', value: (r) => r.instant },
  s('partition', 'partition', (w) => w.partitionPath),
  s('fileId', 'file_id', (w) => w.fileId),
  s('prevInstant', 'prev_instant', (w) => w.prevCommit),
  s('numWrites', 'num_writes', (w) => w.numWrites),
  s('numInserts', 'num_inserts', (w) => w.numInserts),
  s('numDeletes', 'num_deletes', (w) => w.numDeletes),
  s('numUpdateWrites', 'num_update_writes', (w) => w.numUpdateWrites),
  s('totalLogFiles', 'total_log_files', (w) => w.totalLogFiles),
  s('totalLogBlocks', 'total_log_blocks', (w) => w.totalLogBlocks),
  s('totalCorruptLogBlocks', 'total_corrupt_log_blocks', (w) => w.totalCorruptLogBlock),
  s('totalRollbackBlocks', 'total_rollback_blocks', (w) => w.totalRollbackBlocks),
  s('totalLogRecords', 'total_log_records', (w) => w.totalLogRecords),
  s('totalUpdatedRecordsCompacted', 'total_updated_records_compacted', (w) => w.totalUpdatedRecordsCompacted),
  s('totalWriteBytes', 'total_write_bytes', (w) => w.totalWriteBytes),
  s('totalWriteErrors', 'total_write_errors', (w) => w.totalWriteErrors),
];

function statRows(instants: ArchivedInstant[]): ArchivedStatRow[] {
  const out: ArchivedStatRow[] = [];
  for (const a of instants) {
    if (a.state !== 'COMPLETED' || (a.action !== 'commit' && a.action !== 'deltacommit') || !a.metadata) continue;
    for (const stats of Object.values(toCommitMetadata(a.metadata).partitionToWriteStats)) {
      for (const stat of stats) out.push({ action: a.action, instant: a.requestedTime, stat });
    }
  }
  return out;
}

/**
 * `--archiveFolderPattern`: a glob under the meta path of legacy (log-format) archive files, read whatever
 * the table version; otherwise the table's own archived timeline.
 */
export async function showArchivedCommitStats(table: Table, folderPattern: string): Promise<TableResult<ArchivedStatRow>> {
  if (!folderPattern) return { columns: archivedStatColumns, rows: statRows(await loadArchive(table, { withMetadata: true })) };
  const files = await globFiles(table.storage, joinPath(table.metaPath, folderPattern));
  const instants: ArchivedInstant[] = [];
  for (const f of files) {
    const contents = await readLogFile(table.storage, f.path, { size: f.size, withRecords: true });
    for (const b of contents.blocks) {
      if (b.type === 'CORRUPT_BLOCK' || b.corrupt) {
        throw new TblError('logfile', `${table.storage.uri(f.path)}: corrupt archived block at offset ${b.offset}: ${b.corrupt?.reason ?? 'corrupt'}`, {
          path: table.storage.uri(f.path),
        });
      }
      if (b.type !== 'AVRO_DATA_BLOCK') continue;
      for (const r of b.records ?? []) instants.push(fromArchivedMetaEntry(r, f.path, true));
    }
  }
  return { columns: archivedStatColumns, rows: statRows(instants) };
}
