// Acceptance of issue 16 on tables the test generates with many commits per file group (COW and MOR,
// table versions 6 and 8): for each policy the deleted files are exactly what the independent oracle
// predicts, the snapshot as of every retained instant is unchanged; savepoints, pending compactions
// and clustering behave as Hudi's CleanPlanner says; incremental cleaning scans what it must.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeSavepointMetadata } from '../../src/metadata/index.ts';
import { cleanTable, resolveCleanConfig } from '../../src/services/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import { checkClean, dataFiles } from './support/clean-check.ts';
import { GenTable } from './support/gen-table.ts';
import { snapshotAsOf } from './support/asof.ts';

type Kind = { type: 'COPY_ON_WRITE' | 'MERGE_ON_READ'; version: 6 | 8 };
const KINDS: Kind[] = [
  { type: 'COPY_ON_WRITE', version: 6 },
  { type: 'COPY_ON_WRITE', version: 8 },
  { type: 'MERGE_ON_READ', version: 6 },
  { type: 'MERGE_ON_READ', version: 8 },
];
const name = (k: Kind) => `${k.type === 'COPY_ON_WRITE' ? 'COW' : 'MOR'} v${k.version}`;

function tmp(): string {
  return join(mkdtempSync(join(tmpdir(), 'tblcli-clean-gen-')), 'table');
}

function copy(base: string): string {
  const dest = tmp();
  cpSync(base, dest, { recursive: true });
  return dest;
}

/** insert, then `updates` upserts of everything; MOR compacts after every third. */
async function build(k: Kind, updates = 8): Promise<GenTable> {
  const g = await GenTable.create(tmp(), k);
  await g.insert(2, 3);
  for (let i = 1; i <= updates; i++) {
    await g.update();
    if (k.type === 'MERGE_ON_READ' && i % 3 === 0) await g.compact();
  }
  return g;
}

