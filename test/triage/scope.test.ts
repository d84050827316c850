// --partitions and --since narrow the file-level checks: on a table with findings in several partitions,
// each narrowed run reports exactly the whole-table findings of its scope; the timeline-wide checks
// (pending and stuck instants, marker directories) stay whole; bad values are one-line usage errors.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import type { DoctorReport, Finding as LibFinding, Orphan } from '../../src/triage/index.ts';
import { formatInstantTime } from '../../src/util/index.ts';
import { zooTable } from './zoo.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const LATER = new Date(NOW.getTime() + 2 * 86_400_000);

async function json<T>(argv: string[], now = NOW): Promise<T> {
  const r = await runCli([...argv, '--json'], { now });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** a finding as `collisions --json` prints it: instants and files comma-joined */
type Finding = Omit<LibFinding, 'instants' | 'files'> & { instants: string; files: string };

const inPartition = (p: string) => (path: string) => path.startsWith(`${p}/`);

describe.each([6, 8] as const)('--partitions and --since on the zoo table v%i', (version) => {
  it('--partitions: the findings, orphans, backlog and counts of those partitions only', async () => {
    const dir = await zooTable(version, NOW);
    const all = await json<Finding[]>(['collisions', '--path', dir, '--bucket-index', '4']);
    const allOrphans = await json<Orphan[]>(['orphans', '--path', dir], LATER);
    const allDoctor = await json<DoctorReport>(['doctor', '--path', dir], LATER);
    expect(new Set(all.map((f) => f.partition)).size).toBeGreaterThan(2);
    for (const parts of [['region=eu'], ['region=us', 'region=apac'], ['flink_sink']]) {
      const scoped = await json<Finding[]>(['collisions', '--path', dir, '--bucket-index', '4', '--partitions', parts.join(',')]);
      expect(scoped).toEqual(all.filter((f) => parts.includes(f.partition)));
      const orphans = await json<Orphan[]>(['orphans', '--path', dir, '--partitions', parts.join(',')], LATER);
      // files of the partitions; marker dirs and stuck instants are timeline-wide
      expect(orphans).toEqual(allOrphans.filter((o) => parts.some((p) => inPartition(p)(o.path)) || o.kind === 'marker-dir' || o.kind === 'stuck-instant'));
      const doctor = await json<DoctorReport>(['doctor', '--path', dir, '--partitions', parts.join(',')], LATER);
      expect(doctor.backlog).toEqual(allDoctor.backlog.filter((b) => parts.includes(b.partition)));
      expect(doctor.pending).toEqual(allDoctor.pending);
      expect(doctor.table.scope).toEqual({ partitions: parts });
      expect(doctor.table.partitions).toBe(parts.filter((p) => p !== 'flink_sink').length);
    }
    const text = await runCli(['doctor', '--path', dir, '--partitions', 'region=eu'], { now: LATER });
    expect(text.stdout).toContain('Scope: partitions region=eu (timeline checks cover the whole table)');
  });

  it('--since: only the write stats and files of later instants', async () => {
    const dir = await zooTable(version, NOW);
    const all = await json<Finding[]>(['collisions', '--path', dir]);
    // the zoo's own instants start 100 min before NOW; the demo's (with its duplicate-create) end 2.5 h before it
    const since = formatInstantTime(new Date(NOW.getTime() - 100 * 60_000), 'UTC');
    expect(all.filter((f) => f.instants.split(',').every((t) => t < since)).length).toBeGreaterThan(0);
    expect(await json<Finding[]>(['collisions', '--path', dir, '--since', '99990101000000000'])).toEqual([]);
    const scoped = await json<Finding[]>(['collisions', '--path', dir, '--since', since]);
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.length).toBeLessThan(all.length);
    for (const f of scoped) expect(all).toContainEqual(f);
    for (const f of scoped) for (const t of f.instants.split(',')) expect(t >= since || f.kind === 'write-under-pending-plan' || f.kind === 'service-race').toBe(true);
    const doctor = await json<DoctorReport>(['doctor', '--path', dir, '--since', since]);
    expect(doctor.table.scope).toEqual({ since });
    expect(doctor.checks.find((c) => c.check === 'compaction-backlog')!.summary).toContain(`(counting delta commits since ${since} only)`);
  });
});

describe('bad --partitions / --since', () => {
  it('one-line errors, exit 2 for a bad value, 1 for a missing partition', async () => {
    const dir = await zooTable(8, NOW);
    for (const [argv, code, msg] of [
      [['--since', '2025x'], 2, "--since must be an instant time (yyyyMMddHHmmss[SSS]), got '2025x'"],
      [['--partitions', '../elsewhere'], 2, "--partitions: '../elsewhere' is not a partition directory of the table"],
      [['--partitions', '.hoodie'], 2, "--partitions: '.hoodie' is not a partition directory of the table"],
      [['--partitions', 'region=nowhere'], 1, 'region=nowhere: no such partition directory'],
    ] as const) {
      const r = await runCli(['doctor', '--path', dir, ...argv], { now: NOW });
      expect(r.exitCode, r.stderr).toBe(code);
      expect(r.stderr).toContain(msg);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
