// `clean run`: execute pending cleans from their plans (CleanActionExecutor, format-services-write.md
// §1.9–§1.11). Claim under the lock (a clean whose heartbeat is live belongs to another process), check
// every path of the plan before anything is written, requested → inflight (table version 6: the plan
// again; 8+: empty), delete the files in parallel — a file already gone or that fails to delete is
// recorded as a failed delete, as Hudi records it — then the empty partitions, then under the lock the
// metadata-table deltacommit and `<t>.clean` / `<t>_<ct>.clean` (HoodieCleanMetadata). Cleans are never
// rolled back: a run that dies leaves the instant pending and the next run re-executes the same plan.
import { StorageError, TblError } from '../../errors/index.ts';
import { partitionMetafileFormat } from '../../fs-view/index.ts';
import { decodeCleanerPlan, encodeCleanMetadata, type CleanerPlan, type CleanMetadata, type CleanPartitionMetadata } from '../../metadata/index.ts';
import { resolveTableEntry } from '../../storage/confine.ts';
import { mapLimit } from '../../storage/index.ts';
import type { Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { deleteInstantFile } from '../../timeline/writer.ts';
import { baseName, joinPath, relativeTo } from '../../util/index.ts';
import { isHeartbeatExpired, lastHeartbeat } from '../../write/heartbeat.ts';
import { prepareMetadataTable } from '../mdt-sync.ts';
import { Attempt, expiryOf, metadataTableFor, underLock, type ServiceOptions } from '../transaction.ts';

export interface CleanRunOptions extends ServiceOptions {
  /** run only this pending clean */
  instant?: string;
  /** stop deleting when exceeded; the clean stays pending and the next run resumes it */
  maxDurationMs?: number;
  /** deletes in flight (hoodie.clean.parallelism; the storage layer caps its own requests) */
  parallelism?: number;
  /** report the bytes deleted (a local listing stats each file for it, before it goes) */
  wantBytes?: boolean;
  /** sizes the planner already knows, by storage path (read lazily) */
  knownSizes?: ReadonlyMap<string, number>;
  /**
   * The plan just written for `instant`, as encoded (saves reading and decoding it back: a plan of
   * a million files is ~100 MB); its paths are checked all the same.
   */
  writtenPlan?: CleanerPlan;
  /** the clean's deletions begin (once per clean run) */
  onStart?: (e: { instant: string; files: number; resumed: boolean }) => void;
  onProgress?: (e: { type: 'deleted' | 'failed'; path: string }) => void;
}

export interface CleanRunResult {
  status: 'completed' | 'nothing-to-do' | 'already-completed';
  instant?: string;
  completionTime?: string;
  /** the clean was inflight already (an earlier run died): re-executed from its plan */
  resumed: boolean;
  deleted: number;
  failed: number;
  bytes?: number;
  partitions: number;
  partitionsDeleted: string[];
  durationMs: number;
  metadataTableDisabled: boolean;
  warnings: string[];
  metadata?: CleanMetadata;
}

/** One file of a plan, resolved. */
interface PlanFile {
  partition: string;
  /** storage path */
  path: string;
}

export interface ResolvedCleanPlan {
  /** the plan's scalar fields (its file lists live on as `files`) */
  plan: Omit<CleanerPlan, 'filePathsToBeDeletedPerPartition' | 'filesToBeDeletedPerPartition'>;
  files: PlanFile[];
  /** partition keys of the plan, in its order */
  partitions: string[];
  partitionsToDelete: { partition: string; path: string }[];
}

export function isClean(i: Instant): boolean {
  return i.action === 'clean' || i.effectiveAction === 'clean';
}

/**
 * The plan of pending clean `i`, every path resolved inside the table (and outside `.hoodie`), or a
 * one-line error naming the instant and the entry. Version 1 plans (file names) are upgraded.
 */
export function resolveCleanPlan(t: Table, instant: string, plan: CleanerPlan): ResolvedCleanPlan {
  const ctx = { instant, source: 'clean plan' };
  const inside = (entry: string, path: string) => {
    if (path === t.metaPath || relativeTo(t.metaPath, path) !== undefined) {
      throw new TblError('metadata', `instant ${instant}: clean plan entry ${JSON.stringify(entry)} names a file under ${t.storage.uri(t.metaPath)}; a clean deletes data files only`, { instant, key: entry });
    }
    return path;
  };
  const files: PlanFile[] = [];
  const partitions: string[] = [];
  if ((plan.version ?? 1) >= 2 && plan.filePathsToBeDeletedPerPartition) {
    for (const [partition, list] of Object.entries(plan.filePathsToBeDeletedPerPartition)) {
      partitions.push(partition);
      for (const f of list ?? []) {
        const entry = f.filePath ?? '';
        files.push({ partition, path: inside(entry, resolveTableEntry(t.storage, t.basePath, entry, ctx)) });
      }
    }
  } else {
    // CleanPlanV2MigrationHandler: base path + partition + file name
    for (const [partition, names] of Object.entries(plan.filesToBeDeletedPerPartition ?? {})) {
      partitions.push(partition);
      const dir = partition === '' ? t.basePath : resolveTableEntry(t.storage, t.basePath, partition, ctx);
      for (const name of names ?? []) {
        if (name.includes('/')) throw new TblError('metadata', `instant ${instant}: clean plan (version 1) entry ${JSON.stringify(name)} is not a file name`, { instant, key: name });
        files.push({ partition, path: inside(name, resolveTableEntry(t.storage, t.basePath, joinPath(dir, name), ctx)) });
      }
    }
  }
  const partitionsToDelete: ResolvedCleanPlan['partitionsToDelete'] = [];
  // newer sources delete partitions of partitioned tables only
  if (t.config.partitionFields.length > 0) {
    for (const p of plan.partitionsToBeDeleted ?? []) {
      if (!p) continue;
      partitionsToDelete.push({ partition: p, path: inside(p, resolveTableEntry(t.storage, t.basePath, p, ctx)) });
    }
  }
  const { filePathsToBeDeletedPerPartition: _a, filesToBeDeletedPerPartition: _b, ...scalars } = plan;
  return { plan: scalars, files, partitions, partitionsToDelete };
}

interface Claim {
  attempt: Attempt;
  table: Table;
  instant: string;
  resolved: ResolvedCleanPlan;
  resumed: boolean;
  metadataTableDisabled: boolean;
  warnings: string[];
}

type ClaimOutcome = { claim: Claim } | { status: 'nothing-to-do' | 'already-completed'; instant?: string; warnings: string[] } | { busy: string; ageMs: number };

/** The plan bytes of a pending clean: the requested file (0.x may have only the inflight copy). */
async function planBytes(tl: Timeline, i: Instant): Promise<{ bytes: Uint8Array; path: string } | undefined> {
  for (const state of ['REQUESTED', 'INFLIGHT'] as const) {
    const f = i.files[state];
    if (f && f.size > 0) return { bytes: await tl.read(i, state), path: f.path };
  }
  return undefined;
}

/** Reads and resolves the plan of pending clean `i`; undefined when its files are empty (Hudi deletes those). */
export async function readCleanPlan(t: Table, tl: Timeline, i: Instant): Promise<ResolvedCleanPlan | undefined> {
  const b = await planBytes(tl, i);
  if (!b) return undefined;
  return resolveCleanPlan(t, i.requestedTime, decodeCleanerPlan(b.bytes, { path: t.storage.uri(b.path) }));
}

async function claim(table: Table, opts: CleanRunOptions): Promise<ClaimOutcome> {
  const expiry = expiryOf(opts);
  return underLock(table, opts, async (locked): Promise<ClaimOutcome> => {
    await prepareMetadataTable(locked, opts.metadataTable ?? 'update', 'clean');
    const tl = await locked.timeline();
    const warnings: string[] = [];
    let candidates = tl.instants.filter((i) => isClean(i) && i.state !== 'COMPLETED');
    if (opts.instant) {
      const found = tl.find(opts.instant).filter(isClean);
      if (found.length === 0) throw new TblError('not-found', `Clean instant ${opts.instant} not found in ${locked.uri}`, { instant: opts.instant, path: locked.uri });
      if (found.some((i) => i.state === 'COMPLETED')) return { status: 'already-completed', instant: opts.instant, warnings };
      candidates = found;
    }
    for (const i of candidates) {
      // a live heartbeat: another tblcli runs it, or hands it to Spark (held while the JVM starts, requested still)
      const now = Date.now();
      if (!(await isHeartbeatExpired(locked.storage, locked.metaPath, i.requestedTime, expiry, now))) {
        return { busy: i.requestedTime, ageMs: now - (await lastHeartbeat(locked.storage, locked.metaPath, i.requestedTime)) };
      }
      const resolved = opts.writtenPlan && opts.instant === i.requestedTime ? resolveCleanPlan(locked, i.requestedTime, opts.writtenPlan) : await readCleanPlan(locked, tl, i);
      if (!resolved) {
        // an empty pending clean carries nothing to execute (deleteEmptyInstantIfExists)
        if (i.files.INFLIGHT) await deleteInstantFile(locked.timelineSource, i.requestedTime, 'clean', 'INFLIGHT');
        if (i.files.REQUESTED) await deleteInstantFile(locked.timelineSource, i.requestedTime, 'clean', 'REQUESTED');
        warnings.push(`clean ${i.requestedTime} had an empty plan file; its pending files were deleted, as Hudi does`);
        continue;
      }
      const { table: t, mdt, disabled, warnings: w } = await metadataTableFor(locked, opts, 'clean');
      const resumed = i.state === 'INFLIGHT';
      // table version 6: 0.x resumes an inflight clean from the inflight file's bytes, so it carries the plan
      const inflight = t.config.version < 8 ? (await planBytes(tl, i))!.bytes : undefined;
      const attempt = resumed ? await Attempt.resume(t, i.requestedTime, 'clean', mdt, opts) : await Attempt.start(t, i.requestedTime, 'clean', mdt, opts, inflight);
      return { claim: { attempt, table: t, instant: i.requestedTime, resolved, resumed, metadataTableDisabled: disabled, warnings: [...warnings, ...w] } };
    }
    return { status: 'nothing-to-do', warnings };
  });
}

/** Sizes of the plan's files before they go: from the planner, else one listing per partition. */
async function sizeOfPlan(t: Table, files: PlanFile[], known?: ReadonlyMap<string, number>): Promise<number> {
  let bytes = 0;
  const unknown: PlanFile[] = [];
  for (const f of files) {
    const k = known?.get(f.path);
    if (k !== undefined) bytes += k;
    else unknown.push(f);
  }
  const dirs = [...new Set(unknown.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))];
  const listed = await mapLimit(dirs, 16, async (d) => {
    try {
      return await t.storage.list(d, { lazyStatus: true });
    } catch (e) {
      if (e instanceof StorageError && e.code === 'not-found') return [];
      throw e;
    }
  });
  const sizes = new Map(listed.flat().map((s) => [s.path, s]));
  for (const f of unknown) bytes += sizes.get(f.path)?.size ?? 0;
  return bytes;
}

