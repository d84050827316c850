// `clustering schedule` + `clustering run` keep the metadata table in step, as a Hudi writer does
// (the same checks as compaction-mdt.test.ts): on hudi-rs tables with an MDT (COW and MOR, v8 and v9)
// and the Trino v6 table, afterwards
//   (a) `metadata validate-files --json` prints [],
//   (b) the file-system view built from the MDT's `files` listing equals the one built from storage
//       (the new files listed, the replaced ones still listed: only a clean removes them),
//   (c) the column_stats records of the clustering name exactly the new files and equal DuckDB's
//       statistics of them,
//   (d) the MDT deltacommit has the clustering's instant time and completed before it, and wrote only
//       the partitions a clustering changes (files, column_stats, bloom_filters, record_index: never
//       partition_stats or a secondary index, whose contents do not move),
//   (e) record_index points every key of a new file at its new file group (checkAfter).
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleView, listPartitions, type ListedPartition } from '../../src/fs-view/index.ts';
import { readMetadataTableFiles } from '../../src/mdt/index.ts';
import { decodeCommitMetadata } from '../../src/metadata/index.ts';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt, viewTimelineOf } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { captureBefore, checkAfter } from './support/clustering-check.ts';
import { expectColumnStatsOfNewFiles } from './support/mdt-records.ts';

const storage = new LocalStorage();
const OPTS = { clockSkewMs: 1 };
const CHANGED = new Set(['files', 'column_stats', 'bloom_filters', 'record_index']);

function sliceKeys(view: ReturnType<typeof assembleView>): string[] {
  return view.latestFileSlices().map((s) => JSON.stringify([s.partition, s.fileId, s.baseInstant, s.baseFile?.name ?? null, s.logFiles.map((l) => l.name)])).sort();
}

async function check(base: string, sortColumns: string[]): Promise<void> {
  const before = await captureBefore(base);
  const s = await scheduleClustering(await openTable(base), { ...OPTS, sortColumns });
  expect(s.instant, s.reason).toBeDefined();
  const r = await runClustering(await openTable(base), OPTS);
  await checkAfter(base, before, s, r, sortColumns);
  const instant = r.instant!;
  // (a)
  expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  // (b)
  const table = await openTable(base);
  const vt = await viewTimelineOf(table);
  const fromStorage = assembleView(await listPartitions(storage, base), vt);
  const mdtFiles = await readMetadataTableFiles(storage, base);
  const listed: ListedPartition[] = mdtFiles.partitions.map((p) => ({
    partition: p,
    files: [...mdtFiles.files.get(p)!].map(([name, size]) => ({ path: join(base, p, name), name, isDirectory: false, size, mtimeMs: 0 })),
  }));
  expect(sliceKeys(assembleView(listed, vt))).toEqual(sliceKeys(fromStorage));
  for (const w of r.writeStats) expect(mdtFiles.files.get(w.partitionPath)?.get(w.path!.split('/').pop()!), w.path ?? undefined).toBe(w.fileSizeInBytes);
  // (c)
  if (table.config.metadataPartitions.includes('column_stats')) await expectColumnStatsOfNewFiles(base, instant, r.writeStats.filter((w) => w.numWrites > 0).map((w) => w.path!));
  // (d)
  const mdt = await openTableAt(storage, join(base, '.hoodie', 'metadata'));
  const tl = await mdt.timeline();
  const d = tl.find(instant).find((i) => i.action === 'deltacommit');
  expect(d?.state).toBe('COMPLETED');
  if (table.config.layoutVersion === 2) expect(d!.completionTime! < r.completionTime!).toBe(true);
  const written = Object.keys(decodeCommitMetadata(await tl.read(d!), { path: d!.files.COMPLETED!.path }).partitionToWriteStats);
  expect(written.filter((p) => !CHANGED.has(p))).toEqual([]);
  expect(written).toContain('files');
  if (table.config.metadataPartitions.includes('record_index')) expect(written).toContain('record_index');
}

describe.skipIf(!HAVE_FIXTURES)('clustering keeps the metadata table in step (hudi-rs tables with an MDT)', () => {
  it.each([
    ['sample_table/cow/v9_txns_simple_meta', ['txn_ts']],
    ['sample_table/mor/avro/v9_txns_complex_meta', ['currency']],
    ['sample_table/mor/avro/v9_nonpartitioned_rollback', []],
    ['quickstart_trips_table/mor/avro/v8_trips_8i3u1d', ['fare']],
  ] as [string, string[]][])('%s', async (id, sort) => {
    await check(tableFresh(id), sort);
  });
});

describe.skipIf(!HAVE_TRINO_V6)('clustering keeps the metadata table in step (Trino table version 6, Hudi 0.15)', () => {
  it('hudi_multi_fg_pt_v6_mor', async () => {
    const base = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
    cpSync(trinoV6Table(), base, { recursive: true });
    await check(base, ['id']);
  });
});
