// Offline clean (HoodieCleaner / `cleans run`) on the shared write path: Hudi's three policies,
// savepoints, pending compaction and clustering respected, incremental cleaning, failed writes rolled
// back first under the LAZY policy, pending cleans re-executed from their plans.
import type { Table } from '../../table/index.ts';
import type { RollbackResult } from '../../write/rollback.ts';
import { reopen } from '../transaction.ts';
import { readCleanPlan, runClean, runPendingCleans, type CleanRunOptions, type CleanRunResult, type ResolvedCleanPlan } from './execute.ts';
import { scheduleClean, type CleanOptions, type ScheduleCleanResult } from './schedule.ts';

export * from './config.ts';
export { planPartition, buildCleanerPlan, earliestCommitToRetain, scanScope, plannedBytes, type CleanTimeline, type PartitionPlan, type PlannedFile, type CleanPlanResult, type InstantRef } from './plan.ts';
export { scheduleClean, planCleanOf, rollbackFailedWrites, loadCleanTimeline, hudiPathString, type CleanOptions, type ScheduleCleanResult } from './schedule.ts';
export { runClean, runPendingCleans, readCleanPlan, resolveCleanPlan, type CleanRunOptions, type CleanRunResult, type ResolvedCleanPlan } from './execute.ts';

export interface CleanTableResult {
  /** pending cleans finished first, then the new one (if any) */
  cleans: CleanRunResult[];
  /** dry run: the pending cleans a run would finish first (then no new plan is computed) */
  pending: { instant: string; plan: ResolvedCleanPlan }[];
  schedule?: ScheduleCleanResult;
  rolledBack: RollbackResult[];
}

/** The plans of the pending cleans, oldest first (what a run would execute before planning anew). */
export async function pendingCleanPlans(table: Table): Promise<{ instant: string; plan: ResolvedCleanPlan }[]> {
  const t = await reopen(table);
  const tl = await t.timeline();
  const out: { instant: string; plan: ResolvedCleanPlan }[] = [];
  for (const i of tl.pending().filter((x) => x.action === 'clean')) {
    const plan = await readCleanPlan(t, tl, i);
    if (plan) out.push({ instant: i.requestedTime, plan });
  }
  return out;
}

/**
 * `cleans run`: finish the pending cleans (oldest first), then schedule a clean on the table as it is
 * now and run it. A plan is only scheduled after the pending ones completed, so it never lists a file
 * a pending plan still has to delete.
 */
export async function cleanTable(table: Table, opts: CleanOptions & CleanRunOptions): Promise<CleanTableResult> {
  const run = { ...opts, instant: undefined, parallelism: opts.parallelism ?? Math.min(opts.config.parallelism, 64) };
  if (opts.dryRun) {
    const pending = await pendingCleanPlans(table);
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
