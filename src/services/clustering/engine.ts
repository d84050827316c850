// Clustering on Spark (HoodieClusteringJob --mode execute) or Flink (HoodieFlinkClusteringJob): tblcli
// plans, checks and supervises (services/engine/run.ts); the engine executes exactly the planned instant.
//
// The order the new files are written in travels with the command line, not only with the plan:
// Spark's execution strategy takes the sort columns from the plan's strategyParams but the layout
// from its write config (hoodie.layout.optimize.strategy), and Flink's ClusteringOperator sorts
// linearly by its own --sort-columns. So the layout (the flag, else the user's setting, else the
// plan's) goes to Spark as a setting, the sort columns to Flink as --sort-columns, and a z-order or
// Hilbert plan is refused on Flink before anything is written.
import { TblError } from '../../errors/index.ts';
import type { Table } from '../../table/index.ts';
import { rollbackInflightPlan } from '../compaction/rollback.ts';
import { runOnEngine, type EngineRunOptions, type EngineRunResult, type EngineService, type PlanArgs } from '../engine/run.ts';
import type { ClusteringPlan } from '../../metadata/index.ts';
import { CLUSTERING_KEYS, layoutOf } from './config.ts';
import { refuseRacingWrites } from './conflicts.ts';
import { isClusteringCandidate, pendingClusterings } from './execute.ts';
import { checkClusteringInputs } from './inputs.ts';

export interface ClusteringEngineOptions extends EngineRunOptions {
  /** the order to write in, over the user's hoodie.layout.optimize.strategy and the plan's */
  layout?: string;
}

const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');

/** The sort order of `plan` as the engine's command line must carry it. */
export function planArgsOf(plan: ClusteringPlan | undefined, opts: Pick<ClusteringEngineOptions, 'layout' | 'settings'>, instant: string): PlanArgs {
  const params = plan?.strategy?.strategyParams ?? {};
  const sortColumns = list(params[CLUSTERING_KEYS.sortColumns]);
  const given = opts.layout ?? opts.settings.hoodieConf[CLUSTERING_KEYS.layout] ?? params[CLUSTERING_KEYS.layout];
  const layout = given === undefined ? undefined : layoutOf(given);
  if (opts.settings.engine === 'spark') return { sortColumns, layout };
  // one sort column: every layout is the linear order (Hudi falls back to it, as tblcli does)
  if (layout && layout !== 'linear' && sortColumns.length > 1) {
    throw new TblError('unsupported', `HoodieFlinkClusteringJob sorts linearly only; clustering ${instant} is to be written in ${layout} order`, { instant, hint: 'run it with --engine spark or --engine local' });
  }
  return { sortColumns };
}

export function clusteringOnEngine(opts: Pick<ClusteringEngineOptions, 'layout' | 'settings'>): EngineService {
  return {
    service: 'clustering',
    label: 'clustering',
    isCandidate: isClusteringCandidate,
    // v6: a pending replacecommit is a clustering only when its requested file holds a plan
    pending: pendingClusterings,
    async check(t, tl, i) {
      const inputs = await checkClusteringInputs(t, tl, i);
      const job = planArgsOf(inputs.plan, opts, i.requestedTime);
      // a writer that touched an input group after the plan dooms the run: refused before the launch
      const groups = new Set(inputs.groups.flatMap((g) => g.slices.map((s) => `${s.partition}\u0000${s.fileId}`)));
      await refuseRacingWrites(t, tl, i.requestedTime, groups, 'start');
      return { operations: inputs.groups.length, job };
    },
    rollback: rollbackInflightPlan,
  };
}

export function runClusteringOnEngine(table: Table, opts: ClusteringEngineOptions): Promise<EngineRunResult> {
  if (opts.layout !== undefined) layoutOf(opts.layout);
  return runOnEngine(table, clusteringOnEngine(opts), opts);
}
