// Rolling back a failed (inflight) compaction as HoodieTable.rollbackInflightCompaction does: reuse a
// pending rollback of it or schedule one (`<rb>.rollback.requested` = HoodieRollbackPlan), move it to
// inflight, delete the files the plan names, complete `<rb>[_<ct>].rollback` = HoodieRollbackMetadata
// (deleteInstants=false: the compaction's files stay), delete the marker dir, then
// revertInstantFromInflightToRequested (layout ≥ 1: delete `<t>.compaction.inflight`). The requested
// plan is kept and re-executed with the same instant time. Call with the table lock held.
import {
  decodeRollbackPlan,
  encodeRollbackMetadata,
  encodeRollbackPlan,
  type RollbackMetadata,
  type RollbackPartitionMetadata,
  type RollbackPlan,
  type RollbackRequest,
} from '../../metadata/index.ts';
import { parseBaseFileName } from '../../fs-view/index.ts';
import type { Table } from '../../table/index.ts';
import type { Timeline } from '../../timeline/index.ts';
import { completeInstant, createRequested, deleteInstantFile, newInstantTime, timesOnTimeline, transitionToInflight } from '../../timeline/writer.ts';
import { joinPath } from '../../util/index.ts';
import { reopen, sleep } from '../common.ts';
import { heartbeatPath } from '../heartbeat.ts';
import { deleteMarkerDir, listMarkers } from '../markers.ts';
import type { CompactionPlan } from '../../metadata/index.ts';

/** tblcli's own in-progress create files (Storage.writeNew on local and WebHDFS). */
export const TEMP_PREFIX = '.tblcli-tmp-';

export interface RollbackResult {
  /** the compaction instant rolled back */
  instant: string;
  /** the rollback instant's requested time and (layout 2) completion time */
  rollbackInstant: string;
  rollbackCompletionTime?: string;
  /** whether a pending rollback left by an earlier attempt was reused */
  reused: boolean;
  deletedFiles: string[];
  failedFiles: string[];
}

export interface RollbackOptions {
  now?: () => Date;
  clockSkewMs?: number;
  /** called between file deletes, so the table lock held by the caller does not expire (TableLock.keepAlive) */
  keepAlive?: () => Promise<void>;
}

/** A pending rollback whose plan targets `instant` (getPendingRollbackInfo). */
async function pendingRollbackOf(tl: Timeline, instant: string, uri: (p: string) => string): Promise<{ time: string; plan: RollbackPlan; inflight: boolean } | undefined> {
  for (const i of tl.pending()) {
    if (i.action !== 'rollback' || !i.files.REQUESTED) continue;
    const plan = decodeRollbackPlan(await tl.read(i, 'REQUESTED', false), { path: uri(i.files.REQUESTED.path) });
    if (plan.instantToRollback?.commitTime === instant) return { time: i.requestedTime, plan, inflight: i.state === 'INFLIGHT' };
  }
  return undefined;
}

/**
 * Rollback requests: one per file the attempt wrote, named by its markers (MarkerBasedRollbackStrategy:
 * fileId and latestBaseInstant empty). A listing of the plan's partitions adds `<fileId>_*_<t>.parquet`
 * files written without a marker and tblcli's own partial-create temp files.
 */
