// Rolling back one instant of one table (data table or metadata table) as Hudi's rollback action
// does (format-services-write.md §3, format-timeline.md §6.3–6.4): reuse a pending rollback that
// targets it or plan one (marker-based while the target's markers exist, listing-based otherwise)
// into `<rb>.rollback.requested`; inflight; un-publish a completed target; delete the files the plan
// names (MOR table version 6: append rollback command blocks to log files of older slices instead);
// then, in 1.x order: the caller's metadata-table update, the target's pending files, the completed
// `<rb>[_<ct>].rollback`, the marker directories. Call with the table lock held.
import { StorageError, TblError } from '../errors/index.ts';
import { formatLogFileName, listPartitions, parseBaseFileName, parseLogFileName, UNKNOWN_WRITE_TOKEN } from '../fs-view/index.ts';
import { encodeRollbackBlock, writeLogFile } from '../logfile/index.ts';
import {
  decodeCommitMetadata,
  decodeRollbackPlan,
  encodeRollbackMetadata,
  encodeRollbackPlan,
  type CommitMetadata,
  type InstantInfo,
  type RollbackMetadata,
  type RollbackPartitionMetadata,
  type RollbackPlan,
  type RollbackRequest,
} from '../metadata/index.ts';
import { resolveTableEntry } from '../storage/confine.ts';
import type { Table } from '../table/index.ts';
import { loadActiveTimeline, type Action, type Instant, type Timeline } from '../timeline/index.ts';
import {
  completeInstant,
  createRequested,
  deleteInstantFile,
  newInstantTime,
  revertCompletedToInflight,
  timesOnTimeline,
  transitionToInflight,
} from '../timeline/writer.ts';
import { baseName, joinPath, parentPath } from '../util/index.ts';
import { heartbeatPath } from './heartbeat.ts';
import { createMarker, deleteMarkerDir, listMarkers } from './markers.ts';

/** tblcli's own in-progress create files (Storage.writeNew on local and WebHDFS). */
export const TEMP_PREFIX = '.tblcli-tmp-';

export interface RollbackOptions {
  now?: () => Date;
  clockSkewMs?: number;
  /** called between file operations, so the table lock held by the caller does not expire */
  keepAlive?: () => Promise<void>;
  /** test hook: named points of the rollback (crash tests kill the process there) */
  onPoint?: (point: string) => void | Promise<void>;
  /** hoodie.rollback.using.markers (default true): plan from the target's markers when it has them */
  useMarkers?: boolean;
  /**
   * 'delete': the target's requested and inflight files go too (rollback of a write, deleteInstants);
   * 'keep-requested': the plan stays for a retry with the same time and only the inflight file is
   * deleted, after the rollback completes (revertInstantFromInflightToRequested of table services)
   */
  targetFiles: 'delete' | 'keep-requested';
  /** part of a restore: whole compaction slices go, and no completed rollback file is published */
  restore?: boolean;
  /** the rollback's instant time when the caller fixes it (the MDT follows the data table's) */
  rollbackTime?: string;
  /** runs before the target's files go and the rollback completes: the metadata-table update */
  beforeComplete?: (rb: string, metadata: RollbackMetadata) => Promise<void>;
  /** tblcli temp files older than this (ms) in the target's partitions count as its leftovers (default 120 s) */
  tempFileAgeMs?: number;
}

