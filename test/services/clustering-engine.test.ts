// `clustering run|scheduleAndExecute --engine spark|flink` on real tables (issue 20), against the
// stand-in spark-submit / flink executables (support/engine-standin.ts: they record their argv and
// then do what the real one would — here execute exactly the clustering instant they are given with
// the built tblcli, exit 0 without doing it, or die half-way). tblcli plans, checks and judges from
// the timeline; the recorded command lines are HoodieClusteringJob / HoodieFlinkClusteringJob
// invocations that carry the plan's sort order; nothing is written before a refusal.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { makeStandIns, type Call, type StandIns } from './support/engine-standin.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';

const V6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
const V9 = 'sample_table/cow/v9_txns_simple_meta';
const SPARK_BUNDLE = { 6: '/opt/hudi/hudi-utilities-bundle_2.12-0.15.0.jar', 9: '/opt/hudi/hudi-utilities-bundle_2.12-1.0.2.jar' } as Record<number, string>;
const FLINK_BUNDLE = { 6: '/opt/hudi/hudi-flink1.18-bundle-0.15.0.jar', 9: '/opt/hudi/hudi-flink1.18-bundle-1.0.2.jar' } as Record<number, string>;
const YARN_ID = 'application_1733000000000_0077';
const JOB_ID = '7a6d5c4b3a2f1e0d9c8b7a0f2d5c9e8b';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let si: StandIns;
beforeAll(async () => {
  si = await makeStandIns();
}, 120_000);

const env = () => ({ PATH: si.path });
const sparkArgs = (v: number) => ['--engine', 'spark', '--spark-submit', si.sparkSubmit, '--bundle', SPARK_BUNDLE[v]!];
const flinkArgs = (v: number) => ['--engine', 'flink', '--flink', si.flink, '--bundle', FLINK_BUNDLE[v]!];

function lastCall(tool = 'spark-submit'): Call {
  const c = si.calls().filter((x) => x.tool === tool);
  return c[c.length - 1]!;
}

const lockArgs = (base: string) => [
  '--hoodie-conf', 'hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider',
  '--hoodie-conf', `hoodie.write.lock.filesystem.path=${base}/.hoodie/.aux`,
  '--hoodie-conf', 'hoodie.write.lock.filesystem.expire=1',
  '--hoodie-conf', 'hoodie.write.lock.wait_time_ms=2000',
  '--hoodie-conf', 'hoodie.write.lock.client.num_retries=30',
];

async function schedule(base: string, ...args: string[]): Promise<string> {
  const s = await runJson<{ scheduled: boolean; instant: string }>(['clustering', 'schedule', '--path', base, ...args]);
  expect(s.scheduled).toBe(true);
  return s.instant;
}

async function stateOf(base: string, instant: string): Promise<string> {
  const i = (await (await openTable(base)).timeline()).find(instant);
  return i.find((x) => x.state === 'COMPLETED')?.state ?? i.find((x) => x.state === 'INFLIGHT')?.state ?? i[0]?.state ?? 'MISSING';
}

async function snapshot(base: string): Promise<Record<string, unknown>[]> {
  return comparable(await snapshotRows(base), logicalTypes((await openTable(base)).config.createSchema));
}

