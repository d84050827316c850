// The safety rule of clustering next to writers: a writer that committed to an input file group after
// the plan was made makes the clustering refuse (before its first write: table byte-identical) or abort
// at completion under the lock (attempt rolled back, plan kept, the writer's data still visible), and
// `collisions` reports a completed clustering that raced a writer but not a correct one.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { encodeCommitMetadataAvro, encodeCommitMetadataJson, newWriteStat } from '../../src/metadata/index.ts';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import { newInstantTime, timesOnTimeline } from '../../src/timeline/writer.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';

const OPTS = { clockSkewMs: 1 };
// layout 2 (v9) and layout 1 (v6) tables without a metadata table (the fake writer does not update one)
const TABLES = ['sample_table/cow/v9_txns_simple_nometa', 'sample_table/cow/v6_simplekeygen_nonhivestyle'];

/** A writer's completed commit updating file group `fileId` (a copy of its base file as the new version). */
async function fakeUpdate(base: string, partition: string, fileId: string): Promise<string> {
  const table = await openTable(base);
  const tl = await table.timeline();
  const view = await loadFileSystemView(table);
  const slice = view.latestFileSlices(partition).find((s) => s.fileId === fileId)!;
  const t = newInstantTime(timesOnTimeline(tl), table.config.timezone, new Date());
  const name = `${fileId}_0-99-1_${t}.parquet`;
  copyFileSync(slice.baseFile!.path, join(base, partition, name));
  const stat = newWriteStat({ fileId, path: partition ? `${partition}/${name}` : name, prevCommit: slice.baseInstant, partitionPath: partition, numWrites: 1, numUpdateWrites: 1 });
  const m = { partitionToWriteStats: { [partition]: [stat] }, compacted: false, extraMetadata: {}, operationType: 'UPSERT' };
  const dir = table.config.layoutVersion === 2 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
  writeFileSync(join(dir, `${t}.commit.requested`), '');
  writeFileSync(join(dir, `${t}.inflight`), '');
  const ct = newInstantTime([t], table.config.timezone, new Date(Date.now() + 5));
  if (table.config.layoutVersion === 2) writeFileSync(join(dir, `${t}_${ct}.commit`), encodeCommitMetadataAvro({ ...m, version: 1 }));
  else writeFileSync(join(dir, `${t}.commit`), encodeCommitMetadataJson(m, { delta: false }));
  return t;
}

async function firstInput(base: string, instant: string): Promise<{ partition: string; fileId: string }> {
  const rows = await runJson<{ partitionPath: string; fileId: string }[]>(['clustering', 'show', '--path', base, '--instant', instant]);
  return { partition: rows[0]!.partitionPath, fileId: rows[0]!.fileId };
}

describe.skipIf(!HAVE_FIXTURES)('clustering and racing writers', () => {
  it.each(TABLES)('%s: a write after the plan makes the run refuse before writing anything', async (id) => {
    const base = tableFresh(id);
    const s = await scheduleClustering(await openTable(base), OPTS);
    const g = await firstInput(base, s.instant!);
    const w = await fakeUpdate(base, g.partition, g.fileId);
    const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const e = await runClustering(await openTable(base), OPTS).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TblError);
    expect((e as TblError).kind).toBe('conflict');
    expect((e as TblError).message).toContain(w);
    expect((e as TblError).message).toContain(g.fileId);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  });

  it.each(TABLES)('%s: a write committed while the clustering runs aborts it at completion (rolled back, plan kept)', async (id) => {
    const base = tableFresh(id);
    const s = await scheduleClustering(await openTable(base), OPTS);
    const g = await firstInput(base, s.instant!);
    let w = '';
    const e = await runClustering(await openTable(base), {
      ...OPTS,
      onPoint: async (p) => {
        if (p === 'before-complete') w = await fakeUpdate(base, g.partition, g.fileId);
      },
    }).catch((x: unknown) => x);
    expect((e as TblError).kind, String(e)).toBe('conflict');
    expect((e as TblError).message).toContain(w);
    const table = await openTable(base);
    const tl = await table.timeline();
    const mine = tl.find(s.instant!);
    // rolled back with the plan kept: requested only, no file of the attempt left
    expect(mine.map((i) => i.state)).toEqual(['REQUESTED']);
    expect(tl.instants.some((i) => i.action === 'rollback' && i.state === 'COMPLETED')).toBe(true);
    const view = await loadFileSystemView(table);
    expect(view.latestFileSlices().some((x) => x.baseFile?.name.includes(s.instant!))).toBe(false);
    // the writer's version of the group is the live one
    expect(view.latestFileSlices(g.partition).find((x) => x.fileId === g.fileId)?.baseInstant).toBe(w);
  });

  it.each(TABLES)('%s: collisions is quiet after a correct clustering and reports one that raced a writer', async (id) => {
    const base = tableFresh(id);
    const s = await scheduleClustering(await openTable(base), OPTS);
    await runClustering(await openTable(base), OPTS);
    const quiet = await runJson<{ kind: string; instants: string[] }[]>(['collisions', '--path', base]);
    expect(quiet.filter((f) => f.instants.includes(s.instant!))).toEqual([]);
    // a writer that kept writing to an input group the clustering planned (and replaced)
    const g = (await runJson<{ partitionPath: string; fileId: string }[]>(['clustering', 'show', '--path', base, '--instant', s.instant!]))[0]!;
    const w = await fakeUpdateReplaced(base, g.partitionPath, g.fileId);
    const found = await runJson<{ kind: string; severity: string; fileId: string; instants: string[] }[]>(['collisions', '--path', base]);
    const raced = found.filter((f) => f.instants.includes(s.instant!) && f.instants.includes(w));
    expect(raced.map((f) => [f.kind, f.severity, f.fileId])).toEqual([['write-under-pending-plan', 'error', g.fileId]]);
  });
});

/** A writer's update of a file group that is replaced already (its base file copied under a new instant). */
async function fakeUpdateReplaced(base: string, partition: string, fileId: string): Promise<string> {
  const table = await openTable(base);
  const tl = await table.timeline();
  const { readdirSync } = await import('node:fs');
  const dir = join(base, partition);
  const old = readdirSync(dir).filter((n) => n.startsWith(`${fileId}_`) && n.endsWith('.parquet')).sort().at(-1)!;
  const prev = old.slice(old.lastIndexOf('_') + 1, -'.parquet'.length);
  const t = newInstantTime(timesOnTimeline(tl), table.config.timezone, new Date());
  const name = `${fileId}_0-99-1_${t}.parquet`;
  copyFileSync(join(dir, old), join(dir, name));
  const stat = newWriteStat({ fileId, path: partition ? `${partition}/${name}` : name, prevCommit: prev, partitionPath: partition, numWrites: 1, numUpdateWrites: 1 });
  const m = { partitionToWriteStats: { [partition]: [stat] }, compacted: false, extraMetadata: {}, operationType: 'UPSERT' };
  const tdir = table.config.layoutVersion === 2 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
  writeFileSync(join(tdir, `${t}.commit.requested`), '');
  writeFileSync(join(tdir, `${t}.inflight`), '');
  const ct = newInstantTime([t], table.config.timezone, new Date(Date.now() + 5));
  if (table.config.layoutVersion === 2) writeFileSync(join(tdir, `${t}_${ct}.commit`), encodeCommitMetadataAvro({ ...m, version: 1 }));
  else writeFileSync(join(tdir, `${t}.commit`), encodeCommitMetadataJson(m, { delta: false }));
  return t;
}
