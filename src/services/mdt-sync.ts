// What the metadata table receives for each data-table action tblcli commits (format-mdt-write.md
// §3, §6), and the guard that decides, before anything is written, whether the MDT is kept in step
// ('update', the default), dropped the Hudi way ('disable') or makes the write refuse ('refuse').
//
// Per action: a partition whose content the action changes and that tblcli maintains gets its
// records; one the action does not change is left exactly as it is; one it changes but tblcli cannot
// maintain (expression indexes, anything unknown) is dropped for that partition only, under the lock,
// before the commit, with a warning.
import { KEYS } from '../config/index.ts';
import { TblError } from '../errors/index.ts';
import { parseBaseFileName, type FileSlice } from '../fs-view/index.ts';
import { HFileReader } from '../hfile/index.ts';
import { readLogFile } from '../logfile/index.ts';
import {
  bloomFilterDeleteRecord,
  columnStatsDeleteRecord,
  decodeMetadataRecord,
  encodeMetadataRecord,
  filesKey,
  filesRecord,
  isDelete,
  mdtWriterSchema,
  partitionListRecord,
  recordIndexRecord,
  type MetadataUpsert,
} from '../mdt/index.ts';
import {
  bloomFilterRecordFromFooter,
  columnStatsIndexDefinition,
  columnStatsRecordsFromFooter,
  indexedColumnsFromRecords,
  statsEncodingFor,
  type StatsEncoding,
} from '../mdt/column-stats.ts';
import { openMdtWriteTarget, writeMdtDeltacommit, type MdtRecord, type MdtWriteOptions, type MdtWriteTarget } from '../mdt/writer.ts';
import type { CleanMetadata, CommitMetadata, RollbackMetadata } from '../metadata/index.ts';
import type { Storage } from '../storage/index.ts';
import { latestTableSchema, openTableAt, type Table } from '../table/index.ts';
import type { Timeline } from '../timeline/index.ts';
import { baseName, joinPath } from '../util/index.ts';
import { pendingRollbackOf, rollbackInstant } from '../write/rollback.ts';
import { modifyTableProperties } from '../write/table-properties.ts';

export type MetadataTableMode = 'update' | 'disable' | 'refuse';

/**
 * The data-table action a write commits: what decides which MDT partitions change. 'delete': a
 * write that only deletes existing records (its files, the record-index entries of its keys).
 */
export type WriteKind = 'compaction' | 'clustering' | 'clean' | 'rollback' | 'delete';

export interface MetadataTablePlan {
  mdtPath: string;
  /** MDT partitions the action changes and tblcli maintains */
  update: string[];
  /** MDT partitions the action changes but tblcli cannot maintain: dropped before the commit */
  drop: string[];
}

/** Where a clustering put each record: the keys of one new base file. */
export interface RecordLocations {
  partition: string;
  fileId: string;
  keys: string[];
}

export type MetadataChange =
  /**
   * recordLocations: the record_index updates of a clustering (every key of every new file);
   * recordIndexDeletes: record keys the write deleted (their record_index entries go)
   */
  | { kind: 'commit'; metadata: CommitMetadata; recordLocations?: RecordLocations[]; recordIndexDeletes?: string[] }
  | { kind: 'clean'; metadata: CleanMetadata }
  | { kind: 'rollback'; target: string; metadata: RollbackMetadata };

export async function hasMetadataTable(t: Table): Promise<boolean> {
  if (t.config.metadataPartitions.length > 0 || t.config.metadataPartitionsInflight.length > 0) return true;
  return t.storage.exists(joinPath(t.metaPath, 'metadata', '.hoodie'));
}

/** Partitions tblcli writes records to, by action (format-mdt-write.md §6.2). */
const MAINTAINED: Record<WriteKind, ReadonlySet<string>> = {
  compaction: new Set(['files', 'column_stats', 'bloom_filters']),
  clustering: new Set(['files', 'column_stats', 'bloom_filters', 'record_index']),
  clean: new Set(['files', 'column_stats', 'bloom_filters']),
  // everything else is undone by rolling the MDT's own deltacommit back
  rollback: new Set(['files']),
  delete: new Set(['files', 'column_stats', 'bloom_filters', 'record_index']),
};

/** Partitions whose content the action leaves as it is (data ranges, keys and secondary keys do not move). */
function unaffected(kind: WriteKind, partition: string): boolean {
  if (kind === 'rollback') return true;
  if (partition === 'partition_stats') return true; // ranges of the same data; old ranges stay supersets
  if (partition.startsWith('secondary_index_')) return kind !== 'delete';
  if (partition === 'record_index') return kind !== 'clustering';
  return false;
}

