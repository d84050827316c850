// `compaction unscheduleFileId` and `compaction repair` (hudi-cli §1.2, CompactionAdminClient) without
// Spark. On table version 6 log files are named by their slice's base instant, so a writer that
// appends while a compaction is pending writes into the compaction's new slice
// (`.<fid>_<compaction>.log.N`): taking a file group out of the plan renames those back onto the
// slice before it (the next versions after its last log file), and `repair` moves log files the plan
// does not know (written on the old slice after scheduling) onto the new slice. Table versions 8/9
// name log files by the writing delta commit and slice them by completion time: no renames.
//
// Unschedule replaces the plan with one without the operation in one step (Storage.replace), then
// reverts an inflight compaction to requested. Deviations from hudi-cli, on purpose: only the named
// file group leaves the plan (Hudi's filter also drops every other operation of the same partition),
// and a plan left without any operation is removed rather than kept as an empty pending compaction.
// Renames change the file listing, which a metadata table would not know: with one, renames need
// `--metadata-table disable`.
import { TblError } from '../../errors/index.ts';
import { formatLogFileName, parseLogFileName, UNKNOWN_WRITE_TOKEN } from '../../fs-view/index.ts';
import { decodeCompactionPlan, encodeCompactionPlan, type CompactionOperation, type CompactionPlan } from '../../metadata/index.ts';
import { replaceFile } from '../../storage/index.ts';
import { requireMergeOnRead, type Table } from '../../table/index.ts';
import type { Instant } from '../../timeline/index.ts';
import { deleteInstantFile, instantFilePath } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { hasMetadataTable } from '../mdt-sync.ts';
import { metadataTableFor, underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, rel, type Change } from './report.ts';

export interface RenameOp {
  fileId: string;
  from: string;
  to: string;
  executed: boolean;
  succeeded: boolean;
  error: string;
}

export interface CompactionAdminReport {
  instant: string;
  dryRun: boolean;
  renames: RenameOp[];
  changes: Change[];
  /** unscheduleFileId: the plan was removed because no operation was left */
  planRemoved?: boolean;
  warnings: string[];
}

export interface CompactionAdminOptions extends ServiceOptions {
  dryRun?: boolean;
  skipValidation?: boolean;
}

interface PendingOp {
  instant: Instant;
  plan: CompactionPlan;
  op: CompactionOperation;
}

async function pendingPlans(t: Table): Promise<{ instant: Instant; plan: CompactionPlan }[]> {
  const tl = await t.timeline();
  const out = [];
  for (const i of tl.pending().filter((x) => x.effectiveAction === 'compaction' && x.files.REQUESTED)) {
    out.push({ instant: i, plan: decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED!.path) }) });
  }
  return out;
}

async function findOp(t: Table, fileId: string, partition: string | undefined): Promise<PendingOp> {
  for (const p of await pendingPlans(t)) {
    const op = (p.plan.operations ?? []).find((o) => o.fileId === fileId && (partition === undefined || (o.partitionPath ?? '') === partition));
    if (op) return { ...p, op };
  }
  throw new TblError('not-found', `FileGroupId ${partition ?? '<any partition>'}/${fileId} not in pending compaction`, { path: t.uri, hint: 'see `compactions show all` and `compaction show --instant <t>`' });
}

function dirOf(t: Table, partition: string): string {
  return partition === '' ? t.basePath : joinPath(t.basePath, partition);
}

/** CompactionAdminClient.validateCompactionOperation: the operation's base and log files exist. */
async function checkOperation(t: Table, instant: string, op: CompactionOperation): Promise<void> {
  const dir = dirOf(t, op.partitionPath ?? '');
  const missing: string[] = [];
  if (op.dataFilePath && !(await t.storage.exists(joinPath(dir, op.dataFilePath)))) missing.push(op.dataFilePath);
  for (const l of op.deltaFilePaths ?? []) if (!(await t.storage.exists(joinPath(dir, l)))) missing.push(l);
  if (missing.length > 0) {
    throw new TblError('metadata', `compaction ${instant}: operation for file group ${op.fileId} is not valid: missing ${missing.join(', ')}`, {
      instant,
      hint: 'pass --skipValidation to unschedule it anyway',
    });
  }
}

