// `compaction run|scheduleAndExecute --engine spark|flink` on real tables (issue 20), against stand-in
// spark-submit / flink / yarn executables (support/engine-standin.ts: they record their argv, then do
// what the real one would: execute exactly the instant they are given with the built tblcli, exit 0
// without doing it, fail, die half-way, or hang). tblcli's verdict and exit code come from the
// timeline; the recorded command lines are Hudi's documented utility invocations; no secret is
// printed or put on a command line.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { allFiles, LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { builtCli, makeStandIns, type Call, type StandIns } from './support/engine-standin.ts';

const V6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
const V8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const SPARK_BUNDLE = { 6: '/opt/hudi/hudi-utilities-bundle_2.12-0.15.0.jar', 8: '/opt/hudi/hudi-utilities-bundle_2.12-1.0.2.jar' } as Record<number, string>;
const FLINK_BUNDLE = { 6: '/opt/hudi/hudi-flink1.18-bundle-0.15.0.jar', 8: '/opt/hudi/hudi-flink1.18-bundle-1.0.2.jar' } as Record<number, string>;
const YARN_ID = 'application_1733000000000_0042';
const JOB_ID = '0f2d5c9e8b7a6d5c4b3a2f1e0d9c8b7a';
const TOKEN = 'TOKEN-7f3a9c21e5';
const SPARK_SECRET = 'S3SECRET-4b81d07a';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let si: StandIns;
beforeAll(async () => {
  si = await makeStandIns();
}, 120_000);

function trinoFresh(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
  cpSync(trinoV6Table(), dest, { recursive: true });
  return dest;
}

