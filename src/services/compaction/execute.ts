// `compaction run`: claim a pending plan under the lock (rolling back an attempt whose heartbeat
// expired), requested → inflight, merge every operation's slice into a new base file (marker first),
// then, under the lock again, the completed `commit` (JSON on layout 1, Avro `<t>_<ct>.commit` on layout 2).
import { TblError } from '../../errors/index.ts';
import { formatBaseFileName, formatWriteToken } from '../../fs-view/index.ts';
import { mergeConfigFromProperties, type MergeConfig } from '../../merge/index.ts';
import {
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  type CommitMetadata,
  type WriteStat,
} from '../../metadata/index.ts';
import { gzipLevelOf, withoutHoodieMetaFields, type AvroRecordSchema } from '../../parquet/write.ts';
import { requireMergeOnRead, viewTimelineOf, type Table } from '../../table/index.ts';
import type { Instant } from '../../timeline/index.ts';
import { isHeartbeatExpired, lastHeartbeat } from '../../write/heartbeat.ts';
import { markerDir } from '../../write/markers.ts';
import { cleanupCompleted, mapUntilFailure, runClaimed, type ClaimOutcome } from '../claimed.ts';
import { Attempt, expiryOf, metadataTableFor, underLock } from '../transaction.ts';
import { committedInstantsOf, tableWriterSchema } from '../rewrite/inputs.ts';
import { prepareMetadataTable } from '../mdt-sync.ts';
import { finishPendingMdtCompactions, type MdtCompactionResult } from '../../mdt/compaction.ts';
import { checkCompactionInputs, type CompactionInputs, type ResolvedOperation } from './inputs.ts';
import { METRICS } from './plan.ts';
import { rollbackInflightCompaction, type RollbackResult } from './rollback.ts';
import type { CommittedInstants } from '../rewrite/merge-op.ts';
import { fileGroupThreadsFor, mergeJob, ThreadBudget } from '../rewrite/worker-run.ts';
import type { RewriteRunOptions } from '../rewrite/run-options.ts';
export { fileGroupThreadsFor };

export interface RunOptions extends RewriteRunOptions {
  /**
   * threads one file group's packed merge uses with a worker: 2 = the worker merges, this thread
   * encodes (two-stage.ts); default 2 while fewer file groups run than there are cores, else 1
   */
  fileGroupThreads?: 1 | 2;
  /** `threads`: 2 when the worker merged and this thread encoded (two-stage.ts) */
  onProgress?: (e: { type: 'file-written'; partition: string; fileId: string; path: string; records: number; bytes: number; merge: 'packed' | 'rows'; threads: 1 | 2 }) => void;
  /** once the attempt starts: its file groups and their input bytes (base + log files), for a progress bar */
  onStart?: (e: { instant: string; fileGroups: number; inputBytes: number }) => void;
}

/**
 * Rows per output row group. hyparquet-writer cuts row groups by rows, Hudi by bytes (120 MB); one row
 * group of values is what the incremental writer holds in memory, so this bounds compaction's footprint.
 */
export const COMPACTION_ROW_GROUP_ROWS = 100_000;

export type RunStatus = 'completed' | 'nothing-to-do' | 'already-completed';

export interface RunResult {
  status: RunStatus;
  instant?: string;
  completionTime?: string;
  fileGroups: number;
  records: number;
  bytes: number;
  durationMs: number;
  rolledBack?: RollbackResult;
  metadataTableDisabled: boolean;
  /** metadata-table partitions dropped because tblcli cannot maintain them for a compaction; a failed MDT compaction */
  warnings: string[];
  /** the metadata-table compaction this run ran after completing (Hudi's writer would have) */
  metadataCompaction?: MdtCompactionResult;
  writeStats: WriteStat[];
}

export function isCompaction(i: Instant): boolean {
  return i.effectiveAction === 'compaction' || i.stateActions.REQUESTED === 'compaction';
}

