// `compaction run` compacts the metadata table when Hudi's writer would (issue 14): with
// hoodie.metadata.compact.max.delta.commits=1 in hoodie.properties, on every MOR fixture with an MDT
// and the Trino v6 table, the run's MDT deltacommit is followed (under the same lock) by an MDT
// compaction — v6 at `<deltacommit>001`, v8/9 at a new time — and afterwards validate-files is
// clean, the MDT listing builds the same file-system view as storage, `metadata list-files`,
// `metadata stats` and `show fsview` over the MDT read the new base files, the next MDT write would
// go to the new slices, and the snapshot is unchanged. Without the setting (default 10) one run does
// not compact.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleView, listPartitions, type ListedPartition } from '../../src/fs-view/index.ts';
import { readMetadataTableFiles } from '../../src/mdt/index.ts';
import { openMdtWriteTarget } from '../../src/mdt/writer.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt, viewTimelineOf } from '../../src/table/index.ts';
import { modifyTableProperties } from '../../src/write/table-properties.ts';
import { catalog, HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';

const storage = new LocalStorage();
const OPTS = { clockSkewMs: 1 };

function mdtFixtures(): string[] {
  if (!HAVE_FIXTURES) return [];
  return catalog()
    .tables.filter((t) => t.table_type === 'MERGE_ON_READ' && (t as { metadata_table_exists?: boolean }).metadata_table_exists)
    .map((t) => t.id);
}

function trinoFresh(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
  cpSync(trinoV6Table(), dest, { recursive: true });
  return dest;
}

async function setMaxDeltaCommits(base: string, n: number): Promise<void> {
  await modifyTableProperties(storage, join(base, '.hoodie'), (p) => p.set('hoodie.metadata.compact.max.delta.commits', String(n)), new Date());
}

function sliceKeys(view: ReturnType<typeof assembleView>): string[] {
  return view.latestFileSlices().map((s) => JSON.stringify([s.partition, s.fileId, s.baseInstant, s.baseFile?.name ?? null, s.logFiles.map((l) => l.name)])).sort();
}

async function check(base: string): Promise<void> {
  const types = logicalTypes((await openTable(base)).config.createSchema);
  await setMaxDeltaCommits(base, 1);
  const s = await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
  if (!s.instant) return; // nothing to compact (no log files)
  const before = comparable(await snapshotRows(base), types);
  const listingBefore = await readMetadataTableFiles(storage, base);
  const r = await runCompaction(await openTable(base), OPTS);
  expect(r.status).toBe('completed');
  expect(r.warnings).toEqual([]);
  const c = r.metadataCompaction;
  expect(c, 'the run compacted the metadata table').toBeDefined();
  const table = await openTable(base);
  const mdt = await openTableAt(storage, join(base, '.hoodie', 'metadata'));
  const tl = await mdt.timeline();
  if (table.config.version < 8) expect(c!.instant).toBe(`${s.instant}001`);
  else expect(c!.instant > r.completionTime!).toBe(true);
  expect(tl.find(c!.instant).map((i) => [i.action, i.state])).toEqual([['commit', 'COMPLETED']]);
  expect(tl.pending()).toEqual([]);

  expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  const vt = await viewTimelineOf(table);
  const mdtFiles = await readMetadataTableFiles(storage, base);
  const listed: ListedPartition[] = mdtFiles.partitions.map((p) => ({
    partition: p,
    files: [...mdtFiles.files.get(p)!].map(([name, size]) => ({ path: join(base, p, name), name, isDirectory: false, size, mtimeMs: 0 })),
  }));
  expect(sliceKeys(assembleView(listed, vt))).toEqual(sliceKeys(assembleView(await listPartitions(storage, base), vt)));
  // the listing read from the new base files = the one read from the logs, plus the run's new files
  for (const p of listingBefore.partitions) {
    const added = r.writeStats.filter((w) => w.partitionPath === p).map((w) => w.path!.split('/').pop()!);
    expect([...mdtFiles.files.get(p)!.keys()].sort()).toEqual([...listingBefore.files.get(p)!.keys(), ...added].sort());
  }
  // the `files` slice is now a base file of the compaction (nothing after it yet)
  expect(mdtFiles.slices.map((x) => [x.baseFile?.instant, x.logFiles.length])).toEqual([[c!.instant, 0]]);

  // the readers over the MDT
  const partition = mdtFiles.partitions[0]!;
  const lf = await runJson<{ 'File Name': string }[]>(['metadata', 'list-files', '--path', base, ...(partition ? ['--partition', partition] : [])]);
  expect(lf.map((x) => String(Object.values(x)[0]).split('/').pop()).sort()).toEqual([...mdtFiles.files.get(partition)!.keys()].sort());
  expect((await runCli(['metadata', 'stats', '--path', base])).exitCode).toBe(0);
  const fsv = await runJson<Record<string, unknown>[]>(['show', 'fsview', 'latest', '--path', join(base, '.hoodie', 'metadata'), '--partitionPath', 'files']);
  expect(JSON.stringify(fsv)).toContain(`_${c!.instant}.hfile`);

  // the next MDT write goes where Hudi puts it: v6 into the new slice of every group that got a base file
  const w = await openMdtWriteTarget(await openTable(base), ['files']);
  const slice = w.partitions.get('files')!.slices[0]!;
  expect([slice.baseInstant, slice.baseFile?.instant]).toEqual([c!.instant, c!.instant]);

  expect(comparable(await snapshotRows(base), types)).toEqual(before);
  // validate-files reads the compacted MDT: a data file that goes missing is reported
  const gone = r.writeStats[0]!;
  const goneName = gone.path!.split('/').pop()!;
  rmSync(join(base, gone.path!));
  const diff = await runJson<Record<string, unknown>[]>(['metadata', 'validate-files', '--path', base]);
  expect(diff).toEqual([{ partition: gone.partitionPath, fileName: goneName, presentInFs: false, presentInMetadata: true, fsSize: 0, metadataSize: gone.fileSizeInBytes }]);
  for (const p of readdirSync(join(base, '.hoodie', 'metadata')).filter((d) => !d.startsWith('.'))) {
    expect(readdirSync(join(base, '.hoodie', 'metadata', p)).filter((f) => f.startsWith('.tblcli-tmp'))).toEqual([]);
  }
}

describe.skipIf(!HAVE_FIXTURES)('compaction run compacts the metadata table when due (hudi-rs MOR tables with an MDT)', () => {
  it.each(mdtFixtures().map((id) => [id]))('%s', async (id) => {
    await check(tableFresh(id));
  });

  it('not due with the default of 10 after one deltacommit', async () => {
    const base = tableFresh(mdtFixtures()[0]!);
    const s = await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
    expect(s.instant).toBeDefined();
    const r = await runCompaction(await openTable(base), OPTS);
    expect(r.status).toBe('completed');
    expect(r.metadataCompaction).toBeUndefined();
  });
});

describe.skipIf(!HAVE_TRINO_V6)('compaction run compacts the metadata table when due (Trino table version 6)', () => {
  it('hudi_multi_fg_pt_v6_mor', async () => {
    await check(trinoFresh());
  });
});
