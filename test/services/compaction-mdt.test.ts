// `compaction schedule` + `compaction run` on real tables with a metadata table keep it in step, as a
// Hudi writer does (issue 14): for every MOR fixture table with an MDT (v8/v9) and the Trino v6 table,
// with no MDT flag (update is the default), afterwards
//   (a) `metadata validate-files` finds no mismatch,
//   (b) the file-system view built from the MDT's `files` listing equals the one built from storage,
//   (c) the column_stats records of the new base files equal the statistics DuckDB reads from them,
//   (d) the MDT timeline has a completed deltacommit with the compaction's instant time, completed
//       before the data instant,
//   (e) the snapshot is unchanged.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleView, listPartitions, type ListedPartition } from '../../src/fs-view/index.ts';
import { readMetadataTableFiles } from '../../src/mdt/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt, viewTimelineOf } from '../../src/table/index.ts';
import { catalog, HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { treeDigest } from '../support/files.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { expectColumnStatsOfNewFiles } from './support/mdt-records.ts';

const storage = new LocalStorage();
const OPTS = { clockSkewMs: 1 };

function mdtFixtures(): string[] {
  if (!HAVE_FIXTURES) return [];
  return catalog()
    .tables.filter((t) => t.table_type === 'MERGE_ON_READ' && (t as { metadata_table_exists?: boolean }).metadata_table_exists)
    .map((t) => t.id);
}

/** A private copy of the Trino table (the extracted one is shared by the test process). */
function trinoFresh(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
  cpSync(trinoV6Table(), dest, { recursive: true });
  return dest;
}

/** Latest slices of a view, comparable across listings. */
function sliceKeys(view: ReturnType<typeof assembleView>): string[] {
  return view.latestFileSlices().map((s) => JSON.stringify([s.partition, s.fileId, s.baseInstant, s.baseFile?.name ?? null, s.logFiles.map((l) => l.name)])).sort();
}

async function checkCompaction(base: string): Promise<void> {
  const schema = (await openTable(base)).config.createSchema;
  const types = logicalTypes(schema);
  const s = await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
  if (!s.instant) {
    expect((await runCompaction(await openTable(base), OPTS)).status).toBe('nothing-to-do');
    return;
  }
  const before = comparable(await snapshotRows(base), types);
  const r = await runCompaction(await openTable(base), OPTS);
  expect(r.status).toBe('completed');
  const instant = s.instant;

  // (a)
  expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);

  // (b) the view from the MDT listing = the view from storage
  const table = await openTable(base);
  const vt = await viewTimelineOf(table);
  const fromStorage = assembleView(await listPartitions(storage, base), vt);
  const mdtFiles = await readMetadataTableFiles(storage, base);
  const listed: ListedPartition[] = mdtFiles.partitions.map((p) => ({
    partition: p,
    files: [...mdtFiles.files.get(p)!].map(([name, size]) => ({ path: join(base, p, name), name, isDirectory: false, size, mtimeMs: 0 })),
  }));
  expect(sliceKeys(assembleView(listed, vt))).toEqual(sliceKeys(fromStorage));

  // (c) column stats of the new base files = DuckDB's view of them
  if (table.config.metadataPartitions.includes('column_stats')) {
    // a file slice whose every record was deleted compacts into a file without row groups: no stats (as Hudi)
    await expectColumnStatsOfNewFiles(base, instant, r.writeStats.filter((w) => w.numWrites > 0).map((w) => w.path!));
  }

  // (d) the MDT deltacommit of the compaction, completed before the data instant
  const mdt = await openTableAt(storage, join(base, '.hoodie', 'metadata'));
  const mdtInstant = (await mdt.timeline()).find(instant).find((i) => i.action === 'deltacommit');
  expect(mdtInstant?.state).toBe('COMPLETED');
  if (table.config.layoutVersion === 2) expect(mdtInstant!.completionTime! < r.completionTime!).toBe(true);

  // (e)
  expect(comparable(await snapshotRows(base), types)).toEqual(before);
}

describe.skipIf(!HAVE_FIXTURES)('compaction keeps the metadata table in step (hudi-rs MOR tables with an MDT)', () => {
  it.each(mdtFixtures().map((id) => [id]))('%s', async (id) => {
    await checkCompaction(tableFresh(id));
  });
});

describe.skipIf(!HAVE_TRINO_V6)('compaction keeps the metadata table in step (Trino table version 6, Hudi 0.15)', () => {
  it('hudi_multi_fg_pt_v6_mor', async () => {
    await checkCompaction(trinoFresh());
  });
});

describe.skipIf(!HAVE_FIXTURES)('metadata-table partitions a compaction does not change, or that tblcli cannot maintain', () => {
  const ID = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';

  it('record_index, partition_stats and secondary indexes are left byte-identical', async () => {
    const base = tableFresh(ID);
    const mdt = join(base, '.hoodie', 'metadata');
    const untouched = ['record_index', 'partition_stats', 'secondary_index_rider_idx'];
    const before = untouched.map((p) => treeDigest(join(mdt, p)));
    await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
    expect((await runCompaction(await openTable(base), OPTS)).status).toBe('completed');
    expect(untouched.map((p) => treeDigest(join(mdt, p)))).toEqual(before);
    expect((await openTable(base)).config.metadataPartitions).toEqual(['column_stats', 'files', 'partition_stats', 'record_index', 'secondary_index_rider_idx']);
  });

  it('an expression index is dropped the Hudi way, for that partition only, with a warning', async () => {
    const base = tableFresh(ID);
    const props = join(base, '.hoodie', 'hoodie.properties');
    const text = readFileSync(props, 'utf8');
    writeFileSync(props, text.replace(/^hoodie\.table\.metadata\.partitions=(.*)$/m, 'hoodie.table.metadata.partitions=$1,expr_index_fare'));
    mkdirSync(join(base, '.hoodie', 'metadata', 'expr_index_fare'));
    writeFileSync(join(base, '.hoodie', 'metadata', 'expr_index_fare', '.hoodie_partition_metadata'), 'commitTime=00000000000000000\npartitionDepth=1\n');
    await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
    const r = await runCompaction(await openTable(base), OPTS);
    expect(r.status).toBe('completed');
    expect(r.warnings).toEqual([expect.stringMatching(/^metadata-table partition expr_index_fare of .* dropped/)]);
    const t = await openTable(base);
    expect(t.config.metadataPartitions).toEqual(['column_stats', 'files', 'partition_stats', 'record_index', 'secondary_index_rider_idx']);
    expect(existsSync(join(base, '.hoodie', 'metadata', 'expr_index_fare'))).toBe(false);
    expect(existsSync(join(base, '.hoodie', 'hoodie.properties.backup'))).toBe(false);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});