/** Log files of a file group in its partition directory, parsed. */
async function logsOf(t: Table, partition: string, fileId: string) {
  const dir = dirOf(t, partition);
  const out: { name: string; path: string; baseInstant: string; version: number }[] = [];
  if (!(await t.storage.exists(dir))) return out;
  for (const f of await t.storage.list(dir)) {
    const l = parseLogFileName(f.name);
    if (l && l.ext === 'log' && l.fileId === fileId && !l.cdcSuffix) out.push({ name: f.name, path: f.path, baseInstant: l.instant, version: l.version });
  }
  return out.sort((a, b) => a.version - b.version || (a.name < b.name ? -1 : 1));
}

/** getRenamingActionsForUnschedulingCompactionOperation (v6): the compaction slice's logs onto the slice before. */
async function unscheduleRenames(t: Table, instant: string, op: CompactionOperation): Promise<RenameOp[]> {
  if (t.config.version >= 8) return [];
  const partition = op.partitionPath ?? '';
  const fileId = op.fileId ?? '';
  const logs = await logsOf(t, partition, fileId);
  const base = op.baseInstantTime ?? '';
  let max = Math.max(0, ...logs.filter((l) => l.baseInstant === base).map((l) => l.version));
  const out: RenameOp[] = [];
  for (const l of logs.filter((x) => x.baseInstant === instant)) {
    max += 1;
    const to = joinPath(dirOf(t, partition), formatLogFileName({ fileId, instant: base, ext: 'log', version: max, writeToken: UNKNOWN_WRITE_TOKEN }));
    out.push({ fileId, from: l.path, to, executed: false, succeeded: false, error: '' });
  }
  return out;
}

/** getRenamingActionsToAlignWithCompactionOperation (v6): old-slice logs newer than the plan's onto the compaction's slice. */
async function repairRenames(t: Table, instant: string, op: CompactionOperation): Promise<RenameOp[]> {
  if (t.config.version >= 8) return [];
  const partition = op.partitionPath ?? '';
  const fileId = op.fileId ?? '';
  const maxVersion = Math.max(0, ...(op.deltaFilePaths ?? []).map((p) => parseLogFileName(p.split('/').pop()!)?.version ?? 0));
  const out: RenameOp[] = [];
  for (const l of (await logsOf(t, partition, fileId)).filter((x) => x.baseInstant === op.baseInstantTime && x.version > maxVersion)) {
    const to = joinPath(dirOf(t, partition), formatLogFileName({ fileId, instant, ext: 'log', version: l.version - maxVersion, writeToken: UNKNOWN_WRITE_TOKEN }));
    out.push({ fileId, from: l.path, to, executed: false, succeeded: false, error: '' });
  }
  return out;
}

/** runRenamingOps: each rename checked (target absent) before any is done; stops at the first failure. */
async function runRenames(t: Table, renames: RenameOp[], dryRun: boolean): Promise<void> {
  for (const r of renames) {
    if (await t.storage.exists(r.to)) throw new TblError('conflict', `cannot rename ${t.storage.uri(r.from)}: ${t.storage.uri(r.to)} already exists`, { path: t.storage.uri(r.to) });
  }
  if (dryRun) return;
  for (const r of renames) {
    r.executed = true;
    try {
      await t.storage.rename(r.from, r.to);
      r.succeeded = true;
    } catch (e) {
      r.error = (e as Error).message;
      return;
    }
  }
}

function renameChanges(t: Table, renames: RenameOp[]): Change[] {
  return renames.flatMap((r) => [
    { op: 'delete' as const, path: rel(t, r.from), what: `renamed to ${rel(t, r.to)}` },
    { op: 'create' as const, path: rel(t, r.to), what: `renamed from ${rel(t, r.from)}` },
  ]);
}