describe.each(KINDS.map((k) => [name(k), k] as const))('clean of a generated table: %s', (_n, kind) => {
  it('each policy deletes exactly what Hudi would, and keeps every retained snapshot', async () => {
    const g = await build(kind);
    const configs = [
      { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 3 },
      { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 },
      { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 2 },
      { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 1 },
      // the cutoff falls in the middle of the timeline (instants are an hour apart)
      { policy: 'KEEP_LATEST_BY_HOURS' as const, hoursRetained: 4, now: g.dateAfter(1) },
    ];
    for (const cfg of configs) {
      const base = copy(g.base);
      const { prediction } = await checkClean(base, cfg);
      expect(prediction.files.size, JSON.stringify(cfg)).toBeGreaterThan(0);
    }
  });

  it('incremental cleaning: later cleans scan only what changed; a removed savepoint brings its files back into scope', async () => {
    const g = await build(kind, 5);
    const sp = g.commits[2]!;
    await g.savepoint(sp);
    const cfg = { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 };
    const first = await checkClean(g.base, cfg, { alsoAsOf: [sp] });
    expect(first.result.schedule?.planned?.reason).toMatch(/no earlier clean/);
    // more versions in one partition
    for (let i = 0; i < 3; i++) {
      await g.update((x) => x.partition === 'part=a');
      if (kind.type === 'MERGE_ON_READ') await g.compact();
    }
    const second = await checkClean(g.base, cfg, { alsoAsOf: [sp] });
    if (!first.prediction.nothing) expect(second.result.schedule?.planned?.reason).toMatch(/^incremental/);
    expect(second.prediction.files.size).toBeGreaterThan(0);
    // nothing left to do: no clean instant
    const third = await checkClean(g.base, cfg);
    expect(third.prediction.nothing).toBe(true);
    // the savepoint goes: the files it protected are cleaned (1.x: full scan; 0.14: its commit's partitions)
    const t = await openTable(g.base);
    const spi = (await t.timeline()).find(sp).find((i) => i.action === 'savepoint')!;
    for (const f of Object.values(spi.files)) rmSync(f!.path);
    await g.update((x) => x.partition === 'part=a');
    if (kind.type === 'MERGE_ON_READ') await g.compact();
    const fourth = await checkClean(g.base, cfg);
    expect([...fourth.prediction.files].some((f) => f.startsWith('part=b/'))).toBe(true);
  });

  it('a savepoint in the middle keeps its files and its snapshot', async () => {
    const g = await build(kind);
    const sp = g.commits[3]!;
    await g.savepoint(sp);
    const t = await openTable(g.base);
    const tl = await t.timeline();
    const spi = tl.find(sp).find((i) => i.action === 'savepoint')!;
    const saved = Object.entries(decodeSavepointMetadata(await tl.read(spi), { path: 'sp' }).partitionMetadata).flatMap(([p, m]) => m.savepointDataFile.map((f) => `${p}/${f}`));
    expect(saved.length).toBeGreaterThan(0);
    for (const cfg of [
      { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 },
      { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 1 },
      { policy: 'KEEP_LATEST_BY_HOURS' as const, hoursRetained: 1, now: g.dateAfter(1) },
    ]) {
      const base = copy(g.base);
      const { deleted, prediction } = await checkClean(base, cfg, { alsoAsOf: [sp] });
      expect(prediction.files.size).toBeGreaterThan(0);
      for (const f of saved) {
        expect(deleted.has(f), f).toBe(false);
        expect(existsSync(join(base, f)), f).toBe(true);
      }
    }
  });

  it('a clustering\'s replaced file groups go once out of retention, and not before', async () => {
    const g = await build(kind, 3);
    const ids = g.live().filter((x) => x.partition === 'part=b').map((x) => x.fileId);
    const c = await g.cluster('part=b', ids);
    await g.update();
    const replacedFiles = () => [...dataFiles(g.base)].filter((f) => ids.some((id) => f.includes(id)));
    const before = replacedFiles();
    expect(before.length).toBeGreaterThan(0);
    // retention 2: the earliest commit to retain is the clustering itself → its replaced groups stay
    const first = await checkClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    expect(first.prediction.ectr).toBe(c);
    expect(replacedFiles()).toEqual(before);
    await g.update();
    await g.update();
    const second = await checkClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    expect(second.prediction.ectr! > c).toBe(true);
    expect(replacedFiles()).toEqual([]);
  });

  it("a pending clustering's input groups keep their latest slices and hold the retention window back (not a failed write)", async () => {
    const g = await build(kind, 3);
    const ids = g.live().filter((x) => x.partition === 'part=b').map((x) => x.fileId);
    const latest = async (base: string) => {
      const view = await loadFileSystemView(await openTable(base));
      return view.latestFileSlices().filter((s) => s.partition === 'part=b').flatMap((s) => [s.baseFile?.path, ...s.logFiles.map((l) => l.path)].filter((x): x is string => !!x).map((x) => x.slice(base.length + 1)));
    };
    const before = g.commits[g.commits.length - 1]!;
    const c = await g.cluster('part=b', ids, { pending: true });
    // writers reject updates to file groups in pending clustering: only part=a moves on
    for (let i = 0; i < 3; i++) await g.update((x) => x.partition === 'part=a');
    const inputs = await latest(g.base);
    expect(inputs.length).toBeGreaterThan(0);
    for (const cfg of [
      { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 },
      { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 1 },
      { policy: 'KEEP_LATEST_BY_HOURS' as const, hoursRetained: 1, now: g.dateAfter(1) },
    ]) {
      const base = copy(g.base);
      const { deleted, prediction } = await checkClean(base, cfg);
      // the pending clustering caps the earliest commit to retain for KEEP_LATEST_COMMITS only
      if (cfg.policy === 'KEEP_LATEST_COMMITS') expect(prediction.ectr! <= before, `${prediction.ectr} <= ${before}`).toBe(true);
      if (cfg.policy === 'KEEP_LATEST_BY_HOURS') expect(prediction.ectr! > c).toBe(true);
      for (const f of inputs) expect(deleted.has(f), f).toBe(false);
      expect(await latest(base)).toEqual(inputs);
    }
    // LAZY failed writes: a pending clustering is not a failed write, whatever its heartbeat
    const base = copy(g.base);
    const t = await openTable(base);
    const config = resolveCleanConfig([t.config.props], { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 }, t.config.version);
    config.failedWritesPolicy = 'LAZY';
    const r = await cleanTable(t, { config, clockSkewMs: 1 });
    expect(r.rolledBack).toEqual([]);
    const pending = (await (await openTable(base)).timeline()).find(c);
    expect(pending.map((i) => i.state)).toEqual(['REQUESTED']);
  });

  it('delete_partition: the partition goes once its replaced file groups are out of retention', async () => {
    const g = await build(kind, 2);
    await g.deletePartition('part=b');
    await g.update();
    await g.update();
    const { prediction } = await checkClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    expect([...prediction.partitionsDeleted]).toEqual(['part=b']);
    expect(existsSync(join(g.base, 'part=b'))).toBe(false);
    expect(existsSync(join(g.base, 'part=a'))).toBe(true);
  });
});

describe.each(KINDS.filter((k) => k.type === 'MERGE_ON_READ').map((k) => [name(k), k] as const))('pending compaction: %s', (_n, kind) => {
  it("a pending compaction's base files are kept", async () => {
    const g = await build(kind, 4);
    await g.update();
    const c = await g.compact({ pending: true });
    expect(c).toBeDefined();
    const t = await openTable(g.base);
    const view = await (await import('../../src/table/index.ts')).loadFileSystemView(t);
    // the slices the compaction plan reads: base files and logs before the pending compaction slice
    const inputs = view.allFileGroups().flatMap((fg) => {
      const s = fg.slices[fg.slices.length - 2];
      return s ? [s.baseFile?.path, ...s.logFiles.map((l) => l.path)].filter((x): x is string => !!x) : [];
    });
    expect(inputs.length).toBeGreaterThan(0);
    for (const cfg of [
      { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 1 },
      { policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 },
    ]) {
      const base = copy(g.base);
      const { deleted } = await checkClean(base, cfg);
      for (const p of inputs) {
        const rel = p.slice(g.base.length + 1);
        expect(deleted.has(rel), rel).toBe(false);
        expect(existsSync(join(base, rel))).toBe(true);
      }
      // the latest snapshot still merges the compaction's input slice with the new logs
      expect(await snapshotAsOf(base)).toEqual(await snapshotAsOf(g.base));
    }
  });
});
