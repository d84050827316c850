// `tblcli mcp` driven as a real client drives it (issue 21): the SDK's Client over a stdio transport
// spawning the built binary. Tools and resources are listed; read tools on real tables return exactly
// what the CLI prints with --json for the same arguments, paged; errors are tool errors with the CLI's
// one-line message; a mutating tool is absent without --allow-writes, plans without a token (the table
// byte-identical), refuses a token made stale by a timeline change, and executes with a valid one.
import { cpSync, existsSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, table, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli } from '../support/run-cli.ts';
import { allCommands } from '../../commands/registry.ts';
import { toolsFor, undeclaredWrites } from '../../commands/mcp/tools.ts';
import { demoTable } from '../triage/support.ts';
import { writeArchivalTable } from '../services/support/archival-table.ts';
import { predictClean } from '../services/support/clean-oracle.ts';
import { GenTable } from '../services/support/gen-table.ts';

const BIN = resolve(import.meta.dirname, '../../bin/tblcli.js');
const open: Client[] = [];

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...process.env, TBLCLI_STATE_DIR: mkdtempSync(join(tmpdir(), 'tblcli-mcp-state-')), TZ: 'UTC' } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'tblcli-test', version: '1' });
  await client.connect(transport);
  open.push(client);
  return client;
}

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

type Structured = { rows?: unknown[]; result?: unknown; nextCursor?: string; plan?: unknown; token?: string; error?: string; class?: string; exitCode?: number };

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; s: Structured }> {
  const r = await c.callTool({ name, arguments: args });
  return { isError: r.isError === true, s: r.structuredContent as Structured };
}

