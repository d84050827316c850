// `clustering run`: claim a pending plan under the lock (rolling back a failed attempt of it with the
// plan kept, as HoodieTable.rollbackInflightClustering), requested → inflight (empty), every group
// merged, sorted and written as new base files in new file groups (CREATE markers first), then, under
// the lock again, the racing-writer check, the metadata-table deltacommit (files, bloom_filters,
// column_stats, record_index) and the completed `replacecommit` listing every input file id in
// partitionToReplaceFileIds (JSON on layout 1, Avro `<t>_<ct>.replacecommit` on layout 2).
import { randomUUID } from 'node:crypto';
import { TblError } from '../../errors/index.ts';
import { mergeConfigFromProperties } from '../../merge/index.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat, type CommitMetadata, type WriteStat } from '../../metadata/index.ts';
import { gzipLevelOf, withoutHoodieMetaFields } from '../../parquet/write.ts';
import { viewTimelineOf, type Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { isHeartbeatExpired, lastHeartbeat } from '../../write/heartbeat.ts';
import { rollbackInflightPlan, type RollbackResult } from '../compaction/rollback.ts';
import { prepareMetadataTable, type RecordLocations } from '../mdt-sync.ts';
import { committedInstantsOf, tableWriterSchema } from '../rewrite/inputs.ts';
import { cleanupCompleted, mapUntilFailure, runClaimed, type ClaimOutcome } from '../claimed.ts';
import { clusterJob, ThreadBudget } from '../rewrite/worker-run.ts';
import type { RewriteRunOptions } from '../rewrite/run-options.ts';
import type { ClusterJob } from '../rewrite/cluster-op.ts';
import type { Layout } from '../rewrite/sort-order.ts';
import { Attempt, expiryOf, metadataTableFor, underLock } from '../transaction.ts';
import { CLUSTERING_KEYS, layoutOf } from './config.ts';
import { refuseRacingWrites } from './conflicts.ts';
import { checkClusteringInputs, readClusteringPlan, type ClusteringInputs, type ResolvedGroup } from './inputs.ts';
import { clusteringAction, mergedProps, refuseBucketIndex } from './schedule.ts';
import { sortColumnsOf } from '../rewrite/sort-order.ts';

export interface ClusteringRunOptions extends RewriteRunOptions {
  /** properties over the table's (props file, --hoodieConfigs): hoodie.layout.optimize.strategy … */
  props?: ReadonlyMap<string, string>;
  /** the order within each group; default: the plan's (strategyParams), else the config's, else linear */
  layout?: string;
  /** size of the new files (default hoodie.clustering.plan.strategy.target.file.max.bytes, else 1 GiB), as Hudi reads it at execution */
  targetFileMaxBytes?: number;
  /**
   * threads one group uses with a worker: 2 = the worker gathers (and sorts a group with logs), this
   * thread orders a base-files group while the worker starts and encodes the fields (cluster-stage.ts;
   * the worker builds the bloom filters while it waits); default, as
   * compaction's: 2 while fewer groups run than there are cores, else 1. On the bench
   * (bench/clustering.mjs, a shared 2-core host) two threads are ~10% faster and peak ~30–50 MB
   * higher (each thread's allocator arena keeps its own high-water mark); 1 for the lower peak
   */
  fileGroupThreads?: 1 | 2;
  onProgress?: (e: { type: 'file-written'; partition: string; fileId: string; path: string; records: number; bytes: number; merge: 'packed' | 'rows' }) => void;
  /** the attempt started: its groups, the file groups they replace and the bytes they read */
  onStart?: (e: { instant: string; groups: number; fileGroups: number; inputBytes: number }) => void;
  /** a group's new files are written */
  onGroup?: (e: { partition: string; files: { path: string; records: number; bytes: number }[]; records: number; bytes: number }) => void;
}

/** Rows per output row group (as compaction: bounds what the writer holds per group). */
export const CLUSTERING_ROW_GROUP_ROWS = 100_000;

export type ClusteringRunStatus = 'completed' | 'nothing-to-do' | 'already-completed';

export interface ClusteringRunResult {
  status: ClusteringRunStatus;
  instant?: string;
  completionTime?: string;
  /** input file groups replaced */
  replacedFileGroups: number;
  /** new base files written */
  files: number;
  records: number;
  bytes: number;
  durationMs: number;
  rolledBack?: RollbackResult;
  metadataTableDisabled: boolean;
  warnings: string[];
  writeStats: WriteStat[];
  partitionToReplaceFileIds: Record<string, string[]>;
}

/** A pending instant that is (or may be) a clustering: v8/9 `clustering`, v6 `replacecommit` with a plan. */
export function isClusteringCandidate(i: Instant): boolean {
  return i.effectiveAction === 'clustering' || i.stateActions.REQUESTED === 'clustering' || i.effectiveAction === 'replacecommit' || i.stateActions.REQUESTED === 'replacecommit';
}

/** The pending clustering instants (v6 replacecommits only when their requested file holds a plan), oldest first. */
export async function pendingClusterings(t: Table, tl: Timeline): Promise<Instant[]> {
  const out: Instant[] = [];
  for (const i of tl.instants) {
    if (i.state === 'COMPLETED' || !isClusteringCandidate(i)) continue;
    if (i.stateActions.REQUESTED === 'clustering' || (await readClusteringPlan(t, tl, i).catch(() => undefined))) out.push(i);
  }
  return out;
}

function isCompletedClustering(i: Instant): boolean {
  return i.state === 'COMPLETED' && i.action === 'replacecommit';
}

function inputGroupKeys(inputs: ClusteringInputs): Set<string> {
  return new Set(inputs.groups.flatMap((g) => g.slices.map((s) => `${s.partition}\u0000${s.fileId}`)));
}

interface Claim {
  attempt: Attempt;
  table: Table;
  instant: string;
  inputs: ClusteringInputs;
  rolledBack?: RollbackResult;
  metadataTableDisabled: boolean;
  warnings: string[];
}

async function claim(table: Table, opts: ClusteringRunOptions): Promise<ClaimOutcome<Claim>> {
  const expiry = expiryOf(opts);
  return underLock(table, opts, async (locked, lock): Promise<ClaimOutcome<Claim>> => {
    await refuseBucketIndex(locked, mergedProps(locked, opts.props));
    await prepareMetadataTable(locked, opts.metadataTable ?? 'update', 'clustering');
    const tl = await locked.timeline();
    let candidates = await pendingClusterings(locked, tl);
    if (opts.instant) {
      const found = tl.find(opts.instant).filter(isClusteringCandidate);
      if (found.length === 0) throw new TblError('not-found', `Clustering instant ${opts.instant} not found in ${locked.uri}`, { instant: opts.instant, path: locked.uri });
      if (found.some((i) => i.state === 'COMPLETED')) {
        await cleanupCompleted(locked, tl, isCompletedClustering);
        return { status: 'already-completed', instant: opts.instant };
      }
      candidates = found;
    }
    let busy: { instant: string; ageMs: number } | undefined;
    for (const i of candidates) {
      if (i.state === 'INFLIGHT') {
        const now = Date.now();
        if (!(await isHeartbeatExpired(locked.storage, locked.metaPath, i.requestedTime, expiry, now))) {
          busy ??= { instant: i.requestedTime, ageMs: now - (await lastHeartbeat(locked.storage, locked.metaPath, i.requestedTime)) };
          continue;
        }
      }
      const inputs = await checkClusteringInputs(locked, tl, i, () => lock.keepAlive());
      sortColumnsOf(await tableWriterSchema(locked), sortSpecOf(locked, inputs, opts).sortColumns);
      targetFileMaxBytesOf(locked, opts);
      await refuseRacingWrites(locked, tl, i.requestedTime, inputGroupKeys(inputs), 'start');
      const { table: t, mdt, disabled: metadataTableDisabled, warnings } = await metadataTableFor(locked, opts, 'clustering');
      await cleanupCompleted(t, tl, isCompletedClustering);
      let rolledBack: RollbackResult | undefined;
      if (i.state === 'INFLIGHT') rolledBack = await rollbackInflightPlan(t, mdt, i.requestedTime, { ...opts, keepAlive: () => lock.keepAlive() });
      const attempt = await Attempt.start(t, i.requestedTime, clusteringAction(t), mdt, opts);
      return { claim: { attempt, table: t, instant: i.requestedTime, inputs, rolledBack, metadataTableDisabled, warnings } };
    }
    await cleanupCompleted(locked, tl, isCompletedClustering);
    if (busy) return { busy: busy.instant, ageMs: busy.ageMs };
    return { status: 'nothing-to-do' };
  });
}

/** HoodieReplaceCommitMetadata of a clustering (CommonClientUtils.getPartitionToReplacedFileIds: every input file id). */
export function clusteringCommitMetadata(stats: WriteStat[], groups: ResolvedGroup[], schema: string): CommitMetadata {
  const partitionToWriteStats: Record<string, WriteStat[]> = {};
  for (const s of stats) (partitionToWriteStats[s.partitionPath] ??= []).push(s);
  const partitionToReplaceFileIds: Record<string, string[]> = {};
  for (const g of groups) for (const s of g.slices) (partitionToReplaceFileIds[s.partition] ??= []).push(s.fileId);
  return { partitionToWriteStats, compacted: false, extraMetadata: { schema }, operationType: 'CLUSTER', partitionToReplaceFileIds, version: null };
}

/** The new files' size at execution: the flag, else the key (props, table), else 1 GiB; checked before anything is written. */
function targetFileMaxBytesOf(t: Table, opts: ClusteringRunOptions): number {
  const v = opts.targetFileMaxBytes ?? Number(mergedProps(t, opts.props).get(CLUSTERING_KEYS.targetFileMaxBytes) ?? 1024 * 1024 * 1024);
  if (!Number.isInteger(v) || v <= 0) throw new TblError('usage', `${CLUSTERING_KEYS.targetFileMaxBytes} must be a positive number of bytes, got ${v}`);
  return v;
}

function maxDurationError(instant: string, ms: number | undefined): TblError {
  return new TblError('timeline', `clustering ${instant} exceeded --max-duration ${ms} ms; this attempt was rolled back`, { instant });
}

/** The order to write in: sort columns from the plan (or --hoodieConfigs); layout from the run's flag, the plan, the config, linear. */
function sortSpecOf(t: Table, inputs: ClusteringInputs, opts: ClusteringRunOptions): { sortColumns: string[]; layout: Layout } {
  const params = inputs.plan.strategy?.strategyParams ?? {};
  const spec = opts.props?.get(CLUSTERING_KEYS.sortColumns) ?? params[CLUSTERING_KEYS.sortColumns] ?? '';
  const sortColumns = spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const layout = layoutOf(opts.layout ?? opts.props?.get(CLUSTERING_KEYS.layout) ?? params[CLUSTERING_KEYS.layout] ?? t.config.props.get(CLUSTERING_KEYS.layout) ?? 'linear');
  return { sortColumns, layout };
}

async function execute(c: Claim, opts: ClusteringRunOptions, started: number): Promise<ClusteringRunResult> {
  const { table, instant } = c;
  const writerSchema = await tableWriterSchema(table);
  const tableSchema = withoutHoodieMetaFields(writerSchema);
  const committed = committedInstantsOf(await viewTimelineOf(table));
  const config = mergeConfigFromProperties(Object.fromEntries(table.config.props));
  const { sortColumns, layout } = sortSpecOf(table, c.inputs, opts);
  const targetFileMaxBytes = targetFileMaxBytesOf(table, opts);
  const withKeys = c.attempt.mdt?.update.includes('record_index') ?? false;
  const deadline = opts.maxDurationMs !== undefined ? started + opts.maxDurationMs : undefined;
  const abort = new AbortController();
  // Spark task numbers of the outputs, in plan order (write tokens `<task>-0-0`)
  const firstTasks: number[] = [];
  let task = 0;
  for (const g of c.inputs.groups) {
    firstTasks.push(task);
    task += g.numOutputFileGroups;
  }
  const slices = c.inputs.groups.flatMap((g) => g.slices);
  const inputBytes = slices.reduce((n, s) => n + (s.baseFile?.size ?? 0) + s.logFiles.reduce((m, l) => m + l.size, 0), 0);
  opts.onStart?.({ instant, groups: c.inputs.groups.length, fileGroups: slices.length, inputBytes });
  // two threads per group only when asked (opt-in), and then by the same rule as compaction's
  const budget = new ThreadBudget();
  const settled = await mapUntilFailure(
    c.inputs.groups,
    opts.parallelism ?? 2,
    async (g, gi) => {
      if (deadline !== undefined && Date.now() > deadline) throw maxDurationError(instant, opts.maxDurationMs);
      await c.attempt.beat();
      const job: ClusterJob = {
        partition: g.partition,
        instant,
        slices: g.slices.map((s) => ({ fileId: s.fileId, baseFile: s.baseFile, logFiles: s.logFiles })),
        writerSchema,
        config,
        committed,
        codec: opts.codec,
        gzipLevel: opts.gzipLevel,
        rowGroupSize: opts.rowGroupSize ?? CLUSTERING_ROW_GROUP_ROWS,
        sortColumns,
        layout,
        fileIdPrefixes: Array.from({ length: g.numOutputFileGroups }, () => randomUUID()),
        firstTask: firstTasks[gi]!,
        targetFileMaxBytes,
        withKeys,
        mergePath: opts.mergePath,
      };
      const writeStart = Date.now();
      const threads = budget.claim(opts.fileGroupThreads);
      const out = await clusterJob(table.storage, job, { mode: opts.fileGroupWorkers ?? 'auto', url: opts.workerUrl, threads }, abort.signal).finally(() => {
        budget.release(threads);
      });
      abort.signal.throwIfAborted();
      if (deadline !== undefined && Date.now() > deadline) throw maxDurationError(instant, opts.maxDurationMs);
      const stats: WriteStat[] = [];
      const locations: RecordLocations[] = [];
      const written: { path: string; records: number; bytes: number }[] = [];
      for (const f of out.files) {
        await opts.onPoint?.('before-base-file');
        const path = await c.attempt.writeFile(g.partition, f.fileName, f.parts, 'CREATE', abort.signal);
        await opts.onPoint?.('after-base-file');
        opts.onProgress?.({ type: 'file-written', partition: g.partition, fileId: f.fileId, path, records: f.rowCount, bytes: f.size, merge: out.path });
        written.push({ path, records: f.rowCount, bytes: f.size });
        const size = f.size;
        stats.push(
          newWriteStat({
            fileId: f.fileId,
            path: g.partition === '' ? f.fileName : `${g.partition}/${f.fileName}`,
            prevCommit: 'null',
            partitionPath: g.partition,
            numWrites: f.rowCount,
            numInserts: f.rowCount,
            totalWriteBytes: size,
            fileSizeInBytes: size,
            totalLogFiles: null,
            logVersion: null,
            logOffset: null,
            baseFile: null,
            logFiles: null,
            prevBaseFile: null,
            totalLogReadTimeMs: 0,
            numUpdates: 0,
            runtimeStats: { totalScanTime: 0, totalCreateTime: Date.now() - writeStart, totalUpsertTime: 0 },
          }),
        );
        if (f.keys) locations.push({ partition: g.partition, fileId: f.fileId, keys: f.keys });
      }
      opts.onGroup?.({ partition: g.partition, files: written, records: written.reduce((n, f) => n + f.records, 0), bytes: written.reduce((n, f) => n + f.bytes, 0) });
      return { stats, locations };
    },
    abort,
  );
  const stats = settled.flatMap((r) => r.stats);
  const locations = settled.flatMap((r) => r.locations);
  await opts.onPoint?.('before-complete');
  const metadata = clusteringCommitMetadata(stats, c.inputs.groups, JSON.stringify(tableSchema));
  const groups = inputGroupKeys(c.inputs);
  const { completionTime } = await c.attempt.commit({
    completedAction: 'replacecommit',
    content: (layoutVersion) => (layoutVersion === 2 ? encodeCommitMetadataAvro(metadata) : encodeCommitMetadataJson(metadata, { delta: false })),
    mdt: { kind: 'commit', metadata, recordLocations: withKeys ? locations : undefined },
    check: (t, tl) => refuseRacingWrites(t, tl, instant, groups, 'completion'),
  });
  return {
    status: 'completed',
    instant,
    completionTime,
    replacedFileGroups: groups.size,
    files: stats.length,
    records: stats.reduce((n, s) => n + s.numWrites, 0),
    bytes: stats.reduce((n, s) => n + s.totalWriteBytes, 0),
    durationMs: Date.now() - started,
    rolledBack: c.rolledBack,
    metadataTableDisabled: c.metadataTableDisabled,
    warnings: c.warnings,
    writeStats: stats,
    partitionToReplaceFileIds: metadata.partitionToReplaceFileIds!,
  };
}

/** Runs one pending clustering. Throws TblError('lock-held') when the lock or the plan is taken (exit 4). */
export async function runClustering(table: Table, opts: ClusteringRunOptions = {}): Promise<ClusteringRunResult> {
  if (opts.gzipLevel !== undefined) gzipLevelOf(opts.gzipLevel);
  if (opts.layout !== undefined) layoutOf(opts.layout);
  const started = Date.now();
  const none = (status: ClusteringRunStatus, instant?: string): ClusteringRunResult => ({
    status,
    instant,
    replacedFileGroups: 0,
    files: 0,
    records: 0,
    bytes: 0,
    durationMs: Date.now() - started,
    metadataTableDisabled: false,
    warnings: [],
    writeStats: [],
    partitionToReplaceFileIds: {},
  });
  return runClaimed({
    label: 'clustering',
    opts,
    started,
    claim: () => claim(table, opts),
    execute: (c) => execute(c, opts, started),
    rollback: (c, t, keepAlive) => rollbackInflightPlan(t, c.attempt.mdt, c.instant, { ...opts, keepAlive }),
    none: (status, instant) => none(status, instant),
  });
}
