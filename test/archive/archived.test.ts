// The fixtures have no archived timelines (catalog archived_timeline_file_count = 0), so these tests
// write archives in the formats the Java writers use and read them back.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { loadArchivedTimeline, readLsmManifest, archiveFileVersion } from '../../src/archive/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { SCHEMAS, encodeAvroInstant, encodeCommitMetadataAvro, emptyCommitMetadata } from '../../src/metadata/index.ts';
import { encodeAvroDataBlock, encodeRollbackBlock } from '../../src/logfile/writer.ts';
import { avroToParquetSchema } from '../../src/parquet/write.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table } from '../support/fixtures.ts';

const storage = new LocalStorage();

function tempTable(): string {
  const base = mkdtempSync(join(tmpdir(), 'tblcli-archive-'));
  mkdirSync(join(base, '.hoodie'), { recursive: true });
  return base;
}

function commitMeta(partition: string, fileId: string) {
  const m = emptyCommitMetadata();
  m.operationType = 'UPSERT';
  m.partitionToWriteStats = { [partition]: [{ fileId, path: `${partition}/${fileId}_0-1-2_x.parquet`, numWrites: 5 } as never] };
  return m;
}

// ---- layout 1: .hoodie/archived/.commits_.archive.N_<token>, AVRO_DATA blocks of HoodieArchivedMetaEntry

const rollbackMetadata = {
  startRollbackTime: '20240103000000000',
  timeTakenInMillis: 12,
  totalFilesDeleted: 1,
  commitsRollback: ['20240102000000000'],
  partitionMetadata: {
    p1: { partitionPath: 'p1', successDeleteFiles: ['p1/f.parquet'], failedDeleteFiles: [], rollbackLogFiles: null, logFilesFromFailedCommit: null },
  },
  version: 1,
  instantsRollback: [],
};

function entry(commitTime: string, actionType: string, actionState: string, fields: Record<string, unknown> = {}) {
  return { commitTime, actionType, actionState, stateTransitionTime: actionState === 'COMPLETED' ? `${commitTime.slice(0, 14)}999` : null, ...fields };
}

function writeV1Archive(base: string): void {
  const dir = join(base, '.hoodie', 'archived');
  mkdirSync(dir, { recursive: true });
  const schema = SCHEMAS.HoodieArchivedMetaEntry;
  const commitAvro = {
    partitionToWriteStats: { p1: [{ fileId: 'f1', path: 'p1/f1_0-1-2_20240101000000000.parquet', numWrites: 5, numInserts: 5 }] },
    extraMetadata: { schema: '{}' },
    version: 1,
    operationType: 'UPSERT',
  };
  const block1 = encodeAvroDataBlock({
    instantTime: '20240105000000000',
    schema,
    records: [
      entry('20240101000000000', 'commit', 'REQUESTED'),
      entry('20240101000000000', 'commit', 'INFLIGHT', { hoodieCommitMetadata: { ...commitAvro, partitionToWriteStats: {} } }),
      entry('20240101000000000', 'commit', 'COMPLETED', { hoodieCommitMetadata: commitAvro }),
    ],
  });
  const block2 = encodeAvroDataBlock({
    instantTime: '20240105000000000',
    schema,
    records: [entry('20240103000000000', 'rollback', 'COMPLETED', { hoodieRollbackMetadata: rollbackMetadata })],
  });
  writeFileSync(join(dir, '.commits_.archive.1_1-0-1'), Buffer.concat([block1, block2]));
  // a second, later version file (roll-over), listed out of name order on purpose
  writeFileSync(
    join(dir, '.commits_.archive.2_1-0-1'),
    encodeAvroDataBlock({
      instantTime: '20240106000000000',
      schema,
      records: [entry('20240104000000000', 'deltacommit', 'COMPLETED', { hoodieCommitMetadata: { ...commitAvro, operationType: 'INSERT' } })],
    }),
  );
  // not an archive file: ignored
  writeFileSync(join(dir, 'README'), 'x');
}

