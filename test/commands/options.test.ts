// Options that change behaviour do change it (none accepted and ignored), and their failure paths.
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runJson } from '../support/run-cli.ts';
import { redactSecrets } from '../../commands/shell.ts';

async function demo(version: '6' | '8'): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'opts-')), 'orders');
  const r = await runCli(['demo', dir, '--table-version', version]);
  expect(r.exitCode, r.stderr).toBe(0);
  return dir;
}

describe('options', () => {
  it('show fsview all --excludeCompaction drops the slice a pending compaction starts', async () => {
    const t = await demo('6');
    const plans = await runJson<{ compactionInstantTime: string; state: string }[]>(['compactions', 'show', 'all', '--path', t]);
    const pending = plans.find((p) => p.state === 'REQUESTED')!.compactionInstantTime;
    const all = await runJson<{ baseInstant: string }[]>(['show', 'fsview', 'all', '--path', t]);
    const excl = await runJson<{ baseInstant: string }[]>(['show', 'fsview', 'all', '--excludeCompaction', '--path', t]);
    expect(all.some((r) => r.baseInstant === pending)).toBe(true);
    expect(excl.some((r) => r.baseInstant === pending)).toBe(false);
  });

  it('fetch table schema --outputFilePath into a missing directory: one-line error naming the file, exit 2', async () => {
    const t = await demo('8');
    const r = await runCli(['fetch', 'table', 'schema', '--outputFilePath', '/nonexistent/dir/schema.avsc', '--path', t]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: cannot write /nonexistent/dir/schema.avsc: ENOENT\n');
  });

  it('--format json is honoured by commits show_infights and commits compare', async () => {
    const t = await demo('6');
    const inflight = await runCli(['commits', 'show_infights', '--format', 'json', '--path', t]);
    const rows = JSON.parse(inflight.stdout) as { commitTime: string; state: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.state !== 'COMPLETED')).toBe(true);
    const cmp = JSON.parse((await runCli(['commits', 'compare', '--format', 'json', '--path', t, '--table', t])).stdout);
    expect(cmp.commitsToCatchUp).toEqual([]);
  });

  it('the shell never writes a delegation token to its history', () => {
    expect(redactSecrets('connect --path webhdfs://nn:9870/t --delegation-token abc123')).toBe('connect --path webhdfs://nn:9870/t --delegation-token ***');
    expect(redactSecrets('desc --delegation-token=abc123')).toBe('desc --delegation-token=***');
  });
});
