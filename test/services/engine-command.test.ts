// Engine settings and command lines (issue 20), without launching anything: the conf-file formats,
// where each setting comes from, and the exact command lines for Hudi's utilities (hudi-cli.md §4:
// HoodieCompactor, HoodieClusteringJob, HoodieCleaner, HoodieFlinkCompactor, HoodieFlinkClusteringJob
// flags as their JCommander configs spell them), secrets kept off the command line and masked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildEngineCommand,
  bundleInfo,
  cancelCommand,
  displayArgv,
  engineOf,
  errorLines,
  idsFromLine,
  lockConf,
  parseEngineConf,
  Redactor,
  resolveEngineSettings,
  type EngineJob,
  type EngineSettings,
  type SettingSources,
} from '../../src/services/engine/index.ts';
import { multiline } from '../../commands/engine-options.ts';

const SPARK_BUNDLE = '/opt/hudi/hudi-utilities-bundle_2.12-0.15.0.jar';
const FLINK_BUNDLE = '/opt/hudi/hudi-flink1.18-bundle-0.15.0.jar';
const BASE = 'hdfs://nn:8020/warehouse/orders';
const LOCK = [
  '--hoodie-conf',
  'hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider',
  '--hoodie-conf',
  'hoodie.write.lock.filesystem.path=hdfs://nn:8020/warehouse/orders/.hoodie/.aux',
  '--hoodie-conf',
  'hoodie.write.lock.filesystem.expire=1',
  '--hoodie-conf',
  'hoodie.write.lock.wait_time_ms=2000',
  '--hoodie-conf',
  'hoodie.write.lock.client.num_retries=30',
];

function job(over: Partial<EngineJob> = {}): EngineJob {
  return { service: 'compaction', basePath: BASE, tableName: 'orders', tableVersion: 6, instant: '20250101000000000', lockExpireMinutes: 1, ...over };
}

function settings(engine: 'spark' | 'flink', flags: SettingSources['flags'], env: Record<string, string> = {}, file?: { path: string; text: string }): EngineSettings {
  return resolveEngineSettings(engine, { flags, env, file: file ? { path: file.path, entries: parseEngineConf(file.text, file.path) } : undefined });
}

const ctx = (files: Record<string, string> = {}, env: Record<string, string> = {}) => ({
  privateDir: '/priv',
  readLocal: async (p: string) => files[p],
  env,
});

describe('--engine-conf formats', () => {
  it('parses the YAML subset: scalars, quotes, comments, flow and block lists, one-level maps', () => {
    const f = parseEngineConf(
      [
        '---',
        '# engine settings',
        'engine: spark',
        'master: yarn   # the cluster',
        "name: 'nightly # compaction'",
        'queue: "etl \\"q\\""',
        'jars: [/opt/a.jar, "/opt/b c.jar"]',
        'spark-conf:',
        '  spark.executor.memoryOverhead: 2g',
        '  "spark.yarn.tags": a:b',
        'hoodie-conf:',
        '',
        '  hoodie.metrics.on: "true"',
        'extra-jars:',
        '  - /x.jar',
        '  - /y.jar',
      ].join('\n'),
      'e.yaml',
    );
    expect(Object.fromEntries([...f].map(([k, v]) => [k, v.value]))).toEqual({
      engine: 'spark',
      master: 'yarn',
      name: 'nightly # compaction',
      queue: 'etl "q"',
      jars: ['/opt/a.jar', '/opt/b c.jar'],
      'spark-conf': { 'spark.executor.memoryOverhead': '2g', 'spark.yarn.tags': 'a:b' },
      'hoodie-conf': { 'hoodie.metrics.on': 'true' },
      'extra-jars': ['/x.jar', '/y.jar'],
    });
    expect(f.get('hoodie-conf')!.line).toBe(11);
  });

  it('names the file and line of what it cannot read', () => {
    expect(() => parseEngineConf('master: yarn\n  stray: 1\n', 'e.yml')).toThrow(/e\.yml:2: unexpected indentation/);
    expect(() => parseEngineConf('spark-conf:\n  a:\n    b: 1\n', 'e.yml')).toThrow(/e\.yml:2: spark-conf\.a needs a value/);
    expect(() => parseEngineConf('jars:\n  - a\n  b: c\n', 'e.yml')).toThrow(/e\.yml:3: jars mixes list items and map entries/);
    expect(() => parseEngineConf("name: 'open\n", 'e.yml')).toThrow(/e\.yml:1: unterminated single-quoted string/);
    expect(() => parseEngineConf('master: yarn\nmaster: local\n', 'e.yml')).toThrow(/e\.yml:2: master is set twice \(first on line 1\)/);
    expect(() => parseEngineConf('conf: {a: 1}\n', 'e.yml')).toThrow(/flow maps are not supported/);
  });

  it('reads .properties, and sniffs the format of other names', () => {
    const p = parseEngineConf('# c\nengine=flink\ntarget = yarn-per-job\nflink-conf.taskmanager.memory.process.size=4g\n', 'e.properties');
    expect(Object.fromEntries([...p].map(([k, v]) => [k, v.value]))).toEqual({ engine: 'flink', target: 'yarn-per-job', 'flink-conf.taskmanager.memory.process.size': '4g' });
    expect(parseEngineConf('master: yarn\nspark-conf:\n  a.b: c\n', 'engine').get('spark-conf')!.value).toEqual({ 'a.b': 'c' });
    expect(parseEngineConf('master=yarn\n', 'engine').get('master')!.value).toBe('yarn');
  });
});

