// `cleans run | clean run | clean scheduleAndExecute --engine spark` (issues 16 and 20): tblcli plans
// (its planner, its `.clean.requested`), checks the plan, holds the instant's heartbeat while the
// engine starts, launches org.apache.hudi.utilities.HoodieCleaner and judges from the timeline. The
// stand-in spark-submit (support/engine-standin.ts) records its argv and does what HoodieCleaner does:
// executes every pending clean (the built tblcli's `clean run`), or exits 0 without doing it, or dies
// half-way. The files deleted are the independent oracle's; the metadata table stays in step.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { dataFiles } from './support/clean-check.ts';
import { predictClean } from './support/clean-oracle.ts';
import { makeStandIns, type Call, type StandIns } from './support/engine-standin.ts';
import { GenTable } from './support/gen-table.ts';

const BUNDLE = { 6: '/opt/hudi/hudi-utilities-bundle_2.12-0.15.0.jar', 8: '/opt/hudi/hudi-utilities-bundle_2.12-1.0.2.jar', 9: '/opt/hudi/hudi-utilities-bundle_2.12-1.0.2.jar' } as Record<number, string>;
const YARN_ID = 'application_1733000000000_0077';

let si: StandIns;
beforeAll(async () => {
  si = await makeStandIns({ clean: true });
}, 120_000);

const env = () => ({ PATH: si.path });

async function generated(type: 'COPY_ON_WRITE' | 'MERGE_ON_READ', version: 6 | 8): Promise<GenTable> {
  const g = await GenTable.create(join(mkdtempSync(join(tmpdir(), 'tblcli-clean-engine-')), 't'), { type, version });
  await g.insert(2, 3);
  for (let i = 1; i <= 5; i++) {
    await g.update();
    if (type === 'MERGE_ON_READ' && i % 2 === 0) await g.compact();
  }
  return g;
}

async function spark(base: string): Promise<string[]> {
  const version = (await openTable(base)).config.version;
  return ['--engine', 'spark', '--spark-submit', si.sparkSubmit, '--bundle', BUNDLE[version]!];
}

async function cleans(base: string) {
  return (await (await openTable(base)).timeline()).instants.filter((i) => i.action === 'clean');
}

function cleanerCalls(): Call[] {
  return si.calls().filter((c) => c.tool === 'spark-submit' && c.argv.includes('org.apache.hudi.utilities.HoodieCleaner'));
}

const lockArgs = (base: string) => [
  '--hoodie-conf', 'hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider',
  '--hoodie-conf', `hoodie.write.lock.filesystem.path=${base}/.hoodie/.aux`,
  '--hoodie-conf', 'hoodie.write.lock.filesystem.expire=1',
  '--hoodie-conf', 'hoodie.write.lock.wait_time_ms=2000',
  '--hoodie-conf', 'hoodie.write.lock.client.num_retries=30',
];

