// Compaction on Spark (HoodieCompactor) or Flink (HoodieFlinkCompactor): tblcli plans, checks and
// supervises (services/engine/run.ts); the engine executes exactly the planned instant.
import { requireMergeOnRead, type Table } from '../../table/index.ts';
import { runOnEngine, type EngineRunOptions, type EngineRunResult, type EngineService } from '../engine/run.ts';
import { isCompaction } from './execute.ts';
import { resolveCompactionPlan } from './inputs.ts';
import { rollbackInflightCompaction } from './rollback.ts';

export const COMPACTION_ON_ENGINE: EngineService = {
  service: 'compaction',
  label: 'compaction',
  isCandidate: isCompaction,
  check: async (t, tl, i) => ({ operations: (await resolveCompactionPlan(t, tl, i)).operations.length }),
  rollback: rollbackInflightCompaction,
};

export function runCompactionOnEngine(table: Table, opts: EngineRunOptions): Promise<EngineRunResult> {
  requireMergeOnRead(table);
  return runOnEngine(table, COMPACTION_ON_ENGINE, opts);
}
