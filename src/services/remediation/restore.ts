// `savepoint rollback --savepoint S`: a restore to a savepoint without Spark (format-services-write.md
// §4.3–4.4, BaseHoodieWriteClient.restoreToSavepoint / RestorePlanActionExecutor / BaseRestoreActionExecutor):
//
//   metadata table dropped the Hudi way (format-mdt-write.md §3.6: tblcli does not rebuild it) →
//   `<r>.restore.requested` = HoodieRestorePlan v2 {instantsToRollback, savepointToRestoreTimestamp} →
//   `<r>.restore.inflight` → each instant rolled back by its own unpublished listing-based rollback
//   (isRestore: whole compaction slices; no MDT write, no completed rollback file) →
//   `<r>[_<ct>].restore` = HoodieRestoreMetadata → the rollback instants after r deleted.
//
// Order of the instants (RestorePlanActionExecutor): pending clustering after S first, newest first;
// then every write instant after S, newest first — table version 6 (0.x) by requested time; 8/9
// (1.x) by completion time, except that on MERGE_ON_READ any comparison with a commit/compaction
// uses requested times. A crashed restore to the same savepoint is resumed: rolled-back instants are
// skipped, a rollback it left half done is finished, its plan re-used.
import { TblError } from '../../errors/index.ts';
import { decodeRestoreMetadata, decodeRestorePlan, decodeRollbackPlan, encodeRestoreMetadata, encodeRestorePlan, type InstantInfo, type RestoreMetadata, type RestorePlan, type RollbackMetadata } from '../../metadata/index.ts';
import type { Table } from '../../table/index.ts';
import { WRITE_ACTIONS, type Instant, type Timeline } from '../../timeline/index.ts';
import { completeInstant, createRequested, deleteInstantFile, transitionToInflight } from '../../timeline/writer.ts';
import { pendingRollbackOf, rollbackActionOf, rollbackInstant } from '../../write/rollback.ts';
import { disableMetadataTable } from '../../write/table-properties.ts';
import { hasMetadataTable } from '../mdt-sync.ts';
import { nextInstantTime, reopen, underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, rel, type Change } from './report.ts';
import { isClustering, liveHeartbeat } from './rollback.ts';

export interface RestoreOptions extends ServiceOptions {
  dryRun?: boolean;
  /** restore although instants after the savepoint have live heartbeats */
  force?: boolean;
}

export interface RestoreReport {
  savepoint: string;
  dryRun: boolean;
  restoreInstant?: string;
  completionTime?: string;
  /** a pending restore to the same savepoint was resumed */
  resumed: boolean;
  instantsToRollback: InstantInfo[];
  /** per rolled-back instant: its (unpublished) rollback instant and files deleted */
  rolledBack: { instant: string; rollbackInstant: string; deletedFiles: number }[];
  changes: Change[];
  warnings: string[];
}

/** The savepoint a restore plan restores to (RestoreUtils: v1 plans lack it: the savepoint before the oldest entry). */
export function savepointOfPlan(tl: Timeline, plan: RestorePlan): string | undefined {
  if (plan.savepointToRestoreTimestamp) return plan.savepointToRestoreTimestamp;
  const oldest = (plan.instantsToRollback ?? []).map((x) => x.commitTime).sort()[0];
  if (!oldest) return undefined;
  return tl.completed().filter((i) => i.action === 'savepoint' && i.requestedTime < oldest).at(-1)?.requestedTime;
}

/** 1.x completion-time order; pending instants sort after every completed one. */
function completionKey(i: Instant): string {
  return i.state === 'COMPLETED' ? i.completionTime ?? i.requestedTime : '\uffff';
}