describe('engine settings: flags, then the environment, then the file', () => {
  const file = { path: 'e.yaml', text: 'engine: spark\nmaster: yarn\nqueue: file-q\nbundle: /f/hudi-utilities-bundle_2.12-0.15.0.jar\nspark.executor.memoryOverhead: 1g\nspark-conf:\n  spark.yarn.maxAppAttempts: "1"\nhoodie.metrics.on: "true"\n' };

  it('takes the first source that sets a key; maps merge key by key with flags last', () => {
    const s = settings('spark', { queue: 'flag-q', 'spark-conf': { 'spark.yarn.maxAppAttempts': '2' } }, { TBLCLI_ENGINE_QUEUE: 'env-q', TBLCLI_ENGINE_MASTER: 'local[2]', SPARK_HOME: '/opt/spark' }, file) as import('../../src/services/engine/index.ts').SparkSettings;
    expect(s.queue).toBe('flag-q');
    expect(s.master).toBe('local[2]');
    expect(s.sources.master).toBe('TBLCLI_ENGINE_MASTER');
    expect(s.bundle).toBe('/f/hudi-utilities-bundle_2.12-0.15.0.jar');
    expect(s.sources.bundle).toBe('e.yaml:4');
    expect(s.sparkSubmit).toBe('/opt/spark/bin/spark-submit');
    expect(s.sparkConf).toEqual({ 'spark.executor.memoryOverhead': '1g', 'spark.yarn.maxAppAttempts': '2' });
    expect(s.hoodieConf).toEqual({ 'hoodie.metrics.on': 'true' });
    expect(s.yarn).toBe('yarn');
    expect(settings('spark', { bundle: SPARK_BUNDLE }, { HADOOP_HOME: '/opt/hadoop' }).yarn).toBe('/opt/hadoop/bin/yarn');
  });

  it('chooses the engine from --engine, TBLCLI_ENGINE, then the file; local by default', () => {
    const f = { path: 'e.yaml', entries: parseEngineConf(file.text, 'e.yaml') };
    expect(engineOf({ flags: {}, env: {} })).toBe('local');
    expect(engineOf({ flags: {}, env: {}, file: f })).toBe('spark');
    expect(engineOf({ flags: {}, env: { TBLCLI_ENGINE: 'flink' }, file: f })).toBe('flink');
    expect(engineOf({ flags: { engine: 'local' }, env: { TBLCLI_ENGINE: 'flink' }, file: f })).toBe('local');
    expect(() => engineOf({ flags: { engine: 'hive' }, env: {} })).toThrow(/engine \(--engine\): must be local, spark, flink, got 'hive'/);
  });

  it('refuses what does not fit, naming where it came from', () => {
    expect(() => settings('spark', {})).toThrow(/--engine spark needs the Hudi utilities bundle/);
    expect(() => settings('flink', { bundle: FLINK_BUNDLE, master: 'yarn' })).toThrow(/--master applies to --engine spark, not flink/);
    expect(() => settings('spark', { bundle: SPARK_BUNDLE }, { TBLCLI_ENGINE_EXECUTOR_CORES: 'four' })).toThrow(/executor-cores \(TBLCLI_ENGINE_EXECUTOR_CORES\): expected a whole number/);
    expect(() => settings('spark', {}, {}, { path: 'e.yaml', text: 'bundle: /b.jar\nmastr: yarn\n' })).toThrow(/e\.yaml:2: unknown engine setting 'mastr'/);
    expect(() => settings('spark', { bundle: SPARK_BUNDLE, 'deploy-mode': 'cluster', master: 'local[*]' })).toThrow(/cannot run on master local/);
    expect(() => settings('spark', { bundle: SPARK_BUNDLE, principal: 'etl@X' })).toThrow(/--principal and --keytab go together/);
    // keys of the other engine in a shared file are ignored
    expect(settings('flink', {}, {}, { path: 'e.yaml', text: `bundle: ${FLINK_BUNDLE}\nmaster: yarn\ntarget: yarn-per-job\n` }).engine).toBe('flink');
  });
});

