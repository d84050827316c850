// Timeline-only tables for the archival tests, written through the project's timeline writer and instant
// codecs: N commits (COW commit / MOR deltacommit) with cleans, rolled-back writes, MOR compactions, COW
// clusterings (completed replacecommits), one savepoint and one pending compaction (MOR) or pending
// clustering (COW), in table version 6 (layout 1, JSON commits) or 8/9 (layout 2, Avro, completion times).
// Optionally a metadata table timeline whose last compaction sits after a chosen commit.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeCleanMetadata,
  encodeCleanerPlan,
  encodeCommitMetadataAvro,
  encodeCommitMetadataJson,
  encodeCompactionPlan,
  encodeRequestedReplaceMetadata,
  encodeRollbackMetadata,
  encodeRollbackPlan,
  encodeSavepointMetadata,
  newWriteStat,
  type CommitMetadata,
} from '../../../src/metadata/index.ts';
import { LocalStorage } from '../../../src/storage/index.ts';
import { completeInstant, createRequested, transitionToInflight, type Action, type TimelineSource } from '../../../src/timeline/index.ts';
import { formatInstantTime } from '../../../src/util/index.ts';

export interface ArchivalTableOptions {
  tableType: 'COPY_ON_WRITE' | 'MERGE_ON_READ';
  version: 6 | 8 | 9;
  commits?: number;
  /** a clean after every n-th commit */
  cleanEvery?: number;
  /** a failed write rolled back after every n-th commit */
  rollbackEvery?: number;
  /** MOR: a compaction after every n-th delta commit */
  compactEvery?: number;
  /** COW: completed clusterings after these commits (1-based) */
  clusterAfter?: number[];
  /** savepoint of this commit (1-based; 0 = none) */
  savepointAt?: number;
  /** the savepoint is deleted again after this commit (later clean plans still list it) */
  savepointDeletedAfter?: number;
  /** a pending compaction (MOR) / clustering (COW) after this commit (1-based; 0 = none) */
  pendingAfter?: number;
  /** metadata table whose latest compaction follows this commit (0 = an MDT without compaction) */
  mdtCompactionAfter?: number;
  /** more hoodie.properties lines of the data table */
  extraProps?: string[];
  start?: Date;
}

export interface GeneratedInstant {
  requestedTime: string;
  /** the completed action, or the pending one */
  action: Action;
  completed: boolean;
}

export interface ArchivalTable {
  base: string;
  instants: GeneratedInstant[];
}

const storage = new LocalStorage();
const PARTS = ['region=us', 'region=eu'];

function props(name: string, type: string, version: number, extra: string[] = []): string {
  const layout = version >= 8 ? 2 : 1;
  return [
    `hoodie.table.name=${name}`,
    `hoodie.table.type=${type}`,
    `hoodie.table.version=${version}`,
    `hoodie.timeline.layout.version=${layout}`,
    'hoodie.timeline.timezone=UTC',
    'hoodie.table.recordkey.fields=id',
    'hoodie.table.partition.fields=region',
    ...extra,
    '',
  ].join('\n');
}