function refusal(t: Table, why: string, cause?: unknown): TblError {
  return new TblError('unsupported', `${t.uri} has a metadata table (hoodie.table.metadata.partitions=${t.config.metadataPartitions.join(',') || '<empty>'}) ${why}`, {
    path: t.uri,
    hint: 'pass --metadata-table disable to clear hoodie.table.metadata.partitions and delete .hoodie/metadata first (as a Hudi writer with hoodie.metadata.enable=false does); make sure the other writers run with the metadata table disabled too',
    cause,
  });
}

/**
 * The MDT side of a write, decided before anything is written: undefined when the table has no MDT
 * that readers use, 'disable' when the caller asked for it to be dropped, else the plan. Throws when
 * the MDT cannot be kept in step.
 */
export async function prepareMetadataTable(t: Table, mode: MetadataTableMode, kind: WriteKind): Promise<MetadataTablePlan | 'disable' | undefined> {
  if (!(await hasMetadataTable(t))) return undefined;
  if (mode === 'disable') return 'disable';
  if (mode === 'refuse') throw refusal(t, 'and --metadata-table is refuse; a commit it does not know about would hide the new files from readers that list through it');
  const listed = t.config.metadataPartitions;
  if (!listed.includes('files')) {
    // no reader uses it (HoodieTableConfig.isMetadataTableAvailable); the next Hudi writer rebuilds it
    if (t.config.metadataPartitionsInflight.length === 0) return undefined;
  }
  if (t.config.metadataPartitionsInflight.length > 0) {
    throw refusal(t, `while partitions ${t.config.metadataPartitionsInflight.join(',')} are being built (hoodie.table.metadata.partitions.inflight); retry when the indexer is done`);
  }
  if (![6, 8, 9].includes(t.config.version)) {
    throw refusal(t, `of table version ${t.config.version}; tblcli keeps metadata tables of table versions 6, 8 and 9 in step`);
  }
  const update: string[] = [];
  const drop: string[] = [];
  for (const p of listed) {
    if (MAINTAINED[kind].has(p)) update.push(p);
    else if (!unaffected(kind, p)) drop.push(p);
  }
  return { mdtPath: joinPath(t.metaPath, 'metadata'), update, drop };
}

/**
 * Drops the partitions the plan cannot maintain, the Hudi way (HoodieTableMetadataUtil
 * .deleteMetadataTablePartition): the name leaves hoodie.table.metadata.partitions first, so readers
 * stop using it at once, then its directory goes. Call holding the lock. Returns the warnings.
 */
export async function dropMetadataPartitions(
  t: Table,
  plan: MetadataTablePlan,
  now: Date,
  opts: { remove?: (path: string) => Promise<boolean> } = {},
): Promise<string[]> {
  if (plan.drop.length === 0) return [];
  const gone = new Set(plan.drop);
  await modifyTableProperties(
    t.storage,
    t.metaPath,
    (p) => {
      for (const key of [KEYS.metadataPartitions, KEYS.metadataPartitionsInflight]) {
        const v = p.get(key);
        if (v !== undefined) p.set(key, v.split(',').filter((x) => x !== '' && !gone.has(x)).join(','));
      }
    },
    now,
  );
  // `remove` may take the directory away itself (a backup rename); otherwise it is deleted
  for (const p of plan.drop) {
    const dir = joinPath(plan.mdtPath, p);
    if (!(await opts.remove?.(dir))) await t.storage.delete(dir, { recursive: true });
  }
  return plan.drop.map((p) => `metadata-table partition ${p} of ${t.uri} dropped: tblcli cannot maintain it for this write (a Hudi writer with it enabled rebuilds it)`);
}

// ---- records per action ----

/** The parquet footer (metadata + 8-byte tail) of a file: what the column-stats and bloom builders read. */
async function parquetFooter(storage: Storage, path: string): Promise<Uint8Array> {
  const size = (await storage.stat(path)).size;
  const tail = await storage.readRange(path, size - 8, 8);
  const len = new DataView(tail.buffer, tail.byteOffset, 8).getInt32(0, true);
  if (size < len + 12) throw new TblError('parquet', `${storage.uri(path)}: footer length ${len} does not fit the file`, { path: storage.uri(path) });
  return storage.readRange(path, size - 8 - len, len + 8);
}

