// `orphans --delete --yes`: quarantines exactly the reported deletable orphans, keeps live in-progress
// and young files, and the table reads the same afterwards.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { openTable, loadFileSystemView } from '../../src/table/index.ts';
import type { DeleteResult, Orphan } from '../../src/triage/index.ts';
import { demoTable } from './support.ts';

async function latestSlices(dir: string): Promise<string> {
  const view = await loadFileSystemView(await openTable(dir));
  return JSON.stringify(view.latestFileSlices().map((s) => [s.partition, s.fileId, s.baseInstant, s.baseFile?.name, s.logFiles.map((l) => l.name)]));
}

describe.each([6, 8] as const)('orphans --delete on demo v%i', (version) => {
  it('moves exactly the deletable orphans to .hoodie/.tblcli-trash/<run>/', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(version, now);
    const old = new Date(now.getTime() - 3 * 3600_000);
    const paths = (k: string) => demo.problems.filter((p) => p.kind === k).flatMap((p) => p.paths);
    const [inprogress, pending] = paths('flink-leftover') as [string, string];
    // the zombie files are hours old; the in-progress file keeps being written (young = live)
    utimesSync(join(dir, pending), old, old);
    for (const p of [...paths('orphan-data-file'), ...[...paths('marker-dir')].reverse()]) utimesSync(join(dir, p), old, old);
    // a young file with an unparseable name
    writeFileSync(join(dir, 'region=us', 'notes.txt'), 'young');

    const before = { commits: (await runCli(['commits', 'show', '--path', dir, '--json'], { now })).stdout, slices: await latestSlices(dir) };
    const listed = JSON.parse((await runCli(['orphans', '--path', dir, '--json'], { now })).stdout) as Orphan[];
    const deletable = listed.filter((o) => o.deletable).map((o) => o.path).sort();
    expect(deletable).toEqual([...paths('marker-dir').slice(0, 1), pending, ...paths('orphan-data-file')].sort());
    expect(listed.find((o) => o.path === inprogress)!.deletable).toBe(false);
    expect(listed.find((o) => o.path === 'region=us/notes.txt')!.deletable).toBe(false);

    expect((await runCli(['orphans', '--path', dir, '--delete'], { now })).exitCode).toBe(2);
    expect(existsSync(join(dir, pending))).toBe(true);

    const r = await runCli(['orphans', '--path', dir, '--delete', '--yes', '--json'], { now });
    expect(r.exitCode).toBe(0);
    const results = JSON.parse(r.stdout) as (DeleteResult & { to: string | null })[];
    const moved = results.filter((x) => x.action === 'moved');
    expect(moved.map((x) => x.path).sort()).toEqual(deletable);
    const trashRoot = join(dir, '.hoodie', '.tblcli-trash');
    const runs = readdirSync(trashRoot);
    expect(runs).toHaveLength(1);
    for (const m of moved) {
      expect(m.to).toBe(`.hoodie/.tblcli-trash/${runs[0]}/${m.path}`);
      expect(existsSync(join(dir, m.path))).toBe(false);
      expect(existsSync(join(dir, m.to!))).toBe(true);
    }
    expect(results.filter((x) => x.action === 'kept').map((x) => x.path).sort()).toEqual(listed.filter((o) => !o.deletable).map((o) => o.path).sort());
    expect(existsSync(join(dir, inprogress))).toBe(true);
    expect(existsSync(join(dir, 'region=us/notes.txt'))).toBe(true);

    const after = { commits: (await runCli(['commits', 'show', '--path', dir, '--json'], { now })).stdout, slices: await latestSlices(dir) };
    expect(after).toEqual(before);
    // the trash is under .hoodie: not listed as orphans again
    const again = JSON.parse((await runCli(['orphans', '--path', dir, '--json'], { now })).stdout) as Orphan[];
    expect(again.map((o) => o.path).sort()).toEqual(listed.filter((o) => !o.deletable).map((o) => o.path).sort());
  });

  it('--purge removes instead of moving', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(version, now);
    const pending = demo.problems.find((p) => p.kind === 'flink-leftover')!.paths[1]!;
    const old = new Date(now.getTime() - 3 * 3600_000);
    utimesSync(join(dir, pending), old, old);
    for (const p of [...demo.problems.find((x) => x.kind === 'marker-dir')!.paths].reverse()) utimesSync(join(dir, p), old, old);
    const r = await runCli(['orphans', '--path', dir, '--delete', '--purge', '--yes', '--json'], { now });
    const results = JSON.parse(r.stdout) as DeleteResult[];
    expect(results.filter((x) => x.action === 'purged').map((x) => x.path).sort()).toEqual([demo.problems.find((p) => p.kind === 'marker-dir')!.paths[0], pending].sort());
    expect(existsSync(join(dir, pending))).toBe(false);
    expect(existsSync(join(dir, '.hoodie', '.tblcli-trash'))).toBe(false);
  });
});