/** A v8 MOR table without a metadata table: the v8 fixture with its MDT dropped the Hudi way. */
async function v8WithoutMdt(): Promise<string> {
  const base = tableFresh(V8);
  const r = await runCli(['compaction', 'schedule', '--path', base, '--strategy', 'all', '--metadata-table', 'disable']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(existsSync(join(base, '.hoodie', 'metadata'))).toBe(false);
  return base;
}

async function schedule(base: string): Promise<string> {
  const tl = await (await openTable(base)).timeline();
  const pending = tl.instants.find((i) => i.effectiveAction === 'compaction' && i.state === 'REQUESTED');
  if (pending) return pending.requestedTime;
  const s = await runJson<{ scheduled: boolean; instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all']);
  expect(s.scheduled).toBe(true);
  return s.instant;
}

const env = (extra: Record<string, string> = {}) => ({ PATH: si.path, ...extra });

async function stateOf(base: string, instant: string): Promise<string> {
  const tl = await (await openTable(base)).timeline();
  const i = tl.find(instant).filter((x) => x.effectiveAction === 'compaction' || x.stateActions.REQUESTED === 'compaction');
  return i.find((x) => x.state === 'COMPLETED')?.state ?? i.find((x) => x.state === 'INFLIGHT')?.state ?? i[0]?.state ?? 'MISSING';
}

function lastCall(tool = 'spark-submit'): Call {
  const c = si.calls().filter((x) => x.tool === tool);
  return c[c.length - 1]!;
}

const lockArgs = (base: string) => [
  '--hoodie-conf',
  'hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider',
  '--hoodie-conf',
  `hoodie.write.lock.filesystem.path=${base}/.hoodie/.aux`,
  '--hoodie-conf',
  'hoodie.write.lock.filesystem.expire=1',
  '--hoodie-conf',
  'hoodie.write.lock.wait_time_ms=2000',
  '--hoodie-conf',
  'hoodie.write.lock.client.num_retries=30',
];

const sparkArgs = (version: number) => ['--engine', 'spark', '--spark-submit', si.sparkSubmit, '--bundle', SPARK_BUNDLE[version]!];
const flinkArgs = (version: number) => ['--engine', 'flink', '--flink', si.flink, '--bundle', FLINK_BUNDLE[version]!];

function expectNoSecret(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(TOKEN);
    expect(t).not.toContain(SPARK_SECRET);
  }
}

async function expectMdtInStep(base: string): Promise<void> {
  if (existsSync(join(base, '.hoodie', 'metadata'))) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
}

describe.skipIf(!HAVE_FIXTURES)('--engine spark: the planned instant executed by HoodieCompactor', () => {
  const tables: [string, () => Promise<string>][] = [
    ['v6 without a metadata table', async () => tableFresh(V6)],
    ...(HAVE_TRINO_V6 ? ([['v6 with a metadata table (Trino)', async () => trinoFresh()]] as [string, () => Promise<string>][]) : []),
    ['v8 with a metadata table', async () => tableFresh(V8)],
    ['v8 without a metadata table', v8WithoutMdt],
  ];
  for (const [name, make] of tables) {
    it(`${name}: completes; the command line is HoodieCompactor's; YARN id in --json; secrets neither printed nor on the command line`, async () => {
      const base = await make();
      const table = await openTable(base);
      const version = table.config.version;
      const T = await schedule(base);
      si.behave({
        mode: 'complete',
        print: [`24/12/01 10:00:00 INFO Client: Submitted application ${YARN_ID}`, `24/12/01 10:00:05 INFO UtilHelpers: Creating client with configs : {hoodie.metrics.datadog.api.key=${TOKEN}}`],
      });
      const r = await runCli(
        [
          'compaction', 'run', '--path', base, ...sparkArgs(version),
          '--master', 'yarn', '--deploy-mode', 'client', '--queue', 'etl', '--executor-memory', '2g',
          '--parallelism', '8', '--retry', '1',
          '--spark-conf', 'spark.yarn.maxAppAttempts=1', '--spark-conf', `spark.hadoop.fs.s3a.secret.key=${SPARK_SECRET}`,
          '--hoodie-conf', 'hoodie.compact.inline=false', '--hoodie-conf', `hoodie.metrics.datadog.api.key=${TOKEN}`,
          '--json', '--verbose',
        ],
        { env: env() },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j).toMatchObject({ status: 'completed', engine: 'spark', instant: T, state: 'COMPLETED', exitCode: 0, yarnApplicationId: YARN_ID, flinkJobId: null, errorLines: [] });
      expect(await stateOf(base, T)).toBe('COMPLETED');

      const call = lastCall();
      const priv = call.argv[call.argv.indexOf('--properties-file') + 1]!;
      expect(priv).toMatch(/\/tblcli-engine-[^/]+\/spark\.properties$/);
      const dir = priv.slice(0, -'/spark.properties'.length);
      expect(call.argv).toEqual([
        '--class', 'org.apache.hudi.utilities.HoodieCompactor',
        '--master', 'yarn', '--deploy-mode', 'client', '--queue', 'etl', '--executor-memory', '2g',
        '--properties-file', `${dir}/spark.properties`,
        '--conf', 'spark.yarn.maxAppAttempts=1',
        SPARK_BUNDLE[version],
        '--base-path', base, '--table-name', table.config.name, '--instant-time', T, '--mode', 'execute', '--parallelism', '8', '--retry', '1',
        '--props', `${dir}/hudi.properties`,
        ...lockArgs(base),
        '--hoodie-conf', 'hoodie.compact.inline=false',
      ]);
      // the secrets reached the engine through its private files, which are gone afterwards
      expect(call.files[`${dir}/spark.properties`]).toContain(`spark.hadoop.fs.s3a.secret.key=${SPARK_SECRET}`);
      expect(call.files[`${dir}/hudi.properties`]).toContain(`hoodie.metrics.datadog.api.key=${TOKEN}`);
      expect(existsSync(dir)).toBe(false);
      expectNoSecret(r.stdout, r.stderr, JSON.stringify(call.argv));
      expect(r.stderr).toContain('hoodie.metrics.datadog.api.key=*****');
      expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(false);
      expect(existsSync(join(base, '.hoodie', '.aux', 'lock'))).toBe(false);
      await expectMdtInStep(base);
    }, 60_000);
  }
});

describe.skipIf(!HAVE_FIXTURES)('every engine option reaches the engine as the utilities spell it', () => {
  it('spark-submit options and HoodieCompactor arguments, as recorded by the stand-in', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-engine-opts-'));
    writeFileSync(join(dir, 'compactor.properties'), 'hoodie.compact.inline=false\n');
    writeFileSync(join(dir, 'spark.conf'), 'spark.eventLog.enabled true\n');
    si.behave({ mode: 'complete', recordEnv: ['SPARK_HOME'] });
    const r = await runCli(
      [
        'compaction', 'run', '--path', base, '--instant', T, ...sparkArgs(6), '--spark-home', '/opt/spark',
        '--master', 'yarn', '--deploy-mode', 'client', '--name', 'compact-trips', '--queue', 'etl',
        '--driver-memory', '2g', '--executor-memory', '8g', '--executor-cores', '4', '--num-executors', '10',
        '--principal', 'etl@EXAMPLE.COM', '--keytab', '/etc/security/etl.keytab', '--properties-file', join(dir, 'spark.conf'),
        '--jars', '/opt/a.jar,/opt/b.jar', '--spark-conf', 'spark.yarn.maxAppAttempts=1',
        '--props', join(dir, 'compactor.properties'), '--hoodie-conf', 'hoodie.metrics.on=false',
        '--parallelism', '50', '--retry', '2', '--base-path', base, '--lock-expire', '2m',
      ],
      { env: env() },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const call = lastCall();
    expect(call.argv).toEqual([
      '--class', 'org.apache.hudi.utilities.HoodieCompactor',
      '--master', 'yarn', '--deploy-mode', 'client', '--name', 'compact-trips', '--queue', 'etl',
      '--driver-memory', '2g', '--executor-memory', '8g', '--executor-cores', '4', '--num-executors', '10',
      '--principal', 'etl@EXAMPLE.COM', '--keytab', '/etc/security/etl.keytab',
      '--properties-file', join(dir, 'spark.conf'),
      '--jars', '/opt/a.jar,/opt/b.jar',
      '--conf', 'spark.yarn.maxAppAttempts=1',
      SPARK_BUNDLE[6],
      '--base-path', base, '--table-name', 'v6_trips_8i1u', '--instant-time', T, '--mode', 'execute', '--parallelism', '50', '--retry', '2',
      '--props', join(dir, 'compactor.properties'),
      ...lockArgs(base).map((a) => a.replace('hoodie.write.lock.filesystem.expire=1', 'hoodie.write.lock.filesystem.expire=2')),
      '--hoodie-conf', 'hoodie.metrics.on=false',
    ]);
    expect(call.env.SPARK_HOME).toBe('/opt/spark');
    expect(call.files[join(dir, 'compactor.properties')]).toBe('hoodie.compact.inline=false\n');
    expect(await stateOf(base, T)).toBe('COMPLETED');
  }, 60_000);

  it('flink run options and HoodieFlinkCompactor arguments, as recorded by the stand-in', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-engine-opts-'));
    writeFileSync(join(dir, 'flink.properties'), '');
    si.behave({ mode: 'complete', recordEnv: ['FLINK_HOME'] });
    const r = await runCli(
      [
        'compaction', 'run', '--path', base, '--engine', 'flink', '--flink', si.flink, '--flink-home', '/opt/flink', '--bundle', FLINK_BUNDLE[6]!,
        '--target', 'remote', '--jobmanager', 'jm:8081', '--flink-parallelism', '4', '--flink-conf', 'pipeline.name=compact-trips',
        '--jars', '/opt/extra.jar', '--parallelism', '3', '--retry', '1', '--props', join(dir, 'flink.properties'), '--hoodie-conf', 'compaction.max_memory=512',
      ],
      { env: env() },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const call = lastCall('flink');
    expect(call.argv).toEqual([
      'run', '-t', 'remote', '-m', 'jm:8081', '-p', '4', '-Dpipeline.name=compact-trips', '-C', 'file:///opt/extra.jar',
      '-c', 'org.apache.hudi.sink.compact.HoodieFlinkCompactor', FLINK_BUNDLE[6],
      '--path', base, '--plan-select-strategy', 'instants', '--target-instants', T, '--compaction-tasks', '3', '--retry', '1',
      '--props', join(dir, 'flink.properties'),
      ...lockArgs(base),
      '--hoodie-conf', 'compaction.max_memory=512',
    ]);
    expect(call.env.FLINK_HOME).toBe('/opt/flink');
  }, 60_000);
});

describe.skipIf(!HAVE_FIXTURES)('--engine flink: the planned instant executed by HoodieFlinkCompactor', () => {
  for (const id of [V6, V8]) {
    it(`${id}: flink run -c HoodieFlinkCompactor --plan-select-strategy instants --target-instants T; job id in --json`, async () => {
      const base = tableFresh(id);
      const version = (await openTable(base)).config.version;
      const T = await schedule(base);
      si.behave({ mode: 'complete', print: ['Job has been submitted with JobID ' + JOB_ID] });
      const r = await runCli(['compaction', 'run', '--path', base, ...flinkArgs(version), '--target', 'yarn-per-job', '--flink-parallelism', '4', '--flink-conf', 'yarn.application.queue=etl', '--parallelism', '2', '--json'], { env: env() });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', engine: 'flink', instant: T, flinkJobId: JOB_ID, yarnApplicationId: null });
      expect(lastCall('flink').argv).toEqual([
        'run', '-t', 'yarn-per-job', '-p', '4', '-Dyarn.application.queue=etl',
        '-c', 'org.apache.hudi.sink.compact.HoodieFlinkCompactor', FLINK_BUNDLE[version],
        '--path', base, '--plan-select-strategy', 'instants', '--target-instants', T, '--compaction-tasks', '2',
        ...lockArgs(base),
      ]);
      expect(await stateOf(base, T)).toBe('COMPLETED');
      await expectMdtInStep(base);
    }, 60_000);
  }
});

describe.skipIf(!HAVE_FIXTURES)('the verdict is the timeline, not the exit code', () => {
  it('exit 0 without completing the instant → exit 1, the instant is still requested', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({ mode: 'exit0' });
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6)], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('There is no scheduled compaction in the table.');
    expect(r.stderr).toMatch(new RegExp(`error: compaction ${T} did not complete on spark \\(spark exited 0\\); the instant is requested`));
    const j = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--json'], { env: env() });
    expect(j.exitCode).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ status: 'failed', instant: T, state: 'REQUESTED', exitCode: 0 });
    expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(false);
  }, 60_000);

  it('a failure → exit 1 with its last error lines, secrets masked', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({
      mode: 'fail',
      errorLines: ['INFO SparkContext: Running Spark version 3.5.1', `ERROR HoodieCompactor: Fail to run compaction for trips (props ${TOKEN})`, 'org.apache.hudi.exception.HoodieIOException: Could not read commit details', '\tat org.apache.hudi.X.y(X.java:1)'],
      exitCode: 255,
    });
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--hoodie-conf', `hoodie.metrics.datadog.api.key=${TOKEN}`], { env: env() });
    expect(r.exitCode).toBe(1);
    const tail = r.stderr.slice(r.stderr.indexOf('spark error lines:'));
    expect(tail).toBe(
      [
        'spark error lines:',
        '  ERROR HoodieCompactor: Fail to run compaction for trips (props *****)',
        '  org.apache.hudi.exception.HoodieIOException: Could not read commit details',
        `error: compaction ${T} did not complete on spark (spark exited 255); the instant is requested (the next run rolls a failed attempt back and relaunches it)`,
        '',
      ].join('\n'),
    );
    expectNoSecret(r.stdout, r.stderr, JSON.stringify(lastCall().argv));
  }, 60_000);

  it('a non-zero exit after the instant completed → exit 0 with a warning', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({ mode: 'complete', exitCode: 255 });
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6)], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`spark exited 255 after compaction ${T} completed`);
    expect(await stateOf(base, T)).toBe('COMPLETED');
  }, 60_000);

  it('an engine that cannot start → exit 1 naming it; the plan untouched', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const r = await runCli(['compaction', 'run', '--path', base, '--engine', 'spark', '--spark-submit', '/nonexistent/bin/spark-submit', '--bundle', SPARK_BUNDLE[6]!], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`did not complete on spark (/nonexistent/bin/spark-submit: not found); the instant is requested`);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(false);
  }, 60_000);
});

