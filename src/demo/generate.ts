// `tblcli demo`: writes a small MERGE_ON_READ table `demo_orders` with the project's own writers
// (parquet base files, Hudi log blocks, timeline instants), including the problems triage must find.
// Table version 6 → timeline layout 1 (JSON commit metadata); version 8 → layout 2 (Avro, `<rt>_<ct>` names).
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { formatInstantTime, joinPath, parentPath } from '../util/index.ts';
import { formatProperties, tableChecksum } from '../config/index.ts';
import { formatInstantFileName, type Action, type State } from '../timeline/index.ts';
import { formatBaseFileName, formatLogFileName, formatWriteToken, UNKNOWN_WRITE_TOKEN, PARTITION_METAFILE } from '../fs-view/index.ts';
import {
  encodeCleanerPlan,
  encodeCleanMetadata,
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  encodeCompactionPlan,
  encodeRollbackMetadata,
  encodeRollbackPlan,
  newWriteStat,
  type CommitMetadata,
  type CompactionPlan,
  type RollbackRequest,
  type WriteStat,
} from '../metadata/index.ts';
import { writeHoodieParquet, hoodieMetaValues } from '../parquet/write.ts';
import { encodeAvroDataBlock, encodeDeleteBlock, encodeRollbackBlock } from '../logfile/writer.ts';
import {
  DEMO_DATABASE,
  DEMO_TABLE,
  PARTITION_FIELD,
  REGIONS,
  TABLE_SCHEMA,
  WRITER_SCHEMA,
  demoFileId,
  makeOrders,
  stableUuid,
  type OrderRow,
} from './data.ts';

export interface DemoOptions {
  tableVersion?: 6 | 8;
  /** instants are placed before this time (default: new Date()) */
  now?: Date;
}

export interface DemoInstant {
  requestedTime: string;
  action: Action;
  state: State;
  completionTime?: string;
  /** what the instant did, in a few words */
  note: string;
}

export type DemoProblemKind =
  | 'fileid-collision'
  | 'stuck-inflight'
  | 'orphan-data-file'
  | 'marker-dir'
  | 'flink-leftover'
  | 'pending-compaction'
  | 'rolled-back-instant';

export interface DemoProblem {
  kind: DemoProblemKind;
  description: string;
  /** table-relative paths */
  paths: string[];
  instants?: string[];
  fileId?: string;
  partition?: string;
}

export interface DemoSummary {
  tablePath: string;
  tableName: string;
  tableType: 'MERGE_ON_READ';
  tableVersion: 6 | 8;
  timelineLayoutVersion: 1 | 2;
  partitionField: string;
  hiveStylePartitioning: true;
  partitions: string[];
  instants: DemoInstant[];
  problems: DemoProblem[];
  /** table-relative paths of the data files that exist at the end (base, log, leftovers) */
  dataFiles: string[];
}

const STEP_MS = 15 * 60 * 1000;
const START_BEFORE_NOW_MS = 5 * 60 * 60 * 1000;

type Row = Record<string, unknown>;

interface Written {
  name: string;
  /** table-relative */
  rel: string;
  size: number;
}

class DemoWriter {
  readonly layout: 1 | 2;
  readonly timelineDir: string;
  readonly instants: DemoInstant[] = [];
  private readonly times: Date[];
  private tokenCounter = 10;

  constructor(
    readonly storage: Storage,
    readonly base: string,
    readonly version: 6 | 8,
    now: Date,
  ) {
    this.layout = version === 8 ? 2 : 1;
    this.timelineDir = this.layout === 2 ? joinPath(base, '.hoodie', 'timeline') : joinPath(base, '.hoodie');
    const start = now.getTime() - START_BEFORE_NOW_MS;
    this.times = Array.from({ length: 12 }, (_, i) => new Date(start + i * STEP_MS + i * 7));
  }

