// Generates Hudi tables with many commits per file group, with the project's own writers (parquet
// base files, Avro log blocks, timeline instants as Hudi writes them), for the clean tests: COW and
// MOR, table version 6 (layout 1) and 8 (layout 2), commits on a fake hourly clock (UTC), compaction
// through tblcli's own service, clustering and delete_partition replacecommits, savepoints, pending
// compactions and failed writes.
import { formatProperties, tableChecksum } from '../../../src/config/index.ts';
import { formatBaseFileName, formatLogFileName, formatWriteToken, PARTITION_METAFILE } from '../../../src/fs-view/index.ts';
import { encodeAvroDataBlock } from '../../../src/logfile/index.ts';
import {
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  encodeRequestedReplaceMetadata,
  encodeSavepointMetadata,
  newWriteStat,
  type CommitMetadata,
  type WriteStat,
} from '../../../src/metadata/index.ts';
import { hoodieMetaValues, withHoodieMetaFields, writeHoodieParquet, type AvroRecordSchema } from '../../../src/parquet/write.ts';
import { runCompaction, scheduleCompaction, underLock } from '../../../src/services/index.ts';
import { nextInstantTime } from '../../../src/services/transaction.ts';
import { LocalStorage, type Storage } from '../../../src/storage/index.ts';
import { loadFileSystemView, openTable } from '../../../src/table/index.ts';
import { formatInstantFileName, type Action, type State } from '../../../src/timeline/index.ts';
import { formatInstantTime, joinPath, parentPath } from '../../../src/util/index.ts';

export const GEN_SCHEMA: AvroRecordSchema = {
  type: 'record',
  name: 'gen_record',
  namespace: 'hoodie.gen',
  fields: [
    { name: 'id', type: ['string', 'null'] },
    { name: 'ts', type: ['long', 'null'] },
    { name: 'amount', type: ['double', 'null'] },
    { name: 'part', type: ['string', 'null'] },
  ],
};
const WRITER = withHoodieMetaFields(GEN_SCHEMA);

export interface GenOptions {
  type: 'COPY_ON_WRITE' | 'MERGE_ON_READ';
  version: 6 | 8;
  partitions?: string[];
  /** the first instant's time (default 2025-01-01T00:00:00Z); instants follow one hour apart */
  start?: Date;
}

type Row = Record<string, unknown>;

interface Group {
  partition: string;
  fileId: string;
  rows: Row[];
  /** base instant of the latest slice */
  baseInstant: string;
  /** layout 1: next log version of the latest slice */
  nextLogVersion: number;
}

function props(type: GenOptions['type'], version: 6 | 8): Map<string, string> {
  const common: [string, string][] = [
    ['hoodie.table.name', 'gen'],
    ['hoodie.database.name', 'default'],
    ['hoodie.table.type', type],
    ['hoodie.table.version', String(version)],
    ['hoodie.timeline.layout.version', version === 8 ? '2' : '1'],
    ['hoodie.table.recordkey.fields', 'id'],
    ['hoodie.table.partition.fields', 'part'],
    ['hoodie.table.precombine.field', 'ts'],
    ['hoodie.table.timeline.timezone', 'UTC'],
    ['hoodie.table.create.schema', JSON.stringify(GEN_SCHEMA)],
    ['hoodie.table.checksum', tableChecksum('default', 'gen')],
    ['hoodie.archivelog.folder', 'archived'],
    ['hoodie.datasource.write.hive_style_partitioning', 'true'],
  ];
  if (version === 8) {
    common.push(['hoodie.timeline.path', 'timeline'], ['hoodie.timeline.history.path', 'history'], ['hoodie.table.initial.version', '8'], ['hoodie.record.merge.mode', 'EVENT_TIME_ORDERING']);
  }
  return new Map(common);
}

export class GenTable {
  readonly storage: Storage = new LocalStorage();
  readonly layout: 1 | 2;
  readonly groups = new Map<string, Group>();
  private clock: number;
  private seq = 0;
  /** requested times of completed commits written, in order */
  readonly commits: string[] = [];

