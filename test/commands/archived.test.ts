// Archived-timeline commands over a layout-1 archive written with our log writer into a copy of a real
// table (the fixtures have no archived instants), and the empty archives of the fixture tables.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCtx } from '../../commands/main.ts';
import { archivedSpecs } from '../../commands/archived.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { encodeAvroDataBlock, writeLogFile } from '../../src/logfile/index.ts';
import { SCHEMAS } from '../../src/metadata/index.ts';
import { openTable } from '../../src/table/index.ts';
import {
  archivedDetails,
  commitsShowArchived,
  compactionShowArchived,
  compactionsShowArchived,
  showArchivedCommitStats,
  showArchivedCommits,
} from '../../src/views/archived-views.ts';
import { HAVE_FIXTURES, table, tableFresh } from '../support/fixtures.ts';

const ENTRY_FIELDS = (SCHEMAS.HoodieArchivedMetaEntry as { fields: { name: string }[] }).fields.map((f) => f.name);

function entry(e: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(ENTRY_FIELDS.map((f) => [f, null]));
  out.version = 1;
  return { ...out, ...e };
}

const stat = (fileId: string, prev: string, writes: number) => ({
  fileId, path: `p1/${fileId}_1-0-1_x.parquet`, prevCommit: prev, numWrites: writes, numDeletes: 0, numUpdateWrites: prev === 'null' ? 0 : writes,
  totalWriteBytes: 1000 * writes, totalWriteErrors: 0, partitionPath: 'p1', totalLogRecords: 0, totalLogFiles: 0, totalUpdatedRecordsCompacted: 0,
  numInserts: prev === 'null' ? writes : 0, totalLogBlocks: 0, totalCorruptLogBlock: 0, totalRollbackBlocks: 0, fileSizeInBytes: 1000 * writes,
});

const commitMeta = (stats: ReturnType<typeof stat>[], partitions = ['p2', 'p1']) => ({
  partitionToWriteStats: Object.fromEntries(partitions.map((p, i) => [p, i === 0 ? stats : []])),
  extraMetadata: { schema: '{}' },
  version: 1,
  operationType: 'UPSERT',
});

const plan = {
  operations: [
    { baseInstantTime: '20240101000000000', deltaFilePaths: ['.f1_20240101000000000.log.1_1-0-1'], dataFilePath: 'f1_1-0-1_20240101000000000.parquet', fileId: 'f1', partitionPath: 'p1', metrics: { TOTAL_LOG_FILES: 1 }, bootstrapFilePath: null },
  ],
  extraMetadata: null,
  version: 2,
};

/** Writes `.hoodie/archived/.commits_.archive.1_1-0-1` into a fresh copy of a v6 MOR table. */
async function archivedTable(): Promise<string> {
  const base = tableFresh('sample_table/mor/parquet/v6_nonpartitioned');
  mkdirSync(join(base, '.hoodie', 'archived'), { recursive: true });
  const records = [
    entry({ commitTime: '20240101000000000', actionType: 'commit', actionState: 'COMPLETED', hoodieCommitMetadata: commitMeta([stat('f1', 'null', 10)]) }),
    entry({ commitTime: '20240102000000000', actionType: 'deltacommit', actionState: 'COMPLETED', hoodieCommitMetadata: commitMeta([stat('f1', '20240101000000000', 4), stat('f2', 'null', 2)]) }),
    entry({ commitTime: '20240103000000000', actionType: 'compaction', actionState: 'INFLIGHT', hoodieCompactionPlan: plan }),
    entry({ commitTime: '20240103000000000', actionType: 'commit', actionState: 'COMPLETED', hoodieCommitMetadata: commitMeta([stat('f1', '20240101000000000', 12)]) }),
    entry({ commitTime: '20240104000000000', actionType: 'clean', actionState: 'COMPLETED', hoodieCleanMetadata: { startCleanTime: '20240104000000000', timeTakenInMillis: 5, totalFilesDeleted: 1, earliestCommitToRetain: '20240102000000000', lastCompletedCommitTimestamp: '', partitionMetadata: {}, version: 2, bootstrapPartitionMetadata: null, extraMetadata: null } }),
  ];
  const block = encodeAvroDataBlock({ instantTime: '20240105000000000', schema: SCHEMAS.HoodieArchivedMetaEntry, records });
  await writeLogFile(new LocalStorage(), join(base, '.hoodie', 'archived', '.commits_.archive.1_1-0-1'), [block]);
  return base;
}

async function runSpec(name: string, opts: Record<string, unknown>) {
  const spec = archivedSpecs.find((s) => s.name === name)!;
  const t = makeTestIO({ tty: false });
  const ctx = makeCtx({ io: t.io, env: {}, stateDir: mkdtempSync(join(tmpdir(), 'tblcli-state-')), now: () => new Date(2024, 0, 10) });
  const code = await spec.action(ctx, opts);
  return { code: code ?? 0, stdout: t.out(), stderr: t.err() };
}