describe.skipIf(!HAVE_FIXTURES)('clustering --engine spark: the planned instant executed by HoodieClusteringJob', () => {
  for (const [id, sort, layout] of [[V6, 'city,rider', 'z-order'], [V9, 'txn_type,txn_ts', 'linear']] as const) {
    it(`${id}: HoodieClusteringJob --mode execute for exactly the instant, the layout as a setting; completed, snapshot unchanged`, async () => {
      const base = tableFresh(id);
      const table = await openTable(base);
      const v = table.config.version;
      const T = await schedule(base, '--sort-columns', sort, '--layout', layout);
      const before = await snapshot(base);
      si.behave({ mode: 'complete', print: [`INFO Client: Submitted application ${YARN_ID}`] });
      const r = await runCli(
        [
          'clustering', 'run', '--path', base, ...sparkArgs(v), '--master', 'yarn', '--deploy-mode', 'client', '--executor-memory', '4g',
          '--parallelism', '8', '--retry', '1', '--hoodieConfigs', 'hoodie.clustering.preserve.commit.metadata=true', '--json',
        ],
        { env: env() },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const groups = (await runJson<{ clusteringInstantTime: string; inputGroups: number }[]>(['clustering', 'show', 'all', '--path', base])).find((x) => x.clusteringInstantTime === T)!.inputGroups;
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', engine: 'spark', instant: T, state: 'COMPLETED', exitCode: 0, yarnApplicationId: YARN_ID, operations: groups });
      expect(lastCall().argv).toEqual([
        '--class', 'org.apache.hudi.utilities.HoodieClusteringJob',
        '--master', 'yarn', '--deploy-mode', 'client', '--executor-memory', '4g',
        SPARK_BUNDLE[v],
        '--base-path', base, '--table-name', table.config.name, '--instant-time', T, '--mode', 'execute', '--spark-memory', '4g', '--parallelism', '8', '--retry', '1',
        ...lockArgs(base),
        '--hoodie-conf', 'hoodie.clustering.preserve.commit.metadata=true',
        // a linear plan records no layout (Hudi's default): none is set
        ...(layout === 'linear' ? [] : ['--hoodie-conf', `hoodie.layout.optimize.strategy=${layout}`]),
      ]);
      expect(await stateOf(base, T)).toBe('COMPLETED');
      expect(await snapshot(base)).toEqual(before);
      expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(false);
      expect(existsSync(join(base, '.hoodie', '.aux', 'lock'))).toBe(false);
      if (table.config.metadataPartitions.length > 0) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    }, 90_000);
  }

  it("hudi-cli's --sparkMaster / --sparkMemory / --propsFilePath reach spark-submit and the job; a local run ignores --retry", async () => {
    const base = tableFresh(V9);
    const T = await schedule(base);
    const props = join(base, '..', 'clustering.properties');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(props, 'hoodie.clustering.plan.strategy.max.num.groups=5\n');
    si.behave({ mode: 'complete' });
    const r = await runCli(['clustering', 'run', '--path', base, ...sparkArgs(9), '--sparkMaster', 'local[2]', '--sparkMemory', '2g', '--propsFilePath', props, '--target-file-max-bytes', '64MB'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    const argv = lastCall().argv;
    expect(argv.slice(0, 6)).toEqual(['--class', 'org.apache.hudi.utilities.HoodieClusteringJob', '--master', 'local[2]', '--executor-memory', '2g']);
    expect(argv).toContain('--props');
    expect(argv[argv.indexOf('--props') + 1]).toBe(props);
    expect(argv.join(' ')).toContain(`--hoodie-conf hoodie.clustering.plan.strategy.target.file.max.bytes=${64 * 1024 * 1024}`);
    expect(await stateOf(base, T)).toBe('COMPLETED');
    // the local engine: hudi-cli's --retry is accepted and ignored, as before
    const local = tableFresh(V9);
    await schedule(local);
    const l = await runCli(['clustering', 'run', '--path', local, '--retry', '1', '--sparkMaster', 'yarn', '--json']);
    expect(l.exitCode, l.stderr).toBe(0);
    expect(JSON.parse(l.stdout)).toMatchObject({ status: 'completed' });
  }, 90_000);
});

describe.skipIf(!HAVE_FIXTURES)('clustering --engine flink: HoodieFlinkClusteringJob sorts by the plan', () => {
  it('--path --instant-time --clustering-tasks --sort-columns; job id in --json', async () => {
    const base = tableFresh(V9);
    const T = await schedule(base, '--sort-columns', 'txn_type,txn_ts');
    si.behave({ mode: 'complete', print: ['Job has been submitted with JobID ' + JOB_ID] });
    const r = await runCli(['clustering', 'run', '--path', base, '--clusteringInstant', T, ...flinkArgs(9), '--target', 'yarn-per-job', '--flink-parallelism', '4', '--parallelism', '2', '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', engine: 'flink', instant: T, flinkJobId: JOB_ID });
    expect(lastCall('flink').argv).toEqual([
      'run', '-t', 'yarn-per-job', '-p', '4',
      '-c', 'org.apache.hudi.sink.clustering.HoodieFlinkClusteringJob', FLINK_BUNDLE[9],
      '--path', base, '--instant-time', T, '--clustering-tasks', '2', '--sort-columns', 'txn_type,txn_ts',
      ...lockArgs(base),
    ]);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  }, 90_000);

  it('a z-order plan of two columns is refused before anything is written or launched', async () => {
    const base = tableFresh(V9);
    await schedule(base, '--sort-columns', 'txn_type,txn_ts', '--layout', 'z-order');
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const n = si.calls().length;
    const r = await runCli(['clustering', 'run', '--path', base, ...flinkArgs(9)], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('HoodieFlinkClusteringJob sorts linearly only');
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(existsSync(join(base, '.hoodie', '.heartbeat'))).toBe(false);
    expect(si.calls().length).toBe(n);
  }, 60_000);
});

describe.skipIf(!HAVE_FIXTURES)('clustering on an engine: the verdict is the timeline; a rerun rolls a failed attempt back', () => {
  it('exit 0 without completing → exit 1, the plan still requested', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({ mode: 'exit0' });
    const r = await runCli(['clustering', 'run', '--path', base, ...sparkArgs(6)], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('There is no scheduled clustering in the table.');
    expect(r.stderr).toContain(`error: clustering ${T} did not complete on spark (spark exited 0); the instant is requested`);
    expect(await stateOf(base, T)).toBe('REQUESTED');
  }, 60_000);

  it('engine dies half-way → exit 1 (inflight); after the heartbeat expires the rerun rolls back and relaunches the same instant', async () => {
    const base = tableFresh(V9);
    const T = await schedule(base, '--sort-columns', 'txn_ts');
    const before = await snapshot(base);
    si.behave({ mode: 'crash', heartbeatExpiryMs: 1000 });
    const crashed = await runCli(['clustering', 'run', '--path', base, ...sparkArgs(9), '--json'], { env: env() });
    expect(crashed.exitCode).toBe(1);
    expect(JSON.parse(crashed.stdout)).toMatchObject({ status: 'failed', state: 'INFLIGHT', instant: T });
    expect(await snapshot(base)).toEqual(before);
    await sleep(1500);
    si.behave({ mode: 'complete' });
    const rerun = await runCli(['clustering', 'run', '--path', base, ...sparkArgs(9), '--heartbeat-expiry', '1s', '--json'], { env: env() });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const j = JSON.parse(rerun.stdout);
    expect(j).toMatchObject({ status: 'completed', instant: T, state: 'COMPLETED' });
    expect(j.rolledBackFiles).toBeGreaterThan(0);
    expect(lastCall().argv[lastCall().argv.indexOf('--instant-time') + 1]).toBe(T);
    expect(await snapshot(base)).toEqual(before);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  }, 90_000);
});

describe.skipIf(!HAVE_FIXTURES)('clustering --engine: scheduleAndExecute, --dry-run, usage', () => {
  it('scheduleAndExecute plans with tblcli and executes that instant; --dry-run shows the command for the instant it would get and writes nothing', async () => {
    const fresh = tableFresh(V6);
    const digest = treeDigest(fresh, LOCKS_AND_HEARTBEATS);
    const calls = si.calls().length;
    const dry = await runCli(['clustering', 'scheduleAndExecute', '--path', fresh, '--sort-columns', 'city,fare', '--layout', 'hilbert', ...sparkArgs(6), '--dry-run', '--json'], { env: env() });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const j = JSON.parse(dry.stdout);
    expect(j).toMatchObject({ status: 'dry-run', state: 'MISSING' });
    expect(j.instant).toMatch(/^\d{17}$/);
    expect(j.command).toContain(`--instant-time ${j.instant} --mode execute`);
    expect(j.command).toContain('hoodie.layout.optimize.strategy=hilbert');
    expect(treeDigest(fresh, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    expect(si.calls().length).toBe(calls);

    si.behave({ mode: 'complete' });
    const r = await runCli(['clustering', 'scheduleAndExecute', '--path', fresh, '--sort-columns', 'city,fare', '--layout', 'hilbert', ...sparkArgs(6), '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    const done = JSON.parse(r.stdout);
    expect(done).toMatchObject({ status: 'completed', state: 'COMPLETED' });
    expect(lastCall().argv).toContain(done.instant);
    expect(lastCall().argv).toContain('hoodie.layout.optimize.strategy=hilbert');
    const shown = await runJson<{ clusteringInstantTime: string; state: string }[]>(['clustering', 'show', 'all', '--path', fresh]);
    expect(shown.find((x) => x.clusteringInstantTime === done.instant)?.state).toBe('COMPLETED');
  }, 90_000);

  it('run --dry-run names the pending instant and prints the command; nothing written or launched', async () => {
    const base = tableFresh(V9);
    const T = await schedule(base);
    const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const calls = si.calls().length;
    const r = await runCli(['clustering', 'run', '--path', base, ...flinkArgs(9), '--dry-run'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Would run clustering ${T} (`);
    expect(r.stdout).toContain('-c org.apache.hudi.sink.clustering.HoodieFlinkClusteringJob');
    expect(r.stdout).toContain(`--instant-time ${T}`);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    expect(si.calls().length).toBe(calls);
  }, 60_000);

  it('usage errors before anything is touched', async () => {
    const base = tableFresh(V9);
    await schedule(base);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const cases: [string[], RegExp][] = [
      [['--master', 'yarn'], /--master needs --engine spark or flink/],
      [[...sparkArgs(9), '--codec', 'SNAPPY'], /--codec applies to --engine local/],
      [[...sparkArgs(9), '--metadata-table', 'disable'], /--metadata-table disable applies to --engine local/],
      [[...flinkArgs(9), '--retry', '2'], /HoodieFlinkClusteringJob takes no --retry/],
      [[...sparkArgs(9), '--layout', 'spiral'], /layout "spiral"/],
      [[...sparkArgs(9), '--props', '/a.properties', '--propsFilePath', '/b.properties'], /--propsFilePath and --props name different files/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(['clustering', 'run', '--path', base, ...args], { env: env() });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
  }, 60_000);
});
