// `clean schedule`: read the timeline facts the planner needs, list the partitions it must scan, plan
// (src/services/clean/plan.ts), then — under the table lock, on a fresh timeline that still agrees
// with what was planned — a new instant time and `<t>.clean.requested` (Avro HoodieCleanerPlan v2).
// Planning itself runs without the lock, as Hudi 1.x does (format-services-write.md §1.6): a live
// writer is never kept waiting for a listing.
import { StorageError, TblError } from '../../errors/index.ts';
import { assembleView, forEachPartition, parseBaseFileName, parseLogFileName, type ListedPartition } from '../../fs-view/index.ts';
import {
  decodeCleanMetadata,
  decodeCommitMetadata,
  decodeCompactionPlan,
  decodeRequestedReplaceMetadata,
  decodeSavepointMetadata,
  encodeCleanerPlan,
  type CleanerPlan,
} from '../../metadata/index.ts';
import { mapLimit, type Storage } from '../../storage/index.ts';
import { viewTimelineOf, type Table } from '../../table/index.ts';
import { COMMIT_ACTIONS, type Instant, type Timeline } from '../../timeline/index.ts';
import { createRequested, newInstantTime, timesOnTimeline } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { isHeartbeatExpired } from '../../write/heartbeat.ts';
import type { RollbackResult } from '../../write/rollback.ts';
import { expiryOf, metadataTableFor, nextInstantTime, reopen, rollbackWithMetadataTable, underLock, type ServiceOptions } from '../transaction.ts';
import { prepareMetadataTable } from '../mdt-sync.ts';
import type { CleanConfig } from './config.ts';
import {
  buildCleanerPlan,
  commitsSinceLastClean,
  earliestCommitToRetain,
  planPartition,
  scanScope,
  type CleanPlanResult,
  type CleanTimeline,
  type InstantRef,
  type PartitionPlan,
  type TableFacts,
} from './plan.ts';

export interface CleanOptions extends ServiceOptions {
  config: CleanConfig;
  /** plan only; write nothing (no rollback of failed writes either); every file's reason is worded */
  dryRun?: boolean;
  /** read the size of every file the plan deletes (dry runs always do) */
  wantBytes?: boolean;
}

export interface ScheduleCleanResult {
  /** the new clean instant (dry run: the time it would get) */
  instant?: string;
  plan?: CleanerPlan;
  planned?: CleanPlanResult;
  /** why nothing was scheduled */
  reason?: string;
  /** LAZY failed-writes policy: the expired writes rolled back first */
  rolledBack: RollbackResult[];
  warnings: string[];
}

