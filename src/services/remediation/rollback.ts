// `commit rollback --commit T` without Spark: hudi-cli's rollback (BaseHoodieTableServiceClient
// .rollback → table.rollback) with its checks, on the shared rollback engine (src/write/rollback.ts)
// and the shared transaction (metadata table kept in step). Checks, all before anything is written:
//
//   * T is a write on the timeline (commit, deltacommit, replacecommit/clustering, compaction), or a
//     pending rollback of T is left to finish;
//   * not savepointed ("Could not rollback a savepointed commit");
//   * a live heartbeat means a live writer: refused unless `force`, naming the heartbeat;
//   * validateRollbackCommitSequence (except for pending compaction / clustering): a completed T must
//     be the latest completed commit unless a heartbeat file of T exists ("Found commits after time"),
//     and T must be the newest pending commit ("Found in-flight commits after time");
//   * the metadata table can take the rollback back (its deltacommit of T not folded into an MDT compaction).
//
// A pending compaction goes back to requested (its plan is retried with the same time); every other
// target loses its instant files, as hudi-cli's rollback does.
import { TblError } from '../../errors/index.ts';
import { decodeCommitMetadata, decodeCompactionPlan, decodeRequestedReplaceMetadata, decodeRollbackMetadata, decodeRollbackPlan, type RollbackPlan, type RollbackRequest } from '../../metadata/index.ts';
import type { Table } from '../../table/index.ts';
import type { Action, Instant, State, Timeline } from '../../timeline/index.ts';
import { formatLogFileName, parseLogFileName, UNKNOWN_WRITE_TOKEN } from '../../fs-view/index.ts';
import { joinPath } from '../../util/index.ts';
import { heartbeatOwner, heartbeatPath, lastHeartbeat } from '../../write/heartbeat.ts';
import { markerDir } from '../../write/markers.ts';
import { pendingActionOf, pendingRollbackOf, planRollback, resolvePlanPaths, rollbackActionOf, type RollbackResult } from '../../write/rollback.ts';
import { checkMetadataTableRollback, prepareMetadataTable } from '../mdt-sync.ts';
import { expiryOf, metadataTableFor, nextInstantTime, reopen, rollbackWithMetadataTable, underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, rel, type Change } from './report.ts';

/** Actions `commit rollback` takes (the commits timeline plus table-service instants). */
const WRITES = new Set<Action>(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'logcompaction']);
/** getCommitsTimeline(): what the sequence checks look at. */
const COMMITS = new Set<Action>(['commit', 'deltacommit', 'replacecommit', 'clustering']);

export interface CommitRollbackOptions extends ServiceOptions {
  /**
   * hoodie.rollback.using.markers: plan a pending target from its markers when it has them (default
   * true, as Hudi writers roll back failed writes; hudi-cli defaults --rollbackUsingMarkers to false,
   * whose listing-based plan of a v6 delta commit misses the log files it appended to)
   */
  useMarkers?: boolean;
  /** roll back although the instant's heartbeat is alive */
  force?: boolean;
  dryRun?: boolean;
  /** skip validateRollbackCommitSequence (LAZY failed-writes policy: `rollback failed`) */
  lazy?: boolean;
}

export interface CommitRollbackReport {
  instant: string;
  /** the action the plan names */
  action: string;
  /** the target's state before (GONE: only a pending rollback of it is left) */
  state: State | 'GONE';
  dryRun: boolean;
  /** the rollback instant; in a dry run only when a pending rollback is reused */
  rollbackInstant?: string;
  completionTime?: string;
  reused: boolean;
  /** the rollback plan's requests (in a dry run: the plan that would be written) */
  requests: RollbackRequest[];
  changes: Change[];
  deletedFiles: string[];
  failedFiles: string[];
  rollbackLogFiles: Record<string, number>;
  /** what the metadata table gets */
  metadataTable: string;
  warnings: string[];
}

interface Target {
  /** a completed rollback of T already exists (a rerun after a crash at its very end) */
  done?: string;
  target?: Instant;
  pending?: { time: string; plan: RollbackPlan; inflight: boolean };
  targetFiles: 'delete' | 'keep-requested';
}