/** The instants a restore to `sp` rolls back, in Hudi's order for the table's version. */
export async function instantsToRestore(t: Table, tl: Timeline, sp: string): Promise<InstantInfo[]> {
  const writes = tl.instants.filter((i) => WRITE_ACTIONS.has(i.effectiveAction) || WRITE_ACTIONS.has(i.action));
  const clustering: Instant[] = [];
  for (const i of writes) if (i.state !== 'COMPLETED' && i.requestedTime > sp && (await isClustering(t, tl, i))) clustering.push(i);
  clustering.sort((a, b) => (a.requestedTime < b.requestedTime ? 1 : -1));
  let rest: Instant[];
  if (t.config.version < 8) {
    rest = writes.filter((i) => i.requestedTime > sp).sort((a, b) => (a.requestedTime < b.requestedTime ? 1 : -1));
  } else {
    const spInstant = tl.find(sp).find((i) => i.state === 'COMPLETED' && WRITE_ACTIONS.has(i.action));
    const spCompletion = spInstant?.completionTime ?? sp;
    const mor = t.config.type === 'MERGE_ON_READ';
    const compactionLike = (i: Instant) => mor && (rollbackActionOf(i) === 'commit' || rollbackActionOf(i) === 'compaction');
    const after = (i: Instant) => (compactionLike(i) ? i.requestedTime > sp : completionKey(i) > spCompletion);
    rest = writes.filter(after).sort((a, b) => {
      const ka = completionKey(a);
      const kb = completionKey(b);
      return ka !== kb ? (ka < kb ? 1 : -1) : a.requestedTime < b.requestedTime ? 1 : -1;
    });
  }
  const first = new Set(clustering);
  return [...clustering, ...rest.filter((i) => !first.has(i))].map((i) => ({ commitTime: i.requestedTime, action: rollbackActionOf(i) }));
}

interface Prepared {
  pending?: { time: string; plan: RestorePlan };
  plan: RestorePlan;
  mdt: boolean;
  warnings: string[];
}

async function prepare(t: Table, sp: string, opts: RestoreOptions): Promise<Prepared> {
  const tl = await t.timeline();
  const savepoints = tl.completed().filter((i) => i.action === 'savepoint');
  if (savepoints.length === 0) throw new TblError('not-found', 'There are no completed instants to run rollback', { path: t.uri, hint: 'create one with `savepoint create --commit <t>`' });
  if (!savepoints.some((i) => i.requestedTime === sp)) {
    throw new TblError('not-found', `Could not restore to savepoint ${sp}: there is no completed savepoint ${sp} (savepoints: ${savepoints.map((i) => i.requestedTime).join(', ')})`, { instant: sp });
  }
  if (!tl.find(sp).some((i) => i.state === 'COMPLETED' && WRITE_ACTIONS.has(i.action))) {
    throw new TblError('not-found', `Commit ${sp} not found in Commits of ${t.uri}: the savepointed commit is gone from the active timeline`, { instant: sp });
  }
  let pending: Prepared['pending'];
  for (const r of tl.pending().filter((i) => i.action === 'restore' && i.files.REQUESTED)) {
    const plan = decodeRestorePlan(await tl.read(r, 'REQUESTED'), { path: t.storage.uri(r.files.REQUESTED!.path) });
    const to = savepointOfPlan(tl, plan);
    if (to !== sp) {
      throw new TblError('conflict', `restore ${r.requestedTime} to savepoint ${to ?? '<unknown>'} is pending in ${t.uri}; finish it first`, {
        instant: r.requestedTime,
        hint: to ? `run \`savepoint rollback --savepoint ${to}\`` : undefined,
      });
    }
    pending = { time: r.requestedTime, plan };
  }
  const plan = pending?.plan ?? { instantsToRollback: await instantsToRestore(t, tl, sp), version: 2, savepointToRestoreTimestamp: sp };
  if (!opts.force) {
    for (const e of plan.instantsToRollback) {
      const live = await liveHeartbeat(t, e.commitTime, opts);
      if (live) throw new TblError('conflict', `${e.action} ${e.commitTime} (after savepoint ${sp}) has a live heartbeat: ${live}; Hudi requires no running writers during a restore`, { instant: e.commitTime, hint: 'stop the writers, or pass --force' });
    }
  }
  const warnings: string[] = [];
  const mdt = await hasMetadataTable(t);
  if (mdt && opts.metadataTable === 'refuse') {
    throw new TblError('unsupported', `${t.uri} has a metadata table and --metadata-table is refuse; a restore drops it (tblcli does not restore a metadata table)`, { path: t.uri });
  }
  if (mdt) warnings.push(`metadata table of ${t.uri} dropped before the restore (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted), as Hudi does when it cannot restore it; the next Hudi writer with the metadata table enabled rebuilds it`);
  for (const s of tl.completed().filter((i) => i.action === 'savepoint' && i.requestedTime > sp)) {
    warnings.push(`savepoint ${s.requestedTime} is after the restore point: the commit it saves is rolled back; delete it with \`savepoint delete --commit ${s.requestedTime}\``);
  }
  return { pending, plan, mdt, warnings };
}

