// `trigger archival` edge cases: the v1 archive continues after an existing version and rolls over at the
// size threshold; the LSM timeline compacts ten L0 files into L1 and cleans old manifests over many runs;
// a corrupt instant file fails the run before anything is written; --enableMetadata false as each Hudi
// release handles it.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { loadArchivedTimeline } from '../../src/archive/index.ts';
import { triggerArchival } from '../../src/services/index.ts';
import { writeLsmBatch } from '../../src/services/archival/lsm.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { treeDigest } from '../support/files.ts';
import { watchDeletes } from '../support/watch-deletes.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { parseArchiveLog } from './support/archive-check.ts';
import { writeArchivalTable } from './support/archival-table.ts';
import { oracleArchive, readTimelineDir } from './support/archival-oracle.ts';

const storage = new LocalStorage();
const fresh = () => mkdtempSync(join(tmpdir(), 'tblcli-arch-edge-'));

describe('v1 archive files', () => {
  it('a run writes the version after the newest one and rolls over past the size threshold', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 80, tableType: 'COPY_ON_WRITE', version: 6, cleanEvery: 10 });
    const dir = join(base, '.hoodie', 'archived');
    mkdirSync(dir);
    // an archive file another writer left (an empty, valid log file of version 3)
    writeFileSync(join(dir, '.commits_.archive.3_1-0-1'), new Uint8Array(0));
    const r = await triggerArchival(await openTable(base), { minCommits: 2, maxCommits: 3, commitsRetained: 1, clockSkewMs: 1, archiveFileMaxBytes: 20_000 });
    const names = r.archiveFiles.map((p) => p.split('/').pop());
    expect(names.length).toBeGreaterThan(2);
    expect(names).toEqual(names.map((_, i) => `.commits_.archive.${4 + i}_1-0-1`));
    // every file but the last reached the threshold before the next block went to a new file
    for (const p of r.archiveFiles.slice(0, -1)) expect(statSync(p).size).toBeGreaterThanOrEqual(20_000);
    const records = r.archiveFiles.flatMap((p) => parseArchiveLog(readFileSync(p)).flatMap((b) => b.records));
    const ours = await loadArchivedTimeline(storage, base, { layout: 1 });
    expect(ours).toHaveLength(records.length);
    expect(new Set(ours.map((a) => `${a.requestedTime}|${a.action}|${a.state}`)).size).toBe(records.length);
    expect(records.length).toBe(3 * r.decision.toArchive.length);
  });
});

describe('v1 archive in parts', () => {
  it('archiveChunkInstants: one file per part, oldest instants first, every record once; a bad value is refused before anything is written', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 80, tableType: 'COPY_ON_WRITE', version: 6, cleanEvery: 10 });
    const before = treeDigest(base);
    await expect(triggerArchival(await openTable(base), { minCommits: 2, maxCommits: 3, commitsRetained: 1, clockSkewMs: 1, archiveChunkInstants: 0 })).rejects.toMatchObject({ kind: 'usage' });
    expect(treeDigest(base)).toEqual(before);
    // the parts the oracle expects: 7 instants each, as long as a run on the timeline without the parts
    // archived so far would archive the rest of the batch (what a crash there leaves to the next run);
    // from the first part where it would not (cleans are kept by their own count), the rest is one part
    const rules = { version: 6, mor: false, min: 2, max: 3, retained: 1 };
    const all = readTimelineDir(join(base, '.hoodie'), 1);
    const key = (i: { t: string; action: string }) => `${i.t}|${i.action}`;
    const batch = all.filter((i) => oracleArchive(all, rules).has(key(i))).map(key);
    const expected: string[][] = [];
    for (let at = 0; at < batch.length; ) {
      const gone = new Set(batch.slice(0, at + 7));
      const next = oracleArchive(all.filter((i) => !gone.has(key(i))), rules);
      const goesAhead = at + 7 < batch.length && batch.slice(at + 7).every((k) => next.has(k)) && next.size === batch.length - at - 7;
      const end = goesAhead ? at + 7 : batch.length;
      expected.push(batch.slice(at, end).map((k) => k.split('|')[0]!));
      at = end;
    }
    expect(expected.length).toBeGreaterThan(3);
    expect(expected[expected.length - 1]!.length).toBeGreaterThan(7); // this table has a tail that must go in one part
    const r = await triggerArchival(await openTable(base), { minCommits: 2, maxCommits: 3, commitsRetained: 1, clockSkewMs: 1, archiveChunkInstants: 7 });
    const perFile = r.archiveFiles.map((p) => [...new Set(parseArchiveLog(readFileSync(p)).flatMap((b) => b.records.map((x) => String((x as { commitTime: string }).commitTime))))]);
    expect(perFile).toEqual(expected);
    const times = perFile.flat();
    expect(new Set(times)).toEqual(new Set(r.decision.toArchive.map((i) => i.requestedTime)));
    expect(await loadArchivedTimeline(storage, base, { layout: 1 })).toHaveLength(3 * times.length);
  });
});