function commitTimelineText(tl: Timeline): string {
  const done = tl.completed().filter((i) => COMMITS.has(i.action));
  const names = done.map((i) => `[${i.requestedTime}__${i.action}__COMPLETED]`);
  return names.length <= 6 ? `[${names.join(', ')}]` : `[${names.slice(0, 3).join(', ')}, … ${names.length - 6} more …, ${names.slice(-3).join(', ')}]`;
}

/** ClusteringUtils.isClusteringInstant: a clustering action, or a replacecommit whose plan is a clustering plan. */
export async function isClustering(t: Table, tl: Timeline, i: Instant): Promise<boolean> {
  if (i.effectiveAction === 'clustering' || i.action === 'clustering') return true;
  if (i.effectiveAction !== 'replacecommit' && i.action !== 'replacecommit') return false;
  try {
    if (i.state === 'COMPLETED') return decodeCommitMetadata(await tl.read(i), { path: t.storage.uri(i.files.COMPLETED!.path) }).operationType === 'CLUSTER';
    if (!i.files.REQUESTED || i.files.REQUESTED.size === 0) return false;
    const m = decodeRequestedReplaceMetadata(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED.path) });
    return m.operationType === 'CLUSTER' || m.clusteringPlan !== null;
  } catch {
    return false;
  }
}

/** A live heartbeat of `instant`, worded for the refusal, or undefined. */
export async function liveHeartbeat(t: Table, instant: string, opts: ServiceOptions): Promise<string | undefined> {
  const last = await lastHeartbeat(t.storage, t.metaPath, instant);
  const now = (opts.now ?? (() => new Date()))().getTime();
  if (last === 0 || now - last > expiryOf(opts)) return undefined;
  const owner = await heartbeatOwner(t.storage, t.metaPath, instant);
  const who = owner ? `tblcli attempt ${owner}` : 'a Hudi writer (or another tool)';
  return `${rel(t, heartbeatPath(t.metaPath, instant))} was touched ${Math.max(0, Math.round((now - last) / 1000))} s ago by ${who}`;
}

/** The newest completed rollback whose metadata names `time`. */
async function completedRollbackOf(t: Table, tl: Timeline, time: string): Promise<string | undefined> {
  for (const i of tl.completed().filter((x) => x.action === 'rollback').reverse()) {
    try {
      if ((decodeRollbackMetadata(await tl.read(i), { path: t.storage.uri(i.files.COMPLETED!.path) }).commitsRollback ?? []).includes(time)) return i.requestedTime;
    } catch {
      // an unreadable rollback names nothing
    }
  }
  return undefined;
}

/** What a rollback that completed but was cut short left: marker directories and the heartbeat. */
async function leftoversOf(t: Table, time: string, rb: string): Promise<Change[]> {
  const out: Change[] = [];
  for (const [p, what] of [
    [markerDir(t.basePath, time), `marker directory of ${time}`],
    [markerDir(t.basePath, rb), 'marker directory of the rollback'],
    [heartbeatPath(t.metaPath, time), 'heartbeat of the rolled-back instant'],
  ] as const) {
    if (await t.storage.exists(p)) out.push({ op: 'delete', path: rel(t, p), what });
  }
  return out;
}

async function finishedReport(t: Table, time: string, rb: string, dryRun: boolean): Promise<CommitRollbackReport> {
  const changes = await leftoversOf(t, time, rb);
  if (!dryRun) for (const c of changes) await t.storage.delete(joinPath(t.basePath, c.path), { recursive: true });
  return {
    instant: time, action: '', state: 'GONE', dryRun, rollbackInstant: rb, reused: true, requests: [], changes, deletedFiles: [], failedFiles: [], rollbackLogFiles: {},
    metadataTable: 'none', warnings: [`${time} was already rolled back by ${rb}${changes.length > 0 ? '; what it left behind is removed' : ''}`],
  };
}