describe('loadArchivedTimeline layout 1 (.hoodie/archived)', () => {
  it('reads every state record of every archive file, ordered by time and state, with typed metadata', async () => {
    const base = tempTable();
    writeV1Archive(base);
    const got = await loadArchivedTimeline(storage, base, { layout: 1 });
    expect(got.map((i) => [i.requestedTime, i.action, i.state])).toEqual([
      ['20240101000000000', 'commit', 'REQUESTED'],
      ['20240101000000000', 'commit', 'INFLIGHT'],
      ['20240101000000000', 'commit', 'COMPLETED'],
      ['20240103000000000', 'rollback', 'COMPLETED'],
      ['20240104000000000', 'deltacommit', 'COMPLETED'],
    ]);
    const commit = got[2]!;
    expect(commit.completionTime).toBe('20240101000000999');
    expect(commit.metadata).toMatchObject({ operationType: 'UPSERT', partitionToWriteStats: { p1: [{ fileId: 'f1', numWrites: 5, numInserts: 5 }] } });
    expect(got[0]!.metadata).toBeUndefined();
    expect(got[3]!.metadata).toMatchObject({ commitsRollback: ['20240102000000000'], totalFilesDeleted: 1 });
    expect(got[4]!.source.endsWith('.commits_.archive.2_1-0-1')).toBe(true);
  });

  it('startTs/endTs are inclusive bounds on the requested time', async () => {
    const base = tempTable();
    writeV1Archive(base);
    const got = await loadArchivedTimeline(storage, base, { layout: 1, startTs: '20240102000000000', endTs: '20240103000000000' });
    expect(got.map((i) => i.requestedTime)).toEqual(['20240103000000000']);
  });

  it('no archive directory → empty; corrupt block → logfile error naming the file', async () => {
    const base = tempTable();
    expect(await loadArchivedTimeline(storage, base, { layout: 1 })).toEqual([]);
    writeV1Archive(base);
    const f = join(base, '.hoodie', 'archived', '.commits_.archive.2_1-0-1');
    appendFileSync(f, Buffer.from('#HUDI#\u0000\u0000\u0000garbage'));
    await expect(loadArchivedTimeline(storage, base, { layout: 1 })).rejects.toMatchObject({
      kind: 'logfile',
      message: expect.stringContaining('.commits_.archive.2_1-0-1'),
    });
  });

  it('non-data blocks are skipped', async () => {
    const base = tempTable();
    writeV1Archive(base);
    appendFileSync(
      join(base, '.hoodie', 'archived', '.commits_.archive.2_1-0-1'),
      encodeRollbackBlock({ instantTime: '20240107000000000', targetInstantTime: '20240106000000000' }),
    );
    expect((await loadArchivedTimeline(storage, base, { layout: 1 })).length).toBe(5);
  });

  it('archiveFileVersion parses the roll-over version', () => {
    expect(archiveFileVersion('.commits_.archive.12_1-0-1')).toBe(12);
    expect(archiveFileVersion('.commits_.archive.3')).toBe(3);
    expect(archiveFileVersion('commits')).toBeUndefined();
  });
});

// ---- layout 2: .hoodie/timeline/history — _version_, manifest_N, <min>_<max>_<level>.parquet

interface LsmRow {
  instantTime: string;
  completionTime: string;
  action: string;
  metadata: Uint8Array | null;
  plan: Uint8Array | null;
}

function lsmParquet(rows: LsmRow[]): Uint8Array {
  const schema = avroToParquetSchema(SCHEMAS.HoodieLSMTimelineInstant as never) as never;
  const buf = parquetWriteBuffer({
    schema,
    columnData: [
      { name: 'instantTime', data: rows.map((r) => r.instantTime) },
      { name: 'completionTime', data: rows.map((r) => r.completionTime) },
      { name: 'action', data: rows.map((r) => r.action) },
      { name: 'metadata', data: rows.map((r) => r.metadata) },
      { name: 'plan', data: rows.map((r) => r.plan) },
      { name: 'version', data: rows.map(() => 1) },
    ],
  });
  return new Uint8Array(buf);
}

const cleanerPlan = {
  earliestInstantToRetain: { timestamp: '20240101000000000', action: 'commit', state: 'COMPLETED' },
  lastCompletedCommitTimestamp: '20240102000000000',
  policy: 'KEEP_LATEST_COMMITS',
  filesToBeDeletedPerPartition: null,
  version: 2,
  filePathsToBeDeletedPerPartition: { p1: [{ filePath: 'p1/old.parquet', isBootstrapBaseFile: false }] },
  partitionsToBeDeleted: [],
  extraMetadata: null,
};