/** getCommitsAndCompactionTimeline (1.x: clustering too). */
const COMMITS_AND_COMPACTION = new Set(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction']);

function groupKey(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

function where(i: Instant, state: 'COMPLETED' | 'REQUESTED', t: Table): { path: string } {
  return { path: t.storage.uri(i.files[state]!.path) };
}

/** The timeline facts of plan.ts: savepoints, the last clean, pending (log) compaction operations. */
export async function loadCleanTimeline(t: Table, tl: Timeline): Promise<CleanTimeline & { warnings: string[] }> {
  const warnings: string[] = [];
  const commitsAndCompaction = tl.instants
    .filter((i) => COMMITS_AND_COMPACTION.has(i.action))
    .map((i) => ({ requestedTime: i.requestedTime, action: i.action as string, completed: i.state === 'COMPLETED' }));
  const completedCommits = tl.completedCommits().map((i) => ({ requestedTime: i.requestedTime, action: i.action as string }));
  const commitsTimelineStart = tl.instants.find((i) => COMMIT_ACTIONS.has(i.action))?.requestedTime;

  let lastClean: CleanTimeline['lastClean'];
  const cleans = tl.completed().filter((i) => i.action === 'clean');
  const lc = cleans[cleans.length - 1];
  if (lc) {
    if (lc.files.COMPLETED!.size === 0) {
      warnings.push(`the last clean ${lc.requestedTime} has an empty completed file; planning as if there were no earlier clean`);
    } else {
      const m = decodeCleanMetadata(await tl.read(lc, 'COMPLETED'), where(lc, 'COMPLETED', t));
      lastClean = {
        earliestCommitToRetain: m.earliestCommitToRetain ?? '',
        lastCompletedCommitTimestamp: m.lastCompletedCommitTimestamp ?? '',
        savepointedTimestamps: (m.extraMetadata?.savepointed_timestamps ?? '').split(',').filter((x) => x !== ''),
      };
    }
  }

  const sps = tl.completed().filter((i) => i.action === 'savepoint');
  const savepoints = await tl.mapRead(sps, 'COMPLETED', (b, i) => {
    const m = decodeSavepointMetadata(b, where(i, 'COMPLETED', t));
    return { time: i.requestedTime, dataFiles: Object.values(m.partitionMetadata ?? {}).flatMap((p) => p.savepointDataFile ?? []) };
  });

  const pendingCompactionOps = new Map<string, string>();
  const plans = tl.pending().filter((i) => (i.effectiveAction === 'compaction' || i.effectiveAction === 'logcompaction') && i.files.REQUESTED);
  const ops = await tl.mapRead(plans, 'REQUESTED', (b, i) => decodeCompactionPlan(b, where(i, 'REQUESTED', t)).operations ?? []);
  for (const list of ops) for (const o of list) pendingCompactionOps.set(groupKey(o.partitionPath ?? '', o.fileId ?? ''), o.baseInstantTime ?? '');
  return { commitsAndCompaction, completedCommits, commitsTimelineStart, lastClean, savepoints, pendingCompactionOps, warnings };
}

/** The partitions a completed instant wrote (getPartitionsForInstants). */
async function partitionsOf(t: Table, tl: Timeline, instants: readonly InstantRef[]): Promise<Set<string>> {
  const found = instants.flatMap((r) => tl.find(r.requestedTime).filter((i) => i.state === 'COMPLETED' && i.action === r.action));
  const lists = await tl.mapRead(found, 'COMPLETED', (b, i) => {
    const m = decodeCommitMetadata(b, where(i, 'COMPLETED', t));
    const keys = Object.keys(m.partitionToWriteStats ?? {});
    if (i.action === 'replacecommit') keys.push(...Object.keys(m.partitionToReplaceFileIds ?? {}));
    return keys;
  });
  return new Set(lists.flat());
}

/** The path string Hudi holds for a file (Hadoop Path.toString: `file:/…` locally, the URI otherwise). */
export function hudiPathString(storage: Storage, path: string): string {
  return storage.scheme === 'file' ? `file:${path}` : storage.uri(path);
}

function tableFacts(t: Table): TableFacts {
  return { version: t.config.version, partitioned: t.config.partitionFields.length > 0, timezone: t.config.timezone };
}

/** Everything planned from one read of the table, and what must still hold when the plan is written. */
interface Planned {
  result: CleanPlanResult;
  /** completed instants the plan relied on, and the savepoints it protected */
  guard: { completed: Set<string>; savepoints: string; pendingCleans: string };
  warnings: string[];
}

function guardOf(tl: Timeline): Planned['guard'] {
  const completed = new Set(tl.completedCommits().map((i) => i.requestedTime));
  const savepoints = tl.instants.filter((i) => i.action === 'savepoint').map((i) => `${i.requestedTime}:${i.state}`).join(',');
  const pendingCleans = tl.pending().filter((i) => i.action === 'clean').map((i) => i.requestedTime).join(',');
  return { completed, savepoints, pendingCleans };
}

/** Plans a clean of `t` as it is now (no lock, nothing written). */
export async function planCleanOf(t: Table, cfg: CleanConfig, now: Date, o: { sizes?: boolean; explain?: boolean } = {}): Promise<Planned> {
  const tl = await t.timeline();
  const facts = tableFacts(t);
  const ct = await loadCleanTimeline(t, tl);
  const guard = guardOf(tl);
  const empty = (reason: string): Planned => ({ result: { partitions: [], files: 0, reason }, guard, warnings: ct.warnings });
  const pendingClean = tl.pending().find((i) => i.action === 'clean');
  if (pendingClean) {
    // hoodie.clean.multiple.enabled=false (the newest default): a pending plan still lists files a new one would list again
    return empty(`clean ${pendingClean.requestedTime} is pending; \`clean run\` finishes it first`);
  }
  const since = commitsSinceLastClean(ct);
  if (since < cfg.maxCommits) {
    return empty(`${since} completed commit(s) since the last clean, fewer than hoodie.clean.trigger.max.commits=${cfg.maxCommits}`);
  }
  const ectr = earliestCommitToRetain(ct, cfg, now, facts.timezone);
  const scope = scanScope(ct, cfg, ectr, facts);
  if (scope.kind === 'none') return empty(`nothing to clean: ${scope.why}`);
  const vt = await viewTimelineOf(t);
  const replacedIds = new Set(vt.replacedFileGroups.map((r) => groupKey(r.partition, r.fileId)));
  const savepointed = new Set(ct.savepoints.flatMap((s) => s.dataFiles));
  // one partition at a time: its listing and file-system view are dropped once it is planned
  const planOne = (lp: ListedPartition, listed: boolean): PartitionPlan => {
    const p = lp.partition;
    const view = assembleView([lp], vt, { lazySizes: true });
    // hasPendingFiles: only a partition without live file groups can go, so only then look at every file
    const onlyReplaced =
      listed &&
      p !== '' &&
      view.allFileGroups(p).length === 0 &&
      lp.files.every((f) => {
        const id = parseBaseFileName(f.name)?.fileId ?? parseLogFileName(f.name)?.fileId;
        return id === undefined || replacedIds.has(groupKey(p, id));
      });
    return planPartition(view, p, {
      cfg,
      ectr,
      completedCommitCount: ct.completedCommits.length,
      savepointed,
      pendingCompactionOps: ct.pendingCompactionOps,
      onlyReplacedFiles: onlyReplaced,
      sizes: o.sizes,
      explain: o.explain,
    });
  };
  const lazy = { lazyStatus: true };
  const planned: PartitionPlan[] = [];
  if (scope.kind === 'all') {
    await forEachPartition(t.storage, t.basePath, (lp) => void planned.push(planOne(lp, true)), 16, lazy);
  } else {
    const names = [...(await partitionsOf(t, tl, scope.instants))].sort();
    await mapLimit(names, 16, async (p) => {
      let files;
      try {
        files = (await t.storage.list(p === '' ? t.basePath : joinPath(t.basePath, p), lazy)).filter((f) => !f.isDirectory);
      } catch (e) {
        // a partition an instant wrote that is gone (deleted by an earlier clean): nothing to plan, never deleted
        if (e instanceof StorageError && (e.code === 'not-found' || e.code === 'not-a-directory')) return void planned.push(planOne({ partition: p, files: [] }, false));
        throw e;
      }
      planned.push(planOne({ partition: p, files }, true));
    });
  }
  planned.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
  const result = buildCleanerPlan({
    policy: cfg.policy,
    ectr,
    lastCompletedCommitTimestamp: ct.completedCommits[ct.completedCommits.length - 1]?.requestedTime ?? '',
    partitions: planned,
    savepointTimes: ct.savepoints.map((s) => s.time),
    partitioned: facts.partitioned,
    pathString: (p) => hudiPathString(t.storage, p),
    scope: scope.why,
  });
  return { result, guard, warnings: ct.warnings };
}

/** Why the table changed under the plan in a way that matters, or undefined. */
function changedSince(guard: Planned['guard'], tl: Timeline): string | undefined {
  const now = guardOf(tl);
  if (now.savepoints !== guard.savepoints) return 'the savepoints changed';
  if (now.pendingCleans !== guard.pendingCleans) return 'another clean was scheduled';
  for (const c of guard.completed) if (!now.completed.has(c)) return `completed instant ${c} was rolled back or archived`;
  return undefined;
}

/** v6 (0.x) clustering is a replacecommit whose requested file holds a clustering plan. */
async function isClustering(t: Table, tl: Timeline, i: Instant): Promise<boolean> {
  if (i.effectiveAction === 'clustering') return true;
  if (i.effectiveAction !== 'replacecommit' || !i.files.REQUESTED || i.files.REQUESTED.size === 0) return false;
  try {
    const m = decodeRequestedReplaceMetadata(await tl.read(i, 'REQUESTED'), where(i, 'REQUESTED', t));
    return (m.operationType ?? '').toUpperCase() === 'CLUSTER' || m.clusteringPlan !== null;
  } catch {
    return false;
  }
}

/**
 * LAZY failed-writes policy (CleanerUtils.rollbackFailedWrites, format-services-write.md §1.7): under
 * the lock, roll back the pending writes (not compaction, log compaction or clustering) whose heartbeat
 * expired — a missing heartbeat counts as expired — newest first, each with the metadata table kept in step.
 */
export async function rollbackFailedWrites(table: Table, opts: ServiceOptions): Promise<RollbackResult[]> {
  const expiry = expiryOf(opts);
  return underLock(table, opts, async (t, lock) => {
    const tl = await t.timeline();
    // heartbeats are file mtimes: compared with the real clock, as the compaction claim does
    const now = Date.now();
    const candidates: Instant[] = [];
    for (const i of tl.pending()) {
      if (!['commit', 'deltacommit', 'replacecommit'].includes(i.effectiveAction)) continue;
      if (await isClustering(t, tl, i)) continue;
      if (await isHeartbeatExpired(t.storage, t.metaPath, i.requestedTime, expiry, now)) candidates.push(i);
    }
    if (candidates.length === 0) return [];
    const { table: mt, mdt } = await metadataTableFor(t, opts, 'rollback');
    const out: RollbackResult[] = [];
    for (const i of candidates.reverse()) {
      const fresh = await reopen(mt);
      await lock.keepAlive();
      out.push(await rollbackWithMetadataTable(fresh, mdt, i.requestedTime, { ...opts, targetFiles: 'delete', keepAlive: () => lock.keepAlive() }));
    }
    return out;
  });
}

/**
 * Schedules a clean: LAZY rollback of failed writes, the plan, then under the lock (after checking
 * the timeline still agrees) `<t>.clean.requested`. No plan is written when it would delete nothing.
 */
export async function scheduleClean(table: Table, opts: CleanOptions): Promise<ScheduleCleanResult> {
  const rolledBack = !opts.dryRun && opts.config.failedWritesPolicy === 'LAZY' ? await rollbackFailedWrites(table, opts) : [];
  const now = () => (opts.now ?? (() => new Date()))();
  for (let attempt = 0; ; attempt++) {
    const t = await reopen(table);
    const p = await planCleanOf(t, opts.config, now(), { sizes: opts.wantBytes || opts.dryRun, explain: opts.dryRun });
    const plan = p.result.plan;
    if (!plan) return { reason: p.result.reason, planned: p.result, rolledBack, warnings: p.warnings };
    if (opts.dryRun) {
      // the time it would get now (nothing is written, so no lock and no clock-skew wait)
      const instant = newInstantTime(timesOnTimeline(await t.timeline()), t.config.timezone, now());
      return { instant, plan, planned: p.result, rolledBack, warnings: p.warnings };
    }
    const written = await underLock(t, opts, async (locked) => {
      const tl = await locked.timeline();
      const changed = changedSince(p.guard, tl);
      if (changed) return { changed };
      // the MDT mode is applied now, before the first timeline write (update: checked at run time)
      if ((opts.metadataTable ?? 'update') !== 'update') await metadataTableFor(locked, opts, 'clean');
      else await prepareMetadataTable(locked, 'update', 'clean');
      const instant = await nextInstantTime(locked, tl, opts);
      await createRequested(locked.timelineSource, instant, 'clean', encodeCleanerPlan(plan));
      return { instant };
    });
    if ('instant' in written) {
      await opts.onPoint?.('after-schedule');
      return { instant: written.instant, plan, planned: p.result, rolledBack, warnings: p.warnings };
    }
    if (attempt >= 2) throw new TblError('conflict', `${table.uri}: the timeline kept changing while the clean was planned (${written.changed}); retry`, { path: table.uri });
  }
}
