// `rollback failed` (tblcli's own): every failed write rolled back the way Hudi's next writer does
// it (BaseHoodieTableServiceClient.rollbackFailedWrites): pending rollbacks are finished and pending
// commits / delta commits / replacecommits (not clustering, not compaction) whose heartbeat expired or
// is missing are rolled back, newest first. `olderThanMs` keeps young instants (a writer that has not
// beaten yet, a single-writer job without heartbeats) out. Rollbacks a restore left behind are deleted
// (they finish that restore), never published.
import { decodeRollbackPlan } from '../../metadata/index.ts';
import { restoreRollbacks } from './restore.ts';
import type { Table } from '../../table/index.ts';
import type { Action } from '../../timeline/index.ts';
import { deleteInstantFile } from '../../timeline/writer.ts';
import { parseInstantTime } from '../../util/index.ts';
import { lastHeartbeat } from '../../write/heartbeat.ts';
import { expiryOf, underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, type Change } from './report.ts';
import { isClustering, liveHeartbeat, rollbackCommit, type CommitRollbackOptions, type CommitRollbackReport } from './rollback.ts';

const COMMITS = new Set<Action>(['commit', 'deltacommit', 'replacecommit', 'clustering']);

export interface FailedWrite {
  instant: string;
  action: string;
  state: string;
  ageMs: number;
  heartbeat: 'missing' | 'expired' | 'live';
  /** what is done: 'roll back', 'finish rollback <rb>', 'delete restore leftover <rb>' */
  fix: string;
  /** set for pending rollbacks */
  rollbackInstant?: string;
}

export interface SkippedInstant {
  instant: string;
  action: string;
  state: string;
  why: string;
}

export interface FailedWritesReport {
  dryRun: boolean;
  candidates: FailedWrite[];
  skipped: SkippedInstant[];
  /** filled by a real run, per candidate in order */
  results: { instant: string; ok: boolean; rollbackInstant?: string; error?: string; changes: Change[] }[];
}

export interface FailedWritesOptions extends CommitRollbackOptions {
  /** only instants older than this (by their instant time) count as failed (default 1 h) */
  olderThanMs?: number;
}

function ageOf(t: Table, time: string, now: number): number {
  const d = parseInstantTime(time, t.config.timezone);
  return d ? now - d.getTime() : 0;
}