async function rollbackRequests(table: Table, instant: string, plan: CompactionPlan): Promise<RollbackRequest[]> {
  const { storage, basePath } = table;
  const seen = new Set<string>();
  const out: RollbackRequest[] = [];
  const add = (partition: string, path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ partitionPath: partition, fileId: '', latestBaseInstant: '', filesToBeDeleted: [path], logBlocksToBeDeleted: {} });
  };
  for (const m of await listMarkers(storage, basePath, instant)) add(m.partition, m.partition === '' ? joinPath(basePath, m.fileName) : joinPath(basePath, m.partition, m.fileName));
  const fileIds = new Map<string, Set<string>>();
  for (const op of plan.operations ?? []) {
    const p = op.partitionPath ?? '';
    const set = fileIds.get(p) ?? new Set<string>();
    set.add(op.fileId ?? '');
    fileIds.set(p, set);
  }
  for (const [partition, ids] of fileIds) {
    const dir = partition === '' ? basePath : joinPath(basePath, partition);
    if (!(await storage.exists(dir))) continue;
    for (const f of await storage.list(dir)) {
      if (f.isDirectory) continue;
      const b = parseBaseFileName(f.name);
      if ((b && b.instant === instant && ids.has(b.fileId)) || f.name.startsWith(TEMP_PREFIX)) add(partition, f.path);
    }
  }
  return out;
}

export async function rollbackInflightCompaction(table: Table, instant: string, plan: CompactionPlan, opts: RollbackOptions = {}): Promise<RollbackResult> {
  const { storage, basePath } = table;
  const src = table.timelineSource;
  const started = Date.now();
  const now = opts.now ?? (() => new Date());
  const uri = (p: string) => storage.uri(p);
  let tl = await table.timeline();

  const pending = await pendingRollbackOf(tl, instant, uri);
  let rb: string;
  let rbPlan: RollbackPlan;
  if (pending) {
    rb = pending.time;
    rbPlan = pending.plan;
  } else {
    rb = newInstantTime(timesOnTimeline(tl), table.config.timezone, now());
    await sleep(opts.clockSkewMs ?? 200);
    rbPlan = { instantToRollback: { commitTime: instant, action: 'compaction' }, RollbackRequests: await rollbackRequests(table, instant, plan), version: 1 };
    await createRequested(src, rb, 'rollback', encodeRollbackPlan(rbPlan));
  }
  if (!pending?.inflight) await transitionToInflight(src, rb, 'rollback');

  // BaseRollbackHelper.deleteFiles: FileSystem.delete's result (false for a file that is not there,
  // e.g. a marker whose file was never written); an I/O error fails the rollback, which stays
  // pending and is reused by the next attempt
  const byPartition = new Map<string, RollbackPartitionMetadata>();
  const deleted: string[] = [];
  const failed: string[] = [];
  for (const r of rbPlan.RollbackRequests ?? []) {
    const pm = byPartition.get(r.partitionPath) ?? { partitionPath: r.partitionPath, successDeleteFiles: [], failedDeleteFiles: [], rollbackLogFiles: {}, logFilesFromFailedCommit: {} };
    byPartition.set(r.partitionPath, pm);
    for (const f of r.filesToBeDeleted) {
      await opts.keepAlive?.();
      const ok = await storage.delete(f);
      (ok ? pm.successDeleteFiles : pm.failedDeleteFiles).push(f);
      (ok ? deleted : failed).push(f);
    }
  }
  const metadata: RollbackMetadata = {
    startRollbackTime: rb,
    timeTakenInMillis: Date.now() - started,
    totalFilesDeleted: deleted.length,
    commitsRollback: [instant],
    partitionMetadata: Object.fromEntries(byPartition),
    version: 1,
    instantsRollback: [{ commitTime: instant, action: 'compaction' }],
  };
  let ct: string | undefined;
  if (src.layout === 2) {
    tl = await (await reopen(table)).timeline();
    ct = newInstantTime([...timesOnTimeline(tl), rb], table.config.timezone, now());
    await sleep(opts.clockSkewMs ?? 200);
  }
  await completeInstant(src, rb, 'rollback', 'rollback', encodeRollbackMetadata(metadata), ct);
  await deleteMarkerDir(storage, basePath, instant);
  await deleteInstantFile(src, instant, 'compaction', 'INFLIGHT');
  await storage.delete(heartbeatPath(table.metaPath, instant));
  return { instant, rollbackInstant: rb, rollbackCompletionTime: ct, reused: pending !== undefined, deletedFiles: deleted, failedFiles: failed };
}
