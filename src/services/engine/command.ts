// The command line tblcli launches: spark-submit or `flink run` of Hudi's own offline table-service
// utilities (hudi-cli.md §4), with exactly the arguments their JCommander configs accept:
//
//   spark-submit --class org.apache.hudi.utilities.HoodieCompactor [spark options] <bundle>
//     --base-path B --table-name N --instant-time T --mode execute [--parallelism P] [--retry R]
//     [--props F] --hoodie-conf k=v …
//   flink run [-t target] [-m jm] [-p n] [-Dk=v …] -c org.apache.hudi.sink.compact.HoodieFlinkCompactor
//     <bundle> --path B --plan-select-strategy instants --target-instants T [--compaction-tasks P] …
//
// The lock settings tblcli adds (format-timeline.md §8.1: FileSystemBasedLockProvider.getLockConfig,
// the lock file `<base>/.hoodie/.aux/lock`) make the engine and tblcli exclude each other: with a lock
// provider set, HoodieWriteConfig.isLockRequired() is true even for a single writer.
//
// Secrets never go on the command line (every user of the machine can read it): secret Spark confs go
// to a private copy of the Spark properties file (`--properties-file`, spark-defaults.conf merged in as
// spark-submit would have read it), secret Hudi settings to a private `--props` file.
import { TblError } from '../../errors/index.ts';
import { formatProperties, parseProperties } from '../../config/index.ts';
import { joinPath } from '../../util/index.ts';
import { isSecretKey, maskPair, maskUrl, shellLine, urlCredential, MASK } from './secrets.ts';
import { driverIsRemote, type EngineSettings, type FlinkSettings, type SparkSettings } from './settings.ts';

export type ServiceKind = 'compaction' | 'clustering' | 'clean';

export interface EngineJob {
  service: ServiceKind;
  /** the table's base path as the engine opens it */
  basePath: string;
  tableName: string;
  tableVersion: number;
  /** the planned instant (compaction, clustering) */
  instant?: string;
  /** FileSystemBasedLockProvider expiry in whole minutes (hoodie.write.lock.filesystem.expire) */
  lockExpireMinutes: number;
  /** clustering: the plan's sort columns (HoodieFlinkClusteringJob sorts by --sort-columns, not by the plan) */
  sortColumns?: string[];
  /** clustering: the order to write in (Spark reads hoodie.layout.optimize.strategy at execution, not the plan) */
  layout?: 'linear' | 'z-order' | 'hilbert';
}

/** A file written (mode 0600, in a 0700 directory) before the launch and removed after it. */
export interface PrivateFile {
  path: string;
  content: Uint8Array;
  /** its entries as printed: secret values masked */
  shown: string[];
}

export interface EngineCommand {
  engine: 'spark' | 'flink';
  argv: string[];
  files: PrivateFile[];
  /** values never to print (engine output is filtered through them) */
  secrets: string[];
  warnings: string[];
  /** the command line as printed: shell-quoted, credentials masked */
  display: string;
}

export const MAIN_CLASS = {
  spark: {
    compaction: 'org.apache.hudi.utilities.HoodieCompactor',
    clustering: 'org.apache.hudi.utilities.HoodieClusteringJob',
    clean: 'org.apache.hudi.utilities.HoodieCleaner',
  },
  flink: {
    compaction: 'org.apache.hudi.sink.compact.HoodieFlinkCompactor',
    clustering: 'org.apache.hudi.sink.clustering.HoodieFlinkClusteringJob',
  },
} as const;

const LAYOUT_KEY = 'hoodie.layout.optimize.strategy';

export const LOCK_PROVIDER = 'org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider';

/** FileSystemBasedLockProvider.getLockConfig(basePath), with tblcli's expiry. */
export function lockConf(basePath: string, expireMinutes: number): Record<string, string> {
  return {
    'hoodie.write.lock.provider': LOCK_PROVIDER,
    'hoodie.write.lock.filesystem.path': `${basePath.replace(/\/+$/, '')}/.hoodie/.aux`,
    'hoodie.write.lock.filesystem.expire': String(expireMinutes),
    'hoodie.write.lock.wait_time_ms': '2000',
    'hoodie.write.lock.client.num_retries': '30',
  };
}

/** hoodie.clean.multiple.enabled (1.x) and its 0.x name hoodie.clean.allow.multiple (0.11–0.14 default true). */
export const MULTIPLE_CLEANS_KEYS: readonly string[] = ['hoodie.clean.multiple.enabled', 'hoodie.clean.allow.multiple'];