describe.skipIf(!HAVE_FIXTURES)('supervision: --max-duration, signals, the job on the cluster', () => {
  it('--max-duration: the engine gets SIGTERM, the YARN application is killed, exit 1', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({ mode: 'hang', print: [`INFO Client: Submitted application ${YARN_ID}`] });
    const signalsBefore = si.signals().length;
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--master', 'yarn', '--yarn', si.yarn, '--max-duration', '1500ms', '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'stopped', stoppedBy: 'max-duration', state: 'REQUESTED', yarnApplicationId: YARN_ID, signal: null, exitCode: 143 });
    expect(si.signals().slice(signalsBefore)).toEqual([{ tool: 'spark-submit', signal: 'SIGTERM' }]);
    expect(lastCall('yarn').argv).toEqual(['application', '-kill', YARN_ID]);
    expect(await stateOf(base, T)).toBe('REQUESTED');
  }, 60_000);

  it('an engine that ignores the signal is killed after --stop-grace', async () => {
    const base = tableFresh(V6);
    await schedule(base);
    si.behave({ mode: 'hang', ignoreSignals: true });
    const started = Date.now();
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--max-duration', '500ms', '--stop-grace', '700ms', '--json'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'stopped', stoppedBy: 'max-duration', killed: true, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to tblcli is forwarded to the engine; tblcli exits 130 once it is down`, async () => {
      const base = tableFresh(V6);
      const T = await schedule(base);
      si.behave({ mode: 'hang' });
      const signalsBefore = si.signals().length;
      const cli = await builtCli();
      // SIGINT: a local Flink job ends with its client; SIGTERM: on a cluster it may not, and no job id was printed
      const target = signal === 'SIGINT' ? ['--target', 'local'] : ['--target', 'yarn-per-job'];
      const p = spawn(process.execPath, [cli, 'compaction', 'run', '--path', base, ...flinkArgs(6), ...target], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      for (let n = 0; n < 400 && !stderr.includes(`INFO running ${T}`); n++) await sleep(25);
      expect(stderr).toContain(`INFO running ${T}`);
      p.kill(signal);
      const code = await new Promise<number | null>((resolve) => p.on('close', (c) => resolve(c)));
      expect(code, stderr).toBe(130);
      expect(si.signals().slice(signalsBefore)).toEqual([{ tool: 'flink', signal }]);
      expect(stderr).toContain(`error: compaction ${T} did not complete on flink (stopped by ${signal}); the instant is requested`);
      if (signal === 'SIGINT') {
        // the job ended with tblcli: the instant is free for the next run at once
        expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(false);
      } else {
        // it may still run on the cluster: the instant stays claimed until its heartbeat expires
        expect(existsSync(join(base, '.hoodie', '.heartbeat', T))).toBe(true);
        expect(stderr).toContain('no application or job id was seen to cancel the job on the cluster');
        expect(stderr).toContain(`compaction ${T} stays claimed until its heartbeat expires (120000 ms)`);
      }
    }, 60_000);
  }
});