describe('spark-submit command lines', () => {
  const full = {
    bundle: SPARK_BUNDLE,
    'spark-submit': '/opt/spark/bin/spark-submit',
    master: 'yarn',
    'deploy-mode': 'cluster',
    name: 'compact-orders',
    queue: 'etl',
    'driver-memory': '2g',
    'executor-memory': '8g',
    'executor-cores': '4',
    'num-executors': '10',
    principal: 'etl@EXAMPLE.COM',
    keytab: '/etc/security/etl.keytab',
    'properties-file': '/etc/spark/compaction.conf',
    jars: '/opt/a.jar,/opt/b.jar',
    'spark-conf': { 'spark.yarn.maxAppAttempts': '1', 'spark.dynamicAllocation.enabled': 'false' },
    props: 'hdfs://nn:8020/conf/compactor.properties',
    'hoodie-conf': { 'hoodie.metrics.on': 'true' },
    parallelism: 50,
    retry: '1',
  };

  it('HoodieCompactor with every supported option', async () => {
    const c = await buildEngineCommand(settings('spark', full), job(), ctx());
    expect(c.argv).toEqual([
      '/opt/spark/bin/spark-submit',
      '--class',
      'org.apache.hudi.utilities.HoodieCompactor',
      '--master',
      'yarn',
      '--deploy-mode',
      'cluster',
      '--name',
      'compact-orders',
      '--queue',
      'etl',
      '--driver-memory',
      '2g',
      '--executor-memory',
      '8g',
      '--executor-cores',
      '4',
      '--num-executors',
      '10',
      '--principal',
      'etl@EXAMPLE.COM',
      '--keytab',
      '/etc/security/etl.keytab',
      '--properties-file',
      '/etc/spark/compaction.conf',
      '--jars',
      '/opt/a.jar,/opt/b.jar',
      '--conf',
      'spark.yarn.maxAppAttempts=1',
      '--conf',
      'spark.dynamicAllocation.enabled=false',
      SPARK_BUNDLE,
      '--base-path',
      BASE,
      '--table-name',
      'orders',
      '--instant-time',
      '20250101000000000',
      '--mode',
      'execute',
      '--parallelism',
      '50',
      '--retry',
      '1',
      '--props',
      'hdfs://nn:8020/conf/compactor.properties',
      ...LOCK,
      '--hoodie-conf',
      'hoodie.metrics.on=true',
    ]);
    expect(c.files).toEqual([]);
    expect(c.warnings).toEqual([]);
  });

  it('the minimal HoodieCompactor line, and HoodieClusteringJob / HoodieCleaner lines', async () => {
    const s = settings('spark', { bundle: SPARK_BUNDLE });
    expect((await buildEngineCommand(s, job(), ctx())).argv).toEqual([
      'spark-submit',
      '--class',
      'org.apache.hudi.utilities.HoodieCompactor',
      SPARK_BUNDLE,
      '--base-path',
      BASE,
      '--table-name',
      'orders',
      '--instant-time',
      '20250101000000000',
      '--mode',
      'execute',
      ...LOCK,
    ]);
    // HoodieClusteringJob.Config: --spark-memory is required and becomes spark.executor.memory
    const cl = await buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE, 'executor-memory': '6g', parallelism: 4 }), job({ service: 'clustering' }), ctx());
    expect(cl.argv).toEqual([
      'spark-submit',
      '--class',
      'org.apache.hudi.utilities.HoodieClusteringJob',
      '--executor-memory',
      '6g',
      SPARK_BUNDLE,
      '--base-path',
      BASE,
      '--table-name',
      'orders',
      '--instant-time',
      '20250101000000000',
      '--mode',
      'execute',
      '--spark-memory',
      '6g',
      '--parallelism',
      '4',
      ...LOCK,
    ]);
    // HoodieCleaner.Config: --target-base-path, --props, --hoodie-conf (no instant, parallelism or retry)
    const clean = await buildEngineCommand(s, job({ service: 'clean', instant: undefined }), ctx());
    // multiple cleans off (both spellings): with tblcli's plan pending, HoodieCleaner schedules none of its own
    const noMultiple = ['--hoodie-conf', 'hoodie.clean.multiple.enabled=false', '--hoodie-conf', 'hoodie.clean.allow.multiple=false'];
    expect(clean.argv).toEqual(['spark-submit', '--class', 'org.apache.hudi.utilities.HoodieCleaner', SPARK_BUNDLE, '--target-base-path', BASE, ...LOCK, ...noMultiple]);
    await expect(buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE, 'hoodie-conf': { 'hoodie.clean.allow.multiple': 'true' } }), job({ service: 'clean' }), ctx())).rejects.toThrow(/hoodie.clean.allow.multiple is set by tblcli/);
    await expect(buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE, retry: '2' }), job({ service: 'clean' }), ctx())).rejects.toThrow(/HoodieCleaner takes neither --parallelism nor --retry/);
  });

  it('secret confs go to private files, never on the command line; spark-defaults.conf is carried over', async () => {
    const s = settings('spark', {
      bundle: SPARK_BUNDLE,
      'spark-home': '/opt/spark',
      master: 'k8s://https://k8s.example:6443',
      'spark-conf': { 'spark.kubernetes.authenticate.submission.oauthToken': 'TOKEN-abc123', 'spark.kubernetes.namespace': 'etl' },
      props: '/etc/hudi/compactor.properties',
      'hoodie-conf': { 'hoodie.metrics.datadog.api.key': 'DDKEY-456', 'hoodie.metrics.on': 'true' },
    });
    const c = await buildEngineCommand(s, job(), ctx({ '/opt/spark/conf/spark-defaults.conf': 'spark.eventLog.enabled true\n', '/etc/hudi/compactor.properties': 'hoodie.compact.inline=false\nhoodie.aws.secret.key=FILESECRET9\n' }));
    const line = c.argv.join(' ');
    expect(line).not.toContain('TOKEN-abc123');
    expect(line).not.toContain('DDKEY-456');
    expect(c.argv).toContain('--conf');
    expect(c.argv[c.argv.indexOf('--properties-file') + 1]).toBe('/priv/spark.properties');
    expect(c.argv[c.argv.indexOf('--props') + 1]).toBe('/priv/hudi.properties');
    const text = (p: string) => Buffer.from(c.files.find((f) => f.path === p)!.content).toString('latin1');
    expect(text('/priv/spark.properties')).toMatch(/^spark\.eventLog\.enabled true\n#secret settings added by tblcli\n#.*\nspark\.kubernetes\.authenticate\.submission\.oauthToken=TOKEN-abc123\n$/);
    expect(text('/priv/hudi.properties')).toMatch(/^hoodie\.compact\.inline=false\nhoodie\.aws\.secret\.key=FILESECRET9\n#secret settings added by tblcli\n#.*\nhoodie\.metrics\.datadog\.api\.key=DDKEY-456\n$/);
    expect(c.files.map((f) => f.shown)).toEqual([
      ['(the content of /etc/hudi/compactor.properties)', 'hoodie.metrics.datadog.api.key=*****'],
      ['(the content of /opt/spark/conf/spark-defaults.conf)', 'spark.kubernetes.authenticate.submission.oauthToken=*****'],
    ]);
    // the engine's log of what it read is masked for the props file's secrets too
    expect(c.secrets.sort()).toEqual(['DDKEY-456', 'FILESECRET9', 'TOKEN-abc123']);
    expect(c.display).not.toMatch(/TOKEN|DDKEY/);
  });

  it('refuses what it cannot pass safely or that would not share the lock', async () => {
    const remote = settings('spark', { bundle: SPARK_BUNDLE, 'deploy-mode': 'cluster', 'hoodie-conf': { 'hoodie.aws.secret.key': 'S3CR3T' } });
    await expect(buildEngineCommand(remote, job(), ctx())).rejects.toThrow(/secret Hudi settings \(hoodie\.aws\.secret\.key\) cannot reach a driver running on the cluster/);
    await expect(buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE, 'hoodie-conf': { 'hoodie.write.lock.provider': 'x.Zk' } }), job(), ctx())).rejects.toThrow(/hoodie\.write\.lock\.provider is set by tblcli/);
    await expect(buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE, props: '/p.properties' }), job(), ctx({ '/p.properties': 'hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider\n' }))).rejects.toThrow(/share the table lock only through/);
    await expect(buildEngineCommand(settings('spark', { bundle: 'https://user:pw@repo.example/hudi-utilities-bundle_2.12-0.15.0.jar' }), job(), ctx())).rejects.toThrow(/bundle carries a password in the URL/);
    await expect(buildEngineCommand(settings('spark', { bundle: FLINK_BUNDLE }), job(), ctx())).rejects.toThrow(/is a Hudi Flink bundle/);
    await expect(buildEngineCommand(settings('spark', { bundle: '/opt/hudi-spark3.5-bundle_2.12-1.0.2.jar' }), job(), ctx())).rejects.toThrow(/has no org\.apache\.hudi\.utilities\.HoodieCompactor/);
    await expect(buildEngineCommand(settings('spark', { bundle: SPARK_BUNDLE }), job({ tableVersion: 8 }), ctx())).rejects.toThrow(/Hudi 0\.15\.0, which cannot read table version 8/);
    const upgrade = await buildEngineCommand(settings('spark', { bundle: '/opt/hudi-utilities-bundle_2.12-1.0.2.jar' }), job({ tableVersion: 6 }), ctx());
    expect(upgrade.warnings.join('\n')).toMatch(/unless hoodie\.write\.table\.version=6 .* it upgrades this table-version-6 table/);
  });
});