/** Finds and checks the target; throws a one-line error naming T when Hudi (or safety) refuses. */
async function checkTarget(t: Table, tl: Timeline, time: string, opts: CommitRollbackOptions): Promise<Target> {
  const target = tl.find(time).find((i) => WRITES.has(i.effectiveAction) || WRITES.has(i.action));
  const pending = await pendingRollbackOf(t, tl, time);
  if (!target && !pending) {
    const done = await completedRollbackOf(t, tl, time);
    if (done) return { done, targetFiles: 'delete' };
    throw new TblError('not-found', `Commit ${time} not found in Commits ${commitTimelineText(tl)}`, { instant: time, path: t.uri });
  }
  if (tl.completed().some((i) => i.action === 'savepoint' && i.requestedTime === time)) {
    throw new TblError('conflict', `Could not rollback a savepointed commit. Delete savepoint first before rolling back ${time}`, {
      instant: time,
      hint: `run \`savepoint delete --commit ${time}\` first`,
    });
  }
  if (!target) return { pending, targetFiles: 'delete' }; // finish the crashed rollback (its target's files are gone)
  const pendingCompaction = target.state !== 'COMPLETED' && (target.effectiveAction === 'compaction' || target.effectiveAction === 'logcompaction');
  if (pendingCompaction && target.state === 'REQUESTED' && !pending) {
    throw new TblError('conflict', `${target.effectiveAction} ${time} has not started (requested only): there is nothing to roll back`, {
      instant: time,
      hint: `remove its plan with \`compaction unschedule --instant ${time}\` or run it with \`compaction run --instant ${time}\``,
    });
  }
  const live = await liveHeartbeat(t, time, opts);
  if (live && !opts.force) {
    throw new TblError('conflict', `${target.effectiveAction} ${time} has a live heartbeat: ${live}; a writer is still running it`, {
      instant: time,
      hint: 'stop that writer first, or pass --force to roll it back anyway',
    });
  }
  if (target.state === 'COMPLETED') {
    // later writes that depend on it: a pending compaction planned on the slices it wrote (Hudi does
    // not check this; its rollback would delete the base files the plan compacts)
    for (const p of tl.pending().filter((i) => i.effectiveAction === 'compaction' && i.files.REQUESTED && i.requestedTime > time)) {
      let ops: { baseInstantTime?: string | null }[] = [];
      try {
        ops = decodeCompactionPlan(await tl.read(p, 'REQUESTED'), { path: t.storage.uri(p.files.REQUESTED!.path) }).operations ?? [];
      } catch {
        continue;
      }
      if (ops.some((o) => o.baseInstantTime === time)) {
        throw new TblError('conflict', `compaction ${p.requestedTime} is planned on file slices ${time} wrote; rolling ${time} back would delete the base files it compacts`, {
          instant: time,
          hint: `unschedule it first (\`compaction unschedule --instant ${p.requestedTime}\`)`,
        });
      }
    }
  }
  const pendingClustering = target.state !== 'COMPLETED' && (await isClustering(t, tl, target));
  if (!opts.lazy && !pendingCompaction && !pendingClustering) {
    const later = tl.completed().filter((i) => COMMITS.has(i.action) && i.requestedTime > time);
    if (later.length > 0 && (await lastHeartbeat(t.storage, t.metaPath, time)) === 0) {
      throw new TblError('conflict', `Found commits after time :${time}, please rollback greater commits first`, {
        instant: time,
        hint: `later completed: ${later.map((i) => i.requestedTime).join(', ')}`,
      });
    }
    const inflights: string[] = [];
    for (const i of tl.pending()) if (COMMITS.has(i.effectiveAction) && !(await isClustering(t, tl, i))) inflights.push(i.requestedTime);
    if (inflights.length > 0 && inflights.indexOf(time) !== inflights.length - 1) {
      throw new TblError('conflict', `Found in-flight commits after time :${time}, please rollback greater commits first`, {
        instant: time,
        hint: `pending: ${inflights.filter((x) => x !== time).join(', ')} (\`tblcli rollback failed\` lists the failed ones)`,
      });
    }
  }
  return { target, pending, targetFiles: pendingCompaction ? 'keep-requested' : 'delete' };
}

