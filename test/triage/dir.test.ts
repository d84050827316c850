// orphans in directories that are not partitions: a Flink sink dir inside the table, and one next to it (--dir).
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { findOrphans, type DeleteResult, type Orphan } from '../../src/triage/index.ts';
import { demoTable, scanOf } from './support.ts';

const INPROGRESS = '.part-7c1e2a4b-0-3.inprogress.5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const PENDING = 'part-7c1e2a4b-1-2.pending.9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const FINISHED = 'part-7c1e2a4b-0-1';
const HUDI = '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d-0_0-1-1_20240101000000000.parquet';

function plant(dir: string, old: Date): void {
  mkdirSync(join(dir, 'dt=2024-01-01'), { recursive: true });
  for (const n of [INPROGRESS, PENDING, FINISHED]) writeFileSync(join(dir, 'dt=2024-01-01', n), 'PAR1');
  // the pending part file is hours old; the in-progress one is being written now
  for (const n of [PENDING, FINISHED]) utimesSync(join(dir, 'dt=2024-01-01', n), old, old);
}

describe('orphans outside the partitions', () => {
  it('a Flink sink dir under the table: part files, a stray Hudi file, a finished part file', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const sink = join(dir, 'flink_sink');
    plant(sink, new Date(now.getTime() - 3 * 3600_000));
    writeFileSync(join(sink, HUDI), 'PAR1');
    const got = findOrphans(await scanOf(dir, now), { dir: 'flink_sink' }).map((o) => [o.kind, o.path, o.deletable]);
    // sorted by path; the demo's stuck instant and planted files are outside --dir
    expect(got).toEqual([
      ['outside-partition', `flink_sink/${HUDI}`, false],
      ['flink-leftover', `flink_sink/dt=2024-01-01/${INPROGRESS}`, false],
      ['unparseable', `flink_sink/dt=2024-01-01/${FINISHED}`, true],
      ['flink-leftover', `flink_sink/dt=2024-01-01/${PENDING}`, true],
    ]);
  });

  it('--dir next to the table: only its unfinished part files; --delete --yes quarantines in that dir', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    const sink = join(dirname(dir), 'orders_sink');
    plant(sink, new Date(now.getTime() - 3 * 3600_000));
    const tableBefore = readdirSync(dir, { recursive: true }).sort();

    const listed = JSON.parse((await runCli(['orphans', '--path', dir, '--dir', `${sink}/`, '--json'], { now })).stdout) as Orphan[];
    expect(listed.map((o) => [o.kind, o.path, o.deletable])).toEqual([
      ['flink-leftover', join(sink, 'dt=2024-01-01', INPROGRESS), false],
      ['flink-leftover', join(sink, 'dt=2024-01-01', PENDING), true],
    ]);

    const r = await runCli(['orphans', '--path', dir, '--dir', sink, '--delete', '--yes', '--json'], { now });
    expect(r.exitCode).toBe(0);
    const results = JSON.parse(r.stdout) as DeleteResult[];
    const [run] = readdirSync(join(sink, '.tblcli-trash'));
    expect(results.map((x) => [x.action, x.path, x.to ?? null])).toEqual([
      ['kept', join(sink, 'dt=2024-01-01', INPROGRESS), null],
      ['moved', join(sink, 'dt=2024-01-01', PENDING), join(sink, '.tblcli-trash', run!, 'dt=2024-01-01', PENDING)],
    ]);
    expect(existsSync(join(sink, 'dt=2024-01-01', INPROGRESS))).toBe(true);
    expect(existsSync(join(sink, 'dt=2024-01-01', FINISHED))).toBe(true);
    expect(existsSync(join(sink, '.tblcli-trash', run!, 'dt=2024-01-01', PENDING))).toBe(true);
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(tableBefore);
    // the trash is not listed again
    const again = JSON.parse((await runCli(['orphans', '--path', dir, '--dir', sink, '--json'], { now })).stdout) as Orphan[];
    expect(again.map((o) => o.path)).toEqual([join(sink, 'dt=2024-01-01', INPROGRESS)]);

    const missing = await runCli(['orphans', '--path', dir, '--dir', join(dirname(dir), 'nope')], { now });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no such directory');
  });
});