function plannedChanges(t: Table, r: string | undefined, p: Prepared): Change[] {
  const rt = r ?? '<restore instant>';
  const out: Change[] = [];
  if (p.mdt) {
    out.push({ op: 'modify', path: '.hoodie/hoodie.properties', what: 'hoodie.table.metadata.partitions cleared (safe update with hoodie.properties.backup)' });
    out.push({ op: 'delete', path: '.hoodie/metadata', what: 'the metadata table' });
  }
  if (!p.pending) out.push(instantChange(t, 'create', rt, 'restore', 'REQUESTED', `restore plan: ${p.plan.instantsToRollback.length} instant(s) to roll back`));
  out.push(instantChange(t, 'create', rt, 'restore', 'INFLIGHT', 'restore started'));
  for (const e of p.plan.instantsToRollback) out.push({ op: 'modify', path: `${e.commitTime} (${e.action})`, what: 'rolled back: its files and instant files deleted by an unpublished rollback' });
  out.push(instantChange(t, 'create', rt, 'restore', 'COMPLETED', 'restore metadata'));
  out.push({ op: 'delete', path: `${rel(t, t.timelineSource.timelineDir)}/<rollbacks after ${rt}>`, what: 'the restore\'s rollback instants' });
  return out;
}

export async function restoreToSavepoint(table: Table, sp: string, opts: RestoreOptions = {}): Promise<RestoreReport> {
  if (opts.dryRun) {
    const p = await prepare(table, sp, opts);
    return { savepoint: sp, dryRun: true, restoreInstant: p.pending?.time, resumed: p.pending !== undefined, instantsToRollback: p.plan.instantsToRollback, rolledBack: [], changes: plannedChanges(table, p.pending?.time, p), warnings: p.warnings };
  }
  return underLock(table, opts, async (t00, lock) => {
    const started = Date.now();
    // a completed restore whose last step was cut short: finish it first
    const finished = await finishCompletedRestores(t00);
    const t0 = finished.length > 0 ? await reopen(t00) : t00;
    const p = await prepare(t0, sp, opts);
    // a rerun after the restore completed (its leftovers just removed, or none): nothing more to do
    if (!p.pending && p.plan.instantsToRollback.length === 0 && (finished.length > 0 || (await lastRestoreTo(t0)) === sp)) {
      const gone = finished.flatMap((rb) => [instantChange(t0, 'delete', rb, 'rollback', 'INFLIGHT', 'leftover of a completed restore'), instantChange(t0, 'delete', rb, 'rollback', 'REQUESTED', 'leftover of a completed restore')]);
      return { savepoint: sp, dryRun: false, resumed: true, instantsToRollback: [], rolledBack: [], changes: gone, warnings: p.warnings };
    }
    const now = opts.now ?? (() => new Date());
    let t = t0;
    if (p.mdt) {
      await disableMetadataTable(t.storage, t.metaPath, now());
      t = await reopen(t);
      await opts.onPoint?.('restore-metadata-table-dropped');
    }
    const src = t.timelineSource;
    let r = p.pending?.time;
    const changes = plannedChanges(t, r, p);
    if (!r) {
      r = await nextInstantTime(t, await t.timeline(), opts);
      await createRequested(src, r, 'restore', encodeRestorePlan(p.plan));
      await opts.onPoint?.('restore-requested');
    }
    const tl0 = await (await reopen(t)).timeline();
    if (tl0.find(r).find((i) => i.action === 'restore')?.state === 'REQUESTED') await transitionToInflight(src, r, 'restore');
    await opts.onPoint?.('restore-inflight');
    const metadata: Record<string, RollbackMetadata[]> = {};
    const rolledBack: RestoreReport['rolledBack'] = [];
    const done: InstantInfo[] = [];
    for (const e of p.plan.instantsToRollback) {
      const cur = await reopen(t);
      const tl = await cur.timeline();
      const present = tl.find(e.commitTime).some((i) => WRITE_ACTIONS.has(i.effectiveAction) || WRITE_ACTIONS.has(i.action));
      // an instant a crashed attempt rolled back: finish its rollback if one is left, else skip it
      if (!present && !(await pendingRollbackOf(cur, tl, e.commitTime))) continue;
      await lock.keepAlive();
      const res = await rollbackInstant(cur, e.commitTime, {
        targetFiles: 'delete',
        restore: true,
        useMarkers: false,
        now,
        clockSkewMs: opts.clockSkewMs,
        keepAlive: () => lock.keepAlive(),
        onPoint: opts.onPoint,
      });
      metadata[e.commitTime] = [res.metadata];
      rolledBack.push({ instant: e.commitTime, rollbackInstant: res.rollbackInstant, deletedFiles: res.deletedFiles.length });
      done.push(e);
      await opts.onPoint?.('restore-instant-rolled-back');
    }
    const meta: RestoreMetadata = {
      startRestoreTime: r,
      timeTakenInMillis: Date.now() - started,
      instantsToRollback: done.map((e) => e.commitTime),
      hoodieRestoreMetadata: metadata,
      version: 1,
      restoreInstantInfo: done,
      extraMetadata: null,
    };
    await opts.onPoint?.('restore-before-complete');
    const ct = src.layout === 2 ? await nextInstantTime(t, await (await reopen(t)).timeline(), opts) : undefined;
    await completeInstant(src, r, 'restore', 'restore', encodeRestoreMetadata(meta), ct);
    await opts.onPoint?.('restore-completed');
    await deleteRollbacksAfter(await reopen(t), r);
    await opts.onPoint?.('restore-rollbacks-deleted');
    const warnings = [...p.warnings];
    const last = (await (await reopen(t)).timeline()).completedCommits().at(-1);
    if (last && last.requestedTime !== sp) warnings.push(`the last completed commit after the restore is ${last.requestedTime}, not the savepoint ${sp}`);
    return { savepoint: sp, dryRun: false, restoreInstant: r, completionTime: ct, resumed: p.pending !== undefined, instantsToRollback: p.plan.instantsToRollback, rolledBack, changes, warnings };
  });
}

