// Clean on Spark (org.apache.hudi.utilities.HoodieCleaner): tblcli plans (schedule.ts) and checks the
// plan, holds the instant's heartbeat and judges from the timeline (services/engine/run.ts). HoodieCleaner
// names no instant: client.clean() executes every pending clean plan, and with multiple cleans off
// (engine/command.ts pins both spellings) schedules none of its own while tblcli's is pending. Hudi has
// no Flink cleaner utility. A clean is never rolled back: an inflight one is re-executed from its plan.
import { TblError } from '../../errors/index.ts';
import type { Table } from '../../table/index.ts';
import { runOnEngine, type EngineRunOptions, type EngineRunResult, type EngineService } from '../engine/run.ts';
import { isClean, readCleanPlan } from './execute.ts';

export const CLEAN_ON_ENGINE: EngineService = {
  service: 'clean',
  label: 'clean',
  isCandidate: isClean,
  async check(t, tl, i) {
    // every path of the plan resolved inside the table, before anything is launched
    const plan = await readCleanPlan(t, tl, i);
    if (!plan) throw new TblError('metadata', `clean ${i.requestedTime} has an empty plan file; \`clean run --engine local\` removes it, as Hudi does`, { instant: i.requestedTime });
    return { operations: plan.files.length };
  },
};

export function runCleanOnEngine(table: Table, opts: EngineRunOptions): Promise<EngineRunResult> {
  return runOnEngine(table, CLEAN_ON_ENGINE, opts);
}