/** The column_stats source columns and encoding: index.json on 1.x; on v6 the columns existing records name. */
async function columnStatsColumns(t: Table, w: MdtWriteTarget): Promise<{ columns: string[]; encoding: StatsEncoding }> {
  if (t.config.version >= 8) {
    const rel = t.config.props.get(KEYS.indexDefsPath) ?? '.hoodie/.index_defs/index.json';
    const path = rel.startsWith('/') ? rel : joinPath(t.basePath, rel);
    if (await t.storage.exists(path)) {
      const def = columnStatsIndexDefinition(new TextDecoder().decode(await t.storage.readFile(path)));
      if (def && def.columns.length > 0) return { columns: def.columns, encoding: statsEncodingFor(def.version) };
    }
  }
  return { columns: await columnsNamedInColumnStats(w), encoding: 'legacy' };
}

/** The column names of the newest column_stats HFile's records (every file gets the same columns). */
async function columnsNamedInColumnStats(w: MdtWriteTarget): Promise<string[]> {
  const names = new Set<string>();
  const schema = mdtWriterSchema(w.writerSchema);
  for (const slice of w.partitions.get('column_stats')?.slices ?? []) {
    const hfiles = await newestHFile(w, slice);
    for (const r of hfiles) {
      const rec = decodeMetadataRecord(r.key, r.value, r.schema ?? schema, r.path);
      if ('columnStats' in rec && rec.columnStats.columnName) names.add(rec.columnStats.columnName);
    }
    if (names.size > 0) break;
  }
  if (names.size === 0) throw new TblError('metadata', `${w.mdt.uri}: no column_stats record names its columns; cannot tell which columns to index`, { path: w.mdt.uri });
  const fields = (JSON.parse((await latestTableSchema(w.data)).schema) as { fields: { name: string }[] }).fields.map((f) => f.name);
  return indexedColumnsFromRecords(names, fields);
}

/** Up to a few thousand records of the slice's newest HFile (its last log block, else its base file). */
async function newestHFile(w: MdtWriteTarget, slice: FileSlice): Promise<{ key: string; value: Uint8Array; schema?: string; path: string }[]> {
  for (const lf of [...slice.logFiles].reverse()) {
    const out: { key: string; value: Uint8Array; schema?: string; path: string }[] = [];
    const contents = await readLogFile(w.mdt.storage, lf.path, {
      size: lf.size,
      withRecords: true,
      decodeHFile: async (content, header) => {
        for (const r of await (await HFileReader.fromBytes(content, lf.path)).readAll()) out.push({ key: r.key, value: r.value, schema: header.SCHEMA, path: lf.path });
        return [];
      },
    });
    if (contents.blocks.some((b) => b.type === 'HFILE_DATA_BLOCK') && out.length > 0) return out;
  }
  if (!slice.baseFile) return [];
  const reader = await HFileReader.open(w.mdt.storage, slice.baseFile.path, { size: slice.baseFile.size });
  const out: { key: string; value: Uint8Array; path: string }[] = [];
  for await (const r of reader.scan()) {
    out.push({ key: r.key, value: r.value, path: slice.baseFile.path });
    if (out.length >= 5000) break;
  }
  return out;
}