describe('flink run command lines', () => {
  it('HoodieFlinkCompactor with every supported option', async () => {
    const s = settings('flink', {
      bundle: FLINK_BUNDLE,
      'flink-home': '/opt/flink',
      target: 'yarn-per-job',
      jobmanager: 'jm:8081',
      'flink-parallelism': '8',
      'flink-conf': { 'taskmanager.memory.process.size': '4g', 'yarn.application.queue': 'etl' },
      jars: '/opt/extra.jar,hdfs://nn/jars/udf.jar',
      parallelism: 16,
      retry: '2',
      props: '/etc/hudi/flink.properties',
      'hoodie-conf': { 'compaction.max_memory': '512' },
    });
    const c = await buildEngineCommand(s, job(), ctx({ '/etc/hudi/flink.properties': '' }));
    expect(c.argv).toEqual([
      '/opt/flink/bin/flink',
      'run',
      '-t',
      'yarn-per-job',
      '-m',
      'jm:8081',
      '-p',
      '8',
      '-Dtaskmanager.memory.process.size=4g',
      '-Dyarn.application.queue=etl',
      '-C',
      'file:///opt/extra.jar',
      '-C',
      'hdfs://nn/jars/udf.jar',
      '-c',
      'org.apache.hudi.sink.compact.HoodieFlinkCompactor',
      FLINK_BUNDLE,
      '--path',
      BASE,
      '--plan-select-strategy',
      'instants',
      '--target-instants',
      '20250101000000000',
      '--compaction-tasks',
      '16',
      '--retry',
      '2',
      '--props',
      '/etc/hudi/flink.properties',
      ...LOCK,
      '--hoodie-conf',
      'compaction.max_memory=512',
    ]);
  });

  it('HoodieFlinkClusteringJob; no Flink cleaner; secret -D refused', async () => {
    const s = settings('flink', { bundle: FLINK_BUNDLE, parallelism: 3 });
    expect((await buildEngineCommand(s, job({ service: 'clustering' }), ctx())).argv).toEqual([
      'flink',
      'run',
      '-c',
      'org.apache.hudi.sink.clustering.HoodieFlinkClusteringJob',
      FLINK_BUNDLE,
      '--path',
      BASE,
      '--instant-time',
      '20250101000000000',
      '--clustering-tasks',
      '3',
      ...LOCK,
    ]);
    await expect(buildEngineCommand(s, job({ service: 'clean' }), ctx())).rejects.toThrow(/no Flink cleaner/);
    await expect(buildEngineCommand(settings('flink', { bundle: FLINK_BUNDLE, 'flink-conf': { 's3.secret-key': 'x' } }), job(), ctx())).rejects.toThrow(/secret Flink settings \(s3\.secret-key\)/);
    await expect(buildEngineCommand(settings('flink', { bundle: SPARK_BUNDLE }), job(), ctx())).rejects.toThrow(/is a Hudi Spark bundle/);
    // a Flink application runs main() on the cluster: a private --props file would not be there
    await expect(buildEngineCommand(settings('flink', { bundle: FLINK_BUNDLE, target: 'yarn-application', 'hoodie-conf': { 'hoodie.x.password': 'p' } }), job(), ctx())).rejects.toThrow(/job main running on the cluster/);
  });
});