export async function writeArchivalTable(base: string, o: ArchivalTableOptions): Promise<ArchivalTable> {
  const n = o.commits ?? 200;
  const layout: 1 | 2 = o.version >= 8 ? 2 : 1;
  const mor = o.tableType === 'MERGE_ON_READ';
  const meta = join(base, '.hoodie');
  const timelineDir = layout === 2 ? join(meta, 'timeline') : meta;
  mkdirSync(timelineDir, { recursive: true });
  const mdt = o.mdtCompactionAfter !== undefined;
  writeFileSync(join(meta, 'hoodie.properties'), props('archival_t', o.tableType, o.version, [...(mdt ? ['hoodie.table.metadata.partitions=files'] : []), ...(o.extraProps ?? [])]));
  const src: TimelineSource = { storage, metaPath: meta, layout, timelineDir, timezone: 'UTC' };
  let clock = (o.start ?? new Date(Date.UTC(2025, 0, 1))).getTime();
  const next = () => formatInstantTime(new Date((clock += 60_000)), 'UTC');
  const completion = (rt: string) => formatInstantTime(new Date(Date.parse(`${rt.slice(0, 4)}-${rt.slice(4, 6)}-${rt.slice(6, 8)}T${rt.slice(8, 10)}:${rt.slice(10, 12)}:${rt.slice(12, 14)}.${rt.slice(14)}Z`) + 1500), 'UTC');
  const out: GeneratedInstant[] = [];
  const completedCommits: string[] = [];
  let savepointTime: string | undefined;
  const commitBytes = (m: CommitMetadata, delta = false) => (layout === 2 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m, { delta }));
  const fileId = (k: number, p: number) => `${String(k % 7).padStart(8, '0')}-aaaa-bbbb-cccc-${String(p).padStart(12, '0')}-0`;

  const complete = async (rt: string, pending: Action, done: Action, body: Uint8Array) => {
    await completeInstant(src, rt, pending, done, body, layout === 2 ? completion(rt) : undefined);
    out.push({ requestedTime: rt, action: done, completed: true });
  };
  const writeCommit = async (k: number) => {
    const rt = next();
    const action: Action = mor ? 'deltacommit' : 'commit';
    const m: CommitMetadata = {
      partitionToWriteStats: Object.fromEntries(
        PARTS.map((p, pi) => [
          p,
          [0, 1].map((j) =>
            newWriteStat({
              fileId: fileId(k + j, pi),
              path: mor ? `${p}/.${fileId(k + j, pi)}_${rt}.log.1_0-1-1` : `${p}/${fileId(k + j, pi)}_0-1-1_${rt}.parquet`,
              prevCommit: k < 3 ? 'null' : completedCommits[completedCommits.length - 1] ?? 'null',
              partitionPath: p,
              numWrites: 10 + k,
              numInserts: k % 5,
              numUpdateWrites: 10 + k - (k % 5),
              numDeletes: k % 3,
              totalWriteBytes: 1000 + k * 7 + j,
              fileSizeInBytes: 1000 + k * 7 + j,
              ...(mor ? { logVersion: 1, logOffset: 0, baseFile: '', logFiles: [] } : {}),
            }),
          ),
        ]),
      ),
      compacted: false,
      extraMetadata: { schema: '{"type":"record","name":"r","fields":[]}' },
      operationType: 'UPSERT',
    };
    await createRequested(src, rt, action);
    await transitionToInflight(src, rt, action, layout === 1 ? commitBytes({ ...m, partitionToWriteStats: {} }) : new Uint8Array(0));
    await complete(rt, action, action, commitBytes(m, mor));
    completedCommits.push(rt);
  };
  const cleanPlan = (ectr: string | undefined, last: string) => ({
    earliestInstantToRetain: ectr ? { timestamp: ectr, action: mor ? 'deltacommit' : 'commit', state: 'COMPLETED' } : null,
    lastCompletedCommitTimestamp: last,
    policy: 'KEEP_LATEST_COMMITS',
    filesToBeDeletedPerPartition: {},
    version: 2,
    filePathsToBeDeletedPerPartition: { [PARTS[0]!]: [{ filePath: `file:${base}/${PARTS[0]}/old.parquet`, isBootstrapBaseFile: false }] },
    partitionsToBeDeleted: [],
    extraMetadata: o.savepointAt ? { savepointed_timestamps: savepointTime ?? '' } : null,
  });
  const writeClean = async () => {
    const rt = next();
    const ectr = completedCommits.length > 10 ? completedCommits[completedCommits.length - 10] : undefined;
    const last = completedCommits[completedCommits.length - 1]!;
    const plan = encodeCleanerPlan(cleanPlan(ectr, last));
    await createRequested(src, rt, 'clean', plan);
    await transitionToInflight(src, rt, 'clean', layout === 1 ? plan : new Uint8Array(0));
    await complete(
      rt,
      'clean',
      'clean',
      encodeCleanMetadata({
        startCleanTime: rt,
        timeTakenInMillis: 5,
        totalFilesDeleted: 1,
        earliestCommitToRetain: ectr ?? '',
        lastCompletedCommitTimestamp: last,
        partitionMetadata: {
          [PARTS[0]!]: { partitionPath: PARTS[0]!, policy: 'KEEP_LATEST_COMMITS', deletePathPatterns: ['old.parquet'], successDeleteFiles: ['old.parquet'], failedDeleteFiles: [], isPartitionDeleted: false },
        },
        version: 2,
        bootstrapPartitionMetadata: {},
        extraMetadata: null,
      }),
    );
  };
  const writeRollback = async () => {
    const failed = next(); // the failed write leaves no timeline file once rolled back
    const rt = next();
    const action = mor ? 'deltacommit' : 'commit';
    await createRequested(src, rt, 'rollback', encodeRollbackPlan({ instantToRollback: { commitTime: failed, action }, RollbackRequests: [], version: 1 }));
    await transitionToInflight(src, rt, 'rollback');
    await complete(
      rt,
      'rollback',
      'rollback',
      encodeRollbackMetadata({
        startRollbackTime: rt,
        timeTakenInMillis: 3,
        totalFilesDeleted: 1,
        commitsRollback: [failed],
        partitionMetadata: { [PARTS[1]!]: { partitionPath: PARTS[1]!, successDeleteFiles: [`${PARTS[1]}/x_${failed}.parquet`], failedDeleteFiles: [], rollbackLogFiles: {}, logFilesFromFailedCommit: {} } },
        version: 1,
        instantsRollback: [{ commitTime: failed, action }],
      }),
    );
  };
  const compactionPlan = () =>
    encodeCompactionPlan({
      operations: PARTS.map((p, pi) => ({
        baseInstantTime: completedCommits[0]!,
        deltaFilePaths: [`.${fileId(1, pi)}_${completedCommits[0]}.log.1_0-1-1`],
        dataFilePath: null,
        fileId: fileId(1, pi),
        partitionPath: p,
        metrics: { TOTAL_LOG_FILES: 1 },
        bootstrapFilePath: null,
      })),
      extraMetadata: null,
      version: 2,
      strategy: null,
      preserveHoodieMetadata: true,
      missingSchedulePartitions: null,
    });
  const writeCompaction = async (pending: boolean) => {
    const rt = next();
    await createRequested(src, rt, 'compaction', compactionPlan());
    if (pending) {
      out.push({ requestedTime: rt, action: 'compaction', completed: false });
      return;
    }
    await transitionToInflight(src, rt, 'compaction');
    const m: CommitMetadata = {
      partitionToWriteStats: { [PARTS[0]!]: [newWriteStat({ fileId: fileId(1, 0), path: `${PARTS[0]}/${fileId(1, 0)}_0-1-1_${rt}.parquet`, prevCommit: completedCommits[0]!, partitionPath: PARTS[0]!, numWrites: 30, numUpdateWrites: 30, totalWriteBytes: 4000, fileSizeInBytes: 4000 })] },
      compacted: true,
      extraMetadata: {},
      operationType: 'COMPACT',
    };
    await complete(rt, 'compaction', 'commit', commitBytes(m));
    completedCommits.push(rt);
  };
  const clusteringAction: Action = layout === 2 ? 'clustering' : 'replacecommit';
  const clusteringPlan = () =>
    encodeRequestedReplaceMetadata({
      operationType: 'CLUSTER',
      clusteringPlan: {
        inputGroups: [{ slices: [{ dataFilePath: `${PARTS[0]}/${fileId(2, 0)}_0-1-1_x.parquet`, deltaFilePaths: [], fileId: fileId(2, 0), partitionPath: PARTS[0]!, bootstrapFilePath: '', version: 1 }], metrics: {}, numOutputFileGroups: 1, extraMetadata: null, version: 1 }],
        strategy: { strategyClassName: 'org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy', strategyParams: {}, version: 1 },
        extraMetadata: {},
        version: 1,
        preserveHoodieMetadata: true,
        missingSchedulePartitions: [],
      },
      extraMetadata: {},
      version: 1,
    });
  const writeClustering = async (pending: boolean) => {
    const rt = next();
    await createRequested(src, rt, clusteringAction, clusteringPlan());
    if (pending) {
      out.push({ requestedTime: rt, action: clusteringAction, completed: false });
      return;
    }
    await transitionToInflight(src, rt, clusteringAction);
    const m: CommitMetadata = {
      partitionToWriteStats: { [PARTS[0]!]: [newWriteStat({ fileId: fileId(3, 9), path: `${PARTS[0]}/${fileId(3, 9)}_0-1-1_${rt}.parquet`, prevCommit: 'null', partitionPath: PARTS[0]!, numWrites: 20, numInserts: 20, totalWriteBytes: 3000, fileSizeInBytes: 3000 })] },
      compacted: false,
      extraMetadata: {},
      operationType: 'CLUSTER',
      partitionToReplaceFileIds: { [PARTS[0]!]: [fileId(2, 0)] },
    };
    await complete(rt, clusteringAction, 'replacecommit', commitBytes(m));
    completedCommits.push(rt);
  };
  const writeSavepoint = async (rt: string) => {
    savepointTime = rt;
    await createRequested(src, rt, 'savepoint'); // `<rt>.savepoint.inflight`
    await complete(
      rt,
      'savepoint',
      'savepoint',
      encodeSavepointMetadata({ savepointedBy: 'tester', savepointedAt: 1, comments: 'keep', partitionMetadata: { [PARTS[0]!]: { partitionPath: PARTS[0]!, savepointDataFile: ['a.parquet'] } }, version: 1 }),
    );
  };

  let mdtCompactionAfter: string | undefined;
  for (let k = 1; k <= n; k++) {
    await writeCommit(k);
    if (o.savepointAt === k) await writeSavepoint(completedCommits[completedCommits.length - 1]!);
    if (o.savepointDeletedAfter === k && savepointTime) {
      for (const f of readdirSync(timelineDir)) if (f.startsWith(`${savepointTime}`) && f.includes('.savepoint')) rmSync(join(timelineDir, f));
      const at = out.findIndex((x) => x.action === 'savepoint');
      if (at >= 0) out.splice(at, 1);
    }
    if (mor && o.compactEvery && k % o.compactEvery === 0) await writeCompaction(false);
    if (!mor && o.clusterAfter?.includes(k)) await writeClustering(false);
    if (o.pendingAfter === k) await (mor ? writeCompaction(true) : writeClustering(true));
    if (o.cleanEvery && k % o.cleanEvery === 0) await writeClean();
    if (o.rollbackEvery && k % o.rollbackEvery === 0) await writeRollback();
    if (mdt && o.mdtCompactionAfter === k) mdtCompactionAfter = completedCommits[completedCommits.length - 1]!;
  }
  if (mdt) await writeMdt(base, o, out, mdtCompactionAfter);
  out.sort((a, b) => (a.requestedTime < b.requestedTime ? -1 : a.requestedTime > b.requestedTime ? 1 : a.action < b.action ? -1 : 1));
  return { base, instants: out };
}