/** convertMetadataToRecords(HoodieCommitMetadata): files, bloom_filters, column_stats of the new files; record_index for clustering. */
async function commitRecords(t: Table, w: MdtWriteTarget, plan: MetadataTablePlan, instant: string, m: CommitMetadata, locations?: RecordLocations[]): Promise<Map<string, MetadataUpsert[]>> {
  const out = new Map<string, MetadataUpsert[]>();
  const want = new Set(plan.update);
  const stats = Object.entries(m.partitionToWriteStats).flatMap(([partition, list]) => list.map((s) => ({ partition, s })));
  if (want.has('files')) {
    const recs: MetadataUpsert[] = [partitionListRecord(Object.keys(m.partitionToWriteStats))];
    for (const [partition, list] of Object.entries(m.partitionToWriteStats)) {
      const sizes = new Map<string, number>();
      for (const s of list) if (s.path) sizes.set(baseName(s.path), Math.max(sizes.get(baseName(s.path)) ?? 0, s.fileSizeInBytes));
      recs.push(filesRecord(partition, sizes));
    }
    out.set('files', recs);
  }
  const baseStats = stats.filter(({ s }) => s.path && parseBaseFileName(baseName(s.path)));
  if (want.has('bloom_filters') || want.has('column_stats')) {
    const cols = want.has('column_stats') ? await columnStatsColumns(t, w) : undefined;
    const bloom: MetadataUpsert[] = [];
    const colStats: MetadataUpsert[] = [];
    for (const { partition, s } of baseStats) {
      const path = joinPath(t.basePath, s.path!);
      const footer = await parquetFooter(t.storage, path);
      if (want.has('bloom_filters')) bloom.push(bloomFilterRecordFromFooter(partition, baseName(path), instant, footer, { path: t.storage.uri(path) }));
      if (cols) colStats.push(...columnStatsRecordsFromFooter(partition, baseName(path), footer, cols.columns, cols.encoding, t.storage.uri(path)));
    }
    if (want.has('bloom_filters')) out.set('bloom_filters', bloom);
    if (want.has('column_stats')) out.set('column_stats', colStats);
  }
  if (want.has('record_index') && locations) {
    // the location of every moved record: its new file group at the clustering instant (the table's time zone)
    const encoding = t.config.props.get('hoodie.record.index.fileid.encoding') === '1' ? 1 : 0;
    // a key held by more than one input group (a table with duplicates) gets one entry, the last, as
    // the MDT's upsert combines records of one key
    const byKey = new Map<string, RecordLocations>();
    for (const l of locations) for (const k of l.keys) byKey.set(k, l);
    const recs: MetadataUpsert[] = [];
    for (const [k, l] of byKey) recs.push(recordIndexRecord(k, l.partition, l.fileId, instant, { encoding, timeZone: t.config.timezone }));
    out.set('record_index', recs);
  }
  return out;
}

/** convertMetadataToRecords(HoodieCleanMetadata): tombstones in files, deletes in bloom_filters and column_stats. */
async function cleanRecords(t: Table, w: MdtWriteTarget, plan: MetadataTablePlan, instant: string, m: CleanMetadata): Promise<Map<string, MetadataUpsert[]>> {
  const out = new Map<string, MetadataUpsert[]>();
  const want = new Set(plan.update);
  const parts = Object.values(m.partitionMetadata ?? {});
  if (want.has('files')) {
    const recs: MetadataUpsert[] = [];
    const dropped = parts.filter((p) => p.isPartitionDeleted).map((p) => p.partitionPath);
    for (const p of parts) {
      if (p.isPartitionDeleted) recs.push({ key: filesKey(p.partitionPath), deleted: true });
      else if (p.deletePathPatterns.length > 0) recs.push(filesRecord(p.partitionPath, [], p.deletePathPatterns));
    }
    if (dropped.length > 0) recs.push(partitionListRecord(dropped, true));
    out.set('files', recs);
  }
  if (want.has('bloom_filters')) {
    out.set('bloom_filters', parts.flatMap((p) => p.deletePathPatterns.filter((n) => parseBaseFileName(n)).map((n) => bloomFilterDeleteRecord(p.partitionPath, n, instant))));
  }
  if (want.has('column_stats')) {
    const cols = await columnStatsColumns(t, w);
    out.set('column_stats', parts.flatMap((p) => p.deletePathPatterns.flatMap((n) => cols.columns.map((c) => columnStatsDeleteRecord(p.partitionPath, n, c, cols.encoding === 'typed')))));
  }
  return out;
}

/** Rollback: files adds the rollback log files and the failed commit's log files (v6 command blocks). */
function rollbackRecords(m: RollbackMetadata): Map<string, MetadataUpsert[]> {
  const recs: MetadataUpsert[] = [];
  for (const p of Object.values(m.partitionMetadata)) {
    const sizes = new Map<string, number>();
    for (const [path, size] of [...Object.entries(p.rollbackLogFiles ?? {}), ...Object.entries(p.logFilesFromFailedCommit ?? {})]) {
      sizes.set(baseName(path), Math.max(sizes.get(baseName(path)) ?? 0, size));
    }
    if (sizes.size > 0) recs.push(filesRecord(p.partitionPath, sizes));
  }
  return new Map(recs.length > 0 ? [['files', recs]] : []);
}

function encodeAll(w: MdtWriteTarget, recs: Map<string, MetadataUpsert[]>): Map<string, MdtRecord[]> {
  const schema = mdtWriterSchema(w.writerSchema);
  const out = new Map<string, MdtRecord[]>();
  for (const [partition, list] of recs) out.set(partition, list.map((r) => (isDelete(r) ? { key: r.key } : { key: r.key, value: encodeMetadataRecord(r, schema) })));
  return out;
}

export type ChangeOptions = MdtWriteOptions;