describe('printing, ids and cancelling', () => {
  it('masks secret values, URL credentials and signed URLs; quotes for the shell', () => {
    expect(displayArgv(['spark-submit', '--conf', 'spark.ssl.keyPassword=hunter2', '-Ds3.access-key=AKIA', 'https://u:pw@h/x.jar', 'https://h/x.jar?sv=1&sig=abc', "it's"])).toBe(
      "spark-submit --conf 'spark.ssl.keyPassword=*****' '-Ds3.access-key=*****' 'https://u:*****@h/x.jar' 'https://h/x.jar?sv=1&sig=*****' 'it'\\''s'",
    );
    const r = new Redactor(['TOKEN-abc123', 'ab']);
    expect(r.redact('auth TOKEN-abc123 for hdfs://etl:pw@nn/x, ab')).toBe('auth ***** for hdfs://etl:*****@nn/x, ab');
    expect(multiline('flink run -t yarn-per-job -Da=b -c Main b.jar --path /t --hoodie-conf k=v')).toBe(
      'flink run \\\n  -t yarn-per-job \\\n  -Da=b \\\n  -c Main \\\n  b.jar \\\n  --path /t \\\n  --hoodie-conf k=v',
    );
  });

  it('finds YARN application, Flink job and Kubernetes submission ids in engine output', () => {
    const ids = {};
    for (const l of [
      '24/01/01 10:00:00 INFO Client: Submitted application application_1700000000000_0042',
      'Job has been submitted with JobID 0f2d5c9e8b7a6d5c4b3a2f1e0d9c8b7a',
      'INFO LoggingPodStatusWatcherImpl: Deployed Spark application compactor with application ID spark-1 and submission ID etl:compactor-driver into Kubernetes',
      'INFO Client: Submitted application application_1700000000000_0099',
    ])
      idsFromLine(l, ids);
    expect(ids).toEqual({ yarnApplicationId: 'application_1700000000000_0042', flinkJobId: '0f2d5c9e8b7a6d5c4b3a2f1e0d9c8b7a', kubernetesSubmissionId: 'etl:compactor-driver' });
    expect(errorLines(['INFO a', 'ERROR HoodieCompactor: Fail to run compaction for t', 'org.apache.hudi.exception.HoodieException: boom', '\tat org.x.Y(Y.java:1)', 'INFO shutdown'])).toEqual([
      'ERROR HoodieCompactor: Fail to run compaction for t',
      'org.apache.hudi.exception.HoodieException: boom',
    ]);
    expect(errorLines(['INFO a', 'INFO b'])).toEqual(['INFO a', 'INFO b']);
  });

  it('stops the job on the cluster: yarn application -kill, spark-submit --kill, flink cancel', () => {
    const spark = settings('spark', { bundle: SPARK_BUNDLE, master: 'k8s://https://k:6443' });
    expect(cancelCommand(spark, { yarnApplicationId: 'application_1_0001' })).toEqual(['yarn', 'application', '-kill', 'application_1_0001']);
    expect(cancelCommand(spark, { kubernetesSubmissionId: 'etl:c-driver' })).toEqual(['spark-submit', '--master', 'k8s://https://k:6443', '--kill', 'etl:c-driver']);
    expect(cancelCommand(settings('flink', { bundle: FLINK_BUNDLE, target: 'remote', jobmanager: 'jm:8081' }), { flinkJobId: 'f'.repeat(32) })).toEqual(['flink', 'cancel', '-t', 'remote', '-m', 'jm:8081', 'f'.repeat(32)]);
    expect(cancelCommand(spark, {})).toBeUndefined();
  });

  it('lock settings are FileSystemBasedLockProvider.getLockConfig with tblcli expiry', () => {
    expect(lockConf('/t/', 3)).toEqual({
      'hoodie.write.lock.provider': 'org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider',
      'hoodie.write.lock.filesystem.path': '/t/.hoodie/.aux',
      'hoodie.write.lock.filesystem.expire': '3',
      'hoodie.write.lock.wait_time_ms': '2000',
      'hoodie.write.lock.client.num_retries': '30',
    });
    expect(bundleInfo('hdfs://nn/jars/hudi-utilities-slim-bundle_2.12-1.0.2.jar')).toEqual({ kind: 'utilities-slim', version: [1, 0, 2] });
    expect(bundleInfo('/x/custom.jar')).toEqual({ kind: undefined, version: undefined });
  });

  it('reads an engine conf file given by path, relative to the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-econf-'));
    writeFileSync(join(dir, 'engine.yaml'), `engine: flink\nbundle: ${FLINK_BUNDLE}\ntarget: yarn-per-job\n`);
    const { loadEngineSettings } = await import('../../src/services/engine/index.ts');
    const l = await loadEngineSettings({ flags: {}, env: {}, cwd: dir, confPath: 'engine.yaml' });
    expect(l.engine).toBe('flink');
    expect(l.settings).toMatchObject({ engine: 'flink', target: 'yarn-per-job', bundle: FLINK_BUNDLE });
    await expect(loadEngineSettings({ flags: {}, env: {}, cwd: dir, confPath: 'missing.yaml' })).rejects.toThrow(/engine conf missing\.yaml: /);
    await expect(loadEngineSettings({ flags: { master: 'yarn' }, env: {}, cwd: dir })).rejects.toThrow(/--master needs --engine spark or flink/);
    expect((await loadEngineSettings({ flags: { parallelism: 4 }, env: {}, cwd: dir })).engine).toBe('local');
  });
});