describe.skipIf(!HAVE_FIXTURES)('idempotence: never two engines on one instant; a rerun rolls a failed attempt back', () => {
  it('a second run while the engine runs exits 4 without launching; so does a local run', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    si.behave({ mode: 'hang' });
    const calls = () => si.calls().filter((c) => c.tool === 'spark-submit').length;
    const before = calls();
    const first = runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--max-duration', '4s'], { env: env() });
    for (let n = 0; n < 400 && calls() === before; n++) await sleep(25);
    const second = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--instant', T], { env: env() });
    expect(second.exitCode, second.stderr).toBe(4);
    expect(second.stderr).toMatch(new RegExp(`compaction ${T} is being run by another process`));
    const local = await runCli(['compaction', 'run', '--path', base], { env: env() });
    expect(local.exitCode, local.stderr).toBe(4);
    expect(calls()).toBe(before + 1);
    expect((await first).exitCode).toBe(1);
  }, 60_000);

  it('the table lock held by another writer → exit 4 before anything is launched', async () => {
    const base = tableFresh(V6);
    await schedule(base);
    const { acquireTableLock } = await import('../../src/services/index.ts');
    const { LocalStorage } = await import('../../src/storage/index.ts');
    const lock = await acquireTableLock(new LocalStorage(), join(base, '.hoodie'));
    const n = si.calls().length;
    try {
      const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6)], { env: env() });
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/table lock .*\.hoodie\/\.aux\/lock is held by another writer/);
    } finally {
      await lock.release();
    }
    expect(si.calls().length).toBe(n);
    // spark-submit found on PATH when no --spark-submit, SPARK_HOME or setting names it
    si.behave({ mode: 'complete' });
    const r = await runCli(['compaction', 'run', '--path', base, '--engine', 'spark', '--bundle', SPARK_BUNDLE[6]!], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(si.calls().length).toBe(n + 1);
  }, 60_000);

  it('engine dies half-way → exit 1 (inflight); rerun while its heartbeat lives → exit 4; after expiry the rerun rolls back and relaunches the same instant', async () => {
    const base = tableFresh(V8);
    const T = await schedule(base);
    si.behave({ mode: 'crash', heartbeatExpiryMs: 1000 });
    const crashed = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(8), '--json'], { env: env() });
    expect(crashed.exitCode).toBe(1);
    expect(JSON.parse(crashed.stdout)).toMatchObject({ status: 'failed', state: 'INFLIGHT', instant: T });
    expect(JSON.parse(crashed.stdout).errorLines.join('\n')).toContain('ERROR HoodieCompactor: Fail to run compaction');
    const partial = allFiles(base).filter((f) => !f.includes('/.hoodie/') && f.endsWith(`_${T}.parquet`));
    expect(partial.length).toBeGreaterThan(0);

    const launches = () => si.calls().filter((c) => c.tool === 'spark-submit').length;
    const n = launches();
    const busy = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(8)], { env: env() });
    expect(busy.exitCode, busy.stderr).toBe(4);
    expect(launches()).toBe(n);

    await sleep(1500);
    si.behave({ mode: 'complete' });
    const rerun = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(8), '--heartbeat-expiry', '1s', '--json'], { env: env() });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const j = JSON.parse(rerun.stdout);
    expect(j).toMatchObject({ status: 'completed', instant: T, state: 'COMPLETED' });
    expect(j.rolledBackFiles).toBeGreaterThan(0);
    expect(lastCall().argv[lastCall().argv.indexOf('--instant-time') + 1]).toBe(T);
    const rollbacks = await runJson<{ instant: string; rolledbackInstant: string }[]>(['show', 'rollbacks', '--path', base]);
    expect(rollbacks.find((x) => x.instant === j.rollbackInstant)?.rolledbackInstant).toBe(T);
    // the half-written files went with the rollback; the rerun wrote its own
    const tl = await (await openTable(base)).timeline();
    expect(tl.find(T).some((i) => i.state === 'COMPLETED')).toBe(true);
    await expectMdtInStep(base);
  }, 90_000);
});