  private constructor(
    readonly base: string,
    readonly opts: Required<Omit<GenOptions, 'start'>> & { start: Date },
  ) {
    this.layout = opts.version === 8 ? 2 : 1;
    this.clock = opts.start.getTime();
  }

  static async create(base: string, o: GenOptions): Promise<GenTable> {
    const g = new GenTable(base, { partitions: ['part=a', 'part=b'], start: new Date('2025-01-01T00:00:00Z'), ...o });
    const s = g.storage;
    await s.mkdirs(joinPath(base, '.hoodie', g.layout === 2 ? 'timeline' : '.'));
    await s.writeNew(joinPath(base, '.hoodie', 'hoodie.properties'), formatProperties(props(o.type, o.version), 'generated', g.opts.start));
    return g;
  }

  get timelineDir(): string {
    return this.layout === 2 ? joinPath(this.base, '.hoodie', 'timeline') : joinPath(this.base, '.hoodie');
  }

  /** Real clock and table lock from now on, as a live writer next to the cleaner (liveUpdate). */
  private real = false;

  /** The next instant time on the fake clock (one hour after the previous one). */
  nextTime(): string {
    const t = formatInstantTime(new Date(this.clock), 'UTC');
    this.clock += 3_600_000;
    return t;
  }

  /**
   * An update as a live multi-writer does it: instant times from the real clock, generated and
   * published under the table lock (FileSystemBasedLockProvider), the files written in between.
   */
  async liveUpdate(which?: (g: Group) => boolean): Promise<{ instant: string; files: string[] }> {
    this.real = true;
    const table = await openTable(this.base);
    const t = await underLock(table, { lock: { wait: true } }, async (locked) => {
      const time = await nextInstantTime(locked, await locked.timeline(), { clockSkewMs: 1 });
      await this.instantFile(time, this.writeAction(), 'REQUESTED');
      return time;
    });
    await this.instantFile(t, this.writeAction(), 'INFLIGHT');
    const stats: WriteStat[] = [];
    for (const g of this.live().filter((x) => !which || which(x))) {
      const rows = g.rows.map((r, i) => ({ ...r, ...hoodieMetaValues({ instant: t, seq: i, recordKey: String(r.id), partitionPath: g.partition, fileName: '' }), amount: 1000, ts: Number(r.ts) + 1 }));
      stats.push(this.opts.type === 'MERGE_ON_READ' ? await this.logFile(g, t, rows) : await this.baseFile(g, t, rows));
    }
    await underLock(table, { lock: { wait: true } }, async (locked) => {
      this.liveCompletion = await nextInstantTime(locked, await locked.timeline(), { clockSkewMs: 1 });
      await this.complete(t, this.writeAction(), stats, 'UPSERT');
    });
    return { instant: t, files: stats.map((x) => x.path!) };
  }

  private liveCompletion: string | undefined;

  /** A Date on the fake clock: `hours` after the last instant handed out. */
  dateAfter(hours: number): Date {
    return new Date(this.clock - 3_600_000 + hours * 3_600_000);
  }

