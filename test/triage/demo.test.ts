// Acceptance: the demo table's planted collision, stuck inflight, orphan files and pending compaction
// are found by `collisions`, `orphans` and `doctor` (table versions 6 and 8).
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import type { DoctorReport, Finding, Orphan } from '../../src/triage/index.ts';
import { demoTable } from './support.ts';

describe.each([6, 8] as const)('demo table v%i', (version) => {
  it('collisions, orphans, doctor and metrics find every planted problem', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(version, now);
    const problem = (k: string) => demo.problems.filter((p) => p.kind === k);

    const c = await runCli(['collisions', '--path', dir, '--json'], { now });
    expect(c.exitCode).toBe(0);
    const findings = JSON.parse(c.stdout) as Finding[];
    const planted = problem('fileid-collision')[0]!;
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'error', kind: 'duplicate-create', partition: planted.partition, fileId: planted.fileId });
    expect(findings[0]!.instants).toBe(planted.instants!.join(','));
    expect(findings[0]!.files).toBe([...planted.paths].sort().join(','));
    expect(findings[0]!.nextStep).toContain('how many jobs write this table path');
    expect((await runCli(['show', 'collisions', '--path', dir, '--exit-code'], { now })).exitCode).toBe(3);

    const o = await runCli(['orphans', '--path', dir, '--json'], { now });
    expect(o.exitCode).toBe(0);
    const orphans = JSON.parse(o.stdout) as Orphan[];
    const stuck = problem('stuck-inflight')[0]!;
    const orphanFile = problem('orphan-data-file')[0]!;
    const marker = problem('marker-dir')[0]!;
    const flink = problem('flink-leftover')[0]!;
    const got = orphans.map((x) => [x.kind, x.path, x.instant]);
    expect(got).toEqual(
      [
        ['stuck-instant', stuck.paths[0], stuck.instants![0]],
        ['uncommitted-file', orphanFile.paths[0], orphanFile.instants![0]],
        ['marker-dir', marker.paths[0], marker.instants![0]],
        ['flink-leftover', flink.paths[0], null],
        ['flink-leftover', flink.paths[1], null],
      ].sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    );
    // files were written just now: reported, but younger than --older-than, so nothing is deletable
    expect(orphans.filter((x) => x.deletable)).toEqual([]);
    const f = orphans.find((x) => x.kind === 'uncommitted-file')!;
    expect([f.instantState, f.heartbeat]).toEqual(['inflight', 'missing']);

    const d = await runCli(['doctor', '--path', dir, '--json'], { now });
    const report = JSON.parse(d.stdout) as DoctorReport;
    const check = (name: string) => report.checks.find((x) => x.check === name)!;
    expect(report.severity).toBe('error');
    expect(check('pending-compaction')).toMatchObject({ severity: 'warning' });
    expect(check('pending-compaction').details.join('\n')).toContain(problem('pending-compaction')[0]!.instants![0]);
    expect(check('pending-instants').severity).toBe('warning');
    expect(check('pending-instants').details.join('\n')).toContain(`${stuck.instants![0]} deltacommit inflight`);
    expect(check('collisions').severity).toBe('error');
    expect(check('orphans').summary).toMatch(/^5 orphan\(s\)/);
    expect(check('failed-instants').details.join('\n')).toContain(`${problem('rolled-back-instant')[0]!.instants![0]} rolled back by ${problem('rolled-back-instant')[0]!.instants![1]}`);
    expect(report.table).toMatchObject({ version, partitions: 3, pending: 2 });
    expect((await runCli(['doctor', '--path', dir, '--exit-code'], { now })).exitCode).toBe(3);
    const text = await runCli(['doctor', '--path', dir], { now });
    expect(text.stdout).toContain('Overall: error');

    const m = await runCli(['metrics', '--path', dir], { now });
    expect(m.exitCode).toBe(0);
    const labels = `table="demo_orders",path="${dir}"`;
    expect(m.stdout).toContain('# TYPE tblcli_instants gauge\n');
    expect(m.stdout).toContain(`tblcli_instants{${labels},action="compaction",state="requested"} 1\n`);
    expect(m.stdout).toContain(`tblcli_instants{${labels},action="deltacommit",state="inflight"} 1\n`);
    expect(m.stdout).toContain(`tblcli_collisions{${labels}} 1\n`);
    expect(m.stdout).toContain(`tblcli_orphan_files{${labels}} 4\n`);
    expect(m.stdout).toMatch(new RegExp(`tblcli_oldest_pending_instant_age_seconds\\{[^}]*\\} (\\d+)\\n`));
    const age = Number(/tblcli_oldest_pending_instant_age_seconds\{[^}]*\} (\d+)/.exec(m.stdout)![1]);
    expect(age).toBeGreaterThan(2 * 3600);
    for (const line of m.stdout.trim().split('\n')) expect(line).toMatch(/^# (HELP|TYPE) tblcli_\w+ .+$|^tblcli_\w+\{[^}]*\} -?[\d.e+]+$/);

    // --explain: one row per Prometheus sample, same values, an alert condition judged on this run
    const samples = m.stdout.trim().split('\n').filter((l) => !l.startsWith('#'));
    const ex = await runCli(['metrics', '--explain', '--json', '--path', dir], { now });
    expect(ex.exitCode).toBe(0);
    const rows = JSON.parse(ex.stdout) as { status: string; metric: string; labels: string; value: number; alertWhen: string }[];
    expect(rows.map((r) => `${r.metric} ${r.value}`)).toEqual(samples.map((l) => l.replace(/\{[^}]*\}/, '')));
    const row = (name: string) => rows.find((r) => r.metric === name)!;
    expect(row('tblcli_collisions')).toMatchObject({ status: 'alert', alertWhen: 'tblcli_collisions > 0' });
    expect(row('tblcli_stuck_instants')).toMatchObject({ status: 'alert', value: 1 });
    expect(row('tblcli_oldest_pending_instant_age_seconds')).toMatchObject({ status: 'alert', alertWhen: 'tblcli_oldest_pending_instant_age_seconds > 3600' });
    expect(row('tblcli_compaction_backlog_max_delta_commits').status).toBe('ok');
    expect(row('tblcli_doctor_severity')).toMatchObject({ status: 'alert', value: 3 });
    expect(rows.find((r) => r.labels === 'action=compaction,state=requested')).toMatchObject({ metric: 'tblcli_instants', status: '-' });
    const piped = await runCli(['metrics', '--explain', '--older-than', '100d', '--path', dir], { now });
    expect(piped.stdout.split('\n')[0]).toMatch(/^Now +Metric +Labels +Value +Meaning +Alert When \(PromQL\)$/);
    expect(piped.stdout).toMatch(/\nok +tblcli_oldest_pending_instant_age_seconds .*> 8640000\n/);
  });
});