export interface BuildContext {
  /** directory for private files (0700; created by the caller) */
  privateDir: string;
  /** reads a local file's text, undefined when absent */
  readLocal: (path: string) => Promise<string | undefined>;
  env: Record<string, string | undefined>;
}

function usage(message: string, hint?: string): TblError {
  return new TblError('usage', message, { hint });
}

const isLocalPath = (p: string) => !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p) || p.startsWith('file:');
const localPathOf = (p: string) => (p.startsWith('file://') ? p.slice('file://'.length) : p.startsWith('file:') ? p.slice('file:'.length) : p);

/** What a Hudi bundle's file name says about it (hudi-utilities-bundle_2.12-0.15.0.jar …). */
export function bundleInfo(bundle: string): { kind?: 'utilities' | 'utilities-slim' | 'spark' | 'flink'; version?: [number, number, number] } {
  const name = bundle.split('/').pop() ?? bundle;
  const kind = /hudi-utilities-slim-bundle/.test(name)
    ? 'utilities-slim'
    : /hudi-utilities-bundle/.test(name)
      ? 'utilities'
      : /hudi-spark[\d.]*-bundle/.test(name)
        ? 'spark'
        : /hudi-flink[\d.]*-bundle/.test(name)
          ? 'flink'
          : undefined;
  const v = /-(\d+)\.(\d+)\.(\d+)(?:[-.][\w.-]*)?\.jar$/.exec(name);
  return { kind, version: v ? [Number(v[1]), Number(v[2]), Number(v[3])] : undefined };
}

/** Refuses a bundle that cannot run this service on this table; returns warnings. */
function checkBundle(s: EngineSettings, job: EngineJob): string[] {
  const { kind, version } = bundleInfo(s.bundle);
  const warnings: string[] = [];
  if (s.engine === 'spark' && kind === 'flink') throw usage(`${s.bundle} is a Hudi Flink bundle; --engine spark needs hudi-utilities-bundle`);
  if (s.engine === 'flink' && kind && kind !== 'flink') throw usage(`${s.bundle} is a Hudi Spark bundle; --engine flink needs hudi-flink<version>-bundle`);
  if (s.engine === 'spark' && kind === 'spark') {
    throw usage(`${s.bundle} has no ${MAIN_CLASS.spark[job.service]}: the Hudi utilities live in hudi-utilities-bundle (or hudi-utilities-slim-bundle plus this jar in --jars)`);
  }
  if (s.engine === 'spark' && kind === 'utilities-slim' && !s.jars.some((j) => /hudi-spark[\d.]*-bundle/.test(j))) {
    warnings.push(`${s.bundle} is the slim utilities bundle: it also needs the hudi-spark bundle in --jars`);
  }
  if (version && version[0] === 0 && job.tableVersion >= 8) {
    throw usage(`${s.bundle} is Hudi ${version.join('.')}, which cannot read table version ${job.tableVersion}; use a Hudi 1.x bundle`);
  }
  if (version && version[0] >= 1 && job.tableVersion < 8 && s.hoodieConf['hoodie.write.table.version'] === undefined && s.hoodieConf['hoodie.write.auto.upgrade'] !== 'false') {
    warnings.push(
      `${s.bundle} is Hudi ${version.join('.')}: unless hoodie.write.table.version=${job.tableVersion} (or hoodie.write.auto.upgrade=false) is set, it upgrades this table-version-${job.tableVersion} table, and 0.x readers cannot read it afterwards`,
    );
  }
  return warnings;
}

function refuseCredentials(s: EngineSettings): void {
  const urls: [string, string | undefined][] = [
    ['bundle', s.bundle],
    ['props', s.props],
    ...s.jars.map((j): [string, string] => ['jars', j]),
    ...(s.engine === 'spark' ? ([['master', s.master], ['properties-file', s.propertiesFile]] as [string, string | undefined][]) : []),
  ];
  for (const [key, v] of urls) {
    const why = v === undefined ? undefined : urlCredential(v);
    if (why) throw usage(`${key} carries ${why}: it would be visible in the process list of this machine`, 'use a path or a URI without credentials');
  }
}

/** Values of the secret keys in a properties file's text. */
function secretValuesOf(text: string): string[] {
  try {
    return [...parseProperties(Buffer.from(text, 'latin1'))].filter(([k]) => isSecretKey(k)).map(([, v]) => v);
  } catch {
    return [];
  }
}