function writeLsm(base: string, opts: { versionFile?: string | null } = {}): string {
  const dir = join(base, '.hoodie', 'timeline', 'history');
  mkdirSync(dir, { recursive: true });
  const f1 = lsmParquet([
    { instantTime: '20240101000000000', completionTime: '20240101000001000', action: 'commit', metadata: encodeCommitMetadataAvro(commitMeta('p1', 'f1')), plan: null },
    { instantTime: '20240102000000000', completionTime: '20240102000001000', action: 'clean', metadata: null, plan: encodeAvroInstant('HoodieCleanerPlan', cleanerPlan) },
  ]);
  const f2 = lsmParquet([
    { instantTime: '20240103000000000', completionTime: '20240103000001000', action: 'deltacommit', metadata: encodeCommitMetadataAvro(commitMeta('p2', 'f2')), plan: null },
  ]);
  const stale = lsmParquet([{ instantTime: '20230101000000000', completionTime: '20230101000001000', action: 'commit', metadata: null, plan: null }]);
  writeFileSync(join(dir, '20240101000000000_20240102000000000_0.parquet'), f1);
  writeFileSync(join(dir, '20240103000000000_20240103000000000_0.parquet'), f2);
  // a file no longer in the latest manifest (compacted away): must not be read
  writeFileSync(join(dir, '20230101000000000_20230101000000000_0.parquet'), stale);
  const manifest = (files: [string, Uint8Array][]) =>
    JSON.stringify({ files: files.map(([fileName, b]) => ({ fileName, fileLen: b.length })) }, null, 2);
  writeFileSync(join(dir, 'manifest_1'), manifest([['20230101000000000_20230101000000000_0.parquet', stale]]));
  writeFileSync(
    join(dir, 'manifest_2'),
    manifest([
      ['20240101000000000_20240102000000000_0.parquet', f1],
      ['20240103000000000_20240103000000000_0.parquet', f2],
    ]),
  );
  if (opts.versionFile !== null) writeFileSync(join(dir, '_version_'), opts.versionFile ?? '2');
  return dir;
}

describe('loadArchivedTimeline layout 2 (LSM history)', () => {
  it('reads the files of the latest manifest only, decoding metadata and plans', async () => {
    const base = tempTable();
    writeLsm(base);
    const got = await loadArchivedTimeline(storage, base, { layout: 2 });
    expect(got.map((i) => [i.requestedTime, i.completionTime, i.action, i.state])).toEqual([
      ['20240101000000000', '20240101000001000', 'commit', 'COMPLETED'],
      ['20240102000000000', '20240102000001000', 'clean', 'COMPLETED'],
      ['20240103000000000', '20240103000001000', 'deltacommit', 'COMPLETED'],
    ]);
    expect(got[0]!.metadata).toMatchObject({ operationType: 'UPSERT', partitionToWriteStats: { p1: [{ fileId: 'f1', numWrites: 5 }] } });
    expect(got[0]!.plan).toBeUndefined();
    expect(got[1]!.plan).toMatchObject({ policy: 'KEEP_LATEST_COMMITS', lastCompletedCommitTimestamp: '20240102000000000' });
    expect(got[2]!.metadata).toMatchObject({ partitionToWriteStats: { p2: [{ fileId: 'f2' }] } });
  });

  it('without _version_ the highest manifest_N is used; a stale version file is honoured', async () => {
    const base = tempTable();
    const dir = writeLsm(base, { versionFile: null });
    expect((await readLsmManifest(storage, dir))?.version).toBe(2);
    const base2 = tempTable();
    writeLsm(base2, { versionFile: '1' });
    const got = await loadArchivedTimeline(storage, base2, { layout: 2 });
    expect(got.map((i) => i.requestedTime)).toEqual(['20230101000000000']);
  });

  it('time range prunes files by name and filters rows; withMetadata=false skips decoding', async () => {
    const base = tempTable();
    writeLsm(base);
    const got = await loadArchivedTimeline(storage, base, { layout: 2, startTs: '20240102000000000', withMetadata: false });
    expect(got.map((i) => i.requestedTime)).toEqual(['20240102000000000', '20240103000000000']);
    expect(got.every((i) => i.metadata === undefined && i.plan === undefined)).toBe(true);
  });

  it('no history dir → empty; unreadable manifest → timeline error', async () => {
    const base = tempTable();
    expect(await loadArchivedTimeline(storage, base, { layout: 2 })).toEqual([]);
    const dir = writeLsm(base);
    writeFileSync(join(dir, 'manifest_2'), '{not json');
    await expect(loadArchivedTimeline(storage, base, { layout: 2 })).rejects.toMatchObject({ kind: 'timeline', message: expect.stringContaining('manifest_2') });
  });
});

describe.skipIf(!HAVE_FIXTURES)('fixture tables have no archived timeline', () => {
  it('every fixture loads an empty archived timeline in its own layout', async () => {
    for (const id of allTableIds().slice(0, 12)) {
      const t = catalogTable(id);
      expect(t.archived_timeline_file_count).toBe(0);
      const layout = t.timeline_layout_version === 2 ? 2 : 1;
      expect(await loadArchivedTimeline(storage, table(id), { layout })).toEqual([]);
    }
  });
});