/**
 * Writes the MDT side of data-table instant `instant` (format-mdt-write.md §3, §4.1): a deltacommit
 * with the action's records; for a rollback (v8/9) the MDT rollback of the target at the same time,
 * (v6) a deltacommit with the rollback's files records then the MDT rollback at `<rb>006`. Call
 * holding the data table's lock, before the data instant completes.
 */
export async function metadataTableChange(t: Table, plan: MetadataTablePlan, instant: string, change: MetadataChange, opts: ChangeOptions = {}): Promise<void> {
  const partitions = change.kind === 'rollback' ? ['files'] : plan.update;
  const w = await openMdtWriteTarget(t, partitions.filter((p) => t.config.metadataPartitions.includes(p)));
  if (change.kind === 'commit') {
    const recs = await commitRecords(t, w, plan, instant, change.metadata, change.recordLocations);
    if (change.recordIndexDeletes && plan.update.includes('record_index')) {
      recs.set('record_index', [...(recs.get('record_index') ?? []), ...change.recordIndexDeletes.map((key) => ({ key, deleted: true as const }))]);
    }
    await writeMdtDeltacommit(w, instant, encodeAll(w, recs), opts);
    return;
  }
  if (change.kind === 'clean') {
    await writeMdtDeltacommit(w, instant, encodeAll(w, await cleanRecords(t, w, plan, instant, change.metadata)), opts);
    return;
  }
  await rollbackInMetadataTable(t, w, instant, change.target, change.metadata, opts);
}

/** Why the MDT cannot roll back its deltacommit of `target`, or undefined (format-mdt-write.md §3.5). */
function foldedInto(t: Table, tl: Timeline, target: string): string | undefined {
  const mine = tl.find(target).find((i) => i.action === 'deltacommit' || i.effectiveAction === 'deltacommit');
  const lastCompaction = tl.completed().filter((i) => i.action === 'commit').at(-1);
  // a completed MDT deltacommit already folded into an MDT compaction cannot be taken back (v8+: by completion time)
  const folded = mine?.state === 'COMPLETED' && lastCompaction && (t.config.version >= 8 ? (mine.completionTime ?? mine.requestedTime) < lastCompaction.requestedTime : target <= lastCompaction.requestedTime);
  return folded ? lastCompaction.requestedTime : undefined;
}

function foldedError(target: string, compaction: string): TblError {
  return new TblError('unsupported', `cannot roll back ${target}: it is earlier than the metadata table's latest compaction ${compaction}; a restore is needed`, {
    instant: target,
    hint: 'drop the metadata table first (--metadata-table disable), as Hudi asks',
  });
}

/** The check rollbackInMetadataTable makes, for callers that validate before writing anything. */
export async function checkMetadataTableRollback(t: Table, plan: MetadataTablePlan, target: string): Promise<void> {
  const mdt = await openTableAt(t.storage, plan.mdtPath);
  const c = foldedInto(t, await mdt.timeline(), target);
  if (c) throw foldedError(target, c);
}

/** The MDT rollback's crash-test points, named apart from the data table's. */
function mdtPoint(opts: ChangeOptions): ((p: string) => void | Promise<void>) | undefined {
  const on = opts.onPoint;
  return on ? (p) => on(`mdt-${p}`) : undefined;
}

/** The MDT side of a data rollback `rb` of `target` (format-mdt-write.md §3.5). */
async function rollbackInMetadataTable(t: Table, w: MdtWriteTarget, rb: string, target: string, metadata: RollbackMetadata, opts: ChangeOptions): Promise<void> {
  // the MDT deltacommit of the target, or a crashed MDT rollback of it to finish
  const hasTarget = w.timeline.find(target).some((i) => i.action === 'deltacommit' || i.effectiveAction === 'deltacommit') || (await pendingRollbackOf(w.mdt, w.timeline, target)) !== undefined;
  const folded = foldedInto(t, w.timeline, target);
  if (folded) throw foldedError(target, folded);
  if (t.config.version < 8) {
    await writeMdtDeltacommit(w, rb, encodeAll(w, rollbackRecords(metadata)), opts);
    await opts.onPoint?.('mdt-rollback-deltacommit');
    if (hasTarget) await rollbackInstant(w.mdt, target, { targetFiles: 'delete', rollbackTime: `${rb}006`, now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive: opts.keepAlive, onPoint: mdtPoint(opts) });
    return;
  }
  if (hasTarget) await rollbackInstant(w.mdt, target, { targetFiles: 'delete', rollbackTime: rb, now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive: opts.keepAlive, onPoint: mdtPoint(opts) });
}