/** Properties text that re-states `base` (a properties file's text) and then sets `extra`. */
function propertiesWith(base: string | undefined, extra: Record<string, string>): Uint8Array {
  const tail = Buffer.from(formatProperties(new Map(Object.entries(extra)), 'secret settings added by tblcli', new Date())).toString('latin1');
  const head = base === undefined || base === '' ? '' : base.endsWith('\n') ? base : `${base}\n`;
  return Buffer.from(head + tail, 'latin1');
}

/** The Hudi settings: tblcli's lock settings, then the user's; secret ones moved to a private --props. */
async function hudiSettings(s: EngineSettings, job: EngineJob, ctx: BuildContext, files: PrivateFile[]): Promise<{ props?: string; conf: string[]; secrets: string[] }> {
  for (const k of Object.keys(s.hoodieConf)) {
    if (k.startsWith('hoodie.write.lock.')) {
      throw usage(`${k} is set by tblcli: the engine must take the same lock as tblcli (${LOCK_PROVIDER} at ${job.basePath}/.hoodie/.aux/lock)`, 'use --lock-expire for the lock expiry');
    }
  }
  if (job.service === 'clean') {
    for (const k of Object.keys(s.hoodieConf)) {
      if (MULTIPLE_CLEANS_KEYS.includes(k)) throw usage(`${k} is set by tblcli: HoodieCleaner must only execute the pending clean tblcli planned, not schedule one of its own`);
    }
  }
  let userProps: string | undefined;
  if (s.props && isLocalPath(s.props)) {
    userProps = await ctx.readLocal(localPathOf(s.props));
    if (userProps === undefined) throw usage(`props file ${s.props} not found`);
    const provider = /^\s*hoodie\.write\.lock\.provider\s*[=:\s]\s*(\S+)/m.exec(userProps)?.[1];
    if (provider && provider !== LOCK_PROVIDER) {
      throw usage(`${s.props} sets hoodie.write.lock.provider=${provider}; tblcli and the engine share the table lock only through ${LOCK_PROVIDER}`);
    }
  }
  const plain: Record<string, string> = { ...lockConf(job.basePath, job.lockExpireMinutes) };
  // with a clean pending and multiple cleans off, client.clean() schedules nothing and executes the pending plans
  if (job.service === 'clean') for (const k of MULTIPLE_CLEANS_KEYS) plain[k] = 'false';
  const secret: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.hoodieConf)) (isSecretKey(k) ? secret : plain)[k] = v;
  // the layout the clustering was planned (or asked) with; the service resolved it over the user's settings
  if (job.service === 'clustering' && s.engine === 'spark' && job.layout) plain[LAYOUT_KEY] = job.layout;
  let props = s.props;
  if (Object.keys(secret).length > 0) {
    const keys = Object.keys(secret).join(', ');
    if (driverIsRemote(s)) {
      throw usage(`secret Hudi settings (${keys}) cannot reach a ${s.engine === 'spark' ? 'driver' : 'job main'} running on the cluster without the command line`, 'put them in a properties file on shared storage and pass it as --props');
    }
    if (s.props && !isLocalPath(s.props)) throw usage(`secret Hudi settings (${keys}) and a remote --props ${s.props}: put them in that file`);
    if (userProps !== undefined && /^\s*include\s*=/m.test(userProps)) throw usage(`${s.props} uses include=: put the secret settings (${keys}) in it instead`);
    props = joinPath(ctx.privateDir, 'hudi.properties');
    files.push({ path: props, content: propertiesWith(userProps, secret), shown: [...(s.props ? [`(the content of ${s.props})`] : []), ...Object.keys(secret).map((k) => `${k}=${MASK}`)] });
  }
  // the engine may log the settings it read (HoodieCleaner logs them all): mask those of the props file too
  const fromFile = userProps === undefined ? [] : secretValuesOf(userProps);
  return { props, conf: Object.entries(plain).flatMap(([k, v]) => ['--hoodie-conf', `${k}=${v}`]), secrets: [...Object.values(secret), ...fromFile] };
}