export interface RollbackResult {
  /** the instant rolled back */
  instant: string;
  rollbackInstant: string;
  /** layout 2; undefined for a restore's unpublished rollback */
  rollbackCompletionTime?: string;
  /** a pending rollback left by an earlier attempt was re-executed */
  reused: boolean;
  deletedFiles: string[];
  failedFiles: string[];
  /** v6 MOR: log files holding the rollback command blocks, path → size */
  rollbackLogFiles: Record<string, number>;
  metadata: RollbackMetadata;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The action a rollback plan names for an instant in its current state. */
export function rollbackActionOf(i: Instant): Action {
  return i.state === 'COMPLETED' ? i.action : i.effectiveAction;
}

/** The action of the instant's pending files (what a completed one reverts to). */
export function pendingActionOf(i: Instant): Action {
  return i.stateActions.REQUESTED ?? i.stateActions.INFLIGHT ?? i.action;
}

/** A pending rollback whose plan targets `instant` (getPendingRollbackInfo); an unreadable requested plan is reported. */
export async function pendingRollbackOf(t: Table, tl: Timeline, instant: string): Promise<{ time: string; plan: RollbackPlan; inflight: boolean } | undefined> {
  for (const i of tl.pending()) {
    if (i.action !== 'rollback' || !i.files.REQUESTED) continue;
    const plan = decodeRollbackPlan(await tl.read(i, 'REQUESTED', false), { path: t.storage.uri(i.files.REQUESTED.path) });
    if (plan.instantToRollback?.commitTime === instant) return { time: i.requestedTime, plan, inflight: i.state === 'INFLIGHT' };
  }
  return undefined;
}

/** Absolute storage path written into plans: no scheme (as Hudi's listing-based plans strip it). */
function planPath(path: string): string {
  return path;
}

function deleteRequest(partition: string, path: string): RollbackRequest {
  return { partitionPath: partition, fileId: '', latestBaseInstant: '', filesToBeDeleted: [planPath(path)], logBlocksToBeDeleted: {} };
}

function partitionDir(t: Table, partition: string): string {
  return partition === '' ? t.basePath : joinPath(t.basePath, partition);
}

async function commitMetadataOf(t: Table, tl: Timeline, i: Instant): Promise<CommitMetadata | undefined> {
  const state = i.state === 'COMPLETED' ? 'COMPLETED' : i.files.INFLIGHT ? 'INFLIGHT' : undefined;
  if (!state) return undefined;
  const bytes = await tl.read(i, state, false);
  if (bytes.length === 0) return undefined;
  return decodeCommitMetadata(bytes, { path: t.storage.uri(i.files[state]!.path) });
}

/** MarkerBasedRollbackStrategy: one request per marked file (v6 MOR log appends become command-block requests). */
async function markerRequests(t: Table, instant: string): Promise<RollbackRequest[] | undefined> {
  const markers = await listMarkers(t.storage, t.basePath, instant);
  if (markers.length === 0) return undefined;
  const out: RollbackRequest[] = [];
  for (const m of markers) {
    const path = resolveTableEntry(t.storage, t.basePath, m.partition === '' ? m.fileName : `${m.partition}/${m.fileName}`, { instant, source: 'marker' });
    const log = parseLogFileName(m.fileName);
    if (m.ioType !== 'APPEND' || !log || t.config.version >= 8 || log.instant === instant) {
      out.push(deleteRequest(m.partition, path));
      continue;
    }
    let size = 1;
    try {
      size = Math.max(1, (await t.storage.stat(path)).size);
    } catch (e) {
      if (!(e instanceof StorageError && e.code === 'not-found')) throw e;
    }
    out.push({ partitionPath: m.partition, fileId: log.fileId, latestBaseInstant: log.instant, filesToBeDeleted: [], logBlocksToBeDeleted: { [planPath(path)]: size } });
  }
  return out;
}

/** ListingBasedRollbackStrategy.getRollbackRequests, per partition of the table. */
async function listingRequests(t: Table, tl: Timeline, target: Instant, restore: boolean): Promise<RollbackRequest[]> {
  const mor = t.config.type === 'MERGE_ON_READ';
  const time = target.requestedTime;
  const meta = WRITES.has(target.effectiveAction) ? await commitMetadataOf(t, tl, target) : undefined;
  const compaction = target.effectiveAction === 'compaction' || meta?.operationType === 'COMPACT';
  const ext = t.config.baseFileFormat.toLowerCase();
  const out: RollbackRequest[] = [];
  for (const { partition, files } of await listPartitions(t.storage, t.basePath)) {
    const ofInstant = files.filter((f) => {
      const b = parseBaseFileName(f.name);
      if (b) return b.instant === time && b.ext === ext;
      const l = parseLogFileName(f.name);
      return l !== undefined && l.ext === 'log' && l.instant === time;
    });
    if (mor && compaction && !restore) {
      for (const f of ofInstant) if (parseBaseFileName(f.name)) out.push(deleteRequest(partition, f.path));
      continue;
    }
    for (const f of ofInstant) out.push(deleteRequest(partition, f.path));
    // v6 delta commits appended to log files of older slices: command blocks (getRollbackRequestToAppend)
    if (mor && t.config.version < 8 && target.effectiveAction === 'deltacommit' && meta) {
      for (const s of meta.partitionToWriteStats?.[partition] ?? []) {
        if (!s.fileId || !s.prevCommit || s.prevCommit === 'null' || !s.path) continue;
        const log = parseLogFileName(baseName(s.path));
        if (!log || !(log.instant < time)) continue;
        const full = joinPath(t.basePath, s.path);
        out.push({ partitionPath: partition, fileId: s.fileId, latestBaseInstant: log.instant, filesToBeDeleted: [], logBlocksToBeDeleted: { [planPath(full)]: s.totalWriteBytes > 0 ? s.totalWriteBytes : 1 } });
      }
    }
  }
  return out;
}

const WRITES = new Set<Action>(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'logcompaction']);

