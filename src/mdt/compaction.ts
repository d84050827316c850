// Compacting the metadata table when Hudi's writer would (format-mdt-write.md §4.6;
// HoodieBackedTableMetadataWriter.compactIfNecessary, validateCompactionScheduling and the v6 variant
// HoodieBackedTableMetadataWriterTableVersionSix): once `hoodie.metadata.compact.max.delta.commits`
// (default 10) deltacommits followed the last MDT compaction and Hudi's preconditions hold, one plan
// of every file group of every MDT partition (UnBoundedCompactionStrategy), requested → inflight →
// per file group the base HFile merged with its log blocks (slice.ts) into a new base HFile written as
// HoodieAvroHFileWriter writes one (records sorted by key, `_hoodie_file_name` filled, bloom filter of
// the keys, min/max record key) → the completed `commit`. A pending MDT compaction (a crash, ours or a
// Hudi writer's) is finished first, as Hudi's runAnyPendingCompactions does at a write's start.
// Everything here runs holding the data table's lock (the MDT has none of its own).
import { TblError } from '../errors/index.ts';
import { buildFileSystemView, formatBaseFileName, formatWriteToken, listPartitions, type FileSlice } from '../fs-view/index.ts';
import { writeHFile } from '../hfile/index.ts';
import {
  decodeCompactionPlan,
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  encodeCompactionPlan,
  newWriteStat,
  type CommitMetadata,
  type CompactionOperation,
  type CompactionPlan,
  type WriteStat,
} from '../metadata/index.ts';
import { HoodieBloomFilter } from '../parquet/bloom.ts';
import { resolveTableEntry } from '../storage/confine.ts';
import { openTableAt, type Table } from '../table/index.ts';
import { loadActiveTimeline, type Instant, type Timeline } from '../timeline/index.ts';
import { completeInstant, createRequested, newInstantTime, timesOnTimeline, transitionToInflight } from '../timeline/writer.ts';
import { formatInstantTime, joinPath, parseInstantTime } from '../util/index.ts';
import { createMarker, deleteMarkerDir } from '../write/markers.ts';
import { rollbackInstant } from '../write/rollback.ts';
import { encodeMetadataRecord, mdtWriterSchema, type MdtWriterSchema, type MetadataRecord } from './records.ts';
import { mergeMdtSlice } from './slice.ts';
import { metadataTablePath, mdtViewTimeline, validInstants } from './table.ts';
import { withoutMetaFields, writerSchemaOf } from './writer.ts';

export const MAX_DELTA_COMMITS_KEY = 'hoodie.metadata.compact.max.delta.commits';
/** HoodieMetadataConfig.COMPACT_NUM_DELTA_COMMITS default */
export const DEFAULT_MAX_DELTA_COMMITS = 10;
/** CompactionStrategy.captureMetrics writes hoodie.parquet.max.file.size (120 MB) for a slice without base file */
const DEFAULT_WRITE_MB = 120;
const MB = 1024 * 1024;

export interface MdtServiceOptions {
  now?: () => Date;
  clockSkewMs?: number;
  /** keeps the data table's lock alive between file operations */
  keepAlive?: () => Promise<void>;
  /** test hook (crash tests): 'mdt-compaction-requested', '-inflight', '-file-written', '-before-complete' */
  onPoint?: (point: string) => void | Promise<void>;
  /** overrides hoodie.metadata.compact.max.delta.commits */
  maxDeltaCommits?: number;
}