  private completion(t: string): string {
    if (this.real && this.liveCompletion) return this.liveCompletion;
    // a second after the requested time, before the next instant
    const d = new Date(Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14), +t.slice(14, 17)) + 1000);
    return formatInstantTime(d, 'UTC');
  }

  private async instantFile(t: string, action: Action, state: State, content: Uint8Array = new Uint8Array(0)): Promise<void> {
    const name = formatInstantFileName({ requestedTime: t, action, state, completionTime: state === 'COMPLETED' && this.layout === 2 ? this.completion(t) : undefined }, this.layout);
    await this.storage.writeNew(joinPath(this.timelineDir, name), content);
  }

  private commitBytes(m: CommitMetadata): Uint8Array {
    return this.layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m);
  }

  private token(): string {
    this.seq++;
    return formatWriteToken(0, this.seq, this.seq);
  }

  private async put(rel: string, bytes: Uint8Array): Promise<number> {
    const path = joinPath(this.base, rel);
    await this.storage.mkdirs(parentPath(path));
    await this.storage.writeNew(path, bytes);
    return bytes.length;
  }

  private async partitionMeta(partition: string, t: string): Promise<void> {
    const rel = `${partition}/${PARTITION_METAFILE}`;
    if (await this.storage.exists(joinPath(this.base, rel))) return;
    await this.put(rel, formatProperties(new Map([['commitTime', t], ['partitionDepth', '1']]), 'partition metadata', this.opts.start));
  }

  private rowsFor(partition: string, fileId: string, t: string, n: number, amount: number, fileName: string): Row[] {
    const part = partition.split('=')[1]!;
    return Array.from({ length: n }, (_, i) => {
      const id = `${fileId.slice(0, 8)}-${i}`;
      return { ...hoodieMetaValues({ instant: t, seq: i, recordKey: id, partitionPath: partition, fileName }), id, ts: Date.parse('2025-01-01') + this.seq * 1000 + i, amount, part };
    });
  }

  private async baseFile(g: Group, t: string, rows: Row[]): Promise<WriteStat> {
    const name = formatBaseFileName({ fileId: g.fileId, writeToken: this.token(), instant: t, ext: 'parquet' });
    const withName = rows.map((r) => ({ ...r, _hoodie_file_name: name }));
    const size = await this.put(`${g.partition}/${name}`, writeHoodieParquet({ schema: WRITER, rows: withName }).bytes);
    const prev = g.rows.length > 0 ? g.baseInstant : 'null';
    g.rows = withName;
    g.baseInstant = t;
    g.nextLogVersion = 1;
    return newWriteStat({ fileId: g.fileId, path: `${g.partition}/${name}`, prevCommit: prev, partitionPath: g.partition, numWrites: rows.length, numInserts: rows.length, totalWriteBytes: size, fileSizeInBytes: size });
  }

  private async logFile(g: Group, t: string, rows: Row[]): Promise<WriteStat> {
    const name = formatLogFileName({ fileId: g.fileId, instant: this.layout === 2 ? t : g.baseInstant, ext: 'log', version: this.layout === 2 ? 1 : g.nextLogVersion, writeToken: this.token() });
    g.nextLogVersion++;
    const recs: Row[] = rows.map((r) => ({ ...r, _hoodie_file_name: g.fileId }));
    const size = await this.put(`${g.partition}/${name}`, encodeAvroDataBlock({ instantTime: t, schema: WRITER, records: recs }));
    const byId = new Map(recs.map((r) => [r.id, r]));
    g.rows = g.rows.map((r) => byId.get(r.id) ?? r);
    return newWriteStat({ fileId: g.fileId, path: `${g.partition}/${name}`, prevCommit: g.baseInstant, partitionPath: g.partition, numWrites: rows.length, numUpdateWrites: rows.length, totalWriteBytes: size, fileSizeInBytes: size, logVersion: 1, logOffset: 0, baseFile: '', logFiles: [name] });
  }

  private async complete(t: string, action: Action, stats: WriteStat[], operationType: string, extra: Partial<CommitMetadata> = {}): Promise<void> {
    const byPartition: Record<string, WriteStat[]> = {};
    for (const s of stats) (byPartition[s.partitionPath] ??= []).push(s);
    const m: CommitMetadata = { partitionToWriteStats: byPartition, compacted: false, extraMetadata: { schema: JSON.stringify(GEN_SCHEMA) }, operationType, ...extra };
    await this.instantFile(t, action, 'COMPLETED', this.commitBytes(m));
    this.commits.push(t);
  }

  private writeAction(): Action {
    return this.opts.type === 'MERGE_ON_READ' ? 'deltacommit' : 'commit';
  }

  /** A commit inserting `perPartition` new file groups of `rows` records in every partition. Returns its time. */
  async insert(perPartition = 2, rows = 4): Promise<string> {
    const t = this.nextTime();
    const action = this.writeAction();
    await this.instantFile(t, action, 'REQUESTED');
    await this.instantFile(t, action, 'INFLIGHT');
    const stats: WriteStat[] = [];
    for (const p of this.opts.partitions) {
      await this.partitionMeta(p, t);
      for (let k = 0; k < perPartition; k++) {
        const fileId = `${String(this.groups.size).padStart(8, '0')}-aaaa-4bbb-accc-${t.slice(0, 12)}-0`;
        const g: Group = { partition: p, fileId, rows: [], baseInstant: t, nextLogVersion: 1 };
        this.groups.set(`${p}|${fileId}`, g);
        stats.push(await this.baseFile(g, t, this.rowsFor(p, fileId, t, rows, 1, '')));
      }
    }
    await this.complete(t, action, stats, 'INSERT');
    return t;
  }

  /**
   * An upsert of every record of the given file groups (default all live ones): COW writes a new
   * base-file version, MOR a log file (layout 1 on the latest slice, layout 2 named by the instant).
   */
  async update(which?: (g: Group) => boolean): Promise<string> {
    const t = this.nextTime();
    const action = this.writeAction();
    await this.instantFile(t, action, 'REQUESTED');
    await this.instantFile(t, action, 'INFLIGHT');
    const stats: WriteStat[] = [];
    const amount = this.commits.length + 1;
    for (const g of this.live().filter((x) => !which || which(x))) {
      const rows = g.rows.map((r, i) => ({ ...r, ...hoodieMetaValues({ instant: t, seq: i, recordKey: String(r.id), partitionPath: g.partition, fileName: '' }), amount, ts: Number(r.ts) + 1 }));
      stats.push(this.opts.type === 'MERGE_ON_READ' ? await this.logFile(g, t, rows) : await this.baseFile(g, t, rows));
    }
    await this.complete(t, action, stats, 'UPSERT');
    return t;
  }

  private replaced = new Set<string>();

  live(): Group[] {
    return [...this.groups.entries()].filter(([k]) => !this.replaced.has(k)).map(([, g]) => g);
  }

  /** Compacts every MOR file group with log files through tblcli's compaction; returns its time. */
  async compact(opts: { pending?: boolean } = {}): Promise<string | undefined> {
    const t = this.nextTime();
    const when = new Date(Date.parse(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}.${t.slice(14, 17)}Z`));
    const common = { clockSkewMs: 0, now: () => when, metadataTable: 'update' as const };
    const s = await scheduleCompaction(await openTable(this.base), { ...common, strategy: 'all' });
    if (!s.instant) return undefined;
    if (opts.pending) return s.instant;
    await runCompaction(await openTable(this.base), { ...common, instant: s.instant, fileGroupWorkers: 'never' });
    // the compacted slices start at the compaction instant
    for (const op of s.plan?.operations ?? []) {
      const g = this.groups.get(`${op.partitionPath}|${op.fileId}`)!;
      g.baseInstant = s.instant;
      g.nextLogVersion = 1;
    }
    this.commits.push(s.instant);
    return s.instant;
  }

  /**
   * A clustering of `fileIds` of `partition` into one new file group (replacecommit listing them in
   * partitionToReplaceFileIds). `pending`: only the plan (requested) is written.
   */
  async cluster(partition: string, fileIds: string[], opts: { pending?: boolean } = {}): Promise<string> {
    const t = this.nextTime();
    const v2 = this.layout === 2;
    const pendingAction: Action = v2 ? 'clustering' : 'replacecommit';
    const inputs = fileIds.map((id) => this.groups.get(`${partition}|${id}`)!);
    const plan = encodeRequestedReplaceMetadata({
      operationType: 'CLUSTER',
      clusteringPlan: {
        inputGroups: [
          {
            slices: inputs.map((g) => ({ dataFilePath: null, deltaFilePaths: [], fileId: g.fileId, partitionPath: partition, bootstrapFilePath: '', version: 1 })),
            metrics: {},
            numOutputFileGroups: 1,
            extraMetadata: null,
            version: 1,
          },
        ],
        strategy: { strategyClassName: 'org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy', strategyParams: {}, version: 1 },
        extraMetadata: {},
        version: 1,
        preserveHoodieMetadata: true,
        missingSchedulePartitions: [],
      },
      extraMetadata: {},
      version: 1,
    });
    await this.instantFile(t, pendingAction, 'REQUESTED', plan);
    if (opts.pending) return t;
    await this.instantFile(t, pendingAction, 'INFLIGHT');
    const fileId = `${String(this.groups.size).padStart(8, '0')}-cccc-4ddd-aeee-${t.slice(0, 12)}-0`;
    const g: Group = { partition, fileId, rows: [], baseInstant: t, nextLogVersion: 1 };
    this.groups.set(`${partition}|${fileId}`, g);
    const stat = await this.baseFile(g, t, inputs.flatMap((x) => x.rows));
    for (const x of inputs) this.replaced.add(`${partition}|${x.fileId}`);
    await this.complete(t, 'replacecommit', [stat], 'CLUSTER', { partitionToReplaceFileIds: { [partition]: fileIds } });
    return t;
  }

  /** delete_partition: a replacecommit replacing every file group of the partition, writing nothing. */
  async deletePartition(partition: string): Promise<string> {
    const t = this.nextTime();
    const ids = this.live().filter((g) => g.partition === partition).map((g) => g.fileId);
    await this.instantFile(t, 'replacecommit', 'REQUESTED');
    await this.instantFile(t, 'replacecommit', 'INFLIGHT');
    for (const id of ids) this.replaced.add(`${partition}|${id}`);
    await this.complete(t, 'replacecommit', [], 'DELETE_PARTITION', { partitionToReplaceFileIds: { [partition]: ids } });
    return t;
  }

  /** A savepoint of completed commit `t`: the files of the latest slices as of t (base and log names). */
  async savepoint(t: string): Promise<void> {
    const view = await loadFileSystemView(await openTable(this.base), { maxInstant: t });
    const partitionMetadata: Record<string, { partitionPath: string; savepointDataFile: string[] }> = {};
    for (const s of view.latestFileSlices()) {
      const pm = (partitionMetadata[s.partition] ??= { partitionPath: s.partition, savepointDataFile: [] });
      if (s.baseFile) pm.savepointDataFile.push(s.baseFile.name);
      for (const l of s.logFiles) pm.savepointDataFile.push(l.name);
    }
    await this.instantFile(t, 'savepoint', 'INFLIGHT');
    await this.instantFile(t, 'savepoint', 'COMPLETED', encodeSavepointMetadata({ savepointedBy: 'tblcli-test', savepointedAt: 0, comments: '', partitionMetadata, version: 1 }));
  }

  /** A write that died after writing its files (requested + inflight, no heartbeat). Returns its time. */
  async failedWrite(): Promise<{ time: string; files: string[] }> {
    const t = this.nextTime();
    const action = this.writeAction();
    await this.instantFile(t, action, 'REQUESTED');
    const g = this.live()[0]!;
    const name = formatBaseFileName({ fileId: g.fileId, writeToken: this.token(), instant: t, ext: 'parquet' });
    const rows = g.rows.map((r) => ({ ...r, _hoodie_file_name: name }));
    await this.put(`${g.partition}/${name}`, writeHoodieParquet({ schema: WRITER, rows }).bytes);
    const workload: CommitMetadata = {
      partitionToWriteStats: { [g.partition]: [newWriteStat({ fileId: g.fileId, path: null, prevCommit: g.baseInstant, partitionPath: g.partition, numUpdateWrites: rows.length })] },
      compacted: false,
      extraMetadata: {},
      operationType: 'UPSERT',
    };
    await this.instantFile(t, action, 'INFLIGHT', this.commitBytes(workload));
    await this.storage.mkdirs(joinPath(this.base, '.hoodie', '.temp', t, g.partition));
    await this.storage.writeNew(joinPath(this.base, '.hoodie', '.temp', t, g.partition, `${name}.marker.${this.opts.type === 'MERGE_ON_READ' ? 'CREATE' : 'MERGE'}`), new Uint8Array(0));
    return { time: t, files: [`${g.partition}/${name}`] };
  }
}