/** The savepoint the latest completed restore restored to. */
async function lastRestoreTo(t: Table): Promise<string | undefined> {
  const tl = await t.timeline();
  const r = tl.completed().filter((i) => i.action === 'restore').at(-1);
  if (!r?.files.REQUESTED) return undefined;
  try {
    return savepointOfPlan(tl, decodeRestorePlan(await tl.read(r, 'REQUESTED'), { path: t.storage.uri(r.files.REQUESTED.path) }));
  } catch {
    return undefined;
  }
}

/** finishRestore's last step: every rollback instant after the restore instant goes (completed ones too). */
async function deleteRollbacksAfter(t: Table, r: string): Promise<void> {
  const tl = await t.timeline();
  for (const i of tl.instants.filter((x) => x.action === 'rollback' && x.requestedTime > r).reverse()) {
    if (i.files.COMPLETED) await t.storage.delete(i.files.COMPLETED.path);
    await deleteInstantFile(t.timelineSource, i.requestedTime, 'rollback', 'INFLIGHT');
    await deleteInstantFile(t.timelineSource, i.requestedTime, 'rollback', 'REQUESTED');
  }
}

/**
 * Rollbacks a restore created: requested after the restore instant, targeting what it rolls back
 * (`done`: the restore completed, so they are leftovers of its last step, to be deleted, never published).
 */
export async function restoreRollbacks(t: Table, tl: Timeline): Promise<Map<string, { restore: string; done: boolean }>> {
  const out = new Map<string, { restore: string; done: boolean }>();
  for (const r of tl.instants.filter((i) => i.action === 'restore')) {
    let targets: string[] = [];
    try {
      if (r.state === 'COMPLETED') targets = decodeRestoreMetadata(await tl.read(r), { path: t.storage.uri(r.files.COMPLETED!.path) }).instantsToRollback ?? [];
      if (r.files.REQUESTED) targets.push(...(decodeRestorePlan(await tl.read(r, 'REQUESTED'), { path: t.storage.uri(r.files.REQUESTED.path) }).instantsToRollback ?? []).map((x) => x.commitTime));
    } catch {
      continue;
    }
    const set = new Set(targets);
    for (const rb of tl.pending().filter((i) => i.action === 'rollback' && i.requestedTime > r.requestedTime && i.files.REQUESTED)) {
      try {
        const plan = decodeRollbackPlan(await tl.read(rb, 'REQUESTED'), { path: t.storage.uri(rb.files.REQUESTED!.path) });
        if (plan.instantToRollback && set.has(plan.instantToRollback.commitTime)) out.set(rb.requestedTime, { restore: r.requestedTime, done: r.state === 'COMPLETED' });
      } catch {
        // an unreadable plan is not a restore's
      }
    }
  }
  return out;
}

/** Deletes the pending rollbacks completed restores left behind (a crash before their last step). */
export async function finishCompletedRestores(t: Table): Promise<string[]> {
  const tl = await t.timeline();
  const out: string[] = [];
  for (const [rb, { done }] of await restoreRollbacks(t, tl)) {
    if (!done) continue;
    await deleteInstantFile(t.timelineSource, rb, 'rollback', 'INFLIGHT');
    await deleteInstantFile(t.timelineSource, rb, 'rollback', 'REQUESTED');
    out.push(rb);
  }
  return out;
}
