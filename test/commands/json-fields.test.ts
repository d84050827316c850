// The JSON field names the man page documents (CommandSpec.jsonFields) are exactly the keys each
// command emits with --json, so scripts can rely on them.
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allCommands } from '../../commands/registry.ts';
import { runCli } from '../support/run-cli.ts';

async function json(argv: string[]): Promise<unknown> {
  const r = await runCli([...argv, '--json']);
  expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

describe('JSON fields', () => {
  it('every documented field list matches what the command prints (demo table)', async () => {
    const t = join(mkdtempSync(join(tmpdir(), 'fields-')), 'orders');
    expect((await runCli(['demo', t])).exitCode).toBe(0);
    const p = ['--path', t];
    const timeline = (await json(['timeline', 'show', 'active', '--limit', '-1', ...p])) as { instant: string; action: string; state: string }[];
    const ts = (action: string, state = 'COMPLETED') => timeline.find((i) => i.action === action && i.state === state)!.instant;
    const pending = (await json(['compactions', 'show', 'all', ...p]) as { compactionInstantTime: string; state: string }[]).find((c) => c.state === 'REQUESTED')!;
    const runs: Record<string, string[]> = {
      connect: p,
      desc: p,
      'fetch table schema': p,
      'commits show': p,
      'commit showpartitions': ['--commit', ts('deltacommit'), ...p],
      'commit showfiles': ['--commit', ts('deltacommit'), ...p],
      'commit show_write_stats': ['--commit', ts('deltacommit'), ...p],
      'commits show_infights': p,
      'commits compare': ['--table', t, ...p],
      'compactions show all': p,
      'compaction show': ['--instant', pending.compactionInstantTime, ...p],
      'timeline show active': p,
      'timeline show incomplete': p,
      'cleans show': p,
      'clean showpartitions': ['--clean', ts('clean'), ...p],
      'show rollbacks': p,
      'show rollback': ['--instant', ts('rollback'), ...p],
      'show fsview all': p,
      'show fsview latest': ['--partitionPath', 'region=us', ...p],
      'stats wa': p,
      'stats filesizes': p,
    };
    for (const [name, args] of Object.entries(runs)) {
      const spec = (await allCommands()).find((c) => c.name === name)!;
      expect(spec.jsonFields, `${name} documents its JSON fields`).toBeDefined();
      const fields = await spec.jsonFields!();
      const out = await json([...name.split(' '), ...args]);
      const first = Array.isArray(out) ? out[0] : out;
      expect(first, `${name} printed rows`).toBeDefined();
      expect(Object.keys(first as object), name).toEqual(fields);
    }
  });
});