interface Claim {
  attempt: Attempt;
  table: Table;
  instant: string;
  inputs: CompactionInputs;
  rolledBack?: RollbackResult;
  metadataTableDisabled: boolean;
  warnings: string[];
}


/**
 * Under the lock: the first pending plan not run by a live attempt, its inputs checked before
 * anything is written, then (only then) the metadata-table mode applied, leftovers of completed
 * compactions removed, a dead attempt rolled back, and the new attempt started.
 */
async function claim(table: Table, opts: RunOptions): Promise<ClaimOutcome<Claim>> {
  const expiry = expiryOf(opts);
  return underLock(table, opts, async (locked, lock): Promise<ClaimOutcome<Claim>> => {
    const mdtPlan = await prepareMetadataTable(locked, opts.metadataTable ?? 'update', 'compaction');
    const tl = await locked.timeline();
    let candidates = tl.instants.filter((i) => isCompaction(i) && i.state !== 'COMPLETED');
    if (opts.instant) {
      const found = tl.find(opts.instant).filter(isCompaction);
      if (found.length === 0) {
        throw new TblError('not-found', `Compaction instant ${opts.instant} not found in ${locked.uri}`, { instant: opts.instant, path: locked.uri });
      }
      // a completed instant is never redone
      if (found.some((i) => i.state === 'COMPLETED')) {
        await cleanupCompleted(locked, tl, isCompaction);
        return { status: 'already-completed', instant: opts.instant, metadataTableDisabled: false };
      }
      candidates = found;
    }
    let busy: { instant: string; ageMs: number } | undefined;
    for (const i of candidates) {
      // a live heartbeat on a requested plan is a run about to start it (an engine launched by
      // `--engine spark|flink`, or Hudi's HoodieCompactor starting its heartbeat before compact())
      const now = Date.now();
      if (!(await isHeartbeatExpired(locked.storage, locked.metaPath, i.requestedTime, expiry, now))) {
        busy ??= { instant: i.requestedTime, ageMs: now - (await lastHeartbeat(locked.storage, locked.metaPath, i.requestedTime)) };
        continue;
      }
      const inputs = await checkCompactionInputs(locked, tl, i, () => lock.keepAlive());
      const { table: t, mdt, disabled: metadataTableDisabled, warnings } = await metadataTableFor(locked, opts, 'compaction', () => lock.keepAlive());
      await cleanupCompleted(t, tl, isCompaction);
      let rolledBack: RollbackResult | undefined;
      if (i.state === 'INFLIGHT') rolledBack = await rollbackInflightCompaction(t, mdt, i.requestedTime, { ...opts, keepAlive: () => lock.keepAlive() });
      const attempt = await Attempt.start(t, i.requestedTime, 'compaction', mdt, opts);
      return { claim: { attempt, table: t, instant: i.requestedTime, inputs, rolledBack, metadataTableDisabled, warnings } };
    }
    await cleanupCompleted(locked, tl, isCompaction);
    if (busy) return { busy: busy.instant, ageMs: busy.ageMs };
    // nothing to compact, but a metadata-table compaction a crash left pending is finished (Hudi's
    // writer does it whenever it starts)
    if (mdtPlan && mdtPlan !== 'disable') await finishPendingMdtCompactions(locked, { now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive: () => lock.keepAlive(), onPoint: opts.onPoint });
    return { status: 'nothing-to-do', metadataTableDisabled: false };
  });
}

interface OpContext {
  table: Table;
  attempt: Attempt;
  instant: string;
  writerSchema: AvroRecordSchema;
  config: MergeConfig;
  committed: CommittedInstants;
  opts: RunOptions;
  deadline?: number;
  /** aborted when any file group fails: the others must not write after the attempt is given back */
  abort: AbortController;
  /** which file group may encode on this thread (it has one thread to give) */
  threads: ThreadBudget;
}


