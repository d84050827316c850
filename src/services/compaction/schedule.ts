// `compaction schedule`: under the table lock, a fresh timeline and file-system view, a plan, a new
// instant time later than everything on the timeline, and `<t>.compaction.requested` (Avro plan).
import { TblError } from '../../errors/index.ts';
import { encodeCompactionPlan, type CompactionPlan } from '../../metadata/index.ts';
import { loadFileSystemView, requireMergeOnRead, type Table } from '../../table/index.ts';
import type { Timeline } from '../../timeline/index.ts';
import { createRequested, newInstantTime, timesOnTimeline } from '../../timeline/writer.ts';
import { metadataTableFor, sleep, underLock, type ServiceOptions } from '../transaction.ts';
import { prepareMetadataTable } from '../mdt-sync.ts';
import { groupKey, planCompaction, type CompactionStrategyName, type PlanResult } from './plan.ts';

export interface ScheduleOptions extends ServiceOptions {
  strategy?: CompactionStrategyName;
  deltaCommits?: number;
  logSizeThreshold?: number;
  targetIoMb?: number;
  /** only plan; write nothing */
  dryRun?: boolean;
}

export interface ScheduleResult {
  instant?: string;
  plan?: CompactionPlan;
  /** why nothing was scheduled */
  reason?: string;
  skipped: PlanResult['skipped'];
  metadataTableDisabled: boolean;
}

const WRITE_ACTIONS = new Set(['commit', 'deltacommit', 'replacecommit', 'clustering']);

/** Completed deltacommits after the latest completed compaction (getDeltaCommitsSinceLatestCompaction). */
export function deltaCommitsSinceLastCompaction(tl: Timeline): number {
  const done = tl.completed();
  let last = '';
  for (const i of done) if (i.effectiveAction === 'compaction' && i.requestedTime > last) last = i.requestedTime;
  return done.filter((i) => i.action === 'deltacommit' && i.requestedTime > last).length;
}

export async function scheduleCompaction(table: Table, opts: ScheduleOptions = {}): Promise<ScheduleResult> {
  requireMergeOnRead(table);
  const r = await underLock(table, opts, async (locked): Promise<ScheduleResult> => {
    let t = locked;
    let metadataTableDisabled = false;
    // a plan changes no metadata-table partition: 'update' only checks the MDT can be kept in step at run time
    if (!opts.dryRun && (opts.metadataTable ?? 'update') !== 'update') ({ table: t, disabled: metadataTableDisabled } = await metadataTableFor(t, opts, 'compaction'));
    else if (!opts.dryRun) await prepareMetadataTable(t, 'update', 'compaction');
    const tl = await t.timeline();
    if (t.config.version < 8) {
      // 0.x: the compaction time must be earlier than every pending write (ScheduleCompactionActionExecutor)
      const pendingWrites = tl.pending().filter((i) => WRITE_ACTIONS.has(i.effectiveAction));
      if (pendingWrites.length > 0) {
        return {
          skipped: [],
          metadataTableDisabled,
          reason: `pending write instant(s) ${pendingWrites.map((i) => i.requestedTime).join(', ')}: table version ${t.config.version} needs the compaction time to be earlier than every pending write; retry when they finish`,
        };
      }
    }
    const view = await loadFileSystemView(t);
    const excluded = new Set<string>();
    for (const g of view.allFileGroups()) if (g.pendingClustering) excluded.add(groupKey(g.partition, g.fileId));
    const r = planCompaction(view.latestFileSlices(), {
      strategy: opts.strategy ?? 'num-commits',
      deltaCommits: opts.deltaCommits ?? 5,
      deltaCommitsSinceLastCompaction: deltaCommitsSinceLastCompaction(tl),
      logSizeThreshold: opts.logSizeThreshold,
      targetIoMb: opts.targetIoMb,
      excluded,
      tableVersion: t.config.version,
    });
    if (!r.plan) return { skipped: r.skipped, reason: r.reason, metadataTableDisabled };
    const now = (opts.now ?? (() => new Date()))();
    const instant = newInstantTime(timesOnTimeline(tl), t.config.timezone, now);
    if (opts.dryRun) return { instant, plan: r.plan, skipped: r.skipped, metadataTableDisabled };
    await sleep(opts.clockSkewMs ?? 200);
    await createRequested(t.timelineSource, instant, 'compaction', encodeCompactionPlan(r.plan));
    return { instant, plan: r.plan, skipped: r.skipped, metadataTableDisabled };
  });
  if (r.instant && !opts.dryRun) await opts.onPoint?.('after-schedule');
  return r;
}

export function requireInstantArg(instant: string | undefined): string {
  if (!instant) throw new TblError('usage', '--instant is required');
  return instant;
}
