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
import { TEMP_PREFIX } from '../storage/index.ts';
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

/** Files to delete are written as absolute paths without a scheme (Hudi's listing-based plans strip it). */
function planPath(path: string): string {
  return path;
}

/**
 * A path as Hadoop's Path.toString() prints a qualified one (`file:/t/x` on the local file system,
 * the storage's URI otherwise): the form of Hudi's logBlocksToBeDeleted keys and rollbackLogFiles.
 */
export function hadoopUri(t: Pick<Table, 'storage'>, path: string): string {
  return t.storage.scheme === 'file' ? `file:${path}` : t.storage.uri(path);
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

async function sizeOrUndefined(t: Table, path: string): Promise<number | undefined> {
  try {
    return (await t.storage.stat(path)).size;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'not-found') return undefined;
    throw e;
  }
}

/** The latest log file of a slice (FSUtils.getLatestLogFile), for APPEND markers from before HUDI-1517. */
async function latestLogFile(t: Table, dir: string, fileId: string, baseInstant: string): Promise<{ name: string; path: string; size: number } | undefined> {
  let best: { name: string; path: string; size: number; version: number; token: string } | undefined;
  if (!(await t.storage.exists(dir))) return undefined;
  for (const f of await t.storage.list(dir)) {
    const l = parseLogFileName(f.name);
    if (!l || l.ext !== 'log' || l.fileId !== fileId || l.instant !== baseInstant || l.cdcSuffix) continue;
    const token = l.writeToken ?? '';
    if (!best || l.version > best.version || (l.version === best.version && token > best.token)) best = { name: f.name, path: f.path, size: f.size, version: l.version, token };
  }
  return best;
}

/**
 * MarkerBasedRollbackStrategy (1.x sources, per table version): CREATE/MERGE markers ⇒ the file is
 * deleted; APPEND markers ⇒ table version ≥ 8 the log file (named by the writing instant) is deleted,
 * version 6 a log file the target created is deleted and one of an older slice gets a rollback
 * command block (logBlocksToBeDeleted keyed by the bare file name, as the marker code writes it).
 */
async function markerRequests(t: Table, instant: string): Promise<RollbackRequest[] | undefined> {
  const markers = await listMarkers(t.storage, t.basePath, instant);
  if (markers.length === 0) return undefined;
  const v8 = t.config.version >= 8;
  const out: RollbackRequest[] = [];
  for (const m of markers) {
    const path = resolveTableEntry(t.storage, t.basePath, m.partition === '' ? m.fileName : `${m.partition}/${m.fileName}`, { instant, source: 'marker' });
    const base = parseBaseFileName(m.fileName);
    const log = parseLogFileName(m.fileName);
    const p = m.partition;
    if (m.ioType !== 'APPEND' || (!log && !base)) {
      // CREATE/MERGE: fileId and base instant of the file (v8+: the target's time)
      const fileId = base?.fileId ?? log?.fileId ?? '';
      out.push({ partitionPath: p, fileId, latestBaseInstant: v8 ? instant : base?.instant ?? log?.instant ?? '', filesToBeDeleted: [planPath(path)], logBlocksToBeDeleted: {} });
      continue;
    }
    if (v8) {
      // 1.x log files belong to one deltacommit: deleted (a later 1.x source plans them as logBlocksToBeDeleted
      // {path: 1} and deletes them the same way; filesToBeDeleted is read by every version)
      out.push({ partitionPath: p, fileId: log?.fileId ?? base!.fileId, latestBaseInstant: instant, filesToBeDeleted: [planPath(path)], logBlocksToBeDeleted: {} });
      continue;
    }
    if (!log) {
      // a phony base-file-name marker (before HUDI-1517): the slice's latest log file
      const latest = await latestLogFile(t, parentPath(path), base!.fileId, base!.instant);
      if (latest && base!.instant === instant) out.push(deleteRequest(p, latest.path));
      else out.push({ partitionPath: p, fileId: base!.fileId, latestBaseInstant: base!.instant, filesToBeDeleted: [], logBlocksToBeDeleted: latest ? { [hadoopUri(t, latest.path)]: latest.size } : {} });
      continue;
    }
    const size = await sizeOrUndefined(t, path);
    if (size !== undefined && log.instant === instant) {
      out.push(deleteRequest(p, path)); // the write created this file group
      continue;
    }
    // a marker whose file was never created (killed right after the marker) needs nothing
    out.push({ partitionPath: p, fileId: log.fileId, latestBaseInstant: log.instant, filesToBeDeleted: [], logBlocksToBeDeleted: size === undefined ? {} : { [m.fileName]: size } });
  }
  return v8 ? out : groupByFileGroup(out);
}

/**
 * RollbackUtils.groupRollbackRequestsBasedOnFileGroup (table version 6): per (partition, fileId) the
 * requests that delete files stay as they are and all log-block requests become one, so each file
 * group gets one rollback command block.
 */