export interface MdtCompactionResult {
  instant: string;
  completionTime?: string;
  /** base files written, MDT-relative */
  files: string[];
  records: number;
  /** the compaction was a pending one left by an earlier (crashed) run */
  resumed: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `hoodie.metadata.compact.max.delta.commits` from the data table's hoodie.properties, else 10. */
export function maxDeltaCommitsOf(data: Table): number {
  const v = data.config.props.get(MAX_DELTA_COMMITS_KEY);
  if (v === undefined || v.trim() === '') return DEFAULT_MAX_DELTA_COMMITS;
  const n = Number(v.trim());
  if (!Number.isInteger(n) || n < 1) throw new TblError('config', `${data.uri}: ${MAX_DELTA_COMMITS_KEY}=${v} is not a positive integer`, { path: data.uri });
  return n;
}

function isDeltacommit(i: Instant): boolean {
  return i.action === 'deltacommit' || i.effectiveAction === 'deltacommit';
}

function isCompactionInstant(i: Instant): boolean {
  return i.stateActions.REQUESTED === 'compaction' || i.stateActions.INFLIGHT === 'compaction' || i.effectiveAction === 'compaction';
}

/** HoodieInstantTimeGenerator.instantTimeMinusMillis. */
function minusMillis(t: string, ms: number, zone: 'UTC' | 'LOCAL'): string {
  const d = parseInstantTime(t.slice(0, 17), zone);
  if (!d) throw new TblError('timeline', `cannot parse instant time ${t}`, { instant: t });
  return formatInstantTime(new Date(d.getTime() - ms), zone);
}

/** `fresh`: a newly generated time (v8/9), taken after the TrueTime wait */
export type CompactionDecision = { instant: string; fresh: boolean } | { reason: string };

/**
 * Whether Hudi's metadata writer would schedule an MDT compaction now, and at which instant:
 * v6 `<latest MDT deltacommit>001` and only while no data instant ≤ it is pending; v8/9 the earliest
 * data instant pending on the data table but completed on the MDT minus 1 ms, else a new time.
 * tblcli also waits while any MDT instant is pending (a Hudi writer rolls those back first).
 */
export function decideMdtCompaction(data: Table, mdt: Table, dataTl: Timeline, mdtTl: Timeline, maxDeltaCommits: number, now: Date): CompactionDecision {
  const pending = mdtTl.pending()[0];
  if (pending) return { reason: `metadata-table instant ${pending.requestedTime} (${pending.effectiveAction}) is pending` };
  const completedDc = mdtTl.completed().filter(isDeltacommit);
  const latest = completedDc.at(-1)?.requestedTime;
  if (!latest) return { reason: 'the metadata table has no completed deltacommit' };
  const last = mdtTl.completed().filter((i) => i.action === 'commit').at(-1)?.requestedTime;
  const since = mdtTl.instants.filter((i) => isDeltacommit(i) && (last === undefined || i.requestedTime > last)).length;
  if (since < maxDeltaCommits) return { reason: `${since} deltacommit(s) since the last metadata-table compaction, fewer than ${MAX_DELTA_COMMITS_KEY}=${maxDeltaCommits}` };
  let instant: string;
  let fresh = false;
  if (data.config.version < 8) {
    const blocking = dataTl.pending().filter((i) => i.requestedTime <= latest);
    if (blocking.length > 0) {
      return { reason: `data-table instant(s) ${blocking.map((i) => i.requestedTime).join(', ')} pending at or before the metadata table's latest deltacommit ${latest}` };
    }
    instant = `${latest}001`;
  } else {
    const mdtDone = new Set(mdtTl.completed().map((i) => i.requestedTime));
    const orphan = dataTl.pending().find((i) => mdtDone.has(i.requestedTime));
    fresh = orphan === undefined;
    instant = orphan
      ? minusMillis(orphan.requestedTime, 1, mdt.config.timezone)
      : newInstantTime([...timesOnTimeline(mdtTl), ...timesOnTimeline(dataTl)], mdt.config.timezone, now);
  }
  if (mdtTl.find(instant).length > 0) return { reason: `metadata-table compaction ${instant} is already on the timeline` };
  return { instant, fresh };
}

/** The MDT with its timeline and file-system view of every MDT partition. */
async function openMdt(data: Table): Promise<{ mdt: Table; tl: Timeline; dataTl: Timeline }> {
  const mdt = await openTableAt(data.storage, metadataTablePath(data.basePath));
  return { mdt, tl: await mdt.timeline(), dataTl: await data.timeline() };
}

async function mdtView(data: Table, mdt: Table, tl: Timeline, dataTl: Timeline) {
  const m = { data, mdt, dataTimeline: dataTl, mdtTimeline: tl, validInstants: validInstants(dataTl, tl), warnings: [] };
  const partitions = (await listPartitions(mdt.storage, mdt.basePath)).map((p) => p.partition).filter((p) => p !== '');
  return buildFileSystemView(mdt.storage, mdt.basePath, await mdtViewTimeline(m), { partitions });
}

/** CompactionUtils.buildHoodieCompactionOperation with CompactionStrategy.captureMetrics. */
function operationOf(s: FileSlice, logs: FileSlice['logFiles']): CompactionOperation {
  const logSize = logs.reduce((n, l) => n + l.size, 0);
  const baseSize = s.baseFile?.size ?? 0;
  const readMb = Math.floor((baseSize + logSize) / MB);
  const writeMb = s.baseFile ? Math.floor(baseSize / MB) : DEFAULT_WRITE_MB;
  return {
    baseInstantTime: s.baseInstant,
    deltaFilePaths: logs.map((l) => l.name),
    dataFilePath: s.baseFile?.name ?? null,
    fileId: s.fileId,
    partitionPath: s.partition,
    metrics: { TOTAL_LOG_FILES: logs.length, TOTAL_IO_MB: readMb + writeMb, TOTAL_IO_READ_MB: readMb, TOTAL_LOG_FILES_SIZE: logSize, TOTAL_IO_WRITE_MB: writeMb },
    bootstrapFilePath: null,
  };
}

/**
 * HoodieCompactionPlanGenerator with UnBoundedCompactionStrategy over the MDT: every latest slice
 * with log files (v8/9: only log files whose deltacommit completed before the compaction instant).
 */
export function planMdtCompaction(slices: readonly FileSlice[], instant: string, layout: 1 | 2): CompactionPlan | undefined {
  const ops: CompactionOperation[] = [];
  for (const s of slices) {
    if (s.pendingCompaction) continue;
    const logs = layout === 2 ? s.logFiles.filter((l) => l.completionTime !== undefined && l.completionTime < instant) : s.logFiles;
    if (logs.length === 0) continue;
    ops.push(operationOf(s, logs));
  }
  if (ops.length === 0) return undefined;
  return { operations: ops, extraMetadata: null, version: 2, strategy: null, preserveHoodieMetadata: false, missingSchedulePartitions: [] };
}

/**
 * A base HFile as HoodieAvroHFileWriter writes one for the MDT: the records (sorted by key) with
 * `_hoodie_file_name` = the file's own name and the other meta fields null, the bloom filter of the
 * keys as META block `bloomFilter`, file info `schema`, `bloomFilterTypeCode`, `minRecordKey`, `maxRecordKey`.
 */
export function mdtBaseFile(records: readonly MetadataRecord[], schema: MdtWriterSchema, fileName: string, tableVersion: number): Uint8Array {
  const meta = { commitTime: null, commitSeqno: null, recordKey: null, partitionPath: null, fileName };
  // 1.1 (table version 9) sizes the MDT base files' filter for 10,000 keys (every fixture file), 0.x/1.0 for 60,000
  const bloom = HoodieBloomFilter.create(tableVersion >= 9 ? { numEntries: 10_000 } : {});
  const cells = records.map((rec) => {
    bloom.add(rec.key);
    return { key: rec.key, value: encodeMetadataRecord({ ...rec, meta }, schema) };
  });
  return writeHFile(cells, {
    fileInfo: { schema: schema.text, bloomFilterTypeCode: bloom.type, minRecordKey: records[0]?.key ?? '', maxRecordKey: records.at(-1)?.key ?? '' },
    metaBlocks: [{ name: 'bloomFilter', bytes: new TextEncoder().encode(bloom.serialize()) }],
  });
}

/** Runs plan `instant` (requested, or inflight after its rollback) to its completed commit. */
async function executeMdtCompaction(data: Table, instant: string, plan: CompactionPlan, resumed: boolean, opts: MdtServiceOptions): Promise<MdtCompactionResult> {
  const { mdt, tl, dataTl } = await openMdt(data);
  const src = mdt.timelineSource;
  const view = await mdtView(data, mdt, tl, dataTl);
  const schema = await writerSchemaOf(mdt, view.latestMergedFileSlices());
  const parsed = mdtWriterSchema(schema);
  const valid = validInstants(dataTl, tl);
  const counts = (t: string): boolean => {
    if (!tl.isCompleted(t) || !valid.has(t)) return false;
    if (src.layout === 1) return t < instant;
    const ct = tl.completionTimeOf(t);
    return ct !== undefined && ct < instant;
  };
  const ctx = { instant, source: 'metadata-table compaction plan' };
  const resolved = (plan.operations ?? []).map((op) => {
    const partition = op.partitionPath ?? '';
    const rel = { ...ctx, relativeTo: joinPath(mdt.basePath, partition) };
    return {
      op,
      partition,
      fileId: op.fileId ?? '',
      base: op.dataFilePath ? resolveTableEntry(mdt.storage, mdt.basePath, op.dataFilePath, rel) : undefined,
      logs: (op.deltaFilePaths ?? []).map((f) => resolveTableEntry(mdt.storage, mdt.basePath, f, rel)),
    };
  });
  await transitionToInflight(src, instant, 'compaction');
  await opts.onPoint?.('mdt-compaction-inflight');
  const stats: Record<string, WriteStat[]> = {};
  const files: string[] = [];
  let records = 0;
  let index = 0;
  for (const r of resolved) {
    await opts.keepAlive?.();
    const started = Date.now();
    const merged = await mergeMdtSlice(mdt.storage, r.base ? { path: r.base } : undefined, r.logs.map((path) => ({ path })), counts, { keepAlive: opts.keepAlive });
    const scanMs = Date.now() - started;
    // HoodieCompactor (0.x, 1.0): nothing to write for a slice without base file whose logs hold no
    // record; 1.1's file-group-reader compaction (table version 9) writes an empty base file anyway
    if (!r.base && merged.stats.mergedLogKeys === 0 && data.config.version < 9) continue;
    const fileName = formatBaseFileName({ fileId: r.fileId, writeToken: formatWriteToken(index++, 0, 0), instant, ext: 'hfile' });
    const bytes = mdtBaseFile(merged.records, parsed, fileName, data.config.version);
    const writeStart = Date.now();
    await createMarker(mdt.storage, mdt.basePath, instant, { partition: r.partition, fileName, ioType: r.base ? 'MERGE' : 'CREATE' });
    await mdt.storage.writeNew(joinPath(mdt.basePath, r.partition, fileName), bytes);
    await opts.onPoint?.('mdt-compaction-file-written');
    const rel = `${r.partition}/${fileName}`;
    files.push(rel);
    records += merged.records.length;
    const s = merged.stats;
    const writeMs = Date.now() - writeStart;
    (stats[r.partition] ??= []).push(
      newWriteStat({
        fileId: r.fileId,
        path: rel,
        // HoodieMergeHandle: the base file's instant; a create handle has none
        prevCommit: r.base ? (r.op.baseInstantTime ?? 'null') : 'null',
        partitionPath: r.partition,
        numWrites: merged.records.length,
        numDeletes: s.deletedRecords,
        numUpdateWrites: s.updatedBaseRecords,
        numInserts: s.insertedRecords,
        totalWriteBytes: bytes.length,
        fileSizeInBytes: bytes.length,
        totalLogRecords: s.totalLogRecords + (data.config.version >= 9 ? s.totalLogDeletes : 0),
        totalLogFilesCompacted: s.totalLogFilesCompacted,
        totalLogSizeCompacted: r.op.metrics?.TOTAL_LOG_FILES_SIZE ?? s.totalLogSizeCompacted,
        totalUpdatedRecordsCompacted: s.mergedLogKeys,
        totalLogBlocks: s.totalLogBlocks,
        totalCorruptLogBlock: s.totalCorruptLogBlock,
        totalRollbackBlocks: s.totalRollbackBlocks,
        runtimeStats: { totalScanTime: scanMs, totalCreateTime: r.base ? 0 : writeMs, totalUpsertTime: r.base ? writeMs : 0 },
        totalLogReadTimeMs: scanMs,
        numUpdates: 0,
      }),
    );
  }
  await opts.onPoint?.('mdt-compaction-before-complete');
  const metadata: CommitMetadata = { partitionToWriteStats: stats, compacted: true, extraMetadata: { schema: withoutMetaFields(schema) }, operationType: 'COMPACT', version: null };
  let ct: string | undefined;
  if (src.layout === 2) {
    const times = [...timesOnTimeline(await loadActiveTimeline(src)), ...timesOnTimeline(await loadActiveTimeline(data.timelineSource)), instant];
    ct = newInstantTime(times, mdt.config.timezone, (opts.now ?? (() => new Date()))());
    await sleep(opts.clockSkewMs ?? 200);
  }
  await opts.keepAlive?.();
  const content = src.layout === 2 ? encodeCommitMetadataAvro(metadata) : encodeCommitMetadataJson(metadata, { delta: false });
  await completeInstant(src, instant, 'compaction', 'commit', content, ct);
  await deleteMarkerDir(mdt.storage, mdt.basePath, instant);
  return { instant, completionTime: ct, files, records, resumed };
}

/**
 * Finishes every pending MDT compaction (runAnyPendingCompactions): an inflight one is rolled back
 * first (its partial base files go, the plan stays), then its plan runs. A pending MDT log
 * compaction cannot be run by tblcli: refused. Call under the data table's lock, before any MDT write.
 */
export async function finishPendingMdtCompactions(data: Table, opts: MdtServiceOptions = {}): Promise<MdtCompactionResult[]> {
  if (!(await data.storage.exists(joinPath(metadataTablePath(data.basePath), '.hoodie', 'hoodie.properties')))) return [];
  const { mdt, tl } = await openMdt(data);
  const log = tl.pending().find((i) => i.effectiveAction === 'logcompaction' || i.stateActions.REQUESTED === 'logcompaction');
  if (log) {
    throw new TblError('unsupported', `metadata table ${mdt.uri} has a pending log compaction ${log.requestedTime}; tblcli cannot run it, and writing next to it could lose records`, {
      instant: log.requestedTime,
      hint: 'let a Hudi writer finish it, or drop the metadata table (--metadata-table disable)',
    });
  }
  const out: MdtCompactionResult[] = [];
  for (const i of tl.pending().filter(isCompactionInstant)) {
    const c = i.requestedTime;
    try {
      if (!i.files.REQUESTED) throw new TblError('timeline', `its requested plan is missing`, { instant: c });
      const plan = decodeCompactionPlan(await tl.read(i, 'REQUESTED', false), { path: mdt.storage.uri(i.files.REQUESTED.path) });
      if (i.state === 'INFLIGHT') {
        await rollbackInstant(mdt, c, { targetFiles: 'keep-requested', now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive: opts.keepAlive });
      }
      out.push(await executeMdtCompaction(data, c, plan, true, opts));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new TblError(e instanceof TblError ? e.kind : 'metadata', `metadata table ${mdt.uri}: pending compaction ${c} could not be finished: ${msg}`, {
        instant: c,
        hint: 'tblcli finishes a pending metadata-table compaction before writing to the metadata table; fix the cause, or drop the metadata table (--metadata-table disable)',
        cause: e,
      });
    }
  }
  return out;
}

/**
 * Schedules and runs an MDT compaction if Hudi's writer would now (decideMdtCompaction). On an error
 * the attempt is taken back whole (plan included): it was created in this call, under this lock.
 */
export async function compactMetadataTableIfDue(data: Table, opts: MdtServiceOptions = {}): Promise<{ result?: MdtCompactionResult; reason?: string }> {
  const { mdt, tl, dataTl } = await openMdt(data);
  const decision = decideMdtCompaction(data, mdt, dataTl, tl, opts.maxDeltaCommits ?? maxDeltaCommitsOf(data), (opts.now ?? (() => new Date()))());
  if ('reason' in decision) return { reason: decision.reason };
  const { instant } = decision;
  const view = await mdtView(data, mdt, tl, dataTl);
  const plan = planMdtCompaction(view.latestFileSlices(), instant, mdt.timelineSource.layout);
  if (!plan) return { reason: 'no metadata-table file slice with log files' };
  if (mdt.timelineSource.layout === 2 && 'fresh' in decision && decision.fresh) await sleep(opts.clockSkewMs ?? 200);
  await createRequested(mdt.timelineSource, instant, 'compaction', encodeCompactionPlan(plan));
  await opts.onPoint?.('mdt-compaction-requested');
  try {
    return { result: await executeMdtCompaction(data, instant, plan, false, opts) };
  } catch (e) {
    await rollbackInstant(await openTableAt(data.storage, metadataTablePath(data.basePath)), instant, {
      targetFiles: 'delete',
      now: opts.now,
      clockSkewMs: opts.clockSkewMs,
      keepAlive: opts.keepAlive,
    }).catch(() => undefined);
    throw e;
  }
}
