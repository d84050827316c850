// Bad input: each case exits non-zero with one line on stderr naming the path or instant, and
// nothing is written to the table.
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';

function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${p}:${st.size}:${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out.join('\n');
}

async function expectOneLineError(argv: string[], code: number, pattern: RegExp, table?: string) {
  const before = table ? snapshot(table) : '';
  const r = await runCli(argv);
  expect(r.exitCode, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
  expect(lines[0]).not.toMatch(/\n\s+at /);
  if (table) expect(snapshot(table)).toBe(before);
}

const V6 = 'sample_table/mor/parquet/v6_nonpartitioned_rollback';
const V9 = 'sample_table/cow/v9_txns_simple_nometa';

describe('bad input without fixtures', () => {
  it('a directory that is not a Hudi table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notatable-'));
    await expectOneLineError(['commits', 'show', '--path', dir], 1, new RegExp(`${dir} is not a Hudi table: .*hoodie.properties not found`), dir);
  });

  it('a path that does not exist', async () => {
    await expectOneLineError(['commits', 'show', '--path', '/nonexistent/tblcli/x'], 1, /\/nonexistent\/tblcli\/x: no such file or directory/);
  });

  it('garbled hoodie.properties', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'garbled-'));
    mkdirSync(join(dir, '.hoodie'));
    writeFileSync(join(dir, '.hoodie', 'hoodie.properties'), Buffer.from([0xff, 0x00, 0x13, 0x37, 0x0a, 0x42]));
    await expectOneLineError(['desc', '--path', dir], 1, /hoodie\.properties: missing required key hoodie\.table\.name/, dir);
  });

  it('unknown table version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'version-'));
    mkdirSync(join(dir, '.hoodie'));
    writeFileSync(join(dir, '.hoodie', 'hoodie.properties'), 'hoodie.table.name=t\nhoodie.table.version=42\n');
    await expectOneLineError(['commits', 'show', '--path', dir], 1, /unsupported table version '42'/, dir);
  });

  it('--sortBy on a column that does not exist → usage error listing the columns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sort-'));
    mkdirSync(join(dir, '.hoodie'));
    writeFileSync(join(dir, '.hoodie', 'hoodie.properties'), 'hoodie.table.name=t\nhoodie.table.version=6\nhoodie.table.type=MERGE_ON_READ\n');
    await expectOneLineError(['commits', 'show', '--sortBy', 'Nope', '--path', dir], 2, /Field\[Nope\] is not in table, given columns\[\[CommitTime, Total Bytes Written/, dir);
  });

  it('unknown command and missing option are usage errors (exit 2)', async () => {
    expect((await runCli(['commitz', 'show'])).exitCode).toBe(2);
    const r = await runCli(['compaction', 'show', '--path', '/tmp']);
    expect(r.exitCode).not.toBe(0);
  });
});