/** HoodieCompactor / HoodieClusteringJob / HoodieCleaner arguments. */
function sparkUtilityArgs(s: SparkSettings, job: EngineJob, props: string | undefined, conf: string[]): string[] {
  const tail = [...(props ? ['--props', props] : []), ...conf];
  if (job.service === 'clean') {
    // HoodieCleaner names no instant: client.clean() executes every pending clean plan (tblcli's)
    // and, with multiple cleans off (set in hudiSettings), schedules none of its own while one is pending
    if (s.parallelism !== undefined || s.retry !== undefined) throw usage('HoodieCleaner takes neither --parallelism nor --retry');
    return ['--target-base-path', job.basePath, ...tail];
  }
  const args = ['--base-path', job.basePath, '--table-name', job.tableName, '--instant-time', requireInstant(job), '--mode', 'execute'];
  // HoodieClusteringJob requires --spark-memory and sets spark.executor.memory from it
  if (job.service === 'clustering') args.push('--spark-memory', s.executorMemory ?? s.sparkConf['spark.executor.memory'] ?? '1g');
  if (s.parallelism !== undefined) args.push('--parallelism', String(s.parallelism));
  if (s.retry !== undefined) args.push('--retry', String(s.retry));
  return [...args, ...tail];
}

/** HoodieFlinkCompactor / HoodieFlinkClusteringJob arguments. */
function flinkUtilityArgs(s: FlinkSettings, job: EngineJob, props: string | undefined, conf: string[]): string[] {
  const tail = [...(props ? ['--props', props] : []), ...conf];
  const t = requireInstant(job);
  if (job.service === 'clustering') {
    if (s.retry !== undefined) throw usage('HoodieFlinkClusteringJob takes no --retry');
    // Flink's ClusteringOperator sorts linearly by its own --sort-columns (FlinkOptions.CLUSTERING_SORT_COLUMNS)
    const sort = job.sortColumns && job.sortColumns.length > 0 ? ['--sort-columns', job.sortColumns.join(',')] : [];
    return ['--path', job.basePath, '--instant-time', t, ...(s.parallelism !== undefined ? ['--clustering-tasks', String(s.parallelism)] : []), ...sort, ...tail];
  }
  return [
    '--path',
    job.basePath,
    '--plan-select-strategy',
    'instants',
    '--target-instants',
    t,
    ...(s.parallelism !== undefined ? ['--compaction-tasks', String(s.parallelism)] : []),
    ...(s.retry !== undefined ? ['--retry', String(s.retry)] : []),
    ...tail,
  ];
}

function requireInstant(job: EngineJob): string {
  if (!job.instant) throw new TblError('bug', `${job.service} on an engine needs the planned instant`);
  return job.instant;
}

async function sparkCommand(s: SparkSettings, job: EngineJob, ctx: BuildContext, files: PrivateFile[]): Promise<{ argv: string[]; secrets: string[] }> {
  const hudi = await hudiSettings(s, job, ctx, files);
  const plain: [string, string][] = [];
  const secret: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.sparkConf)) {
    if (isSecretKey(k)) secret[k] = v;
    else plain.push([k, v]);
  }
  let propertiesFile = s.propertiesFile;
  const secretsOfBase: string[] = [];
  if (Object.keys(secret).length > 0) {
    // --properties-file replaces spark-defaults.conf: carry it (or the given file) over, as spark-submit would read it
    const confDir = ctx.env.SPARK_CONF_DIR || (s.sparkHome ? joinPath(s.sparkHome, 'conf') : ctx.env.SPARK_HOME ? joinPath(ctx.env.SPARK_HOME, 'conf') : undefined);
    const basePath = s.propertiesFile ?? (confDir ? joinPath(confDir, 'spark-defaults.conf') : undefined);
    const base = basePath ? await ctx.readLocal(basePath) : undefined;
    if (s.propertiesFile && base === undefined) throw usage(`properties-file ${s.propertiesFile} not found`);
    if (base !== undefined) secretsOfBase.push(...secretValuesOf(base));
    propertiesFile = joinPath(ctx.privateDir, 'spark.properties');
    files.push({ path: propertiesFile, content: propertiesWith(base, secret), shown: [...(base !== undefined ? [`(the content of ${basePath})`] : []), ...Object.keys(secret).map((k) => `${k}=${MASK}`)] });
  }
  const opt = (flag: string, v: string | number | undefined) => (v === undefined ? [] : [flag, String(v)]);
  const argv = [
    s.sparkSubmit,
    '--class',
    MAIN_CLASS.spark[job.service],
    ...opt('--master', s.master),
    ...opt('--deploy-mode', s.deployMode),
    ...opt('--name', s.name),
    ...opt('--queue', s.queue),
    ...opt('--driver-memory', s.driverMemory),
    ...opt('--executor-memory', s.executorMemory),
    ...opt('--executor-cores', s.executorCores),
    ...opt('--num-executors', s.numExecutors),
    ...opt('--principal', s.principal),
    ...opt('--keytab', s.keytab),
    ...opt('--properties-file', propertiesFile),
    ...(s.jars.length > 0 ? ['--jars', s.jars.join(',')] : []),
    ...plain.flatMap(([k, v]) => ['--conf', `${k}=${v}`]),
    s.bundle,
    ...sparkUtilityArgs(s, job, hudi.props, hudi.conf),
  ];
  return { argv, secrets: [...hudi.secrets, ...Object.values(secret), ...secretsOfBase] };
}