async function compactOperation(ctx: OpContext, r: ResolvedOperation, index: number): Promise<WriteStat> {
  const { table, instant } = ctx;
  const { storage } = table;
  const { op, partition, fileId, baseFile, logFiles } = r;
  const started = Date.now();
  const fileName = formatBaseFileName({ fileId, writeToken: formatWriteToken(index, 0, 0), instant, ext: 'parquet' });
  const writeStart = Date.now();
  const job = {
    partition,
    fileId,
    baseFile,
    logFiles,
    instant,
    index,
    fileName,
    writerSchema: ctx.writerSchema,
    config: ctx.config,
    committed: ctx.committed,
    codec: ctx.opts.codec,
    gzipLevel: ctx.opts.gzipLevel,
    rowGroupSize: ctx.opts.rowGroupSize ?? COMPACTION_ROW_GROUP_ROWS,
    mergePath: ctx.opts.mergePath,
  };
  // merge and encode (the memory-heavy part) run in a worker when possible, the encoding on this
  // thread while it and a core are free; markers and the atomic write stay here, so hooks, ownership
  // and crash behaviour do not depend on where it ran
  const threads = ctx.threads.claim(ctx.opts.fileGroupThreads);
  const file = await mergeJob(storage, job, { mode: ctx.opts.fileGroupWorkers ?? 'auto', url: ctx.opts.workerUrl, threads }, ctx.abort.signal).finally(() => {
    ctx.threads.release(threads);
  });
  ctx.abort.signal.throwIfAborted();
  const s = file.stats;
  const scanMs = file.scanMs + (writeStart - started);
  if (ctx.deadline !== undefined && Date.now() > ctx.deadline) throw maxDurationError(ctx);

  await ctx.opts.onPoint?.('before-base-file');
  const path = await ctx.attempt.writeFile(partition, fileName, file.bytes, baseFile ? 'MERGE' : 'CREATE', ctx.abort.signal);
  await ctx.opts.onPoint?.('after-base-file');
  const writeMs = Date.now() - writeStart;
  const count = file.rowCount;
  const logInserts = count - (s.baseRecords - s.totalDeletedRecords);
  const size = file.bytes.length;
  ctx.opts.onProgress?.({ type: 'file-written', partition, fileId, path, records: count, bytes: size, merge: file.path, threads: file.threads ?? 1 });
  return {
    fileId,
    path: partition === '' ? fileName : `${partition}/${fileName}`,
    prevCommit: op.baseInstantTime ?? 'null',
    numWrites: count,
    numDeletes: s.totalDeletedRecords,
    numUpdateWrites: s.totalUpdatedRecordsCompacted,
    numInserts: count - s.totalUpdatedRecordsCompacted,
    totalWriteBytes: size,
    totalWriteErrors: 0,
    partitionPath: partition,
    totalLogRecords: s.totalLogRecords,
    totalLogFilesCompacted: s.totalLogFilesCompacted,
    totalLogSizeCompacted: op.metrics?.[METRICS.TOTAL_LOG_FILES_SIZE] ?? s.totalLogSizeCompacted,
    // scanner.getNumMergedRecordsInLog: keys the log changed
    totalUpdatedRecordsCompacted: s.totalUpdatedRecordsCompacted + s.totalDeletedRecords + Math.max(0, logInserts),
    totalLogBlocks: s.totalLogBlocks,
    totalCorruptLogBlock: s.totalCorruptLogBlock,
    totalRollbackBlocks: s.totalRollbackBlocks,
    fileSizeInBytes: size,
    totalLogFiles: null,
    logVersion: null,
    logOffset: null,
    baseFile: null,
    logFiles: null,
    cdcStats: null,
    prevBaseFile: op.dataFilePath ?? null,
    minEventTime: null,
    maxEventTime: null,
    runtimeStats: { totalScanTime: scanMs, totalCreateTime: baseFile ? 0 : writeMs, totalUpsertTime: baseFile ? writeMs : 0 },
    totalLogReadTimeMs: scanMs,
    tempPath: null,
    numUpdates: 0,
  };
}

function maxDurationError(ctx: OpContext): TblError {
  return new TblError('timeline', `compaction ${ctx.instant} exceeded --max-duration ${ctx.opts.maxDurationMs} ms; this attempt was rolled back`, {
    instant: ctx.instant,
  });
}