describe.skipIf(!HAVE_FIXTURES)('bad input in real tables', () => {
  it('missing hoodie.properties in a real table', async () => {
    const t = tableFresh(V6);
    const props = join(t, '.hoodie', 'hoodie.properties');
    writeFileSync(props + '.gone', readFileSync(props));
    unlinkSync(props);
    await expectOneLineError(['commits', 'show', '--path', t], 1, /is not a Hudi table: .*hoodie\.properties not found/, t);
  });

  it('a hoodie.properties checksum mismatch is a warning, not a failure', async () => {
    const t = tableFresh(V6);
    const props = join(t, '.hoodie', 'hoodie.properties');
    writeFileSync(props, readFileSync(props, 'latin1').replace(/hoodie\.table\.checksum=\d+/, 'hoodie.table.checksum=12345'), 'latin1');
    const r = await runCli(['commits', 'show', '--json', '--path', t]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^warning: .*hoodie\.properties: hoodie\.table\.checksum 12345 does not match \d+/);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(2);
  });

  it('empty completed commit file', async () => {
    const t = tableFresh(V6);
    truncateSync(join(t, '.hoodie', '20250126060846931.deltacommit'), 0);
    await expectOneLineError(['commits', 'show', '--path', t], 1, /20250126060846931\.deltacommit: empty completed commit file for instant 20250126060846931/, t);
  });

  it('truncated Avro commit file', async () => {
    const t = tableFresh(V9);
    const dir = join(t, '.hoodie', 'timeline');
    const f = readdirSync(dir).find((n) => /^\d+_\d+\.commit$/.test(n))!;
    const full = join(dir, f);
    truncateSync(full, Math.floor(statSync(full).size / 2));
    await expectOneLineError(['commits', 'show', '--path', t], 1, new RegExp(`${f}: .*(truncated|corrupt)`), t);
  });

  it('Avro file with a wrong schema (a rollback plan where a commit belongs)', async () => {
    const t = tableFresh(V6);
    const plan = readFileSync(join(t, '.hoodie', '20250126040936578.rollback.requested'));
    writeFileSync(join(t, '.hoodie', '20250126060846931.deltacommit'), plan);
    await expectOneLineError(['commits', 'show', '--path', t], 1, /20250126060846931\.deltacommit: expected Avro HoodieCommitMetadata, found HoodieRollbackPlan/, t);
  });

  it('invalid JSON commit', async () => {
    const t = tableFresh(V6);
    const f = join(t, '.hoodie', '20250126060846931.deltacommit');
    writeFileSync(f, readFileSync(f, 'utf8').slice(0, 200));
    await expectOneLineError(['commit', 'showfiles', '--commit', '20250126060846931', '--path', t], 1, /20250126060846931\.deltacommit: invalid JSON commit metadata/, t);
  });

  it('unknown action suffix in the timeline', async () => {
    const t = tableFresh(V6);
    writeFileSync(join(t, '.hoodie', '20250126070000000.frobnicate'), '');
    await expectOneLineError(['timeline', 'show', 'active', '--path', t], 1, /unknown action 'frobnicate' \(timeline file 20250126070000000\.frobnicate\)/, t);
  });

  it('unknown commit instant', async () => {
    const t = tableFresh(V6);
    await expectOneLineError(['commit', 'showpartitions', '--commit', '20990101000000000', '--path', t], 1, /Commit 20990101000000000 not found/, t);
  });

  it('unreadable directory (permissions) → clear error (as root: without the capabilities that let root ignore modes)', (ctx) => {
    const t = tableFresh(V6);
    const bin = join(import.meta.dirname, '../../bin/tblcli.js');
    // Root ignores modes through CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH. Dropping just those keeps
    // uid 0, the owner of the checkout, the temp directories and the table, so the run reaches all of
    // them (a 0700 temp root included) and only the 0000 directory is refused.
    const asRoot = process.getuid?.() === 0;
    const DROP = ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'];
    if (asRoot && spawnSync(DROP[0]!, [...DROP.slice(1), 'true']).status !== 0) {
      ctx.skip('running as root, and setpriv cannot drop CAP_DAC_OVERRIDE here');
    }
    const [cmd, ...pre] = asRoot ? [...DROP, process.execPath] : [process.execPath];
    chmodSync(join(t, '.hoodie'), 0o000);
    const r = spawnSync(cmd!, [...pre, bin, 'commits', 'show', '--path', t], { encoding: 'utf8' });
    chmodSync(join(t, '.hoodie'), 0o755);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/permission denied/);
    expect(r.stderr).toContain(join(t, '.hoodie'));
  });
});

// hudi-cli's CompactionCommand refuses a copy-on-write table with its HoodieException; the command line
// itself is right, so this is a runtime error (exit 1), not a usage error (exit 2).
describe.skipIf(!HAVE_FIXTURES)('compaction commands on a COPY_ON_WRITE table', () => {
  const refusing: string[][] = [
    ['compactions', 'show', 'all'],
    ['compaction', 'show', '--instant', '20240418173551906'],
    ['compactions', 'showarchived'],
    ['compaction', 'showarchived', '--instant', '20240418173551906'],
    ['compaction', 'schedule'],
    ['compaction', 'run'],
    ['compaction', 'scheduleAndExecute'],
    ['compaction', 'unschedule', '--instant', '20240418173551906'],
    ['compaction', 'validate', '--instant', '20240418173551906'],
  ];
  for (const argv of refusing) {
    it(`${argv.slice(0, 3).join(' ')} exits 1 with hudi-cli's message and leaves the table alone`, async () => {
      const t = tableFresh('sample_table/cow/v6_nonpartitioned');
      await expectOneLineError([...argv, '--path', t], 1, /^error: Compactions can only be run for table type : MERGE_ON_READ \(.* is COPY_ON_WRITE\)$/, t);
    });
  }
});