/** Deletes an empty partition: only its partition metadata may be left; never recursive (a writer may be adding files). */
async function deletePartitionDir(t: Table, path: string): Promise<{ deleted: boolean; why?: string }> {
  let entries;
  try {
    entries = await t.storage.list(path, { lazyStatus: true });
  } catch (e) {
    if (e instanceof StorageError && e.code === 'not-found') return { deleted: true };
    throw e;
  }
  const other = entries.find((e) => e.isDirectory || partitionMetafileFormat(e.name) === undefined);
  if (other) return { deleted: false, why: `${t.storage.uri(other.path)} appeared after planning` };
  for (const e of entries) await t.storage.delete(e.path);
  try {
    await t.storage.delete(path);
    return { deleted: true };
  } catch (e) {
    return { deleted: false, why: (e as Error).message };
  }
}

/** HoodieCleanMetadata as CleanerUtils.convertCleanMetadata builds it (file names, not paths). */
function cleanMetadata(instant: string, r: ResolvedCleanPlan, ok: Uint8Array, deletedPartitions: Set<string>, durationMs: number): CleanMetadata {
  const policy = r.plan.policy;
  const byPartition = new Map<string, CleanPartitionMetadata>();
  for (const p of r.partitions) {
    byPartition.set(p, { partitionPath: p, policy, deletePathPatterns: [], successDeleteFiles: [], failedDeleteFiles: [], isPartitionDeleted: deletedPartitions.has(p) });
  }
  let total = 0;
  r.files.forEach((f, k) => {
    const pm = byPartition.get(f.partition)!;
    const name = baseName(f.path);
    pm.deletePathPatterns.push(name);
    if (ok[k] === 1) {
      pm.successDeleteFiles.push(name);
      total++;
    } else pm.failedDeleteFiles.push(name);
  });
  return {
    startCleanTime: instant,
    timeTakenInMillis: durationMs,
    totalFilesDeleted: total,
    earliestCommitToRetain: r.plan.earliestInstantToRetain?.timestamp ?? '',
    lastCompletedCommitTimestamp: r.plan.lastCompletedCommitTimestamp ?? '',
    partitionMetadata: Object.fromEntries(byPartition),
    version: 2,
    bootstrapPartitionMetadata: {},
    extraMetadata: r.plan.extraMetadata ?? {},
  };
}