/** HoodieCommitMetadata(compacted=true) as CompactHelpers.createCompactionMetadata builds it. */
export function compactionCommitMetadata(stats: WriteStat[], schema: string): CommitMetadata {
  const partitionToWriteStats: Record<string, WriteStat[]> = {};
  for (const s of stats) (partitionToWriteStats[s.partitionPath] ??= []).push(s);
  return { partitionToWriteStats, compacted: true, extraMetadata: { schema }, operationType: 'COMPACT', version: null };
}

async function execute(c: Claim, opts: RunOptions, started: number): Promise<RunResult> {
  const { table, instant } = c;
  const ops = c.inputs.operations;
  const writerSchema = await tableWriterSchema(table);
  const tableSchema = withoutHoodieMetaFields(writerSchema);
  const vt = await viewTimelineOf(table);
  const ctx: OpContext = {
    table,
    attempt: c.attempt,
    instant,
    writerSchema,
    config: mergeConfigFromProperties(Object.fromEntries(table.config.props)),
    committed: committedInstantsOf(vt),
    opts,
    deadline: opts.maxDurationMs !== undefined ? started + opts.maxDurationMs : undefined,
    abort: new AbortController(),
    threads: new ThreadBudget(),
  };
  opts.onStart?.({ instant, fileGroups: ops.length, inputBytes: ops.reduce((n, o) => n + (o.baseFile?.size ?? 0) + o.logFiles.reduce((m, f) => m + f.size, 0), 0) });
  // On the first failure: start no more file groups, stop the running ones, and wait until all have
  // settled, so nothing writes after the caller rolls this attempt back.
  const stats = await mapUntilFailure(
    ops,
    opts.parallelism ?? 2,
    async (op, i) => {
      if (ctx.deadline !== undefined && Date.now() > ctx.deadline) throw maxDurationError(ctx);
      await c.attempt.beat();
      return compactOperation(ctx, op, i);
    },
    ctx.abort,
  );
  await opts.onPoint?.('before-complete');
  const metadata = compactionCommitMetadata(stats, JSON.stringify(tableSchema));

  const { completionTime, metadataCompaction, warnings } = await c.attempt.commit({
    completedAction: 'commit',
    content: (layout) => (layout === 2 ? encodeCommitMetadataAvro(metadata) : encodeCommitMetadataJson(metadata, { delta: false })),
    mdt: { kind: 'commit', metadata },
  });
  return {
    status: 'completed',
    instant,
    completionTime,
    fileGroups: stats.length,
    records: stats.reduce((n, s) => n + s.numWrites, 0),
    bytes: stats.reduce((n, s) => n + s.totalWriteBytes, 0),
    durationMs: Date.now() - started,
    rolledBack: c.rolledBack,
    metadataTableDisabled: c.metadataTableDisabled,
    warnings: [...c.warnings, ...warnings],
    metadataCompaction,
    writeStats: stats,
  };
}

/** Runs one pending compaction. Throws TblError('lock-held') when the lock or the plan is taken (exit 4). */
export async function runCompaction(table: Table, opts: RunOptions = {}): Promise<RunResult> {
  requireMergeOnRead(table);
  if (opts.gzipLevel !== undefined) gzipLevelOf(opts.gzipLevel); // a bad level fails before anything is claimed
  const started = Date.now();
  return runClaimed({
    label: 'compaction',
    opts,
    started,
    claim: () => claim(table, opts),
    execute: (c) => execute(c, opts, started),
    rollback: (c, t, keepAlive) => rollbackInflightCompaction(t, c.attempt.mdt, c.instant, { ...opts, keepAlive }),
    none: (status, instant, metadataTableDisabled) => ({ status, instant, fileGroups: 0, records: 0, bytes: 0, durationMs: Date.now() - started, metadataTableDisabled, warnings: [], writeStats: [] }),
  });
}

export { markerDir };