/** tblcli's leftover partial creates in the directories a plan touches (only ones older than the expiry). */
async function tempLeftovers(t: Table, requests: RollbackRequest[], maxAgeMs: number, now: number): Promise<RollbackRequest[]> {
  const dirs = new Map<string, string>();
  for (const r of requests) for (const f of [...r.filesToBeDeleted, ...Object.keys(r.logBlocksToBeDeleted ?? {})]) dirs.set(parentPath(f), r.partitionPath);
  const out: RollbackRequest[] = [];
  for (const [dir, partition] of dirs) {
    if (!(await t.storage.exists(dir))) continue;
    for (const f of await t.storage.list(dir)) if (!f.isDirectory && f.name.startsWith(TEMP_PREFIX) && now - f.mtimeMs > maxAgeMs) out.push(deleteRequest(partition, f.path));
  }
  return out;
}

/**
 * The rollback plan for `target` (BaseRollbackPlanActionExecutor): no requests for a target that is
 * only requested; marker-based while it is pending and has markers; listing-based otherwise.
 */
export async function planRollback(t: Table, tl: Timeline, target: Instant, opts: Pick<RollbackOptions, 'useMarkers' | 'restore' | 'tempFileAgeMs' | 'now'> = {}): Promise<RollbackPlan> {
  let requests: RollbackRequest[] = [];
  if (target.state !== 'REQUESTED') {
    const marked = opts.useMarkers !== false && target.state !== 'COMPLETED' ? await markerRequests(t, target.requestedTime) : undefined;
    requests = marked ?? (await listingRequests(t, tl, target, opts.restore === true));
    if (marked) requests.push(...(await tempLeftovers(t, requests, opts.tempFileAgeMs ?? 120_000, (opts.now ?? (() => new Date()))().getTime())));
  }
  const seen = new Set<string>();
  const unique = requests.filter((r) => {
    const k = JSON.stringify([r.partitionPath, r.filesToBeDeleted, r.logBlocksToBeDeleted]);
    return !seen.has(k) && (seen.add(k), true);
  });
  return { instantToRollback: { commitTime: target.requestedTime, action: rollbackActionOf(target) }, RollbackRequests: unique, version: 1 };
}