async function execute(c: Claim, opts: CleanRunOptions, started: number): Promise<CleanRunResult> {
  const { table: t, resolved: r, attempt } = c;
  const warnings = [...c.warnings];
  const bytes = opts.wantBytes ? await sizeOfPlan(t, r.files, opts.knownSizes) : undefined;
  const deadline = opts.maxDurationMs !== undefined ? started + opts.maxDurationMs : undefined;
  // 0 not tried, 1 deleted, 2 failed (gone already, or an I/O error after the storage layer's retries)
  const ok = new Uint8Array(r.files.length);
  let stop: unknown;
  let checking: Promise<void> | undefined;
  let lastCheck = Date.now();
  const checkEvery = Math.max(1000, (opts.heartbeatIntervalMs ?? expiryOf(opts) / 4) / 2);
  let errors = 0;
  opts.onStart?.({ instant: c.instant, files: r.files.length, resumed: c.resumed });
  await mapLimit(r.files, Math.max(1, opts.parallelism ?? 64), async (f, k) => {
    if (stop) return;
    try {
      if (deadline !== undefined && Date.now() > deadline) {
        throw new TblError('timeline', `clean ${c.instant} exceeded --max-duration ${opts.maxDurationMs} ms after ${ok.filter((x) => x !== 0).length} of ${r.files.length} file(s); it stays pending and the next run resumes it`, { instant: c.instant });
      }
      if (Date.now() - lastCheck > checkEvery) {
        lastCheck = Date.now();
        checking ??= attempt.beat().finally(() => (checking = undefined));
      }
      if (checking) await checking;
      let done: boolean;
      try {
        done = await t.storage.delete(f.path);
      } catch (e) {
        // a storage failure (after the storage layer's retries) is a failed delete; anything else stops the run
        if (!(e instanceof StorageError)) throw e;
        done = false;
        if (errors++ < 5) warnings.push(`could not delete ${t.storage.uri(f.path)} (recorded as a failed delete): ${(e as Error).message}`);
      }
      ok[k] = done ? 1 : 2;
      opts.onProgress?.({ type: done ? 'deleted' : 'failed', path: f.path });
      await opts.onPoint?.('file-deleted');
    } catch (e) {
      stop ??= e;
    }
  });
  if (stop) throw stop;
  if (errors > 5) warnings.push(`… and ${errors - 5} more failed delete(s)`);
  await opts.onPoint?.('files-deleted');
  const deletedPartitions = new Set<string>();
  for (const p of r.partitionsToDelete) {
    await attempt.beat();
    const d = await deletePartitionDir(t, p.path);
    if (d.deleted) deletedPartitions.add(p.partition);
    else warnings.push(`partition ${p.partition} was not deleted: ${d.why}`);
  }
  await opts.onPoint?.('before-complete');
  const metadata = cleanMetadata(c.instant, r, ok, deletedPartitions, Date.now() - started);
  const { completionTime } = await attempt.commit({ completedAction: 'clean', content: () => encodeCleanMetadata(metadata), mdt: { kind: 'clean', metadata } });
  return {
    status: 'completed',
    instant: c.instant,
    completionTime,
    resumed: c.resumed,
    deleted: metadata.totalFilesDeleted,
    failed: r.files.length - metadata.totalFilesDeleted,
    bytes,
    partitions: r.partitions.length,
    partitionsDeleted: [...deletedPartitions],
    durationMs: Date.now() - started,
    metadataTableDisabled: c.metadataTableDisabled,
    warnings,
    metadata,
  };
}

