// Rolling back a failed (inflight) compaction as HoodieTable.rollbackInflightCompaction does: the
// shared rollback (src/write/rollback.ts) with the plan kept — deleteInstants=false, then
// revertInstantFromInflightToRequested (layout ≥ 1: delete `<t>.compaction.inflight`) — so the plan is
// re-executed with the same instant time; the metadata table rolls back its deltacommit of it too.
import type { Table } from '../../table/index.ts';
import type { RollbackResult } from '../../write/rollback.ts';
import { expiryOf, rollbackWithMetadataTable, type ServiceOptions } from '../transaction.ts';
import type { MetadataTablePlan } from '../mdt-sync.ts';

export type { RollbackResult } from '../../write/rollback.ts';

/**
 * A failed table-service attempt (compaction, clustering) rolled back with its plan kept, so it is
 * re-executed with the same instant. Call with the table lock held; `keepAlive` keeps it from expiring.
 */
export function rollbackInflightPlan(t: Table, mdt: MetadataTablePlan | undefined, instant: string, opts: ServiceOptions & { keepAlive?: () => Promise<void> }): Promise<RollbackResult> {
  const interval = opts.heartbeatIntervalMs ?? Math.min(expiryOf(opts) / 4, 60_000);
  return rollbackWithMetadataTable(t, mdt, instant, { ...opts, targetFiles: 'keep-requested', tempFileAgeMs: Math.max(0, expiryOf(opts) - interval) });
}

export const rollbackInflightCompaction = rollbackInflightPlan;