  /** Requested time of the i-th instant (strictly increasing, 17 digits, table timezone LOCAL). */
  rt(i: number): string {
    return formatInstantTime(this.times[i]!, 'LOCAL');
  }
  /** A completion time a few seconds after the start of instant i (still before instant i+1). */
  ct(i: number): string {
    return formatInstantTime(new Date(this.times[i]!.getTime() + 2345), 'LOCAL');
  }
  /** epoch millis of instant i (used as the `ts` ordering value of rows it writes) */
  millis(i: number): number {
    return this.times[i]!.getTime();
  }
  token(task = 0): string {
    this.tokenCounter += 1;
    return formatWriteToken(task, this.tokenCounter, this.tokenCounter * 3 + task);
  }

  abs(rel: string): string {
    return joinPath(this.base, rel);
  }

  async put(rel: string, bytes: Uint8Array): Promise<Written> {
    const path = this.abs(rel);
    await this.storage.mkdirs(parentPath(path));
    await this.storage.writeNew(path, bytes);
    return { name: rel.slice(rel.lastIndexOf('/') + 1), rel, size: bytes.length };
  }

  async append(rel: string, bytes: Uint8Array): Promise<void> {
    await this.storage.append(this.abs(rel), bytes);
  }

  async remove(rel: string): Promise<void> {
    if (!(await this.storage.delete(this.abs(rel), { recursive: true }))) {
      throw new TblError('bug', `demo: expected ${rel} to exist before deleting it`, { path: this.abs(rel) });
    }
  }

  timelineRel(file: string): string {
    return this.layout === 2 ? `.hoodie/timeline/${file}` : `.hoodie/${file}`;
  }

  async instantFile(i: number, action: Action, state: State, content: Uint8Array = new Uint8Array(0)): Promise<string> {
    const name = formatInstantFileName(
      { requestedTime: this.rt(i), action, state, completionTime: state === 'COMPLETED' && this.layout === 2 ? this.ct(i) : undefined },
      this.layout,
    );
    await this.put(this.timelineRel(name), content);
    return this.timelineRel(name);
  }

  commitBytes(m: CommitMetadata): Uint8Array {
    return this.layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m);
  }

  /** Workload profile the writer stores in the inflight file: one stat per target file group, no paths. */
  workload(m: CommitMetadata): Uint8Array {
    const p: Record<string, WriteStat[]> = {};
    for (const [part, stats] of Object.entries(m.partitionToWriteStats)) {
      p[part] = stats.map((s) =>
        newWriteStat({ fileId: s.fileId, path: null, prevCommit: s.prevCommit, partitionPath: s.partitionPath, numInserts: s.numInserts, numUpdateWrites: s.numUpdateWrites }),
      );
    }
    return this.commitBytes({ ...m, partitionToWriteStats: p, extraMetadata: {} });
  }

  note(i: number, action: Action, state: State, note: string): void {
    const completed = state === 'COMPLETED';
    this.instants.push({
      requestedTime: this.rt(i),
      action,
      state,
      ...(completed && this.layout === 2 ? { completionTime: this.ct(i) } : {}),
      note,
    });
  }

  /** requested → inflight → completed for a write action (commit metadata in the completed file). */
  async completeWrite(i: number, action: 'deltacommit', m: CommitMetadata, note: string): Promise<void> {
    await this.instantFile(i, action, 'REQUESTED');
    await this.instantFile(i, action, 'INFLIGHT', this.workload(m));
    await this.instantFile(i, action, 'COMPLETED', this.commitBytes(m));
    this.note(i, action, 'COMPLETED', note);
  }

  async baseFile(partition: string, fileId: string, instant: string, rows: Row[], task = 0): Promise<Written & { rows: Row[] }> {
    const name = formatBaseFileName({ fileId, writeToken: this.token(task), instant, ext: 'parquet' });
    const withName = rows.map((r) => ({ ...r, _hoodie_file_name: name }));
    const out = writeHoodieParquet({ schema: WRITER_SCHEMA, rows: withName });
    const w = await this.put(`${partition}/${name}`, out.bytes);
    return { ...w, rows: withName };
  }

  /** Log file name: 0.x uses the slice's base instant, 1.x the writing deltacommit (format-data.md §1.3). */
  logName(fileId: string, baseInstant: string, deltaInstant: string, version: number, token: string): string {
    const instant = this.version === 8 ? deltaInstant : baseInstant;
    return formatLogFileName({ fileId, instant, ext: 'log', version, writeToken: token });
  }
}