/** Renames need the metadata table out of the way (it would keep listing the old names). */
async function guardRenames(t: Table, renames: RenameOp[], opts: CompactionAdminOptions): Promise<{ table: Table; warnings: string[] }> {
  if (renames.length === 0 || !(await hasMetadataTable(t))) return { table: t, warnings: [] };
  if (opts.metadataTable !== 'disable') {
    throw new TblError('unsupported', `${t.uri} has a metadata table: renaming ${renames.length} log file(s) would leave it listing the old names`, {
      path: t.uri,
      hint: 'pass --metadata-table disable to drop it the Hudi way first (a Hudi writer with it enabled rebuilds it)',
    });
  }
  if (opts.dryRun) return { table: t, warnings: [`the metadata table of ${t.uri} would be dropped first`] };
  const r = await metadataTableFor(t, opts, 'compaction');
  return { table: r.table, warnings: [`metadata table of ${t.uri} dropped (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted)`] };
}

export async function unscheduleCompactionFileId(table: Table, fileId: string, partition: string | undefined, opts: CompactionAdminOptions = {}): Promise<CompactionAdminReport> {
  requireMergeOnRead(table);
  const run = async (t0: Table): Promise<CompactionAdminReport> => {
    const found = await findOp(t0, fileId, partition);
    const instant = found.instant.requestedTime;
    if (!opts.skipValidation) await checkOperation(t0, instant, found.op);
    const renames = await unscheduleRenames(t0, instant, found.op);
    const { table: t, warnings } = await guardRenames(t0, renames, opts);
    await runRenames(t, renames, opts.dryRun === true);
    const rest = (found.plan.operations ?? []).filter((o) => o !== found.op);
    const changes = renameChanges(t, renames);
    if (found.instant.state === 'INFLIGHT') changes.push(instantChange(t, 'delete', instant, 'compaction', 'INFLIGHT', 'revert the compaction to requested'));
    const requested = instantFilePath(t.timelineSource, instant, 'compaction', 'REQUESTED');
    if (rest.length === 0) changes.push({ op: 'delete', path: rel(t, requested), what: `the plan had no other operation: compaction ${instant} unscheduled` });
    else changes.push({ op: 'modify', path: rel(t, requested), what: `plan rewritten without file group ${fileId} (${rest.length} operation(s) left)` });
    if (!opts.dryRun && renames.every((r) => r.succeeded)) {
      // the plan replaced in one step, then the revert to requested: a crash between leaves the
      // compaction inflight with the new plan, never without one
      if (rest.length > 0) await replaceFile(t.storage, requested, encodeCompactionPlan({ ...found.plan, operations: rest }));
      if (found.instant.state === 'INFLIGHT') await deleteInstantFile(t.timelineSource, instant, 'compaction', 'INFLIGHT');
      if (rest.length === 0) await t.storage.delete(requested);
    }
    return { instant, dryRun: opts.dryRun === true, renames, changes, planRemoved: rest.length === 0, warnings };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}

export async function repairCompaction(table: Table, instant: string, opts: CompactionAdminOptions = {}): Promise<CompactionAdminReport> {
  requireMergeOnRead(table);
  const run = async (t0: Table): Promise<CompactionAdminReport> => {
    const p = (await pendingPlans(t0)).find((x) => x.instant.requestedTime === instant);
    if (!p) throw new TblError('not-found', `Compaction instant ${instant} not found in ${t0.uri} (no pending compaction with that time)`, { instant, path: t0.uri });
    const renames: RenameOp[] = [];
    for (const op of p.plan.operations ?? []) renames.push(...(await repairRenames(t0, instant, op)));
    const { table: t, warnings } = await guardRenames(t0, renames, opts);
    await runRenames(t, renames, opts.dryRun === true);
    return { instant, dryRun: opts.dryRun === true, renames, changes: renameChanges(t, renames), warnings };
  };
  return opts.dryRun ? run(table) : underLock(table, opts, run);
}
