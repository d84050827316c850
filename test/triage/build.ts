// Adds instants and files to a demo table with the project's own writers (timeline writer, commit/plan
// encoders, parquet base files, log blocks), so each collision case is a real table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_WRITER_SCHEMA } from '../../src/demo/index.ts';
import { formatBaseFileName, formatLogFileName } from '../../src/fs-view/index.ts';
import { encodeAvroDataBlock, writeLogFile } from '../../src/logfile/index.ts';
import {
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  encodeRequestedReplaceMetadata,
  newWriteStat,
  type CommitMetadata,
  type WriteStat,
} from '../../src/metadata/index.ts';
import { hoodieMetaValues, writeHoodieBaseFile } from '../../src/parquet/index.ts';
import { openTable, type Table } from '../../src/table/index.ts';
import { completeInstant, createRequested, transitionToInflight, type Action } from '../../src/timeline/index.ts';
import { formatInstantTime, joinPath } from '../../src/util/index.ts';
import { storage } from './support.ts';

export function stat(rel: string | null, fileId: string, partitionPath: string, prevCommit: string | null, extra: Partial<WriteStat> = {}): WriteStat {
  return newWriteStat({
    fileId,
    path: rel,
    prevCommit,
    partitionPath,
    numWrites: 1,
    numUpdateWrites: prevCommit === null ? 0 : 1,
    numInserts: prevCommit === null ? 1 : 0,
    totalWriteBytes: 1,
    fileSizeInBytes: 1,
    ...extra,
  });
}

export class TableBuilder {
  private constructor(
    readonly dir: string,
    readonly table: Table,
    readonly now: Date,
  ) {}

  static async open(dir: string, now: Date): Promise<TableBuilder> {
    return new TableBuilder(dir, await openTable(dir), now);
  }

  get layout(): 1 | 2 {
    return this.table.config.layoutVersion;
  }

  /** An instant time `minutesAgo` before now (the demo's own instants end 2.5 h ago). */
  t(minutesAgo: number): string {
    return formatInstantTime(new Date(this.now.getTime() - minutesAgo * 60_000), this.table.config.timezone);
  }

  private rows(partition: string, instant: string, fileName: string, keys: string[]) {
    return keys.map((k, seq) => ({
      ...hoodieMetaValues({ instant, seq, recordKey: k, partitionPath: partition, fileName }),
      order_id: k,
      customer: 'acme',
      amount: 1.5,
      status: 'NEW',
      ts: this.now.getTime(),
      region: partition.split('=')[1] ?? partition,
    }));
  }

  /** A parquet base file; returns its table-relative path. */
  async base(partition: string, fileId: string, instant: string, keys: string[], writeToken = '0-1-1'): Promise<string> {
    const name = formatBaseFileName({ fileId, writeToken, instant, ext: 'parquet' });
    mkdirSync(join(this.dir, partition), { recursive: true });
    await writeHoodieBaseFile(storage, joinPath(this.dir, partition, name), { schema: DEMO_WRITER_SCHEMA, rows: this.rows(partition, instant, name, keys) });
    return `${partition}/${name}`;
  }

  /** A log file with one Avro data block written by `instant`; `fileInstant` is the instant in its name. */
  async log(partition: string, fileId: string, fileInstant: string, version: number, writeToken: string, instant: string, keys: string[]): Promise<string> {
    const name = formatLogFileName({ fileId, instant: fileInstant, ext: 'log', version, writeToken });
    await writeLogFile(storage, joinPath(this.dir, partition, name), [
      encodeAvroDataBlock({ instantTime: instant, schema: DEMO_WRITER_SCHEMA, records: this.rows(partition, instant, fileId, keys) }),
    ]);
    return `${partition}/${name}`;
  }

  metadata(stats: WriteStat[], operationType: string, replaced?: Record<string, string[]>): Uint8Array {
    const partitionToWriteStats: Record<string, WriteStat[]> = {};
    for (const s of stats) (partitionToWriteStats[s.partitionPath] ??= []).push(s);
    const m: CommitMetadata = { partitionToWriteStats, compacted: false, extraMetadata: {}, operationType, ...(replaced ? { partitionToReplaceFileIds: replaced } : {}) };
    return this.layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m);
  }

  /** requested → inflight (workload: the stats without paths). */
  async start(action: Action, rt: string, stats: WriteStat[], requested?: Uint8Array): Promise<void> {
    const src = this.table.timelineSource;
    await createRequested(src, rt, action, requested);
    await transitionToInflight(src, rt, action, this.metadata(stats.map((s) => ({ ...s, path: null })), 'UPSERT'));
  }

  /** Completes an instant started with `start`; `ct` is the completion time (layout 2). */
  async complete(pendingAction: Action, completedAction: Action, rt: string, ct: string, stats: WriteStat[], opts: { operationType?: string; replaced?: Record<string, string[]> } = {}): Promise<void> {
    await completeInstant(this.table.timelineSource, rt, pendingAction, completedAction, this.metadata(stats, opts.operationType ?? 'UPSERT', opts.replaced), ct);
  }

  async commit(action: Action, rt: string, ct: string, stats: WriteStat[]): Promise<void> {
    await this.start(action, rt, stats);
    await this.complete(action, action, rt, ct, stats);
  }

  /** A clustering plan (HoodieRequestedReplaceMetadata) over whole file groups. */
  clusteringPlan(groups: { partition: string; fileId: string; dataFile: string }[]): Uint8Array {
    return encodeRequestedReplaceMetadata({
      operationType: 'CLUSTER',
      clusteringPlan: {
        inputGroups: [
          {
            slices: groups.map((g) => ({ dataFilePath: g.dataFile, deltaFilePaths: [], fileId: g.fileId, partitionPath: g.partition, bootstrapFilePath: null, version: 1 })),
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
        missingSchedulePartitions: this.layout === 2 ? [] : null,
      },
      extraMetadata: {},
      version: 1,
    });
  }

  /** The writer's heartbeat file, touched now (alive for 2 minutes). */
  heartbeat(rt: string): void {
    mkdirSync(join(this.dir, '.hoodie', '.heartbeat'), { recursive: true });
    writeFileSync(join(this.dir, '.hoodie', '.heartbeat', rt), '');
  }
}