/** Every path the plan will touch, resolved inside the table (throws a one-line error naming the entry). */
export function resolvePlanPaths(t: Table, rb: string, plan: RollbackPlan): { deletes: Map<RollbackRequest, string[]>; appends: Map<RollbackRequest, string[]> } {
  const ctx = { instant: rb, source: 'rollback plan' };
  const deletes = new Map<RollbackRequest, string[]>();
  const appends = new Map<RollbackRequest, string[]>();
  for (const r of plan.RollbackRequests ?? []) {
    const rel = { ...ctx, relativeTo: partitionDir(t, r.partitionPath) };
    deletes.set(r, r.filesToBeDeleted.map((f) => resolveTableEntry(t.storage, t.basePath, f, rel)));
    appends.set(r, Object.keys(r.logBlocksToBeDeleted ?? {}).map((f) => resolveTableEntry(t.storage, t.basePath, f, rel)));
  }
  return { deletes, appends };
}

/** Next log version of a file slice in `dir` (storages without append roll over to a new version). */
async function nextLogVersion(t: Table, dir: string, fileId: string, baseInstant: string): Promise<number> {
  let max = 0;
  for (const f of await t.storage.list(dir)) {
    const l = parseLogFileName(f.name);
    if (l && l.fileId === fileId && l.instant === baseInstant && l.ext === 'log' && !l.cdcSuffix) max = Math.max(max, l.version);
  }
  return max + 1;
}

/**
 * Appends (as a new log version) one rollback command block per file group of the request, APPEND
 * marker under the rollback's own marker dir first. A retry reuses the file an earlier attempt wrote.
 */
async function appendRollbackBlock(t: Table, rb: string, target: string, r: RollbackRequest): Promise<{ path: string; size: number }> {
  const partition = r.partitionPath;
  const dir = partitionDir(t, partition);
  const fileId = r.fileId ?? '';
  const base = r.latestBaseInstant ?? '';
  for (const m of await listMarkers(t.storage, t.basePath, rb)) {
    const l = parseLogFileName(m.fileName);
    if (m.partition !== partition || m.ioType !== 'APPEND' || !l || l.fileId !== fileId || l.instant !== base) continue;
    const path = joinPath(dir, m.fileName);
    try {
      return { path, size: (await t.storage.stat(path)).size };
    } catch (e) {
      if (!(e instanceof StorageError && e.code === 'not-found')) throw e;
    }
  }
  const name = formatLogFileName({ fileId, instant: base, ext: 'log', version: await nextLogVersion(t, dir, fileId, base), writeToken: UNKNOWN_WRITE_TOKEN });
  await createMarker(t.storage, t.basePath, rb, { partition, fileName: name, ioType: 'APPEND' });
  const path = joinPath(dir, name);
  const size = await writeLogFile(t.storage, path, [encodeRollbackBlock({ instantTime: rb, targetInstantTime: target })]);
  return { path, size };
}