describe.skipIf(!HAVE_FIXTURES)('--dry-run, scheduleAndExecute, --engine-log, --engine-conf, usage', () => {
  it('--dry-run prints the command line and writes or launches nothing', async () => {
    const base = tableFresh(V6);
    const T = await schedule(base);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const calls = si.calls().length;
    const r = await runCli(['compaction', 'run', '--path', base, ...sparkArgs(6), '--master', 'yarn', '--hoodie-conf', `hoodie.metrics.datadog.api.key=${TOKEN}`, '--dry-run'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Would run compaction ${T} (1 operation(s)) on spark:\n`);
    expect(r.stdout.split('\n').slice(0, 5)).toEqual([`${si.sparkSubmit} \\`, '  --class org.apache.hudi.utilities.HoodieCompactor \\', '  --master yarn \\', `  ${SPARK_BUNDLE[6]} \\`, `  --base-path ${base} \\`]);
    expect(r.stdout).toContain("--props '$TMPDIR/tblcli-engine-XXXXXX/hudi.properties'");
    expect(r.stdout).toContain('# $TMPDIR/tblcli-engine-XXXXXX/hudi.properties: hoodie.metrics.datadog.api.key=*****');
    expectNoSecret(r.stdout, r.stderr);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(si.calls().length).toBe(calls);

    // scheduleAndExecute --dry-run plans without writing the plan, and shows the command for its instant
    const fresh = tableFresh(V6);
    const freshBefore = treeDigest(fresh, LOCKS_AND_HEARTBEATS);
    const sae = await runCli(['compaction', 'scheduleAndExecute', '--path', fresh, '--strategy', 'all', ...sparkArgs(6), '--dry-run', '--json'], { env: env() });
    expect(sae.exitCode, sae.stderr).toBe(0);
    const j = JSON.parse(sae.stdout);
    expect(j).toMatchObject({ status: 'dry-run', state: 'MISSING' });
    expect(j.command).toContain(`--instant-time ${j.instant} --mode execute`);
    expect(treeDigest(fresh, LOCKS_AND_HEARTBEATS)).toEqual(freshBefore);
    expect(si.calls().length).toBe(calls);
  }, 60_000);

  it('scheduleAndExecute --engine flink schedules with tblcli and executes that instant', async () => {
    const base = tableFresh(V8);
    si.behave({ mode: 'complete', print: ['Job has been submitted with JobID ' + JOB_ID] });
    const r = await runCli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', ...flinkArgs(8), '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ status: 'completed', state: 'COMPLETED', flinkJobId: JOB_ID });
    expect(lastCall('flink').argv).toContain(j.instant);
    await expectMdtInStep(base);
  }, 60_000);

  it('--engine-log takes the output; --engine-conf (YAML and properties) supplies the settings', async () => {
    const base = tableFresh(V6);
    await schedule(base);
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-engine-conf-'));
    writeFileSync(join(dir, 'engine.yaml'), [`engine: spark`, `spark-submit: ${si.sparkSubmit}`, `bundle: ${SPARK_BUNDLE[6]}`, 'master: yarn', 'spark-conf:', '  spark.yarn.maxAppAttempts: "1"', `engine-log: ${join(dir, 'engine.log')}`].join('\n'));
    si.behave({ mode: 'complete', print: [`INFO Client: Submitted application ${YARN_ID}`] });
    const r = await runCli(['compaction', 'run', '--path', base, '--engine-conf', join(dir, 'engine.yaml')], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(join(dir, 'engine.log'), 'utf8')).toContain(`Submitted application ${YARN_ID}`);
    expect(lastCall().argv.slice(0, 6)).toEqual(['--class', 'org.apache.hudi.utilities.HoodieCompactor', '--master', 'yarn', '--conf', 'spark.yarn.maxAppAttempts=1']);

    const base2 = tableFresh(V6);
    await schedule(base2);
    writeFileSync(join(dir, 'engine.properties'), `engine=flink\nflink=${si.flink}\nbundle=${FLINK_BUNDLE[6]}\ntarget=yarn-per-job\nflink-conf.yarn.application.queue=etl\n`);
    const p = await runCli(['compaction', 'run', '--path', base2], { env: env({ TBLCLI_ENGINE_CONF: join(dir, 'engine.properties') }) });
    expect(p.exitCode, p.stderr).toBe(0);
    expect(lastCall('flink').argv.slice(0, 4)).toEqual(['run', '-t', 'yarn-per-job', '-Dyarn.application.queue=etl']);
  }, 60_000);

  it('usage errors before anything is touched', async () => {
    const base = tableFresh(V6);
    await schedule(base);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const cases: [string[], RegExp][] = [
      [['--master', 'yarn'], /--master needs --engine spark or flink/],
      [[...sparkArgs(6), '--codec', 'SNAPPY'], /--codec applies to --engine local/],
      [[...sparkArgs(6), '--metadata-table', 'disable'], /--metadata-table disable applies to --engine local/],
      [[...sparkArgs(6), '--lock-expire', '90s'], /--lock-expire must be whole minutes/],
      [[...sparkArgs(6), '--target', 'yarn-per-job'], /--target applies to --engine flink, not spark/],
      [['--engine', 'spark', '--spark-submit', si.sparkSubmit], /--engine spark needs the Hudi utilities bundle/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(['compaction', 'run', '--path', base, ...args], { env: env() });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(readdirSync(join(base, '.hoodie')).includes('.heartbeat') ? readdirSync(join(base, '.hoodie', '.heartbeat')) : []).toEqual([]);
  }, 60_000);

  it('a local --dry-run shows the plan the run would take and writes nothing (run, scheduleAndExecute, schedule, unschedule)', async () => {
    const base = tableFresh(V6);
    const instant = await schedule(base);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const run = await runCli(['compaction', 'run', '--path', base, '--dry-run', '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as { dryRun: boolean; instant: string; state: string; busy: boolean; operations: unknown[] };
    expect(plan).toMatchObject({ dryRun: true, instant, state: 'REQUESTED', busy: false });
    expect(plan.operations.length).toBeGreaterThan(0);
    const un = await runCli(['compaction', 'unschedule', '--path', base, '--instant', instant, '--dry-run', '--json']);
    expect(JSON.parse(un.stdout)).toMatchObject({ instant, dryRun: true });
    const sae = await runCli(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all', '--dry-run', '--json']);
    expect(sae.exitCode, sae.stderr).toBe(0);
    expect(JSON.parse(sae.stdout)).toMatchObject({ scheduled: false, dryRun: true });
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
  }, 60_000);
});