describe('cleans run --engine spark: tblcli plans, HoodieCleaner executes, the timeline decides', () => {
  for (const [type, version] of [['COPY_ON_WRITE', 8], ['MERGE_ON_READ', 6]] as const) {
    it(`${type} v${version}: the oracle's files deleted by the engine; HoodieCleaner's command line; quiet; --json`, async () => {
      const g = await generated(type, version);
      const want = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
      expect(want.files.size).toBeGreaterThan(0);
      const before = dataFiles(g.base);
      const n = cleanerCalls().length;
      si.behave({ mode: 'complete', print: [`24/12/01 10:00:00 INFO Client: Submitted application ${YARN_ID}`] });
      const quiet = await runCli(['cleans', 'run', '--path', g.base, ...(await spark(g.base)), '--commits-retained', '2', '--hoodie-conf', 'hoodie.metrics.on=false', '--master', 'yarn'], { env: env() });
      expect(quiet.exitCode, quiet.stderr).toBe(0);
      expect(quiet.stdout).toBe('');
      // the engine's own output goes to stderr (as for compaction); tblcli adds nothing on success
      expect(quiet.stderr.split('\n').filter((l) => l !== '' && !/INFO|^Clean|Submitted/.test(l))).toEqual([]);
      expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual([...want.files].sort());
      const cs = await cleans(g.base);
      expect(cs.map((c) => c.state)).toEqual(['COMPLETED']);
      const calls = cleanerCalls().slice(n);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.argv).toEqual([
        '--class', 'org.apache.hudi.utilities.HoodieCleaner', '--master', 'yarn', BUNDLE[version],
        '--target-base-path', g.base,
        ...lockArgs(g.base),
        '--hoodie-conf', 'hoodie.clean.multiple.enabled=false', '--hoodie-conf', 'hoodie.clean.allow.multiple=false',
        '--hoodie-conf', 'hoodie.metrics.on=false',
      ]);
      expect(existsSync(join(g.base, '.hoodie', '.heartbeat', cs[0]!.requestedTime))).toBe(false);
      expect(existsSync(join(g.base, '.hoodie', '.aux', 'lock'))).toBe(false);

      // --json: the engine summary with what the clean deleted (from its clean metadata); nothing more to clean
      const h = await generated(type, version);
      const j = await runJson<Record<string, unknown>>(['cleans', 'run', '--path', h.base, ...(await spark(h.base)), '--commits-retained', '2'], { env: env() });
      const [c] = await cleans(h.base);
      expect(j).toMatchObject({ status: 'completed', engine: 'spark', instant: c!.requestedTime, state: 'COMPLETED', files: want.files.size, failedFiles: 0, rolledBack: [] });
      expect(j.runs).toHaveLength(1);
      const again = await runJson<Record<string, unknown>>(['cleans', 'run', '--path', h.base, ...(await spark(h.base)), '--commits-retained', '2'], { env: env() });
      expect(again).toMatchObject({ status: 'nothing-to-do', runs: [] });
      expect(again.reason).toMatch(/nothing to clean|fewer than/);
    }, 60_000);
  }

  it('HoodieCleaner exiting 0 without cleaning is a failure (exit 1, the plan stays); the next run executes that plan first', async () => {
    const g = await generated('COPY_ON_WRITE', 8);
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    const before = dataFiles(g.base);
    si.behave({ mode: 'exit0' });
    const r = await runCli(['cleans', 'run', '--path', g.base, ...(await spark(g.base)), '--commits-retained', '2'], { env: env() });
    expect(r.exitCode).toBe(1);
    const [c] = await cleans(g.base);
    expect(c!.state).toBe('REQUESTED');
    expect(r.stderr).toMatch(new RegExp(`error: clean ${c!.requestedTime} did not complete on spark \\(spark exited 0\\); the instant is requested`));
    expect(dataFiles(g.base)).toEqual(before);
    // the rerun: the pending plan first (one launch), and then nothing new to plan
    const n = cleanerCalls().length;
    si.behave({ mode: 'complete' });
    const j = await runJson<{ instant: string; runs: unknown[] }>(['cleans', 'run', '--path', g.base, ...(await spark(g.base)), '--commits-retained', '2'], { env: env() });
    expect(j.instant).toBe(c!.requestedTime);
    expect(j.runs).toHaveLength(1);
    expect(cleanerCalls().length - n).toBe(1);
    expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual([...want.files].sort());
  }, 60_000);

  it('an engine that dies mid-deletion leaves the clean inflight; once its heartbeat expires the rerun completes the same plan', async () => {
    const g = await generated('MERGE_ON_READ', 8);
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 });
    const before = dataFiles(g.base);
    si.behave({ mode: 'crash', heartbeatExpiryMs: 300 });
    const args = [...(await spark(g.base)), '--heartbeat-expiry', '300ms'];
    const r = await runCli(['cleans', 'run', '--path', g.base, ...args, '--policy', 'KEEP_LATEST_FILE_VERSIONS', '--file-versions-retained', '1'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/executor lost/);
    const [c] = await cleans(g.base);
    expect(c!.state).toBe('INFLIGHT');
    const gone = [...before].filter((f) => !existsSync(join(g.base, f)));
    expect(gone.length).toBe(2);
    await new Promise((res) => setTimeout(res, 400));
    si.behave({ mode: 'complete' });
    const j = await runJson<{ instant: string; state: string }>(['clean', 'run', '--path', g.base, ...args], { env: env() });
    expect(j).toMatchObject({ instant: c!.requestedTime, state: 'COMPLETED' });
    expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual([...want.files].sort());
    expect((await cleans(g.base)).map((x) => x.state)).toEqual(['COMPLETED']);
  }, 60_000);

  it('a live heartbeat on a pending clean means another process runs it: exit 4, for the engine and for a local run', async () => {
    const g = await generated('COPY_ON_WRITE', 8);
    const s = await runJson<{ instant: string }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '2']);
    mkdirSync(join(g.base, '.hoodie', '.heartbeat'), { recursive: true });
    writeFileSync(join(g.base, '.hoodie', '.heartbeat', s.instant), '');
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const n = cleanerCalls().length;
    const engine = await runCli(['clean', 'run', '--path', g.base, ...(await spark(g.base))], { env: env() });
    expect(engine.exitCode).toBe(4);
    expect(engine.stderr.trim().split('\n')).toHaveLength(1);
    const local = await runCli(['clean', 'run', '--path', g.base]);
    expect(local.exitCode).toBe(4);
    expect((await runCli(['clean', 'run', '--path', g.base, '--dry-run'])).exitCode).toBe(4);
    expect(cleanerCalls().length).toBe(n);
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  }, 60_000);

  it('--dry-run: the plan and the HoodieCleaner command line, nothing written or launched', async () => {
    const g = await generated('COPY_ON_WRITE', 8);
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 });
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const n = si.calls().length;
    for (const cmd of [['cleans', 'run'], ['clean', 'scheduleAndExecute']]) {
      const r = await runCli([...cmd, '--path', g.base, ...(await spark(g.base)), '--commits-retained', '2', '--dry-run'], { env: env() });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`Would run clean \\d{17} \\(${want.files.size} file\\(s\\)\\) on spark`));
      expect(r.stdout).toContain('--class org.apache.hudi.utilities.HoodieCleaner');
      expect(r.stdout).toContain('hoodie.clean.multiple.enabled=false');
      const j = await runJson<{ dryRun: boolean; instant: string; files: unknown[]; engine: { status: string; command: string } }>([...cmd, '--path', g.base, ...(await spark(g.base)), '--commits-retained', '2', '--dry-run'], { env: env() });
      expect(j).toMatchObject({ dryRun: true, engine: { status: 'dry-run' } });
      expect(j.files).toHaveLength(want.files.size);
      expect(j.engine.command).toContain(`--target-base-path ${g.base}`);
    }
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    // a pending plan: the dry run names it
    const s = await runJson<{ instant: string }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '2']);
    const scheduled = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const r = await runCli(['clean', 'run', '--path', g.base, ...(await spark(g.base)), '--dry-run'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Would run clean ${s.instant} (${want.files.size} file(s)) on spark`);
    expect(si.calls().length).toBe(n);
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(scheduled);
  }, 60_000);

  it('what the engine cannot do is refused before anything is written: Flink, --parallelism, the multiple-cleans keys', async () => {
    const g = await generated('COPY_ON_WRITE', 8);
    const digest = treeDigest(g.base, LOCKS_AND_HEARTBEATS);
    const n = si.calls().length;
    const flink = await runCli(['cleans', 'run', '--path', g.base, '--engine', 'flink', '--flink', si.flink, '--bundle', '/opt/hudi/hudi-flink1.18-bundle-1.0.2.jar'], { env: env() });
    expect(flink.exitCode).not.toBe(0);
    expect(flink.stderr).toMatch(/no Flink cleaner/);
    const par = await runCli(['cleans', 'run', '--path', g.base, ...(await spark(g.base)), '--parallelism', '4'], { env: env() });
    expect([par.exitCode, par.stderr.trim()]).toEqual([2, expect.stringMatching(/HoodieCleaner takes neither --parallelism nor --retry/)]);
    const multi = await runCli(['clean', 'scheduleAndExecute', '--path', g.base, ...(await spark(g.base)), '--hoodie-conf', 'hoodie.clean.multiple.enabled=true'], { env: env() });
    expect([multi.exitCode, multi.stderr.trim()]).toEqual([2, expect.stringMatching(/hoodie.clean.multiple.enabled is set by tblcli/)]);
    expect(si.calls().length).toBe(n);
    expect(treeDigest(g.base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  }, 60_000);

  it('clean scheduleAndExecute and clean run --instant on the engine', async () => {
    const g = await generated('MERGE_ON_READ', 6);
    const want = predictClean(g.base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 });
    const before = dataFiles(g.base);
    si.behave({ mode: 'complete' });
    const j = await runJson<{ status: string; instant: string; files: number }>(['clean', 'scheduleAndExecute', '--path', g.base, ...(await spark(g.base)), '--commits-retained', '1'], { env: env() });
    expect(j).toMatchObject({ status: 'completed', files: want.files.size });
    expect([...before].filter((f) => !existsSync(join(g.base, f))).sort()).toEqual([...want.files].sort());
    for (let i = 0; i < 2; i++) {
      await g.update();
      await g.compact();
    }
    const s = await runJson<{ instant: string }>(['clean', 'schedule', '--path', g.base, '--commits-retained', '1']);
    expect(s.instant).toMatch(/^\d{17}$/);
    const r = await runJson<{ status: string; instant: string }>(['clean', 'run', '--path', g.base, ...(await spark(g.base)), '--instant', s.instant], { env: env() });
    expect(r).toMatchObject({ status: 'completed', instant: s.instant });
    expect((await runJson<{ status: string }>(['clean', 'run', '--path', g.base, ...(await spark(g.base)), '--instant', s.instant], { env: env() })).status).toBe('already-completed');
  }, 60_000);
});

describe.skipIf(!HAVE_FIXTURES)('cleans run --engine spark on a table with a metadata table', () => {
  it('hudi-rs v9 MOR (+1 compaction): the engine keeps the MDT in step (validate-files clean)', async () => {
    const base = tableFresh('sample_table/mor/avro/v9_txns_simple_meta');
    const s = await scheduleCompaction(await openTable(base), { clockSkewMs: 1, strategy: 'all' });
    await runCompaction(await openTable(base), { clockSkewMs: 1, instant: s.instant!, fileGroupWorkers: 'never' });
    const want = predictClean(base, { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 });
    expect(want.files.size).toBeGreaterThan(0);
    const before = dataFiles(base);
    si.behave({ mode: 'complete' });
    const r = await runCli(['cleans', 'run', '--path', base, ...(await spark(base)), '--commits-retained', '1', '--verbose'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Clean \\d{17}: ${want.files.size} file\\(s\\) deleted`));
    expect([...before].filter((f) => !existsSync(join(base, f))).sort()).toEqual([...want.files].sort());
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  }, 60_000);
});