/** Runs the rollback of `targetTime` (the instant as on `tl`, or gone when a pending rollback is re-executed). */
export async function rollbackInstant(t: Table, targetTime: string, opts: RollbackOptions): Promise<RollbackResult> {
  const started = Date.now();
  const now = opts.now ?? (() => new Date());
  const src = t.timelineSource;
  let tl = await t.timeline();
  const target = tl.find(targetTime).find((i) => WRITES.has(i.effectiveAction) || WRITES.has(i.action));
  const pending = await pendingRollbackOf(t, tl, targetTime);
  if (!target && !pending) throw new TblError('not-found', `instant ${targetTime} not found in ${t.uri}`, { instant: targetTime, path: t.uri });

  let rb: string;
  let plan: RollbackPlan;
  if (pending) {
    rb = pending.time;
    plan = pending.plan;
    resolvePlanPaths(t, rb, plan);
  } else {
    rb = opts.rollbackTime ?? newInstantTime(timesOnTimeline(tl), t.config.timezone, now());
    plan = await planRollback(t, tl, target!, opts);
    resolvePlanPaths(t, rb, plan); // before the first write
    if (!opts.rollbackTime) await sleep(opts.clockSkewMs ?? 200);
    await createRequested(src, rb, 'rollback', encodeRollbackPlan(plan));
    await opts.onPoint?.('rollback-requested');
  }
  if (!pending?.inflight) await transitionToInflight(src, rb, 'rollback');
  await opts.onPoint?.('rollback-inflight');
  const info: InstantInfo = plan.instantToRollback ?? { commitTime: targetTime, action: target ? rollbackActionOf(target) : 'commit' };
  if (target?.state === 'COMPLETED') await revertCompletedToInflight(src, target, pendingActionOf(target));

  const { deletes, appends } = resolvePlanPaths(t, rb, plan);
  const byPartition = new Map<string, RollbackPartitionMetadata>();
  const deleted: string[] = [];
  const failed: string[] = [];
  const rollbackLogFiles: Record<string, number> = {};
  for (const r of plan.RollbackRequests ?? []) {
    const pm = byPartition.get(r.partitionPath) ?? { partitionPath: r.partitionPath, successDeleteFiles: [], failedDeleteFiles: [], rollbackLogFiles: {}, logFilesFromFailedCommit: {} };
    byPartition.set(r.partitionPath, pm);
    const paths = deletes.get(r)!;
    for (let k = 0; k < paths.length; k++) {
      await opts.keepAlive?.();
      // BaseRollbackHelper.deleteFiles: FileSystem.delete's result (false for a file already gone)
      const ok = await t.storage.delete(paths[k]!);
      (ok ? pm.successDeleteFiles : pm.failedDeleteFiles).push(r.filesToBeDeleted[k]!);
      (ok ? deleted : failed).push(r.filesToBeDeleted[k]!);
    }
    if (Object.keys(r.logBlocksToBeDeleted ?? {}).length > 0 && appends.get(r)!.length > 0) {
      await opts.keepAlive?.();
      const w = await appendRollbackBlock(t, rb, info.commitTime, r);
      pm.rollbackLogFiles![planPath(w.path)] = w.size;
      rollbackLogFiles[planPath(w.path)] = w.size;
      Object.assign(pm.logFilesFromFailedCommit!, r.logBlocksToBeDeleted);
    }
  }
  await opts.onPoint?.('rollback-files-deleted');
  const metadata: RollbackMetadata = {
    startRollbackTime: rb,
    timeTakenInMillis: Date.now() - started,
    totalFilesDeleted: deleted.length,
    commitsRollback: [info.commitTime],
    partitionMetadata: Object.fromEntries(byPartition),
    version: 1,
    instantsRollback: [info],
  };
  await opts.beforeComplete?.(rb, metadata);
  await opts.onPoint?.('rollback-before-complete');

  const pendingAction = target ? pendingActionOf(target) : (info.action as Action);
  if (opts.targetFiles === 'delete') {
    await deleteInstantFile(src, targetTime, pendingAction, 'INFLIGHT');
    await deleteInstantFile(src, targetTime, pendingAction, 'REQUESTED');
  }
  let ct: string | undefined;
  if (!opts.restore) {
    if (src.layout === 2) {
      tl = await loadActiveTimeline(src);
      ct = newInstantTime([...timesOnTimeline(tl), rb], t.config.timezone, now());
      await sleep(opts.clockSkewMs ?? 200);
    }
    await completeInstant(src, rb, 'rollback', 'rollback', encodeRollbackMetadata(metadata), ct);
  }
  await opts.onPoint?.('rollback-completed');
  await deleteMarkerDir(t.storage, t.basePath, targetTime);
  if (t.config.type === 'MERGE_ON_READ' && t.config.version < 8) await deleteMarkerDir(t.storage, t.basePath, rb);
  if (opts.targetFiles === 'keep-requested') await deleteInstantFile(src, targetTime, pendingAction, 'INFLIGHT');
  await t.storage.delete(heartbeatPath(t.metaPath, targetTime));
  return { instant: targetTime, rollbackInstant: rb, rollbackCompletionTime: ct, reused: pending !== undefined, deletedFiles: deleted, failedFiles: failed, rollbackLogFiles, metadata };
}