/**
 * Runs one pending clean (the given instant, else the oldest). Throws TblError('lock-held') when the
 * lock is held or another process runs it (exit 4).
 */
export async function runClean(table: Table, opts: CleanRunOptions = {}): Promise<CleanRunResult> {
  const started = Date.now();
  const outcome = await claim(table, opts);
  const none = (status: CleanRunResult['status'], instant: string | undefined, warnings: string[]): CleanRunResult => ({
    status,
    instant,
    resumed: false,
    deleted: 0,
    failed: 0,
    partitions: 0,
    partitionsDeleted: [],
    durationMs: Date.now() - started,
    metadataTableDisabled: false,
    warnings,
  });
  if ('busy' in outcome) {
    throw new TblError('lock-held', `clean ${outcome.busy} is being run by another process (heartbeat ${outcome.ageMs} ms ago)`, { instant: outcome.busy });
  }
  if ('status' in outcome) return none(outcome.status, outcome.instant, outcome.warnings);
  const c = outcome.claim;
  try {
    await opts.onPoint?.('after-inflight');
    return await execute(c, opts, started);
  } catch (e) {
    // never rolled back: the plan stays, the next run re-executes it once this heartbeat is gone
    await c.attempt.release();
    throw e;
  }
}

/** Runs every pending clean, oldest first (CleanActionExecutor.execute). */
export async function runPendingCleans(table: Table, opts: CleanRunOptions = {}): Promise<CleanRunResult[]> {
  const out: CleanRunResult[] = [];
  for (;;) {
    const r = await runClean(table, { ...opts, instant: undefined });
    if (r.status === 'nothing-to-do') {
      if (r.warnings.length > 0) out.push(r);
      return out;
    }
    out.push(r);
  }
}
