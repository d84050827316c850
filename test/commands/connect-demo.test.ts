// connect remembers the table; TBLCLI_PATH and --path override it; the demo quickstart prints what the
// README promises; the interactive shell's prompt and tokenizer.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { prompt, tokenize } from '../../commands/shell.ts';

describe('demo', () => {
  for (const version of ['6', '8']) {
    it(`tblcli demo --table-version ${version} writes the table and prints commits show + compactions show all + the connect line`, async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'demo-cli-')), 'orders');
      const r = await runCli(['demo', dir, '--table-version', version]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(`written to ${dir}`);
      expect(r.stdout).toContain('hudi:demo_orders->commits show');
      expect(r.stdout).toContain('║ CommitTime ');
      expect(r.stdout).toContain('hudi:demo_orders->compactions show all');
      expect(r.stdout).toMatch(/║ \d{17}\s+│ REQUESTED\s+│ 1\s+║/); // the pending plan
      expect(r.stdout).toMatch(/║ \d{17}\s+│ COMPLETED\s+│ 1\s+║/); // the completed compaction
      expect(r.stdout).toContain(`npx tblcli connect --path ${dir}`);
      // the table it wrote reads back through the CLI
      const commits = JSON.parse((await runCli(['commits', 'show', '--json', '--path', dir])).stdout) as unknown[];
      expect(commits.length).toBeGreaterThanOrEqual(6);
      const again = await runCli(['demo', dir]);
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toContain('is not empty');
    });
  }
});

describe.skipIf(!HAVE_FIXTURES)('connect', () => {
  it('remembers the path in the state dir; TBLCLI_PATH and --path win over it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'state-'));
    const a = table('sample_table/cow/v6_nonpartitioned');
    const b = table('sample_table/cow/v8_nonpartitioned');
    const c = await runCli(['connect', '--path', a], { stateDir });
    expect(c.exitCode, c.stderr).toBe(0);
    expect(c.stdout).toBe('Metadata for table v6_nonpartitioned loaded\n');
    expect(JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')).path).toBe(a);
    const desc = async (env: Record<string, string> = {}, extra: string[] = []) =>
      JSON.parse((await runCli(['desc', '--json', ...extra], { stateDir, env })).stdout)[0].value as string;
    expect(await desc()).toBe(a);
    expect(await desc({ TBLCLI_PATH: b })).toBe(b);
    expect(await desc({ TBLCLI_PATH: b }, ['--path', a])).toBe(a);
    const r = await runCli(['refresh'], { stateDir });
    expect(r.stdout).toBe('Metadata for table v6_nonpartitioned refreshed.\n');
  });

  it('without any table: hudi-cli\'s message and a usage exit code', async () => {
    const r = await runCli(['commits', 'show'], { stateDir: mkdtempSync(join(tmpdir(), 'state-')) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('There is no hudi table. Please use connect command to set table first');
  });
});

describe('shell', () => {
  it('prompts like hudi-cli', () => {
    expect(prompt(undefined)).toBe('hudi->');
    expect(prompt('orders')).toBe('hudi:orders->');
  });
  it('tokenizes quoted arguments', () => {
    expect(tokenize(`commits show --sortBy "Total Bytes Written" --desc`)).toEqual(['commits', 'show', '--sortBy', 'Total Bytes Written', '--desc']);
    expect(tokenize(`connect --path '/a b/c'`)).toEqual(['connect', '--path', '/a b/c']);
    expect(tokenize('  ')).toEqual([]);
  });
});
