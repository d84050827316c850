// `clustering schedule` options as a user passes them, on generated tables of many small files:
// partition selection (--partitions, --partition-regex, --recent-days and the filter-mode keys),
// the size flags (--small-file-limit, --max-bytes-per-group, --max-num-groups,
// --target-file-max-bytes, with units), --sort-columns / --layout written into the plan and honoured
// at run time, savepointed file groups left out (unless --include-savepointed), the plan's file as
// Hudi names it per table version (`<t>.replacecommit.requested` v6, `<t>.clustering.requested` v8/9)
// and readable by `timeline show` and `clustering show`, and the run's --json / --verbose output
// (plain lines in a pipe, a bar and a person's summary on a terminal).
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectPartitions } from '../../src/services/clustering/plan.ts';
import { clusteringConfig } from '../../src/services/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { generateSmallFilesTable } from '../support/small-files.ts';
import { duckRows } from './support/clustering-check.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';

const DAYS = ['2025/01/01', '2025/01/02', '2025/01/03', '2025/01/04'];

function fresh(o: Partial<Parameters<typeof generateSmallFilesTable>[1]> = {}): string {
  const base = join(mkdtempSync(join(tmpdir(), 'tblcli-plan-')), 'events');
  generateSmallFilesTable(base, { version: 9, type: 'COPY_ON_WRITE', partitions: DAYS, filesPerPartition: 3, rowsPerFile: 200, ...o });
  return base;
}

interface DryPlan {
  scheduled: boolean;
  instant: string | null;
  reason: string | null;
  skipped: { partition: string; fileId: string; reason: string }[];
  plan: { inputGroups: { numOutputFileGroups: number; slices: { partitionPath: string; fileId: string }[] }[]; strategy: { strategyParams: Record<string, string> } } | null;
}

async function dry(base: string, ...args: string[]): Promise<DryPlan> {
  return runJson<DryPlan>(['clustering', 'schedule', '--path', base, '--dry-run', ...args]);
}

const partitionsOf = (d: DryPlan) => [...new Set((d.plan?.inputGroups ?? []).flatMap((g) => g.slices.map((s) => s.partitionPath)))].sort();