function partitionOf(region: string): string {
  return `${PARTITION_FIELD}=${region}`;
}

/** Records as a writer creates them: meta fields of the writing instant, then the order fields. */
function withMeta(rows: OrderRow[], instant: string, partition: string, fileNameOrId: string, task = 0): Row[] {
  return rows.map((r, seq) => ({
    ...hoodieMetaValues({ instant, taskPartitionId: task, seq, recordKey: r.order_id, partitionPath: partition, fileName: fileNameOrId }),
    ...r,
  }));
}

function tableProperties(version: 6 | 8): Map<string, string> {
  const createSchema = JSON.stringify(TABLE_SCHEMA);
  const checksum = tableChecksum(DEMO_DATABASE, DEMO_TABLE);
  // key sets and order as written by Hudi 0.15 (v6) and 1.0 (v8) Spark writers
  const entries: [string, string][] =
    version === 6
      ? [
          ['hoodie.compaction.payload.class', 'org.apache.hudi.common.model.OverwriteWithLatestAvroPayload'],
          ['hoodie.table.type', 'MERGE_ON_READ'],
          ['hoodie.table.precombine.field', 'ts'],
          ['hoodie.table.partition.fields', PARTITION_FIELD],
          ['hoodie.archivelog.folder', 'archived'],
          ['hoodie.table.create.schema', createSchema],
          ['hoodie.timeline.layout.version', '1'],
          ['hoodie.table.checksum', checksum],
          ['hoodie.datasource.write.drop.partition.columns', 'false'],
          ['hoodie.table.recordkey.fields', 'order_id'],
          ['hoodie.table.name', DEMO_TABLE],
          ['hoodie.compaction.record.merger.strategy', 'eeb8d96f-b1e4-49fd-bbf8-28ac514178e5'],
          ['hoodie.datasource.write.hive_style_partitioning', 'true'],
          ['hoodie.table.keygenerator.class', 'org.apache.hudi.keygen.SimpleKeyGenerator'],
          ['hoodie.database.name', DEMO_DATABASE],
          ['hoodie.datasource.write.partitionpath.urlencode', 'false'],
          ['hoodie.table.version', '6'],
        ]
      : [
          ['hoodie.table.keygenerator.type', 'SIMPLE'],
          ['hoodie.table.type', 'MERGE_ON_READ'],
          ['hoodie.table.precombine.field', 'ts'],
          ['hoodie.table.create.schema', createSchema],
          ['hoodie.timeline.layout.version', '2'],
          ['hoodie.timeline.history.path', 'history'],
          ['hoodie.table.checksum', checksum],
          ['hoodie.datasource.write.drop.partition.columns', 'false'],
          ['hoodie.record.merge.strategy.id', 'eeb8d96f-b1e4-49fd-bbf8-28ac514178e5'],
          ['hoodie.datasource.write.hive_style_partitioning', 'true'],
          ['hoodie.database.name', DEMO_DATABASE],
          ['hoodie.datasource.write.partitionpath.urlencode', 'false'],
          ['hoodie.record.merge.mode', 'EVENT_TIME_ORDERING'],
          ['hoodie.table.version', '8'],
          ['hoodie.compaction.payload.class', 'org.apache.hudi.common.model.DefaultHoodieRecordPayload'],
          ['hoodie.table.initial.version', '8'],
          ['hoodie.table.partition.fields', PARTITION_FIELD],
          ['hoodie.archivelog.folder', 'archived'],
          ['hoodie.table.name', DEMO_TABLE],
          ['hoodie.table.recordkey.fields', 'order_id'],
          ['hoodie.timeline.path', 'timeline'],
        ];
  return new Map(entries);
}

function commit(partitionToWriteStats: Record<string, WriteStat[]>, operationType: string, compacted = false): CommitMetadata {
  return { partitionToWriteStats, compacted, extraMetadata: { schema: JSON.stringify(TABLE_SCHEMA) }, operationType };
}

/**
 * Writes the demo table into `dir` (which must not contain a table yet) and returns what was written.
 * Everything goes through Storage; file mtimes are the real write times (Storage cannot set them), so on
 * layout 1 the completion time Hudi 1.x derives from mtime is "now" while instant times lie in the past.
 */
