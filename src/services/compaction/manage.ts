// `compaction unschedule` (deleteCompactionRequested for a plan that has not started) and
// `compaction validate` (the plan's files still exist as listed).
import { TblError } from '../../errors/index.ts';
import { decodeCompactionPlan, type CompactionPlan } from '../../metadata/index.ts';
import { requireMergeOnRead, type Table } from '../../table/index.ts';
import { deleteInstantFile } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { underLock, type ServiceOptions } from '../transaction.ts';
import { HEARTBEAT_DEFAULTS, isHeartbeatExpired } from '../../write/heartbeat.ts';

export interface UnscheduleResult {
  instant: string;
  operations: number;
}

export async function unscheduleCompaction(table: Table, instant: string, opts: ServiceOptions & { dryRun?: boolean } = {}): Promise<UnscheduleResult> {
  requireMergeOnRead(table);
  return underLock(table, opts, async (t) => {
    const tl = await t.timeline();
    const i = tl.find(instant).find((x) => x.stateActions.REQUESTED === 'compaction' || x.effectiveAction === 'compaction');
    if (!i) throw new TblError('not-found', `Compaction instant ${instant} not found in ${t.uri}`, { instant, path: t.uri });
    if (i.state !== 'REQUESTED') {
      throw new TblError('conflict', `compaction ${instant} is ${i.state.toLowerCase()}; only a plan that has not started can be unscheduled`, {
        instant,
        hint: i.state === 'INFLIGHT' ? 'run `compaction run` to finish or roll it back first' : undefined,
      });
    }
    const plan = decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED!.path) });
    if (!opts.dryRun) await deleteInstantFile(t.timelineSource, instant, 'compaction', 'REQUESTED');
    return { instant, operations: plan.operations?.length ?? 0 };
  });
}

export interface ValidationRow {
  fileId: string;
  baseInstantTime: string;
  baseDataFile: string;
  numDeltaFiles: number;
  valid: boolean;
  error: string;
}

export interface ValidationResult {
  instant: string;
  valid: boolean;
  rows: ValidationRow[];
}

/** CompactionAdminClient.validateCompactionPlan: base file and every log file of each operation exist. */
export async function validateCompaction(table: Table, instant: string): Promise<ValidationResult> {
  requireMergeOnRead(table);
  const tl = await table.timeline();
  const i = tl.find(instant).find((x) => x.stateActions.REQUESTED === 'compaction');
  if (!i) throw new TblError('not-found', `Compaction instant ${instant} not found in ${table.uri}`, { instant, path: table.uri });
  const plan: CompactionPlan = decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: table.storage.uri(i.files.REQUESTED!.path) });
  const rows: ValidationRow[] = [];
  for (const op of plan.operations ?? []) {
    const dir = joinPath(table.basePath, op.partitionPath ?? '');
    const missing: string[] = [];
    if (op.dataFilePath && !(await table.storage.exists(joinPath(dir, op.dataFilePath)))) missing.push(op.dataFilePath);
    for (const l of op.deltaFilePaths ?? []) if (!(await table.storage.exists(joinPath(dir, l)))) missing.push(l);
    rows.push({
      fileId: op.fileId ?? '',
      baseInstantTime: op.baseInstantTime ?? '',
      baseDataFile: op.dataFilePath ?? '',
      numDeltaFiles: op.deltaFilePaths?.length ?? 0,
      valid: missing.length === 0,
      error: missing.length === 0 ? '' : `missing: ${missing.join(', ')}`,
    });
  }
  return { instant, valid: rows.every((r) => r.valid), rows };
}

export interface CompactionToRun {
  instant: string;
  state: 'REQUESTED' | 'INFLIGHT';
  /** its heartbeat is live: another process runs it, a run would exit 4 */
  busy: boolean;
  operations: { partitionPath: string; fileId: string; baseInstantTime: string; dataFilePath: string | null; deltaFilePaths: string[] }[];
}

/** What `compaction run` would take (its dry run): `instant`, else the earliest pending plan. Reads only. */
export async function compactionToRun(table: Table, opts: { instant?: string; heartbeatExpiryMs?: number } = {}): Promise<CompactionToRun | undefined> {
  requireMergeOnRead(table);
  const tl = await table.timeline();
  const pending = tl.pending().filter((x) => x.stateActions.REQUESTED === 'compaction');
  const i = opts.instant ? tl.find(opts.instant).find((x) => x.stateActions.REQUESTED === 'compaction') : pending[0];
  if (opts.instant && !i) throw new TblError('not-found', `Compaction instant ${opts.instant} not found in ${table.uri}`, { instant: opts.instant, path: table.uri });
  if (!i || i.state === 'COMPLETED') return undefined;
  const plan = decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: table.storage.uri(i.files.REQUESTED!.path) });
  const expiry = opts.heartbeatExpiryMs ?? HEARTBEAT_DEFAULTS.intervalMs * HEARTBEAT_DEFAULTS.tolerableMisses;
  return {
    instant: i.requestedTime,
    state: i.state,
    busy: !(await isHeartbeatExpired(table.storage, table.metaPath, i.requestedTime, expiry)),
    operations: (plan.operations ?? []).map((op) => ({
      partitionPath: op.partitionPath ?? '',
      fileId: op.fileId ?? '',
      baseInstantTime: op.baseInstantTime ?? '',
      dataFilePath: op.dataFilePath ?? null,
      deltaFilePaths: op.deltaFilePaths ?? [],
    })),
  };
}