export function groupByFileGroup(requests: RollbackRequest[]): RollbackRequest[] {
  const groups = new Map<string, RollbackRequest[]>();
  for (const r of requests) {
    const k = JSON.stringify([r.partitionPath ?? '', r.fileId ?? '']);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const out: RollbackRequest[] = [];
  for (const list of groups.values()) {
    const blocks: Record<string, number> = {};
    let withBlocks: RollbackRequest | undefined;
    for (const r of list) {
      const lb = r.logBlocksToBeDeleted ?? {};
      if (Object.keys(lb).length === 0) {
        out.push(r);
        continue;
      }
      if (r.filesToBeDeleted.length > 0) out.push({ ...r, logBlocksToBeDeleted: {} });
      Object.assign(blocks, lb);
      withBlocks ??= r;
    }
    if (withBlocks) out.push({ partitionPath: withBlocks.partitionPath ?? '', fileId: withBlocks.fileId, latestBaseInstant: list[0]!.latestBaseInstant, filesToBeDeleted: [], logBlocksToBeDeleted: blocks });
  }
  return out;
}

/** Per file group, the base instant of its latest slice at or before `time` (getLatestFileSlicesBeforeOrOn). */
function latestSliceBases(files: readonly { name: string }[], time: string, ext: string): Map<string, string> {
  const out = new Map<string, string>();
  const see = (fileId: string, instant: string) => {
    if (instant > time) return;
    const cur = out.get(fileId);
    if (cur === undefined || instant > cur) out.set(fileId, instant);
  };
  for (const f of files) {
    const b = parseBaseFileName(f.name);
    if (b && b.ext === ext) see(b.fileId, b.instant);
    const l = parseLogFileName(f.name);
    if (l && l.ext === 'log' && !l.cdcSuffix) see(l.fileId, l.instant);
  }
  return out;
}

/**
 * ListingBasedRollbackStrategy.getRollbackRequests, per partition of the table: the files named by
 * the target's time (base files; log files by their name's instant), only base files for the retry
 * of a compaction, the whole new slice for a compaction in a restore (v8+: every file sliced at or
 * after it), and for a v6 delta commit a rollback command block for each slice it appended to
 * (getRollbackRequestToAppendForVersionSix: from the completed or inflight write stats).
 */
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
    if (mor && compaction && t.config.version >= 8) {
      for (const f of slicedAtOrAfter(tl, files, time, ext)) out.push(deleteRequest(partition, f.path));
      continue;
    }
    for (const f of ofInstant) out.push(deleteRequest(partition, f.path));
    if (mor && t.config.version < 8 && target.effectiveAction === 'deltacommit' && meta?.partitionToWriteStats?.[partition]) {
      const bases = latestSliceBases(files, time, ext);
      for (const s of meta.partitionToWriteStats[partition] ?? []) {
        if (!s.prevCommit || s.prevCommit === 'null' || !s.fileId) continue;
        const base = bases.get(s.fileId);
        if (base === undefined || !(base < time)) continue;
        // Hudi keys the block request by the stat's full path; an inflight workload stat has none (the base path then)
        const full = s.path ? joinPath(t.basePath, s.path) : t.basePath;
        out.push({ partitionPath: partition, fileId: s.fileId, latestBaseInstant: base, filesToBeDeleted: [], logBlocksToBeDeleted: { [hadoopUri(t, full)]: s.totalWriteBytes > 0 ? s.totalWriteBytes : 1 } });
      }
    }
  }
  return out;
}

/** listAllFilesSinceCommit (v8+ restore of a compaction): base files at or after it, log files of delta commits completed at or after it (or pending). */
function slicedAtOrAfter<F extends { name: string }>(tl: Timeline, files: readonly F[], time: string, ext: string): F[] {
  return files.filter((f) => {
    const b = parseBaseFileName(f.name);
    if (b) return b.ext === ext && b.instant >= time;
    const l = parseLogFileName(f.name);
    if (!l || l.ext !== 'log') return false;
    if (l.instant >= time) return true;
    const i = tl.find(l.instant).find((x) => x.state === 'COMPLETED');
    return i !== undefined && (i.completionTime ?? i.requestedTime) >= time;
  });
}

const WRITES = new Set<Action>(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'logcompaction']);

/**
 * The file a logBlocksToBeDeleted key names (a full URI, an absolute path, or a bare name in the
 * request's partition), or undefined for a key that names no file: Hudi plans the base path when an
 * inflight write stat has no path, and skips such keys in the rollback's stats (validLogBlocksToDelete).
 */
function logBlockFile(t: Table, rb: string, r: RollbackRequest, key: string): string | undefined {
  const dir = partitionDir(t, r.partitionPath);
  for (const d of [dir, t.basePath]) if (key === d || key === `${d}/` || key === hadoopUri(t, d) || key === t.storage.uri(d)) return undefined;
  return resolveTableEntry(t.storage, t.basePath, key, { instant: rb, source: 'rollback plan', relativeTo: dir });
}