describe('LSM timeline over many runs', () => {
  it('ten L0 files compact into L1, old manifests are cleaned, every instant stays readable once', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 160, tableType: 'MERGE_ON_READ', version: 9, cleanEvery: 10, rollbackEvery: 13, compactEvery: 200 });
    const archivedTimes: string[] = [];
    for (let i = 0; i < 25; i++) {
      const min = 150 - 5 * i;
      const r = await triggerArchival(await openTable(base), { minCommits: min, maxCommits: min + 1, commitsRetained: 1, clockSkewMs: 1 });
      archivedTimes.push(...r.decision.toArchive.map((x) => x.requestedTime));
      if (i === 9 || i === 19) expect(r.compactedFiles.map((p) => p.endsWith('_1.parquet'))).toEqual([true]);
    }
    const dir = join(base, '.hoodie', 'timeline', 'history');
    const version = readFileSync(join(dir, '_version_'), 'utf8');
    const manifest = JSON.parse(readFileSync(join(dir, `manifest_${version}`), 'utf8')) as { files: { fileName: string; fileLen: number }[] };
    const layers = manifest.files.map((f) => Number(/_(\d)\.parquet$/.exec(f.fileName)![1]));
    expect(layers.filter((l) => l === 1)).toHaveLength(2);
    expect(layers.filter((l) => l === 0)).toHaveLength(5);
    // newest 3 + compacted layers manifests kept; only files some kept manifest lists remain
    const manifests = readdirSync(dir).filter((f) => f.startsWith('manifest_'));
    expect(manifests.length).toBeLessThanOrEqual(4);
    const kept = new Set(manifests.flatMap((m) => (JSON.parse(readFileSync(join(dir, m), 'utf8')) as { files: { fileName: string }[] }).files.map((f) => f.fileName)));
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.parquet'))) expect(kept.has(f), f).toBe(true);
    const ours = (await loadArchivedTimeline(storage, base, { layout: 2, withMetadata: false })).map((a) => a.requestedTime);
    expect(ours.sort()).toEqual([...archivedTimes].sort());
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const rows: string[] = [];
    for (const f of manifest.files) {
      const r = await db.runAndReadAll(`SELECT instantTime FROM read_parquet('${join(dir, f.fileName)}')`);
      rows.push(...r.getRows().map((x) => String(x[0])));
    }
    db.closeSync();
    expect(rows.sort()).toEqual([...archivedTimes].sort());
  }, 120_000);
});

describe('LSM batch write (LSMTimelineWriter.write)', () => {
  const row = (t: string) => ({ instantTime: t, completionTime: `${t.slice(0, 14)}999`, action: 'commit', metadata: new Uint8Array([1, 2, 3]), plan: null, version: 1 });
  it('a batch whose file the latest manifest already lists is not written again; an unlisted leftover is replaced', async () => {
    const dir = join(fresh(), 'history');
    const rows = [row('20250101000000000'), row('20250101000100000')];
    const first = await writeLsmBatch(storage, dir, rows);
    expect(first).toEqual({ fileName: '20250101000000000_20250101000100000_0.parquet', bytes: readFileSync(join(dir, '20250101000000000_20250101000100000_0.parquet')).length, alreadyCommitted: false });
    const again = await writeLsmBatch(storage, dir, rows);
    expect(again.alreadyCommitted).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['20250101000000000_20250101000100000_0.parquet', '_version_', 'manifest_1']);
    // a leftover of a killed run (written, never listed): deleted and rewritten, then listed
    const other = [row('20250101000200000'), row('20250101000300000')];
    writeFileSync(join(dir, '20250101000200000_20250101000300000_0.parquet'), 'partial');
    expect((await writeLsmBatch(storage, dir, other)).alreadyCommitted).toBe(false);
    expect(readFileSync(join(dir, '_version_'), 'utf8')).toBe('2');
    expect(JSON.parse(readFileSync(join(dir, 'manifest_2'), 'utf8')).files.map((f: { fileName: string }) => f.fileName)).toEqual([first.fileName, '20250101000200000_20250101000300000_0.parquet']);
    expect((await loadArchivedTimeline(storage, '/unused', { layout: 2, archiveDir: dir, withMetadata: false })).map((a) => a.requestedTime)).toEqual(['20250101000000000', '20250101000100000', '20250101000200000', '20250101000300000']);
  });
});