describe.skipIf(!HAVE_FIXTURES)('archived-timeline commands (layout 1 archive)', () => {
  const now = new Date(2024, 0, 10); // window: 2023-12-31 … 2024-01-09

  it('commits showarchived: completed commits in the window, newest first, column set A; with extra metadata one row per stat', async () => {
    const t = await openTable(await archivedTable());
    const r = await commitsShowArchived(t, { extra: false, now });
    expect(r.columns.map((c) => c.header)[0]).toBe('CommitTime');
    expect(r.rows.map((x: { commitTime: string }) => x.commitTime)).toEqual(['20240103000000000', '20240102000000000', '20240101000000000']);
    expect(r.rows[1]).toMatchObject({ totalBytesWritten: 6000, totalFilesInsert: 1, totalFilesUpdated: 1, totalRecordsWritten: 6 });
    const narrow = await commitsShowArchived(t, { extra: false, now, startTs: '20240101000000000', endTs: '20240102000000000' });
    expect(narrow.rows.map((x: { commitTime: string }) => x.commitTime)).toEqual(['20240102000000000']); // start exclusive, end inclusive
    const extra = await commitsShowArchived(t, { extra: true, now, partition: 'p2' });
    expect(extra.rows).toHaveLength(4);
    expect((await commitsShowArchived(t, { extra: false, now: new Date(2025, 0, 1) })).rows).toEqual([]);
  });

  it('compactions showarchived / compaction showarchived: the archived plan', async () => {
    const t = await openTable(await archivedTable());
    const all = await compactionsShowArchived(t, { extra: true, now });
    expect(all.rows.map((x) => [x.instant, x.state, x.plan.operations!.length])).toEqual([['20240103000000000', 'COMPLETED', 1]]);
    const p = await compactionShowArchived(t, '20240103000000000');
    expect(p.rows).toHaveLength(1);
    expect(p.columns.map((c) => c.value(p.rows[0]))).toEqual(['p1', 'f1', '20240101000000000', 'f1_1-0-1_20240101000000000.parquet', 1, '{TOTAL_LOG_FILES=1.0}']);
    await expect(compactionShowArchived(t, '20240102000000000')).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('show archived commits: completed instants; CommitDetails is the Avro toString with partitions sorted', async () => {
    const t = await openTable(await archivedTable());
    const skip = await showArchivedCommits(t, true);
    expect(skip.rows.map((x) => [x.instant.requestedTime, x.instant.action])).toEqual([
      ['20240101000000000', 'commit'], ['20240102000000000', 'deltacommit'], ['20240103000000000', 'commit'], ['20240104000000000', 'clean'],
    ]);
    expect(skip.columns.map((c) => c.header)).toEqual(['CommitTime', 'CommitType']);
    const full = await showArchivedCommits(t, false);
    const d = full.rows[0]!.details!;
    expect(d.startsWith('{"partitionToWriteStats": {"p1": [], "p2": [{"fileId": "f1", "path": "p1/f1_1-0-1_x.parquet", "prevCommit": "null", "numWrites": 10,')).toBe(true);
    expect(d).toContain('"operationType": "UPSERT"');
    expect(full.rows[3]!.details).toContain('"earliestCommitToRetain": "20240102000000000"');
    expect(archivedDetails({ requestedTime: '1', action: 'commit', state: 'COMPLETED', source: 'x' })).toBe('{}');
  });

  it('show archived commit stats: one row per write stat of commits and deltacommits; --archiveFolderPattern reads the given files', async () => {
    const base = await archivedTable();
    const t = await openTable(base);
    const r = await showArchivedCommitStats(t, '');
    expect(r.columns.map((c) => c.header).slice(0, 5)).toEqual(['action', 'instant', 'partition', 'file_id', 'prev_instant']);
    expect(r.rows.map((x) => [x.action, x.instant, x.stat.fileId, x.stat.numWrites])).toEqual([
      ['commit', '20240101000000000', 'f1', 10], ['deltacommit', '20240102000000000', 'f1', 4], ['deltacommit', '20240102000000000', 'f2', 2], ['commit', '20240103000000000', 'f1', 12],
    ]);
    const viaGlob = await showArchivedCommitStats(t, 'archived/.commits_.archive*');
    expect(viaGlob.rows).toHaveLength(4);
    expect((await showArchivedCommitStats(t, 'nothing/.commits_.archive*')).rows).toEqual([]);
    const out = await runSpec('show archived commit stats', { path: base, limit: 2 });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('║ action');
    expect(out.stdout.split('\n').filter((l) => l.includes('20240101000000000') || l.includes('20240102000000000') || l.includes('20240103000000000'))).toHaveLength(2);
    const json = JSON.parse((await runSpec('show archived commits', { path: base, limit: 10, skipMetadata: false, json: true })).stdout) as Record<string, unknown>[];
    expect(Object.keys(json[0]!)).toEqual(['commitTime', 'commitType', 'commitDetails']);
  });

  it('fixture tables without archived instants → empty results (layouts 1 and 2)', async () => {
    for (const id of ['sample_table/cow/v6_nonpartitioned', 'sample_table/cow/v8_nonpartitioned', 'sample_table/mor/avro/v9_txns_simple_meta']) {
      const t = await openTable(table(id));
      expect((await showArchivedCommits(t, false)).rows, id).toEqual([]);
      expect((await showArchivedCommitStats(t, '')).rows, id).toEqual([]);
    }
  });
});