/** The CLI in-process, at the real time (as the server runs). */
async function cliJson(argv: string[]): Promise<unknown> {
  const r = await runCli([...argv, '--json'], { now: new Date() });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const TABLES = ['quickstart_trips_table/mor/avro/v8_trips_8i3u1d', 'sample_table/mor/parquet/v6_nonpartitioned_rollback', 'sample_table/cow/v9_txns_simple_meta'];

describe.skipIf(!HAVE_FIXTURES)('tblcli mcp: read tools', () => {
  it('lists a tool per read command with schemas from the command options, and the resources', async () => {
    const c = await connect(['--path', table(TABLES[0]!)]);
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['commits_show', 'compactions_show_all', 'timeline_show_active', 'show_fsview_latest', 'desc', 'doctor', 'metadata_list-partitions', 'orphans']) expect(names).toContain(n);
    for (const n of ['connect', 'demo', 'man', 'mcp', 'orphans_delete', 'compaction_schedule']) expect(names).not.toContain(n);
    const commits = tools.find((t) => t.name === 'commits_show')!;
    expect(Object.keys(commits.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['includeExtraMetadata', 'partition', 'sortBy', 'desc', 'limit', 'cursor']));
    const orphans = tools.find((t) => t.name === 'orphans')!;
    expect(Object.keys(orphans.inputSchema.properties ?? {})).not.toContain('delete');
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['tblcli://table/hoodie.properties', 'tblcli://table/timeline', 'tblcli://man']);
    const props = await c.readResource({ uri: 'tblcli://table/hoodie.properties' });
    expect(JSON.parse((props.contents[0] as { text: string }).text)).toEqual(await cliJson(['desc', '--path', table(TABLES[0]!)]));
  });

  it.each(TABLES.map((id) => [id]))('%s: each read tool returns the CLI --json rows for the same arguments', async (id) => {
    const base = table(id);
    const c = await connect(['--path', base]);
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['commits_show', {}, ['commits', 'show']],
      ['commits_show', { sortBy: 'Total Bytes Written', desc: true }, ['commits', 'show', '--sortBy', 'Total Bytes Written', '--desc', 'true']],
      ['timeline_show_active', {}, ['timeline', 'show', 'active', '--limit', '-1']],
      ['show_fsview_latest', {}, ['show', 'fsview', 'latest']],
      ['cleans_show', {}, ['cleans', 'show']],
      ['show_rollbacks', {}, ['show', 'rollbacks', '--limit', '-1']],
      ['stats_filesizes', {}, ['stats', 'filesizes']],
    ];
    for (const [tool, args, argv] of cases) {
      const r = await call(c, tool, { ...args, limit: 10_000 });
      expect(r.isError, `${tool}: ${JSON.stringify(r.s)}`).toBe(false);
      expect(r.s.rows, tool).toEqual(await cliJson([...argv, '--path', base]));
    }
  });

  it('pages large results: limit + cursor walk the rows the CLI prints, in order', async () => {
    const base = table(TABLES[0]!);
    const c = await connect(['--path', base]);
    const all = (await cliJson(['timeline', 'show', 'active', '--limit', '-1', '--path', base])) as unknown[];
    expect(all.length).toBeGreaterThan(3);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    do {
      const r = await call(c, 'timeline_show_active', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(r.isError).toBe(false);
      seen.push(...r.s.rows!);
      cursor = r.s.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('an error is a tool error with the CLI\'s one-line message and its exit-code class; bad arguments are usage errors', async () => {
    const base = table(TABLES[0]!);
    const c = await connect(['--path', base]);
    const r = await call(c, 'commit_showfiles', { commit: '20990101000000000' });
    expect(r.isError).toBe(true);
    const cli = await runCli(['commit', 'showfiles', '--commit', '20990101000000000', '--path', base]);
    expect(`error: ${r.s.error}`).toBe(cli.stderr.trimEnd().split('\n')[0]);
    expect([r.s.class, r.s.exitCode]).toEqual(['error', cli.exitCode]);
    expect(r.s.error).not.toMatch(/\n|at .*\.js/);
    const bad = await call(c, 'commits_show', { nonsense: 1 });
    expect([bad.isError, bad.s.class]).toEqual([true, 'usage']);
  });
});

describe('tblcli mcp: write tools', () => {
  it('absent without --allow-writes; plan + token; a stale token after a timeline change is refused; a valid one executes as the CLI does', async () => {
    const now = new Date();
    const { dir } = await demoTable(8, now);
    // every file an hour old: --older-than 1s gives the same answer in the plan and in the CLI run
    // after it, however slow the machine (a file written just now crossed the 1 s line in between)
    const old = new Date(Date.now() - 3600_000);
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) if (statSync(join(dir, f)).isFile()) utimesSync(join(dir, f), old, old);
    const ro = await connect(['--path', dir]);
    expect((await ro.listTools()).tools.map((t) => t.name)).not.toContain('orphans_delete');
    expect((await call(ro, 'orphans_delete', {})).s.class).toBe('usage');

    const c = await connect(['--path', dir, '--allow-writes']);
    const before = treeDigest(dir, LOCKS_AND_HEARTBEATS);
    const plan = await call(c, 'orphans_delete', { olderThan: '1s' });
    expect(plan.isError, JSON.stringify(plan.s)).toBe(false);
    const noAge = (rows: unknown) => (rows as Record<string, unknown>[]).map(({ ageSeconds: _a, ...r }) => r);
    expect(noAge(plan.s.plan)).toEqual(noAge(await cliJson(['orphans', '--older-than', '1s', '--path', dir])));
    expect(plan.s.token).toMatch(/\./);
    expect(treeDigest(dir, LOCKS_AND_HEARTBEATS)).toEqual(before);

    // the timeline moves (another writer schedules something): the token no longer executes
    const copy = join(mkdtempSync(join(tmpdir(), 'tblcli-mcp-copy-')), 'demo_orders');
    cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
    writeFileSync(join(dir, '.hoodie', 'timeline', '20990101000000000.commit.requested'), '');
    const stale = await call(c, 'orphans_delete', { olderThan: '1s', token: plan.s.token });
    expect([stale.isError, stale.s.class]).toEqual([true, 'usage']);
    expect(stale.s.error).toMatch(/timeline changed/);
    // nor a second time (single use), nor with other arguments
    expect((await call(c, 'orphans_delete', { olderThan: '1s', token: plan.s.token })).s.error).toMatch(/already used|not issued/);

    const fresh = await call(c, 'orphans_delete', { olderThan: '1s' });
    const other = await call(c, 'orphans_delete', { olderThan: '2s', token: fresh.s.token });
    expect(other.s.error).toMatch(/arguments differ/);
    const again = await call(c, 'orphans_delete', { olderThan: '1s' });
    const done = await call(c, 'orphans_delete', { olderThan: '1s', token: again.s.token });
    expect(done.isError, JSON.stringify(done.s)).toBe(false);
    // the CLI on a copy (with the same new instant file) moves the same entries
    writeFileSync(join(copy, '.hoodie', 'timeline', '20990101000000000.commit.requested'), '');
    const viaCli = (await cliJson(['orphans', '--older-than', '1s', '--delete', '--yes', '--path', copy])) as { path: string; action: string }[];
    const viaMcp = done.s.result as { path: string; action: string }[];
    expect(viaMcp.map((x) => [x.path, x.action])).toEqual(viaCli.map((x) => [x.path, x.action]));
  });

  it('cleans run: the plan is the dry run (table unchanged), the token runs that clean; every clean command is a write tool', async () => {
    const g = await GenTable.create(join(mkdtempSync(join(tmpdir(), 'tblcli-mcp-clean-')), 't'), { type: 'COPY_ON_WRITE', version: 8 });
    await g.insert(2, 2);
    for (let i = 0; i < 4; i++) await g.update();
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    expect(want.files.size).toBeGreaterThan(0);
    const ro = await connect(['--path', g.base]);
    const roNames = (await ro.listTools()).tools.map((t) => t.name);
    for (const n of ['cleans_run', 'clean_schedule', 'clean_run', 'clean_scheduleAndExecute']) expect(roNames).not.toContain(n);
    const c = await connect(['--path', g.base, '--allow-writes']);
    const tools = (await c.listTools()).tools;
    for (const n of ['cleans_run', 'clean_schedule', 'clean_run', 'clean_scheduleAndExecute']) expect(tools.map((t) => t.name)).toContain(n);
    expect(Object.keys((tools.find((t) => t.name === 'cleans_run')!.inputSchema as { properties: object }).properties)).not.toContain('dryRun');
    const before = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const plan = await call(c, 'cleans_run', { commitsRetained: 2 });
    expect(plan.isError, JSON.stringify(plan.s)).toBe(false);
    const p = plan.s.plan as { dryRun: boolean; files: { partition: string; file: string }[] };
    expect(p.dryRun).toBe(true);
    expect(p.files.map((f) => `${f.partition}/${f.file}`).sort()).toEqual([...want.files].sort());
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    const done = await call(c, 'cleans_run', { commitsRetained: 2, token: plan.s.token });
    expect(done.isError, JSON.stringify(done.s)).toBe(false);
    expect(done.s.result).toMatchObject({ status: 'cleaned', files: want.files.size, failedFiles: 0 });
    for (const f of want.files) expect(existsSync(join(g.base, f))).toBe(false);
  });

  it('every command that changes a table is a write tool, never a read tool (fail-closed: an undeclared one is no tool)', async () => {
    const specs = await allCommands();
    expect(undeclaredWrites(specs), 'commands with a dry run, --yes or the lock options must declare `writes`').toEqual([]);
    const writes = specs.filter((s) => s.writes && !s.writes.alsoRead).map((s) => s.name);
    for (const n of ['commit rollback', 'rollback failed', 'savepoint create', 'savepoint rollback', 'marker delete', 'metadata delete', 'table update-configs', 'compaction run']) expect(writes).toContain(n);
    const ro = (await toolsFor(specs, false)).map((t) => t.spec.name);
    for (const n of writes) expect(ro, n).not.toContain(n);
    const rw = await toolsFor(specs, true);
    for (const n of writes) expect(rw.filter((t) => t.spec.name === n && t.write).length, n).toBe(1);
    // a command that only looks mutating, undeclared: not offered at all
    const fake = { name: 'frobnicate table', summary: 'x', options: [{ flags: '--dry-run', description: 'x' }], action: async () => 0 };
    expect(await toolsFor([fake], true)).toEqual([]);
  });

  it.skipIf(!HAVE_FIXTURES)('commit rollback: the plan is the dry run (table byte-identical), the token rolls back exactly that commit', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const latest = ((await cliJson(['commits', 'show', '--path', base])) as { commitTime: string }[])[0]!.commitTime;
    const ro = await connect(['--path', base]);
    expect((await call(ro, 'commit_rollback', { commit: latest })).s.class).toBe('usage');
    const c = await connect(['--path', base, '--allow-writes']);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const plan = await call(c, 'commit_rollback', { commit: latest });
    expect(plan.isError, JSON.stringify(plan.s)).toBe(false);
    expect(plan.s.plan).toMatchObject({ instant: latest, dryRun: true });
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    const done = await call(c, 'commit_rollback', { commit: latest, token: plan.s.token });
    expect(done.isError, JSON.stringify(done.s)).toBe(false);
    expect(done.s.result).toMatchObject({ instant: latest, dryRun: false });
    const after = (await cliJson(['commits', 'show', '--path', base])) as { commitTime: string }[];
    expect(after.map((r) => r.commitTime)).not.toContain(latest);
    expect(await cliJson(['show', 'rollbacks', '--path', base])).toHaveLength(1);
  });

  it.skipIf(!HAVE_FIXTURES)('compaction schedule: the plan is the dry run, the token schedules exactly it', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const c = await connect(['--path', base, '--allow-writes']);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const plan = await call(c, 'compaction_schedule', { strategy: 'all' });
    expect(plan.isError, JSON.stringify(plan.s)).toBe(false);
    expect((plan.s.plan as { dryRun: boolean; operations: unknown[] }).dryRun).toBe(true);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    const done = await call(c, 'compaction_schedule', { strategy: 'all', token: plan.s.token });
    expect(done.isError, JSON.stringify(done.s)).toBe(false);
    expect(done.s.result).toMatchObject({ scheduled: true, operations: (plan.s.plan as { operations: unknown[] }).operations.length });
    expect(await cliJson(['compactions', 'show', 'all', '--path', base])).toHaveLength(1);
  });

  it('trigger archival: not a read tool; the plan is the dry run (why each instant stays), the token archives exactly it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'tblcli-mcp-archival-'));
    await writeArchivalTable(base, { commits: 60, tableType: 'MERGE_ON_READ', version: 8, cleanEvery: 10, compactEvery: 12, mdtCompactionAfter: 50 });
    const ro = await connect(['--path', base]);
    expect((await ro.listTools()).tools.map((t) => t.name)).not.toContain('trigger_archival');
    const c = await connect(['--path', base, '--allow-writes']);
    const tool = (await c.listTools()).tools.find((t) => t.name === 'trigger_archival')!;
    expect(Object.keys((tool.inputSchema as { properties: object }).properties)).toEqual(expect.arrayContaining(['minCommits', 'maxCommits', 'commitsRetainedByCleaner', 'enableMetadata', 'token']));
    expect(Object.keys((tool.inputSchema as { properties: object }).properties)).not.toContain('dryRun');
    const args = { minCommits: 12, maxCommits: 15, commitsRetainedByCleaner: 5 };
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const plan = await call(c, 'trigger_archival', args);
    expect(plan.isError, JSON.stringify(plan.s)).toBe(false);
    const rows = plan.s.plan as { table: string; instant: string; archive: boolean; reason: string }[];
    expect(rows).toEqual(await cliJson(['trigger', 'archival', '--dry-run', '--minCommits', '12', '--maxCommits', '15', '--commitsRetainedByCleaner', '5', '--path', base]));
    expect(rows.filter((r) => r.table === 'data' && r.archive).length).toBeGreaterThan(10);
    expect(rows.some((r) => r.table === 'metadata')).toBe(true);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    const done = await call(c, 'trigger_archival', { ...args, token: plan.s.token });
    expect(done.isError, JSON.stringify(done.s)).toBe(false);
    const result = done.s.result as { instants: { instant: string }[]; metadataTable: { instants: { instant: string }[] } };
    expect(result.instants.map((x) => x.instant).sort()).toEqual(rows.filter((r) => r.table === 'data' && r.archive).map((r) => r.instant).sort());
    expect(result.metadataTable.instants.map((x) => x.instant).sort()).toEqual(rows.filter((r) => r.table === 'metadata' && r.archive).map((r) => r.instant).sort());
    // the token was single-use; the archived instants are gone from the active timeline
    expect((await call(c, 'trigger_archival', { ...args, token: plan.s.token })).s.error).toMatch(/already used|not issued/);
    expect(((await cliJson(['trigger', 'archival', '--dry-run', '--path', base])) as { archive: boolean; instant: string }[]).map((r) => r.instant)).not.toContain(result.instants[0]!.instant);
  });
});