/** `flink run -C` takes URLs. */
const classpathUrl = (jar: string) => (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(jar) ? jar : `file://${jar}`);

async function flinkCommand(s: FlinkSettings, job: EngineJob, ctx: BuildContext, files: PrivateFile[]): Promise<{ argv: string[]; secrets: string[] }> {
  const service = job.service;
  if (service === 'clean') throw new TblError('unsupported', 'Hudi has no Flink cleaner utility; run the clean with --engine local or spark');
  const secretConf = Object.keys(s.flinkConf).filter(isSecretKey);
  if (secretConf.length > 0) {
    throw usage(`secret Flink settings (${secretConf.join(', ')}) would be on the command line`, 'put them in the Flink configuration file (FLINK_CONF_DIR)');
  }
  const hudi = await hudiSettings(s, job, ctx, files);
  const argv = [
    s.flink,
    'run',
    ...(s.target ? ['-t', s.target] : []),
    ...(s.jobmanager ? ['-m', s.jobmanager] : []),
    ...(s.flinkParallelism !== undefined ? ['-p', String(s.flinkParallelism)] : []),
    ...Object.entries(s.flinkConf).map(([k, v]) => `-D${k}=${v}`),
    ...s.jars.flatMap((j) => ['-C', classpathUrl(j)]),
    '-c',
    MAIN_CLASS.flink[service],
    s.bundle,
    ...flinkUtilityArgs(s, job, hudi.props, hudi.conf),
  ];
  return { argv, secrets: hudi.secrets };
}

/** The launch of one service run on the configured engine; throws usage errors before anything runs. */
export async function buildEngineCommand(s: EngineSettings, job: EngineJob, ctx: BuildContext): Promise<EngineCommand> {
  refuseCredentials(s);
  const warnings = checkBundle(s, job);
  const files: PrivateFile[] = [];
  const { argv, secrets } = s.engine === 'spark' ? await sparkCommand(s, job, ctx, files) : await flinkCommand(s, job, ctx, files);
  return { engine: s.engine, argv, files, secrets, warnings, display: displayArgv(argv) };
}

/** The command line as tblcli prints it: `k=v` words with a secret key masked, URLs' credentials masked. */
export function displayArgv(argv: readonly string[]): string {
  return shellLine(
    argv.map((w) => {
      if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(w)) return maskUrl(w);
      const m = /^(-D)?([^=\s]+)=(.*)$/s.exec(w);
      return m ? `${m[1] ?? ''}${maskPair(m[2]!, m[3]!)}` : maskUrl(w);
    }),
  );
}

export interface EngineIds {
  yarnApplicationId?: string;
  flinkJobId?: string;
  kubernetesSubmissionId?: string;
}

/**
 * What stops the job on the cluster when tblcli stops (a forwarded signal ends spark-submit or
 * `flink run`, not a YARN application in cluster mode or a detached job): `yarn application -kill`,
 * `spark-submit --kill` on Kubernetes, `flink cancel`.
 */
export function cancelCommand(s: EngineSettings, ids: EngineIds): string[] | undefined {
  if (ids.yarnApplicationId) return [s.yarn, 'application', '-kill', ids.yarnApplicationId];
  if (s.engine === 'spark' && ids.kubernetesSubmissionId && s.master?.startsWith('k8s://')) {
    return [s.sparkSubmit, '--master', s.master, '--kill', ids.kubernetesSubmissionId];
  }
  if (s.engine === 'flink' && ids.flinkJobId) {
    return [s.flink, 'cancel', ...(s.target ? ['-t', s.target] : []), ...(s.jobmanager ? ['-m', s.jobmanager] : []), ...Object.entries(s.flinkConf).map(([k, v]) => `-D${k}=${v}`), ids.flinkJobId];
  }
  return undefined;
}