describe('deleting the archived instants from the active timeline (deleteArchivedInstants)', () => {
  for (const version of [6, 8] as const) {
    it(`table version ${version}: each instant's pending state files before its completed file, the completed files one by one, oldest first`, async () => {
      const base = fresh();
      await writeArchivalTable(base, { commits: 80, tableType: 'MERGE_ON_READ', version, cleanEvery: 7, rollbackEvery: 11, compactEvery: 9 });
      const tlDir = version >= 8 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
      const instantNames = readdirSync(tlDir).filter((n) => /^\d/.test(n));
      const watching = watchDeletes(tlDir, instantNames);
      const r = await triggerArchival(await openTable(base), { minCommits: 10, maxCommits: 12, commitsRetained: 5, clockSkewMs: 1 });
      const order = await watching.stop();
      expect(r.decision.toArchive.length).toBeGreaterThan(40);
      const isPending = (n: string) => /\.(requested|inflight)$/.test(n) || /^\d+\.inflight$/.test(n);
      const at = new Map(order.map((n, i) => [n, i]));
      const completed = order.filter((n) => !isPending(n));
      expect(completed.map((n) => n.slice(0, 17))).toEqual(r.decision.toArchive.map((i) => i.requestedTime));
      expect([...completed].sort()).toEqual(completed);
      for (const c of completed) {
        const pending = instantNames.filter((n) => isPending(n) && n.slice(0, 17) === c.slice(0, 17));
        expect(pending.length, c).toBeGreaterThan(0);
        for (const p of pending) expect(at.get(p), `${p} must go before ${c}`).toBeLessThan(at.get(c)!);
      }
      // every state file of every archived instant went, nothing else on the timeline did
      expect(order.length).toBe(r.deletedFiles);
      expect(readdirSync(tlDir).filter((n) => /^\d/.test(n)).sort()).toEqual(instantNames.filter((n) => !at.has(n)).sort());
    });
  }
});

describe('failures leave the table as it was', () => {
  it('a corrupt completed commit among the instants to archive: one-line error naming it, nothing written', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 40, tableType: 'COPY_ON_WRITE', version: 6 });
    const victim = readdirSync(join(base, '.hoodie')).filter((f) => /^\d+\.commit$/.test(f)).sort()[3]!;
    writeFileSync(join(base, '.hoodie', victim), '{"partitionToWriteStats": {');
    const before = treeDigest(base, /^\.hoodie\/\.aux(\/|$)/);
    const r = await runCli(['trigger', 'archival', '--path', base, '--minCommits', '2', '--maxCommits', '3', '--commitsRetainedByCleaner', '1']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(victim);
    expect(treeDigest(base, /^\.hoodie\/\.aux(\/|$)/)).toEqual(before);
  });
});

describe('failures leave the table as it was (metadata table)', () => {
  it('a corrupt MDT deltacommit among the metadata table\'s instants to archive: one-line error naming it, neither timeline touched', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 80, tableType: 'COPY_ON_WRITE', version: 6, mdtCompactionAfter: 70 });
    const mdtMeta = join(base, '.hoodie', 'metadata', '.hoodie');
    const victim = readdirSync(mdtMeta).filter((f) => /^\d+\.deltacommit$/.test(f)).sort()[2]!;
    writeFileSync(join(mdtMeta, victim), '{"partitionToWriteStats": {');
    const dry = await runJson<{ table: string; instant: string; archive: boolean }[]>(['trigger', 'archival', '--path', base, '--dry-run']);
    expect(dry.some((r) => r.table === 'data' && r.archive)).toBe(true);
    expect(dry.find((r) => r.table === 'metadata' && r.instant === victim.split('.')[0])!.archive).toBe(true);
    const before = treeDigest(base, /^\.hoodie\/\.aux(\/|$)/);
    const r = await runCli(['trigger', 'archival', '--path', base]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(victim);
    expect(treeDigest(base, /^\.hoodie\/\.aux(\/|$)/)).toEqual(before);
  });
});

describe('--enableMetadata false', () => {
  it('table version 6 with a metadata table: refused, as Hudi 0.14 fails', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 40, tableType: 'COPY_ON_WRITE', version: 6, mdtCompactionAfter: 10 });
    const before = treeDigest(base, /^\.hoodie\/\.aux(\/|$)/);
    const r = await runCli(['trigger', 'archival', '--path', base, '--enableMetadata', 'false']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Hudi 0\.14's archiver fails/);
    expect(treeDigest(base, /^\.hoodie\/\.aux(\/|$)/)).toEqual(before);
    // with the bound: only instants before the metadata table's compaction go (which the metadata
    // table's own archival may then archive: 30 delta commits after it, more than its trigger of 10)
    const mdtCompaction = readdirSync(join(base, '.hoodie/metadata/.hoodie')).find((f) => f.endsWith('.commit'))!.split('.')[0]!;
    const ok = await runJson<{ instants: { instant: string }[] }>(['trigger', 'archival', '--path', base, '--minCommits', '2', '--maxCommits', '3', '--commitsRetainedByCleaner', '1']);
    expect(ok.instants.length).toBeGreaterThan(5);
    expect(ok.instants.every((x) => x.instant < mdtCompaction)).toBe(true);
  });

  it('table version 8: the bound is skipped as Hudi 1.x does, with a warning', async () => {
    const base = fresh();
    await writeArchivalTable(base, { commits: 40, tableType: 'COPY_ON_WRITE', version: 8, mdtCompactionAfter: 10 });
    const bounded = await runJson<{ archive: boolean }[]>(['trigger', 'archival', '--path', base, '--dry-run', '--minCommits', '2', '--maxCommits', '3', '--commitsRetainedByCleaner', '1']);
    const r = await runCli(['trigger', 'archival', '--path', base, '--enableMetadata', 'false', '--minCommits', '2', '--maxCommits', '3', '--commitsRetainedByCleaner', '1', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: --enableMetadata false/);
    expect((JSON.parse(r.stdout) as { archived: number }).archived).toBeGreaterThan(bounded.filter((x) => x.archive).length);
  });
});