/**
 * `.hoodie/metadata`: one deltacommit per data instant and a compaction after the chosen commit —
 * 0.14 style `<t>001` (v6), a fresh time between the commit's requested and completion times (v8/9).
 */
async function writeMdt(base: string, o: ArchivalTableOptions, data: GeneratedInstant[], compactAfter: string | undefined): Promise<void> {
  const layout: 1 | 2 = o.version >= 8 ? 2 : 1;
  const meta = join(base, '.hoodie', 'metadata', '.hoodie');
  const timelineDir = layout === 2 ? join(meta, 'timeline') : meta;
  mkdirSync(timelineDir, { recursive: true });
  writeFileSync(join(meta, 'hoodie.properties'), props('archival_t_metadata', 'MERGE_ON_READ', o.version));
  const src: TimelineSource = { storage, metaPath: meta, layout, timelineDir, timezone: 'UTC' };
  const empty = layout === 2 ? encodeCommitMetadataAvro({ partitionToWriteStats: {}, compacted: false, extraMetadata: {}, operationType: 'UPSERT_PREPPED' }) : encodeCommitMetadataJson({ partitionToWriteStats: {}, compacted: false, extraMetadata: {}, operationType: 'UPSERT_PREPPED' });
  const later = (t: string, ms: number) => formatInstantTime(new Date(Date.parse(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}.${t.slice(14, 17)}Z`) + ms), 'UTC');
  for (const d of data.filter((x) => x.completed && x.action !== 'savepoint')) {
    await createRequested(src, d.requestedTime, 'deltacommit');
    await transitionToInflight(src, d.requestedTime, 'deltacommit');
    await completeInstant(src, d.requestedTime, 'deltacommit', 'deltacommit', empty, layout === 2 ? later(d.requestedTime, 1) : undefined);
    if (compactAfter === d.requestedTime) {
      // v8/9: while the data commit is still completing (requested < compaction < completed): it must stay
      const c = layout === 2 ? later(d.requestedTime, 700) : `${d.requestedTime}001`;
      await createRequested(src, c, 'compaction', encodeCompactionPlan({ operations: [], extraMetadata: null, version: 2, strategy: null, preserveHoodieMetadata: true, missingSchedulePartitions: null }));
      await transitionToInflight(src, c, 'compaction');
      await completeInstant(src, c, 'compaction', 'commit', empty, layout === 2 ? later(c, 5) : undefined);
    }
  }
}