/** The failed writes and what would be done about them, newest first. */
export async function findFailedWrites(t: Table, opts: FailedWritesOptions = {}): Promise<{ candidates: FailedWrite[]; skipped: SkippedInstant[] }> {
  const tl = await t.timeline();
  const now = (opts.now ?? (() => new Date()))().getTime();
  const olderThan = opts.olderThanMs ?? 3_600_000;
  const expiry = expiryOf(opts);
  const candidates: FailedWrite[] = [];
  const skipped: SkippedInstant[] = [];
  const ofRestore = await restoreRollbacks(t, tl);
  const targeted = new Set<string>();
  const heartbeatOf = async (time: string): Promise<FailedWrite['heartbeat']> => {
    const last = await lastHeartbeat(t.storage, t.metaPath, time);
    return last === 0 ? 'missing' : now - last > expiry ? 'expired' : 'live';
  };
  for (const rb of tl.pending().filter((i) => i.action === 'rollback')) {
    const restore = ofRestore.get(rb.requestedTime);
    let target = '';
    try {
      if (rb.files.REQUESTED) target = decodeRollbackPlan(await tl.read(rb, 'REQUESTED'), { path: t.storage.uri(rb.files.REQUESTED.path) }).instantToRollback?.commitTime ?? '';
    } catch {
      skipped.push({ instant: rb.requestedTime, action: 'rollback', state: rb.state, why: 'its plan cannot be read (`repair` it by hand: delete the .rollback.requested file if the rollback never started)' });
      continue;
    }
    if (restore && !restore.done) {
      skipped.push({ instant: rb.requestedTime, action: 'rollback', state: rb.state, why: `part of the pending restore ${restore.restore}: rerun \`savepoint rollback\` to finish it` });
      continue;
    }
    const age = ageOf(t, rb.requestedTime, now);
    if (!restore && age < olderThan) {
      skipped.push({ instant: rb.requestedTime, action: 'rollback', state: rb.state, why: `younger than --older-than (${Math.round(age / 1000)} s): may still be running` });
      continue;
    }
    if (target) targeted.add(target);
    candidates.push({
      instant: target || rb.requestedTime,
      action: 'rollback',
      state: rb.state,
      ageMs: age,
      heartbeat: await heartbeatOf(target || rb.requestedTime),
      fix: restore ? `delete leftover rollback ${rb.requestedTime} of the completed restore ${restore.restore}` : `finish rollback ${rb.requestedTime}`,
      rollbackInstant: rb.requestedTime,
    });
  }
  for (const i of tl.pending()) {
    if (i.action === 'rollback' || targeted.has(i.requestedTime)) continue;
    const what = { instant: i.requestedTime, action: i.effectiveAction, state: i.state };
    if (i.effectiveAction === 'compaction' || i.effectiveAction === 'logcompaction' || (COMMITS.has(i.effectiveAction) && (await isClustering(t, tl, i)))) {
      if (i.state === 'INFLIGHT') skipped.push({ ...what, why: `table service: \`compaction run\`/the next clustering run rolls back its failed attempt, or \`commit rollback --commit ${i.requestedTime}\`` });
      continue;
    }
    if (!COMMITS.has(i.effectiveAction)) continue;
    const hb = await heartbeatOf(i.requestedTime);
    if (hb === 'live') {
      skipped.push({ ...what, why: `live heartbeat: ${(await liveHeartbeat(t, i.requestedTime, opts)) ?? 'a writer is running it'}` });
      continue;
    }
    const age = ageOf(t, i.requestedTime, now);
    if (age < olderThan) {
      skipped.push({ ...what, why: `younger than --older-than (${Math.round(age / 1000)} s)` });
      continue;
    }
    candidates.push({ ...what, ageMs: age, heartbeat: hb, fix: 'roll back' });
  }
  candidates.sort((a, b) => (a.instant < b.instant ? 1 : a.instant > b.instant ? -1 : 0));
  return { candidates, skipped };
}

/** Deletes the pending rollback files a completed restore left (finishRestore's last step). */
async function deleteRestoreLeftover(table: Table, rb: string, opts: ServiceOptions): Promise<Change[]> {
  return underLock(table, opts, async (t) => {
    const out = [instantChange(t, 'delete', rb, 'rollback', 'INFLIGHT', 'leftover of a completed restore'), instantChange(t, 'delete', rb, 'rollback', 'REQUESTED', 'leftover of a completed restore')];
    await deleteInstantFile(t.timelineSource, rb, 'rollback', 'INFLIGHT');
    await deleteInstantFile(t.timelineSource, rb, 'rollback', 'REQUESTED');
    return out;
  });
}

/** Finds the failed writes and (unless dryRun) rolls them back, newest first; stops at the first failure. */
export async function rollbackFailedWrites(table: Table, opts: FailedWritesOptions = {}): Promise<FailedWritesReport> {
  const found = await findFailedWrites(table, opts);
  const report: FailedWritesReport = { dryRun: opts.dryRun === true, ...found, results: [] };
  for (const c of found.candidates) {
    try {
      if (c.fix.startsWith('delete leftover')) {
        const changes = opts.dryRun ? [instantChange(table, 'delete', c.rollbackInstant!, 'rollback', 'INFLIGHT', 'leftover of a completed restore'), instantChange(table, 'delete', c.rollbackInstant!, 'rollback', 'REQUESTED', 'leftover of a completed restore')] : await deleteRestoreLeftover(table, c.rollbackInstant!, opts);
        report.results.push({ instant: c.instant, ok: true, rollbackInstant: c.rollbackInstant, changes });
        continue;
      }
      // the heartbeat was judged dead above; LAZY: no commit-sequence check (newer live writers may exist)
      const r: CommitRollbackReport = await rollbackCommit(table, c.instant, { ...opts, lazy: true, force: false });
      report.results.push({ instant: c.instant, ok: true, rollbackInstant: r.rollbackInstant, changes: r.changes });
    } catch (e) {
      report.results.push({ instant: c.instant, ok: false, error: (e as Error).message, changes: [] });
      if (!opts.dryRun) break;
    }
  }
  return report;
}