export async function generateDemoTable(storage: Storage, dir: string, opts: DemoOptions = {}): Promise<DemoSummary> {
  const version = opts.tableVersion ?? 6;
  if (version !== 6 && version !== 8) throw new TblError('usage', `demo table version must be 6 or 8, got ${String(version)}`);
  const now = opts.now ?? new Date();
  const propsPath = joinPath(dir, '.hoodie', 'hoodie.properties');
  if (await storage.exists(propsPath)) {
    throw new TblError('conflict', `${storage.uri(dir)} already holds a Hudi table`, { path: propsPath, hint: 'choose an empty directory' });
  }
  const w = new DemoWriter(storage, dir, version, now);
  const uri = (rel: string) => storage.uri(w.abs(rel));
  const [US, EU, APAC] = REGIONS.map(partitionOf) as [string, string, string];
  const problems: DemoProblem[] = [];

  // ---- table skeleton ----
  await storage.mkdirs(joinPath(dir, '.hoodie', '.aux', '.bootstrap', '.partitions'));
  await storage.mkdirs(joinPath(dir, '.hoodie', '.aux', '.bootstrap', '.fileids'));
  await storage.mkdirs(joinPath(dir, '.hoodie', '.schema'));
  await storage.mkdirs(joinPath(dir, '.hoodie', '.temp'));
  if (w.layout === 2) await storage.mkdirs(joinPath(dir, '.hoodie', 'timeline', 'history'));
  else await storage.mkdirs(joinPath(dir, '.hoodie', 'archived'));
  await w.put('.hoodie/hoodie.properties', formatProperties(tableProperties(version), `Properties saved on ${now.toISOString()}`, now));

  const fid = { A: demoFileId('us-A'), B: demoFileId('eu-B'), C: demoFileId('apac-C'), D: demoFileId('eu-D'), E: demoFileId('apac-E'), F: demoFileId('eu-F') };
  const tsOf = (i: number) => w.millis(i);

  // ---- 0: deltacommit INSERT creates A (us), B (eu), C (apac) ----
  const t1 = w.rt(0);
  const seedRows = { us: makeOrders('us', 1, 5, tsOf(0)), eu: makeOrders('eu', 1, 4, tsOf(0)), apac: makeOrders('apac', 1, 4, tsOf(0)) };
  const baseA = await w.baseFile(US, fid.A, t1, withMeta(seedRows.us, t1, US, ''));
  const baseB = await w.baseFile(EU, fid.B, t1, withMeta(seedRows.eu, t1, EU, '', 1), 1);
  const baseC = await w.baseFile(APAC, fid.C, t1, withMeta(seedRows.apac, t1, APAC, '', 2), 2);
  for (const p of [US, EU, APAC]) {
    await w.put(`${p}/${PARTITION_METAFILE}`, formatProperties(new Map([['commitTime', t1], ['partitionDepth', '1']]), 'partition metadata', now));
  }
  const createStat = (b: Written, fileId: string, partition: string, n: number) =>
    newWriteStat({ fileId, path: b.rel, prevCommit: 'null', partitionPath: partition, numWrites: n, numInserts: n, totalWriteBytes: b.size, fileSizeInBytes: b.size });
  await w.completeWrite(
    0,
    'deltacommit',
    commit(
      { [US]: [createStat(baseA, fid.A, US, 5)], [EU]: [createStat(baseB, fid.B, EU, 4)], [APAC]: [createStat(baseC, fid.C, APAC, 4)] },
      'INSERT',
    ),
    'insert 13 orders into 3 new file groups',
  );

  // ---- 1: deltacommit UPSERT: Avro data blocks for A and B ----
  const t2 = w.rt(1);
  const updA = seedRows.us.slice(0, 2).map((r) => ({ ...r, status: 'PAID', ts: tsOf(1) }));
  const updB = seedRows.eu.slice(1, 3).map((r) => ({ ...r, status: 'SHIPPED', ts: tsOf(1) + 1 }));
  const logA1Name = w.logName(fid.A, t1, t2, 1, w.token());
  const logA1 = await w.put(`${US}/${logA1Name}`, encodeAvroDataBlock({ instantTime: t2, schema: WRITER_SCHEMA, records: withMeta(updA, t2, US, fid.A) }));
  const logB1Name = w.logName(fid.B, t1, t2, 1, w.token(1));
  const logB1 = await w.put(`${EU}/${logB1Name}`, encodeAvroDataBlock({ instantTime: t2, schema: WRITER_SCHEMA, records: withMeta(updB, t2, EU, fid.B, 1) }));
  const appendStat = (l: Written, fileId: string, partition: string, baseFile: string, prev: string, k: { upd?: number; del?: number }) =>
    newWriteStat({
      fileId,
      path: l.rel,
      prevCommit: prev,
      partitionPath: partition,
      numWrites: k.upd ?? 0,
      numUpdateWrites: k.upd ?? 0,
      numDeletes: k.del ?? 0,
      totalWriteBytes: l.size,
      fileSizeInBytes: l.size,
      logVersion: 1,
      logOffset: 0,
      baseFile,
      logFiles: [l.name],
    });
  await w.completeWrite(
    1,
    'deltacommit',
    commit(
      { [US]: [appendStat(logA1, fid.A, US, baseA.name, t1, { upd: 2 })], [EU]: [appendStat(logB1, fid.B, EU, baseB.name, t1, { upd: 2 })] },
      'UPSERT',
    ),
    'update 4 orders (log blocks)',
  );

  // ---- 2: deltacommit DELETE: delete block for C ----
  const t3 = w.rt(2);
  const deleted = seedRows.apac[3]!;
  const logC1 = await w.put(
    `${APAC}/${w.logName(fid.C, t1, t3, 1, w.token(2))}`,
    encodeDeleteBlock({ instantTime: t3, schema: WRITER_SCHEMA, deletes: [{ recordKey: deleted.order_id, partitionPath: APAC }] }),
  );
  await w.completeWrite(2, 'deltacommit', commit({ [APAC]: [appendStat(logC1, fid.C, APAC, baseC.name, t1, { del: 1 })] }, 'DELETE'), `delete order ${deleted.order_id}`);

  // ---- 3: compaction of A (plan → inflight → commit with a new base file) ----
  const t4 = w.rt(3);
  const compactionPlan = (ops: { fileId: string; partition: string; baseInstant: string; dataFile: string; logs: Written[] }[]): CompactionPlan => ({
    operations: ops.map((o) => ({
      baseInstantTime: o.baseInstant,
      deltaFilePaths: o.logs.map((l) => l.name),
      dataFilePath: o.dataFile,
      fileId: o.fileId,
      partitionPath: o.partition,
      metrics: { TOTAL_LOG_FILES: o.logs.length, TOTAL_IO_MB: 0, TOTAL_IO_READ_MB: 0, TOTAL_LOG_FILES_SIZE: o.logs.reduce((n, l) => n + l.size, 0), TOTAL_IO_WRITE_MB: 0 },
      bootstrapFilePath: null,
    })),
    extraMetadata: null,
    version: 2,
    strategy: null,
    preserveHoodieMetadata: false,
    missingSchedulePartitions: w.layout === 2 ? [] : null,
  });
  await w.instantFile(3, 'compaction', 'REQUESTED', encodeCompactionPlan(compactionPlan([{ fileId: fid.A, partition: US, baseInstant: t1, dataFile: baseA.name, logs: [logA1] }])));
  await w.instantFile(3, 'compaction', 'INFLIGHT');
  // merge: base rows, then the newer log records (they keep their commit time and seqno; file name is rewritten)
  const logA1Rows = withMeta(updA, t2, US, fid.A);
  const merged = baseA.rows.map((r) => logA1Rows.find((l) => l._hoodie_record_key === r._hoodie_record_key) ?? r);
  const compacted = await w.baseFile(US, fid.A, t4, merged);
  await w.instantFile(
    3,
    'compaction',
    'COMPLETED',
    w.commitBytes(
      commit(
        {
          [US]: [
            newWriteStat({
              fileId: fid.A,
              path: compacted.rel,
              prevCommit: t1,
              partitionPath: US,
              numWrites: merged.length,
              numUpdateWrites: updA.length,
              totalWriteBytes: compacted.size,
              fileSizeInBytes: compacted.size,
              totalLogRecords: updA.length,
              totalLogFilesCompacted: 1,
              totalLogSizeCompacted: logA1.size,
              totalUpdatedRecordsCompacted: updA.length,
              totalLogBlocks: 1,
            }),
          ],
        },
        'COMPACT',
        true,
      ),
    ),
  );
  w.note(3, 'compaction', 'COMPLETED', `compact file group ${fid.A} (base + 1 log file)`);

  // ---- 4: clean: the old slice of A (base t1 + its log) ----
  const t5 = w.rt(4);
  const cleaned = [baseA, logA1];
  const earliest = { timestamp: t4, action: 'commit', state: 'COMPLETED' };
  await w.instantFile(
    4,
    'clean',
    'REQUESTED',
    encodeCleanerPlan({
      earliestInstantToRetain: earliest,
      lastCompletedCommitTimestamp: t4,
      policy: 'KEEP_LATEST_COMMITS',
      filesToBeDeletedPerPartition: {},
      version: 2,
      filePathsToBeDeletedPerPartition: { [US]: cleaned.map((f) => ({ filePath: uri(f.rel), isBootstrapBaseFile: false })) },
      partitionsToBeDeleted: [],
      extraMetadata: null,
    }),
  );
  await w.instantFile(4, 'clean', 'INFLIGHT');
  for (const f of cleaned) await w.remove(f.rel);
  await w.instantFile(
    4,
    'clean',
    'COMPLETED',
    encodeCleanMetadata({
      startCleanTime: t5,
      timeTakenInMillis: 42,
      totalFilesDeleted: cleaned.length,
      earliestCommitToRetain: t4,
      lastCompletedCommitTimestamp: t4,
      partitionMetadata: {
        [US]: {
          partitionPath: US,
          policy: 'KEEP_LATEST_COMMITS',
          deletePathPatterns: cleaned.map((f) => f.name),
          successDeleteFiles: cleaned.map((f) => f.name),
          failedDeleteFiles: [],
          isPartitionDeleted: false,
        },
      },
      version: 2,
      bootstrapPartitionMetadata: {},
      extraMetadata: null,
    }),
  );
  w.note(4, 'clean', 'COMPLETED', `delete the replaced slice of ${fid.A}`);

  // ---- 5: a deltacommit that fails after writing a base file D and a log block on B ----
  const t6 = w.rt(5);
  await w.instantFile(5, 'deltacommit', 'REQUESTED');
  const failedWorkload = commit({ [EU]: [newWriteStat({ fileId: fid.D, path: null, prevCommit: 'null', partitionPath: EU, numInserts: 2 })] }, 'UPSERT');
  await w.instantFile(5, 'deltacommit', 'INFLIGHT', w.workload(failedWorkload));
  const baseD = await w.baseFile(EU, fid.D, t6, withMeta(makeOrders('eu', 50, 2, tsOf(5)), t6, EU, ''));
  const failedLogName = w.logName(fid.B, t1, t6, version === 8 ? 1 : 2, w.token());
  const failedLog = await w.put(`${EU}/${failedLogName}`, encodeAvroDataBlock({ instantTime: t6, schema: WRITER_SCHEMA, records: withMeta(updB.map((r) => ({ ...r, status: 'LOST' })), t6, EU, fid.B) }));
  const markerDir6 = `.hoodie/.temp/${t6}`;
  await w.put(`${markerDir6}/${EU}/${baseD.name}.marker.CREATE`, new Uint8Array(0));
  await w.put(`${markerDir6}/${EU}/${failedLog.name}.marker.APPEND`, new Uint8Array(0));

  // ---- 6: rollback of the failed deltacommit ----
  const t7 = w.rt(6);
  const instantToRollback = { commitTime: t6, action: 'deltacommit' };
  let rollbackRequests: RollbackRequest[];
  let rollbackDeleted: Written[];
  let rollbackCmd: Written | undefined;
  if (version === 6) {
    // 0.x: the log file may be shared with later writers, so a rollback command block voids the failed block
    rollbackRequests = [
      { partitionPath: EU, fileId: '', latestBaseInstant: '', filesToBeDeleted: [uri(baseD.rel)], logBlocksToBeDeleted: {} },
      { partitionPath: EU, fileId: fid.B, latestBaseInstant: t1, filesToBeDeleted: [], logBlocksToBeDeleted: { [uri(failedLog.rel)]: failedLog.size } },
    ];
    rollbackDeleted = [baseD];
  } else {
    // 1.x: every log file belongs to one deltacommit, so rollback deletes it
    rollbackRequests = [{ partitionPath: EU, fileId: '', latestBaseInstant: '', filesToBeDeleted: [uri(baseD.rel), uri(failedLog.rel)], logBlocksToBeDeleted: {} }];
    rollbackDeleted = [baseD, failedLog];
  }
  await w.instantFile(6, 'rollback', 'REQUESTED', encodeRollbackPlan({ instantToRollback, RollbackRequests: rollbackRequests, version: 1 }));
  await w.instantFile(6, 'rollback', 'INFLIGHT');
  for (const f of rollbackDeleted) await w.remove(f.rel);
  if (version === 6) {
    const cmdName = w.logName(fid.B, t1, t7, 3, UNKNOWN_WRITE_TOKEN);
    rollbackCmd = await w.put(`${EU}/${cmdName}`, encodeRollbackBlock({ instantTime: t7, targetInstantTime: t6 }));
  }
  const partitionMeta = {
    [EU]: {
      partitionPath: EU,
      successDeleteFiles: rollbackDeleted.map((f) => uri(f.rel)),
      failedDeleteFiles: [],
      rollbackLogFiles: rollbackCmd ? { [uri(rollbackCmd.rel)]: rollbackCmd.size } : {},
      logFilesFromFailedCommit: version === 6 ? { [uri(failedLog.rel)]: failedLog.size } : {},
    },
  };
  // finishRollback: drop the failed instant's pending files, then complete, then remove its markers
  await w.remove(w.timelineRel(formatInstantFileName({ requestedTime: t6, action: 'deltacommit', state: 'INFLIGHT' }, w.layout)));
  await w.remove(w.timelineRel(formatInstantFileName({ requestedTime: t6, action: 'deltacommit', state: 'REQUESTED' }, w.layout)));
  await w.instantFile(
    6,
    'rollback',
    'COMPLETED',
    encodeRollbackMetadata({
      startRollbackTime: t7,
      timeTakenInMillis: 87,
      totalFilesDeleted: rollbackDeleted.length,
      commitsRollback: [t6],
      partitionMetadata: partitionMeta,
      version: 1,
      instantsRollback: [instantToRollback],
    }),
  );
  await w.remove(markerDir6);
  w.note(6, 'rollback', 'COMPLETED', `roll back failed deltacommit ${t6}`);
  problems.push({
    kind: 'rolled-back-instant',
    description: `deltacommit ${t6} failed and was rolled back by ${t7} (informational)`,
    paths: rollbackCmd ? [rollbackCmd.rel] : [],
    instants: [t6, t7],
  });

  // ---- 7 and 8: two instants each CREATE file group E (prevCommit "null" twice): the collision ----
  const t8 = w.rt(7);
  const t9 = w.rt(8);
  const baseE1 = await w.baseFile(APAC, fid.E, t8, withMeta(makeOrders('apac', 100, 3, tsOf(7)), t8, APAC, ''));
  await w.completeWrite(7, 'deltacommit', commit({ [APAC]: [createStat(baseE1, fid.E, APAC, 3)] }, 'INSERT'), `insert 3 orders into new file group ${fid.E}`);
  const baseE2 = await w.baseFile(APAC, fid.E, t9, withMeta(makeOrders('apac', 200, 3, tsOf(8)), t9, APAC, '', 3), 3);
  await w.completeWrite(8, 'deltacommit', commit({ [APAC]: [createStat(baseE2, fid.E, APAC, 3)] }, 'INSERT'), `a second writer creates file group ${fid.E} again`);
  problems.push({
    kind: 'fileid-collision',
    description: `file group ${fid.E} in ${APAC} was created (prevCommit "null") by both ${t8} and ${t9}; the rows of ${t8} are shadowed`,
    paths: [baseE1.rel, baseE2.rel],
    instants: [t8, t9],
    fileId: fid.E,
    partition: APAC,
  });

  // ---- 9: a pending compaction plan for B (requested only) ----
  const t10 = w.rt(9);
  const bLogs = version === 6 ? [logB1, failedLog, rollbackCmd!] : [logB1];
  await w.instantFile(9, 'compaction', 'REQUESTED', encodeCompactionPlan(compactionPlan([{ fileId: fid.B, partition: EU, baseInstant: t1, dataFile: baseB.name, logs: bLogs }])));
  w.note(9, 'compaction', 'REQUESTED', `pending compaction of ${fid.B}`);
  problems.push({ kind: 'pending-compaction', description: `compaction ${t10} of ${fid.B} is scheduled but never ran`, paths: [], instants: [t10], fileId: fid.B, partition: EU });

  // ---- 10: a stuck inflight deltacommit: wrote F, left markers, no heartbeat, never completed ----
  const t11 = w.rt(10);
  await w.instantFile(10, 'deltacommit', 'REQUESTED');
  await w.instantFile(10, 'deltacommit', 'INFLIGHT', w.workload(commit({ [EU]: [newWriteStat({ fileId: fid.F, path: null, prevCommit: 'null', partitionPath: EU, numInserts: 2 })] }, 'UPSERT')));
  const baseF = await w.baseFile(EU, fid.F, t11, withMeta(makeOrders('eu', 300, 2, tsOf(10)), t11, EU, ''));
  const markerDir11 = `.hoodie/.temp/${t11}`;
  const marker = await w.put(`${markerDir11}/${EU}/${baseF.name}.marker.CREATE`, new Uint8Array(0));
  w.note(10, 'deltacommit', 'INFLIGHT', 'a writer died: inflight forever, no heartbeat');
  problems.push({ kind: 'stuck-inflight', description: `deltacommit ${t11} is inflight with no heartbeat file (.hoodie/.heartbeat/${t11})`, paths: [w.timelineRel(`${t11}.deltacommit.inflight`)], instants: [t11] });
  problems.push({ kind: 'orphan-data-file', description: `base file written by the uncommitted deltacommit ${t11}`, paths: [baseF.rel], instants: [t11], fileId: fid.F, partition: EU });
  problems.push({ kind: 'marker-dir', description: `marker directory of the abandoned instant ${t11}`, paths: [markerDir11, marker.rel], instants: [t11] });

  // ---- Flink file-sink leftovers in one partition ----
  const sinkId = stableUuid('flink-sink');
  const inprogress = await w.put(`${US}/.part-${sinkId}-0-3.inprogress.${stableUuid('flink-inprogress')}`, new TextEncoder().encode('PAR1 (partial part file of a killed Flink task)'));
  const pending = await w.put(`${US}/part-${sinkId}-1-2.pending.${stableUuid('flink-pending')}`, new TextEncoder().encode('PAR1 (pending part file never committed)'));
  problems.push({ kind: 'flink-leftover', description: 'Flink file-sink in-progress / pending part files left by killed tasks', paths: [inprogress.rel, pending.rel], partition: US });

  const dataFiles = [
    baseB.rel,
    baseC.rel,
    logB1.rel,
    logC1.rel,
    compacted.rel,
    baseE1.rel,
    baseE2.rel,
    baseF.rel,
    ...(version === 6 ? [failedLog.rel, rollbackCmd!.rel] : []),
    inprogress.rel,
    pending.rel,
  ].sort();

  return {
    tablePath: storage.uri(dir),
    tableName: DEMO_TABLE,
    tableType: 'MERGE_ON_READ',
    tableVersion: version,
    timelineLayoutVersion: w.layout,
    partitionField: PARTITION_FIELD,
    hiveStylePartitioning: true,
    partitions: [US, EU, APAC],
    instants: w.instants,
    problems,
    dataFiles,
  };
}
