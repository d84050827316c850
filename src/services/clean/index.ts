// Offline clean (HoodieCleaner / `cleans run`) on the shared write path: Hudi's three policies,
// savepoints, pending compaction and clustering respected, incremental cleaning, failed writes rolled
// back first under the LAZY policy, pending cleans re-executed from their plans.
import type { Table } from '../../table/index.ts';
import type { RollbackResult } from '../../write/rollback.ts';
import { decodeCleanMetadata } from '../../metadata/index.ts';
import { isHeartbeatExpired } from '../../write/heartbeat.ts';
import { expiryOf, reopen, type ServiceOptions } from '../transaction.ts';
import { isClean, readCleanPlan, runClean, runPendingCleans, type CleanRunOptions, type CleanRunResult, type ResolvedCleanPlan } from './execute.ts';
import { scheduleClean, type CleanOptions, type ScheduleCleanResult } from './schedule.ts';

export * from './config.ts';
export { planPartition, buildCleanerPlan, earliestCommitToRetain, scanScope, plannedBytes, type CleanTimeline, type PartitionPlan, type PlannedFile, type CleanPlanResult, type InstantRef } from './plan.ts';
export { scheduleClean, planCleanOf, rollbackFailedWrites, loadCleanTimeline, hudiPathString, type CleanOptions, type ScheduleCleanResult } from './schedule.ts';
export { runCleanOnEngine, CLEAN_ON_ENGINE } from './engine.ts';
export { runClean, runPendingCleans, readCleanPlan, resolveCleanPlan, isClean, type CleanRunOptions, type CleanRunResult, type ResolvedCleanPlan } from './execute.ts';

export interface CleanTableResult {
  /** pending cleans finished first, then the new one (if any) */
  cleans: CleanRunResult[];
  /** dry run: the pending cleans a run would finish first (then no new plan is computed) */
  pending: PendingClean[];
  schedule?: ScheduleCleanResult;
  rolledBack: RollbackResult[];
}

export interface PendingClean {
  instant: string;
  state: 'REQUESTED' | 'INFLIGHT';
  plan: ResolvedCleanPlan;
  /** its heartbeat is live: another process runs it (a run would exit 4) */
  busy: boolean;
}

/** The plans of the pending cleans, oldest first (what a run would execute before planning anew). */
export async function pendingCleanPlans(table: Table, opts: Pick<ServiceOptions, 'heartbeatExpiryMs'> & { instant?: string } = {}): Promise<PendingClean[]> {
  const t = await reopen(table);
  const tl = await t.timeline();
  const out: PendingClean[] = [];
  for (const i of tl.pending().filter((x) => isClean(x) && (opts.instant === undefined || x.requestedTime === opts.instant))) {
    const plan = await readCleanPlan(t, tl, i);
    const busy = !(await isHeartbeatExpired(t.storage, t.metaPath, i.requestedTime, expiryOf(opts)));
    if (plan) out.push({ instant: i.requestedTime, state: i.state === 'INFLIGHT' ? 'INFLIGHT' : 'REQUESTED', plan, busy });
  }
  return out;
}

/** Whether a clean is pending (a run finishes it before planning anew). */
export async function hasPendingClean(table: Table): Promise<boolean> {
  return (await (await reopen(table)).timeline()).pending().some(isClean);
}

/** What a completed clean did, from its HoodieCleanMetadata (a clean run by Spark, say). */
export async function cleanOutcome(table: Table, instant: string): Promise<{ files: number; failedFiles: number; partitions: number; partitionsDeleted: string[] } | undefined> {
  const tl = await (await reopen(table)).timeline();
  const i = tl.find(instant).find((x) => isClean(x) && x.state === 'COMPLETED');
  if (!i || i.files.COMPLETED!.size === 0) return undefined;
  const m = decodeCleanMetadata(await tl.read(i, 'COMPLETED'), { path: table.storage.uri(i.files.COMPLETED!.path) });
  const parts = Object.values(m.partitionMetadata ?? {});
  return {
    files: m.totalFilesDeleted,
    failedFiles: parts.reduce((n, p) => n + (p.failedDeleteFiles?.length ?? 0), 0),
    partitions: parts.length,
    partitionsDeleted: parts.filter((p) => p.isPartitionDeleted).map((p) => p.partitionPath),
  };
}

/**
 * `cleans run`: finish the pending cleans (oldest first), then schedule a clean on the table as it is
 * now and run it. A plan is only scheduled after the pending ones completed, so it never lists a file
 * a pending plan still has to delete.
 */
export async function cleanTable(table: Table, opts: CleanOptions & CleanRunOptions): Promise<CleanTableResult> {
  const run = { ...opts, instant: undefined, parallelism: opts.parallelism ?? Math.min(opts.config.parallelism, 64) };
  if (opts.dryRun) {
    const pending = await pendingCleanPlans(table, opts);
    if (pending.length > 0) return { cleans: [], pending, rolledBack: [] };
    return { cleans: [], pending, schedule: await scheduleClean(table, opts), rolledBack: [] };
  }
  const cleans = await runPendingCleans(table, run);
  const schedule = await scheduleClean(table, opts);
  if (schedule.instant && !opts.dryRun) {
    let known: Map<string, number> | undefined;
    if (opts.wantBytes) {
      known = new Map();
      for (const p of schedule.planned?.partitions ?? []) for (const f of p.files) if (f.size !== undefined) known.set(f.path, f.size);
    }
    const writtenPlan = schedule.plan;
    // the planner's per-file objects are not needed while a million files are deleted
    schedule.plan = undefined;
    if (schedule.planned) schedule.planned = { ...schedule.planned, partitions: [] };
    cleans.push(await runClean(table, { ...run, instant: schedule.instant, knownSizes: known, writtenPlan }));
  }
  return { cleans, pending: [], schedule, rolledBack: schedule.rolledBack };
}