/** Next log version of each file group a v6 plan appends a command block to (dry-run names). */
async function plannedBlockFiles(t: Table, requests: RollbackRequest[]): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of requests) {
    if (Object.keys(r.logBlocksToBeDeleted ?? {}).length === 0 || t.config.version >= 8) continue;
    const key = `${r.partitionPath}\u0000${r.fileId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const dir = r.partitionPath === '' ? t.basePath : joinPath(t.basePath, r.partitionPath);
    let max = 0;
    if (await t.storage.exists(dir)) {
      for (const f of await t.storage.list(dir)) {
        const l = parseLogFileName(f.name);
        if (l && l.ext === 'log' && l.fileId === r.fileId && l.instant === r.latestBaseInstant && !l.cdcSuffix) max = Math.max(max, l.version);
      }
    }
    out.push(rel(t, joinPath(dir, formatLogFileName({ fileId: r.fileId ?? '', instant: r.latestBaseInstant ?? '', ext: 'log', version: max + 1, writeToken: UNKNOWN_WRITE_TOKEN }))));
  }
  return out;
}

/** Everything the rollback writes and deletes, in the order it does it. */
async function changesOf(t: Table, rb: string | undefined, c: Target, plan: RollbackPlan, mdt: string): Promise<Change[]> {
  const rbTime = rb ?? '<rollback instant>';
  const out: Change[] = [];
  const time = plan.instantToRollback!.commitTime;
  if (!c.pending) out.push(instantChange(t, 'create', rbTime, 'rollback', 'REQUESTED', `rollback plan of ${time}`));
  if (!c.pending?.inflight) out.push(instantChange(t, 'create', rbTime, 'rollback', 'INFLIGHT', 'rollback started'));
  const target = c.target;
  const pendingAction = target ? pendingActionOf(target) : (plan.instantToRollback!.action as Action);
  if (target?.state === 'COMPLETED') {
    for (const s of ['REQUESTED', 'INFLIGHT'] as const) if (!target.files[s]) out.push(instantChange(t, 'create', time, pendingAction, s, 'un-publish the completed instant (empty file)'));
    out.push({ op: 'delete', path: rel(t, target.files.COMPLETED!.path), what: 'un-publish the completed instant' });
  }
  const { requests, deletes } = resolvePlanPaths(t, rbTime, plan);
  for (const r of requests) for (const p of deletes.get(r)!) out.push({ op: 'delete', path: rel(t, p), what: `data file of ${time}` });
  const blocks = await plannedBlockFiles(t, requests);
  for (const f of blocks) {
    out.push({ op: 'create', path: rel(t, joinPath(markerDir(t.basePath, rbTime), `${f}.marker.APPEND`)), what: 'APPEND marker of the rollback block' });
    out.push({ op: 'create', path: f, what: `rollback command block voiding ${time}'s blocks in this file slice` });
  }
  if (mdt !== 'none') out.push({ op: 'modify', path: '.hoodie/metadata', what: mdt });
  if (c.targetFiles === 'delete') {
    out.push(instantChange(t, 'delete', time, pendingAction, 'INFLIGHT', 'the rolled-back instant'));
    out.push(instantChange(t, 'delete', time, pendingAction, 'REQUESTED', 'the rolled-back instant'));
  }
  out.push(instantChange(t, 'create', rbTime, 'rollback', 'COMPLETED', 'rollback metadata'));
  if (await t.storage.exists(markerDir(t.basePath, time))) out.push({ op: 'delete', path: rel(t, markerDir(t.basePath, time)), what: `marker directory of ${time}` });
  if (blocks.length > 0 || (rb && (await t.storage.exists(markerDir(t.basePath, rb))))) out.push({ op: 'delete', path: rel(t, markerDir(t.basePath, rbTime)), what: 'marker directory of the rollback' });
  if (c.targetFiles === 'keep-requested') out.push(instantChange(t, 'delete', time, pendingAction, 'INFLIGHT', 'back to requested: the plan is retried with the same time'));
  if (await t.storage.exists(heartbeatPath(t.metaPath, time))) out.push({ op: 'delete', path: rel(t, heartbeatPath(t.metaPath, time)), what: 'heartbeat of the rolled-back instant' });
  return out.filter((c2, n, all) => all.findIndex((x) => x.op === c2.op && x.path === c2.path) === n);
}

function mdtDescription(t: Table, hasMdt: boolean, time: string, rb: string | undefined): string {
  if (!hasMdt) return 'none';
  const r = rb ?? '<rollback instant>';
  return t.config.version >= 8 ? `metadata-table rollback of ${time} at ${r}` : `metadata-table deltacommit ${r} (rollback log files) and rollback of ${time} at ${r}006`;
}