describe('partition selection', () => {
  it('--partitions, --partition-regex (full match), --recent-days; the filter-mode keys through --hoodieConfigs', async () => {
    const base = fresh();
    expect(partitionsOf(await dry(base))).toEqual(DAYS);
    expect(partitionsOf(await dry(base, '--partitions', '2025/01/04,2025/01/02'))).toEqual(['2025/01/02', '2025/01/04']);
    expect(partitionsOf(await dry(base, '--partition-regex', '2025/01/0[13]'))).toEqual(['2025/01/01', '2025/01/03']);
    // a full match: '2025/01' alone matches no partition
    const none = await dry(base, '--partition-regex', '2025/01');
    expect(none).toMatchObject({ scheduled: false, plan: null, reason: 'no partition selected' });
    expect(partitionsOf(await dry(base, '--recent-days', '2'))).toEqual(['2025/01/03', '2025/01/04']);
    // RECENT_DAYS skipping the newest, SELECTED_PARTITIONS by range
    expect(partitionsOf(await dry(base, '--recent-days', '1', '--hoodieConfigs', 'hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions=1'))).toEqual(['2025/01/03']);
    const range = ['hoodie.clustering.plan.partition.filter.mode=SELECTED_PARTITIONS', 'hoodie.clustering.plan.strategy.cluster.begin.partition=2025/01/02', 'hoodie.clustering.plan.strategy.cluster.end.partition=2025/01/03'];
    expect(partitionsOf(await dry(base, '--hoodieConfigs', range.join(',')))).toEqual(['2025/01/02', '2025/01/03']);
    // the regex runs before the filter mode
    expect(partitionsOf(await dry(base, '--partition-regex', '2025/01/0[12]', '--recent-days', '1'))).toEqual(['2025/01/02']);
    const bad = await runCli(['clustering', 'schedule', '--path', base, '--partition-regex', '(']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('partition regex "("');
  });

  it('DAY_ROLLING keeps the partitions whose index is the current hour modulo 24', () => {
    const all = Array.from({ length: 50 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    const c = clusteringConfig(new Map([['hoodie.clustering.plan.partition.filter.mode', 'DAY_ROLLING']]));
    const at = new Date(2025, 0, 1, 5);
    expect(selectPartitions(all, c, at)).toEqual(['d05', 'd29']);
  });
});

describe('size flags', () => {
  it('--small-file-limit leaves big files out; --max-bytes-per-group, --max-num-groups and --target-file-max-bytes shape the groups', async () => {
    const base = fresh({ partitions: ['a'], filesPerPartition: 6, rowsPerFile: 300 });
    const view = await loadFileSystemView(await openTable(base));
    const sizes = view.latestFileSlices().map((s) => s.baseFile!.size);
    const max = Math.max(...sizes);
    const min = Math.min(...sizes);
    expect((await dry(base, '--small-file-limit', String(min))).reason).toContain('small-file limit');
    expect((await dry(base, '--small-file-limit', '1KB')).reason).toContain('small-file limit');
    const all = await dry(base, '--small-file-limit', String(max + 1));
    expect(all.plan!.inputGroups.flatMap((g) => g.slices)).toHaveLength(6);
    // two slices per group, at most two groups, each group's output in files of about one input file
    const shaped = await dry(base, '--max-bytes-per-group', String(2 * max), '--max-num-groups', '2', '--target-file-max-bytes', String(max));
    expect(shaped.plan!.inputGroups.map((g) => g.slices.length)).toEqual([2, 2]);
    expect(shaped.plan!.inputGroups.map((g) => g.numOutputFileGroups)).toEqual([2, 2]);
    expect((await dry(base, '--max-bytes-per-group', '1GB')).plan!.inputGroups).toHaveLength(1);
    for (const bad of [['--max-num-groups', '0'], ['--small-file-limit', '12XB'], ['--target-file-max-bytes', '-5']]) {
      const r = await runCli(['clustering', 'schedule', '--path', base, ...bad]);
      expect(r.exitCode, `${bad.join(' ')}: ${r.stderr}`).toBe(2);
    }
  });
});

describe('savepointed file groups', () => {
  it('are left out with the savepoint named; --include-savepointed plans them as Hudi does', async () => {
    const base = fresh({ partitions: ['2025/01/01', '2025/01/02'], filesPerPartition: 3 });
    const tl = await (await openTable(base)).timeline();
    // the third commit wrote the last file of the first partition
    const third = tl.completed()[2]!.requestedTime;
    const sp = await runCli(['savepoint', 'create', '--path', base, '--commit', third]);
    expect(sp.exitCode, sp.stderr).toBe(0);
    const d = await dry(base);
    expect(partitionsOf(d)).toEqual(['2025/01/02']);
    expect(d.skipped.map((x) => [x.partition, x.reason])).toEqual([
      ['2025/01/01', `savepoint ${third}`],
      ['2025/01/01', `savepoint ${third}`],
      ['2025/01/01', `savepoint ${third}`],
    ]);
    expect(partitionsOf(await dry(base, '--include-savepointed'))).toEqual(['2025/01/01', '2025/01/02']);
  });
});

describe('the plan as Hudi names it, readable by timeline show and clustering show', () => {
  it.each([6, 9] as const)('v%s', async (version) => {
    const base = fresh({ version, type: 'MERGE_ON_READ', partitions: ['p1', 'p2'], filesPerPartition: 2, logUpdates: 10 });
    // the wall clock (not the harness's fixed one): on layout 1 a write completed after the plan is told by its file's mtime
    const s = await runJson<{ scheduled: boolean; instant: string; inputGroups: number; fileGroups: number }>(['clustering', 'schedule', '--path', base, '--sort-columns', 'city,qty', '--layout', 'z-order'], { now: new Date() });
    expect(s).toMatchObject({ scheduled: true, inputGroups: 2, fileGroups: 4 });
    const T = s.instant;
    const dir = version === 6 ? join(base, '.hoodie') : join(base, '.hoodie', 'timeline');
    const action = version === 6 ? 'replacecommit' : 'clustering';
    expect(readdirSync(dir).filter((n) => n.startsWith(T))).toEqual([`${T}.${action}.requested`]);
    const pending = await runJson<{ instant: string; action: string; state: string }[]>(['timeline', 'show', 'incomplete', '--path', base]);
    expect(pending.map((x) => JSON.stringify(x)).join('\n')).toContain(T);
    const all = await runJson<{ clusteringInstantTime: string; state: string; inputGroups: number; totalFileIdsToBeClustered: number; strategyParams: string }[]>(['clustering', 'show', 'all', '--path', base]);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ clusteringInstantTime: T, state: 'REQUESTED', inputGroups: 2, totalFileIdsToBeClustered: 4 });
    expect(all[0]!.strategyParams).toContain('hoodie.layout.optimize.strategy=ZORDER');
    const slices = await runJson<{ partitionPath: string; fileId: string; totalDeltaFiles: number }[]>(['clustering', 'show', '--path', base, '--instant', T, '--partition', 'p2']);
    expect(slices).toHaveLength(2);
    expect(slices.every((x) => x.partitionPath === 'p2' && x.totalDeltaFiles === 1)).toBe(true);
    const missing = await runCli(['clustering', 'show', '--path', base, '--instant', '20000101000000000']);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain('20000101000000000');

    const before = comparable(await snapshotRows(base), logicalTypes((await openTable(base)).config.createSchema));
    const r = await runJson<{ status: string; instant: string; replacedFileGroups: number; files: number; records: number; partitionToReplaceFileIds: Record<string, string[]> }>(['clustering', 'run', '--path', base]);
    expect(r).toMatchObject({ status: 'completed', instant: T, replacedFileGroups: 4, files: 2, records: before.length });
    expect(Object.keys(r.partitionToReplaceFileIds).sort()).toEqual(['p1', 'p2']);
    const done = readdirSync(dir).filter((n) => n.startsWith(T)).sort();
    expect(done).toEqual(version === 6 ? [`${T}.replacecommit`, `${T}.replacecommit.inflight`, `${T}.replacecommit.requested`] : [`${T}.clustering.inflight`, `${T}.clustering.requested`, expect.stringMatching(new RegExp(`^${T}_\\d{17}\\.replacecommit$`))]);
    const active = await runJson<{ instant?: string; action: string; state: string }[]>(['timeline', 'show', 'active', '--path', base]);
    expect(active.map((x) => JSON.stringify(x)).filter((x) => x.includes(T) && x.includes('COMPLETED'))).toHaveLength(1);
    expect(comparable(await snapshotRows(base), logicalTypes((await openTable(base)).config.createSchema))).toEqual(before);
    expect((await runJson<{ state: string }[]>(['clustering', 'show', 'all', '--path', base]))[0]!.state).toBe('COMPLETED');
  });
});

describe('--layout and --sort-columns reach the files', () => {
  it('run --layout overrides the plan; one sort column in any layout is the linear order (DuckDB)', async () => {
    const base = fresh({ partitions: ['p'], filesPerPartition: 4 });
    await runJson(['clustering', 'schedule', '--path', base, '--sort-columns', 'ts', '--layout', 'hilbert']);
    const r = await runJson<{ status: string; instant: string }>(['clustering', 'run', '--path', base, '--layout', 'z-order']);
    expect(r.status).toBe('completed');
    const view = await loadFileSystemView(await openTable(base));
    const files = view.latestFileSlices().map((s) => s.baseFile!.path);
    expect(files).toHaveLength(1);
    const ts = (await duckRows(files)).length;
    expect(ts).toBe(800);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const con = await (await DuckDBInstance.create(':memory:')).connect();
    const asRead = (await con.runAndReadAll(`select ts from read_parquet('${files[0]}')`)).getRowsJson();
    const sorted = (await con.runAndReadAll(`select ts from read_parquet('${files[0]}') order by ts`)).getRowsJson();
    con.closeSync();
    expect(asRead).toEqual(sorted);
    const bad = await runCli(['clustering', 'schedule', '--path', fresh(), '--sort-columns', 'nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('nope');
  });
});

describe('run output', () => {
  it('--verbose in a pipe: plain progress lines and the summary; nothing without it; a bar and a short summary on a terminal', async () => {
    const quiet = fresh({ partitions: ['p1', 'p2'], filesPerPartition: 2 });
    await runJson(['clustering', 'schedule', '--path', quiet]);
    const q = await runCli(['clustering', 'run', '--path', quiet]);
    expect([q.exitCode, q.stdout, q.stderr]).toEqual([0, '', '']);

    const base = fresh({ partitions: ['p1', 'p2'], filesPerPartition: 2 });
    const { instant } = await runJson<{ instant: string }>(['clustering', 'schedule', '--path', base]);
    const r = await runCli(['clustering', 'run', '--path', base, '--verbose']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`clustering ${instant}: 0/2 groups, 0 records, 0 B, 0 B/s, elapsed 0 ms`);
    expect(lines.filter((l) => l.startsWith('wrote '))).toHaveLength(2);
    expect(lines.filter((l) => new RegExp(`^clustering ${instant}: \\d/2 groups`).test(l))).toHaveLength(3);
    expect(lines).toContain(`Succeeded to run clustering for ${instant}`);
    expect(lines.at(-1)).toMatch(new RegExp(`^Clustering successfully completed for ${instant}: 4 file group\\(s\\) replaced by 2 file\\(s\\), 800 records, \\d+ bytes in \\d+ ms$`));
    expect(r.stderr).not.toMatch(/\u001b|\r/);

    const tty = fresh({ partitions: ['p1', 'p2'], filesPerPartition: 2 });
    const t = await runJson<{ instant: string }>(['clustering', 'schedule', '--path', tty]);
    const b = await runCli(['clustering', 'run', '--path', tty, '--verbose'], { tty: true });
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toMatch(/\r.*▕░{20}▏ 0\/2 groups · 0 records/);
    expect(b.stderr).toMatch(/\r.*▕█{20}▏ 2\/2 groups · 800 records · [\d.]+ kB/);
    expect(b.stderr).toMatch(new RegExp(`Clustering ${t.instant} completed: 4 file group\\(s\\) into 2 file\\(s\\), 800 records, [\\d.]+ kB in [\\d.]+ (ms|s)\\n$`));
    expect(existsSync(join(tty, '.hoodie', '.heartbeat', t.instant))).toBe(false);
  });
});