/** tblcli's leftover partial creates in the directories a plan touches (only ones older than the expiry). */
async function tempLeftovers(t: Table, instant: string, requests: RollbackRequest[], maxAgeMs: number, now: number): Promise<RollbackRequest[]> {
  const dirs = new Map<string, string>();
  for (const r of requests) {
    for (const f of r.filesToBeDeleted) dirs.set(parentPath(f), r.partitionPath);
    for (const k of Object.keys(r.logBlocksToBeDeleted ?? {})) {
      const f = logBlockFile(t, instant, r, k);
      if (f) dirs.set(parentPath(f), r.partitionPath);
    }
  }
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
    if (marked) requests.push(...(await tempLeftovers(t, target.requestedTime, requests, opts.tempFileAgeMs ?? 120_000, (opts.now ?? (() => new Date()))().getTime())));
  }
  const seen = new Set<string>();
  const unique = requests.filter((r) => {
    const k = JSON.stringify([r.partitionPath, r.filesToBeDeleted, r.logBlocksToBeDeleted]);
    return !seen.has(k) && (seen.add(k), true);
  });
  return { instantToRollback: { commitTime: target.requestedTime, action: rollbackActionOf(target) }, RollbackRequests: unique, version: 1 };
}

/** The requests as executed: table version 6 groups the log-block requests per file group (one command block each). */
function executedRequests(t: Table, plan: RollbackPlan): RollbackRequest[] {
  const reqs = plan.RollbackRequests ?? [];
  return t.config.version < 8 ? groupByFileGroup(reqs) : reqs;
}

/** Every path the plan will touch, resolved inside the table (throws a one-line error naming the entry). */
export function resolvePlanPaths(t: Table, rb: string, plan: RollbackPlan): { requests: RollbackRequest[]; deletes: Map<RollbackRequest, string[]>; appends: Map<RollbackRequest, (string | undefined)[]> } {
  const ctx = { instant: rb, source: 'rollback plan' };
  const requests = executedRequests(t, plan);
  const deletes = new Map<RollbackRequest, string[]>();
  const appends = new Map<RollbackRequest, (string | undefined)[]>();
  for (const r of requests) {
    const rel = { ...ctx, relativeTo: partitionDir(t, r.partitionPath) };
    deletes.set(r, r.filesToBeDeleted.map((f) => resolveTableEntry(t.storage, t.basePath, f, rel)));
    appends.set(r, Object.keys(r.logBlocksToBeDeleted ?? {}).map((f) => logBlockFile(t, rb, r, f)));
  }
  return { requests, deletes, appends };
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

  const { requests, deletes, appends } = resolvePlanPaths(t, rb, plan);
  const byPartition = new Map<string, RollbackPartitionMetadata>();
  const deleted: string[] = [];
  const failed: string[] = [];
  const rollbackLogFiles: Record<string, number> = {};
  const remove = async (pm: RollbackPartitionMetadata, path: string, asWritten: string) => {
    await opts.keepAlive?.();
    // BaseRollbackHelper.deleteFiles: FileSystem.delete's result (false for a file already gone)
    const ok = await t.storage.delete(path);
    (ok ? pm.successDeleteFiles : pm.failedDeleteFiles).push(asWritten);
    (ok ? deleted : failed).push(asWritten);
  };
  for (const r of requests) {
    const pm = byPartition.get(r.partitionPath) ?? { partitionPath: r.partitionPath, successDeleteFiles: [], failedDeleteFiles: [], rollbackLogFiles: {}, logFilesFromFailedCommit: {} };
    byPartition.set(r.partitionPath, pm);
    const paths = deletes.get(r)!;
    for (let k = 0; k < paths.length; k++) await remove(pm, paths[k]!, r.filesToBeDeleted[k]!);
    const keys = Object.keys(r.logBlocksToBeDeleted ?? {});
    if (keys.length === 0) continue;
    const files = appends.get(r)!;
    if (t.config.version >= 8) {
      // 1.x: log files are never appended to; a log-block request deletes its files
      for (let k = 0; k < keys.length; k++) if (files[k]) await remove(pm, files[k]!, keys[k]!);
      continue;
    }
    await opts.keepAlive?.();
    const w = await appendRollbackBlock(t, rb, info.commitTime, r);
    pm.rollbackLogFiles![hadoopUri(t, w.path)] = w.size;
    rollbackLogFiles[hadoopUri(t, w.path)] = w.size;
    for (let k = 0; k < keys.length; k++) if (files[k]) pm.logFilesFromFailedCommit![keys[k]!] = r.logBlocksToBeDeleted![keys[k]!]!;
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
    await opts.onPoint?.('rollback-target-inflight-deleted');
    await deleteInstantFile(src, targetTime, pendingAction, 'REQUESTED');
    await opts.onPoint?.('rollback-target-deleted');
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