/** Rolls back `time` (or, with dryRun, reports what it would do). Takes the table lock for a real run. */
export async function rollbackCommit(table: Table, time: string, opts: CommitRollbackOptions = {}): Promise<CommitRollbackReport> {
  if (opts.dryRun) {
    const tl = await table.timeline();
    const c = await checkTarget(table, tl, time, opts);
    if (c.done) return finishedReport(table, time, c.done, true);
    const mdtPlan = await prepareMetadataTable(table, opts.metadataTable ?? 'update', 'rollback');
    if (mdtPlan && mdtPlan !== 'disable') await checkMetadataTableRollback(table, mdtPlan, time);
    const plan = c.pending?.plan ?? (await planRollback(table, tl, c.target!, { useMarkers: opts.useMarkers ?? true, now: opts.now }));
    const mdt = mdtPlan === 'disable' ? 'disabled first (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted)' : mdtDescription(table, mdtPlan !== undefined, time, c.pending?.time);
    return {
      instant: time,
      action: plan.instantToRollback?.action ?? '',
      state: c.target?.state ?? 'GONE',
      dryRun: true,
      rollbackInstant: c.pending?.time,
      reused: c.pending !== undefined,
      requests: plan.RollbackRequests ?? [],
      changes: await changesOf(table, c.pending?.time, c, plan, mdt),
      deletedFiles: [],
      failedFiles: [],
      rollbackLogFiles: {},
      metadataTable: mdt,
      warnings: [],
    };
  }
  return underLock(table, opts, async (t0, lock) => {
    const c = await checkTarget(t0, await t0.timeline(), time, opts);
    if (c.done) return finishedReport(t0, time, c.done, false);
    const mdtPlan = await prepareMetadataTable(t0, opts.metadataTable ?? 'update', 'rollback');
    if (mdtPlan && mdtPlan !== 'disable') await checkMetadataTableRollback(t0, mdtPlan, time);
    // validated: from here on the table changes
    const { table: t, mdt, disabled, warnings } = await metadataTableFor(t0, opts, 'rollback');
    const tl = await t.timeline();
    const target = tl.find(time).find((i) => WRITES.has(i.effectiveAction) || WRITES.has(i.action));
    const cur: Target = { ...c, target };
    // the rollback's time fixed here, so the change list is written before anything changes
    const rbTime = cur.pending?.time ?? (await nextInstantTime(t, tl, opts));
    const before = cur.pending?.plan ?? (await planRollback(t, tl, target!, { useMarkers: opts.useMarkers ?? true, now: opts.now }));
    const desc = disabled ? 'disabled first (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted)' : mdtDescription(t, mdt !== undefined, time, rbTime);
    const changes = await changesOf(t, rbTime, cur, before, desc);
    const r: RollbackResult = await rollbackWithMetadataTable(t, mdt, time, {
      ...opts,
      targetFiles: c.targetFiles,
      useMarkers: opts.useMarkers ?? true,
      rollbackTime: rbTime,
      keepAlive: () => lock.keepAlive(),
    });
    const plan: RollbackPlan = (await pendingPlanOf(t, r.rollbackInstant)) ?? before;
    return {
      instant: time,
      action: plan.instantToRollback?.action ?? (target ? rollbackActionOf(target) : ''),
      state: target?.state ?? 'GONE',
      dryRun: false,
      rollbackInstant: r.rollbackInstant,
      completionTime: r.rollbackCompletionTime,
      reused: r.reused,
      requests: plan.RollbackRequests ?? [],
      changes: changes.map((x) => (x.path.includes('<completion time>') && r.rollbackCompletionTime ? { ...x, path: x.path.replace('<completion time>', r.rollbackCompletionTime) } : x)),
      deletedFiles: r.deletedFiles,
      failedFiles: r.failedFiles,
      rollbackLogFiles: r.rollbackLogFiles,
      metadataTable: desc,
      warnings,
    };
  });
}

/** The plan of rollback `rb` as written (read back after the run). */
async function pendingPlanOf(t: Table, rb: string): Promise<RollbackPlan | undefined> {
  const tl = await (await reopen(t)).timeline();
  const i = tl.find(rb).find((x) => x.action === 'rollback');
  if (!i?.files.REQUESTED) return undefined;
  return decodeRollbackPlan(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED.path) });
}
