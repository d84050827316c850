// The demo table's stuck inflight and its pending compaction cleared with the remediation commands
// `doctor` and `orphans` point to (issue 15): afterwards doctor reports no pending instant and no
// pending compaction, orphans finds nothing of the stuck write; what is left is not a rollback's to
// fix (the fileId collision, Flink leftovers, the history of failed commits).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemoTable } from '../../src/demo/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { runCli, runJson } from '../support/run-cli.ts';

const NOW = { get now() { return new Date(); } };

interface Check {
  check: string;
  severity: string;
  nextStep: string;
  details: string[];
}

describe('demo table: stuck inflight and pending compaction cleared by the remediation commands', () => {
  for (const version of [6, 8] as const) {
    it(`table version ${version}`, async () => {
      const base = join(mkdtempSync(join(tmpdir(), 'tblcli-demo-')), 'demo');
      const demo = await generateDemoTable(new LocalStorage(), base, { tableVersion: version });
      const stuck = demo.problems.find((p) => p.kind === 'stuck-inflight')!.instants![0]!;
      const compaction = demo.problems.find((p) => p.kind === 'pending-compaction')!;

      const before = await runJson<{ checks: Check[] }>(['doctor', '--path', base], NOW);
      const check = (r: { checks: Check[] }, name: string) => r.checks.find((c) => c.check === name)!;
      expect(check(before, 'pending-instants').severity).toBe('warning');
      expect(check(before, 'pending-instants').nextStep).toContain('tblcli rollback failed');
      expect(check(before, 'pending-compaction').nextStep).toContain('compaction unschedule');
      const orphans = await runJson<{ kind: string; nextStep?: string }[]>(['orphans', '--path', base], NOW);
      expect(JSON.stringify(orphans.filter((o) => o.kind === 'stuck-instant'))).toContain('tblcli rollback failed');

      // the fix doctor names: dry run first, then --yes
      const dry = await runCli(['rollback', 'failed', '--path', base], NOW);
      expect(dry.exitCode, dry.stderr).toBe(3);
      expect(dry.stdout).toContain(stuck);
      const yes = await runJson<{ results: { instant: string; ok: boolean }[] }>(['rollback', 'failed', '--yes', '--path', base], NOW);
      expect(yes.results).toEqual([expect.objectContaining({ instant: stuck, ok: true })]);
      // the pending compaction: its only file group out of the plan, so the plan goes
      const un = await runJson<{ planRemoved: boolean }>(['compaction', 'unscheduleFileId', '--fileId', compaction.fileId!, '--partitionPath', compaction.partition!, '--path', base], NOW);
      expect(un.planRemoved).toBe(true);

      const after = await runJson<{ checks: Check[] }>(['doctor', '--path', base], NOW);
      expect(check(after, 'pending-instants').severity).toBe('ok');
      expect(check(after, 'pending-compaction').severity).toBe('ok');
      // what is left is not a rollback's to fix
      const left = after.checks.filter((c) => c.severity === 'warning' || c.severity === 'error').map((c) => c.check).sort();
      expect(left.filter((c) => !['collisions', 'orphans', 'failed-instants'].includes(c))).toEqual([]);
      const rest = await runJson<{ kind: string; path: string }[]>(['orphans', '--path', base, '--older-than', '0s'], NOW);
      expect(rest.map((o) => o.kind)).toEqual(['flink-leftover', 'flink-leftover']);
      expect(JSON.stringify(rest)).not.toContain(stuck);
    });
  }
});
