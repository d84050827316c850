// Engine settings: one table of keys, read from flags, then the environment, then the
// `--engine-conf` file (first found wins; maps merge key by key, flags last). The key names are the
// flag names without `--`; in the environment they are TBLCLI_ENGINE_<KEY> (upper case, - → _),
// besides the variables Spark, Flink and Hudi's docs already use (SPARK_HOME, FLINK_HOME,
// HUDI_UTILITIES_BUNDLE, HUDI_FLINK_BUNDLE).
import { TblError } from '../../errors/index.ts';
import { joinPath, parseDuration } from '../../util/index.ts';
import type { ConfFile, ConfValue } from './conf-file.ts';

export type EngineName = 'local' | 'spark' | 'flink';
type Remote = 'spark' | 'flink';
type Kind = 'string' | 'int' | 'count' | 'duration' | 'list' | 'map' | 'enum';

interface Def {
  kind: Kind;
  /** engines the key applies to */
  for: readonly Remote[];
  values?: readonly string[];
  /** variables read besides TBLCLI_ENGINE_<KEY> */
  env?: readonly string[];
}

const BOTH = ['spark', 'flink'] as const;
const SPARK = ['spark'] as const;
const FLINK = ['flink'] as const;

export const SETTINGS = {
  engine: { kind: 'enum', for: BOTH, values: ['local', 'spark', 'flink'] },
  bundle: { kind: 'string', for: BOTH },
  jars: { kind: 'list', for: BOTH },
  props: { kind: 'string', for: BOTH },
  'hoodie-conf': { kind: 'map', for: BOTH },
  parallelism: { kind: 'count', for: BOTH },
  retry: { kind: 'int', for: BOTH },
  'base-path': { kind: 'string', for: BOTH },
  'engine-log': { kind: 'string', for: BOTH },
  'stop-grace': { kind: 'duration', for: BOTH },
  yarn: { kind: 'string', for: BOTH },
  'spark-submit': { kind: 'string', for: SPARK },
  'spark-home': { kind: 'string', for: SPARK, env: ['SPARK_HOME'] },
  master: { kind: 'string', for: SPARK },
  'deploy-mode': { kind: 'enum', for: SPARK, values: ['client', 'cluster'] },
  queue: { kind: 'string', for: SPARK },
  name: { kind: 'string', for: SPARK },
  'driver-memory': { kind: 'string', for: SPARK },
  'executor-memory': { kind: 'string', for: SPARK },
  'executor-cores': { kind: 'count', for: SPARK },
  'num-executors': { kind: 'count', for: SPARK },
  'spark-conf': { kind: 'map', for: SPARK },
  'properties-file': { kind: 'string', for: SPARK },
  principal: { kind: 'string', for: SPARK },
  keytab: { kind: 'string', for: SPARK },
  flink: { kind: 'string', for: FLINK },
  'flink-home': { kind: 'string', for: FLINK, env: ['FLINK_HOME'] },
  target: { kind: 'string', for: FLINK },
  jobmanager: { kind: 'string', for: FLINK },
  'flink-parallelism': { kind: 'count', for: FLINK },
  'flink-conf': { kind: 'map', for: FLINK },
} as const satisfies Record<string, Def>;

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
const MAP_KEYS = SETTING_KEYS.filter((k) => SETTINGS[k].kind === 'map');

interface CommonSettings {
  /** the Hudi utilities bundle (Spark) or Hudi Flink bundle: a path or a URI the engine can fetch */
  bundle: string;
  jars: string[];
  /** a Hudi properties file for `--props` (local path or DFS URI) */
  props?: string;
  hoodieConf: Record<string, string>;
  parallelism?: number;
  retry?: number;
  /** the table's base path as the engine sees it (default: the path tblcli opened) */
  basePath?: string;
  engineLog?: string;
  /** how long the engine may take to exit after a forwarded signal before it is killed (default 30 s) */
  stopGraceMs: number;
  /** `yarn` CLI used to kill a YARN application on stop */
  yarn: string;
  /** where each setting came from, for messages */
  sources: Partial<Record<SettingKey, string>>;
}

export interface SparkSettings extends CommonSettings {
  engine: 'spark';
  sparkSubmit: string;
  sparkHome?: string;
  master?: string;
  deployMode?: 'client' | 'cluster';
  queue?: string;
  name?: string;
  driverMemory?: string;
  executorMemory?: string;
  executorCores?: number;
  numExecutors?: number;
  sparkConf: Record<string, string>;
  propertiesFile?: string;
  principal?: string;
  keytab?: string;
}

export interface FlinkSettings extends CommonSettings {
  engine: 'flink';
  flink: string;
  flinkHome?: string;
  target?: string;
  jobmanager?: string;
  flinkParallelism?: number;
  flinkConf: Record<string, string>;
}

export type EngineSettings = SparkSettings | FlinkSettings;

export interface SettingSources {
  /** values given as flags, by key (undefined = not given); maps as records, lists as arrays */
  flags: Partial<Record<SettingKey, unknown>>;
  env: Record<string, string | undefined>;
  /** the parsed --engine-conf file */
  file?: { path: string; entries: ConfFile };
}

export const DEFAULT_STOP_GRACE_MS = 30_000;

export function envName(key: SettingKey): string {
  return key === 'engine' ? 'TBLCLI_ENGINE' : `TBLCLI_ENGINE_${key.toUpperCase().replace(/-/g, '_')}`;
}

function usage(message: string, hint?: string): TblError {
  return new TblError('usage', message, { hint });
}

/** A file's top-level entries by setting key: `spark-conf.x` / `spark.x` / `hoodie.x` join their maps. */
function fileValues(file: NonNullable<SettingSources['file']>): Map<SettingKey, { value: ConfValue; where: string }> {
  const out = new Map<SettingKey, { value: ConfValue; where: string }>();
  const addToMap = (map: SettingKey, key: string, value: ConfValue, where: string) => {
    if (typeof value !== 'string') throw usage(`${where}: ${map}.${key} must be a single value`);
    const cur = (out.get(map)?.value as Record<string, string> | undefined) ?? {};
    out.set(map, { value: { ...cur, [key]: value }, where: out.get(map)?.where ?? where });
  };
  for (const [k, e] of file.entries) {
    const where = `${file.path}:${e.line}`;
    const prefixed = MAP_KEYS.find((m) => k.startsWith(`${m}.`));
    if (prefixed) addToMap(prefixed, k.slice(prefixed.length + 1), e.value, where);
    else if (k.startsWith('spark.')) addToMap('spark-conf', k, e.value, where);
    else if (k.startsWith('hoodie.')) addToMap('hoodie-conf', k, e.value, where);
    else if (k in SETTINGS) {
      const key = k as SettingKey;
      if (out.has(key) && SETTINGS[key].kind === 'map' && typeof e.value === 'object' && !Array.isArray(e.value)) {
        out.set(key, { value: { ...(out.get(key)!.value as Record<string, string>), ...e.value }, where });
      } else out.set(key, { value: e.value, where });
    } else {
      throw usage(`${where}: unknown engine setting '${k}'`, `known: ${SETTING_KEYS.join(', ')}`);
    }
  }
  return out;
}

function convert(key: SettingKey, raw: unknown, where: string): unknown {
  const def: Def = SETTINGS[key];
  const bad = (what: string) => usage(`${key} (${where}): ${what}`);
  if (def.kind === 'map') {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('expected a map of key: value');
    return raw;
  }
  if (def.kind === 'list') {
    if (Array.isArray(raw)) return raw.map(String).filter((s) => s !== '');
    if (typeof raw === 'string') return raw.split(',').map((s) => s.trim()).filter(Boolean);
    throw bad('expected a list');
  }
  if (typeof raw === 'number' && (def.kind === 'int' || def.kind === 'count')) raw = String(raw);
  if (typeof raw !== 'string') throw bad('expected a single value');
  const s = raw.trim();
  if (s === '') throw bad('empty value');
  switch (def.kind) {
    case 'int':
    case 'count': {
      if (!/^\d+$/.test(s)) throw bad(`expected a whole number, got '${s}'`);
      const n = Number(s);
      if (def.kind === 'count' && n < 1) throw bad('must be at least 1');
      return n;
    }
    case 'duration':
      try {
        return parseDuration(s);
      } catch (e) {
        throw bad((e as Error).message);
      }
    case 'enum':
      if (!def.values!.includes(s)) throw bad(`must be ${def.values!.join(', ')}, got '${s}'`);
      return s;
    default:
      return s;
  }
}

/** The engine named by --engine, TBLCLI_ENGINE or the conf file (default local). */
export function engineOf(src: SettingSources): EngineName {
  const flag = src.flags.engine;
  if (flag !== undefined) return convert('engine', flag, '--engine') as EngineName;
  if (src.env.TBLCLI_ENGINE) return convert('engine', src.env.TBLCLI_ENGINE, 'TBLCLI_ENGINE') as EngineName;
  const f = src.file ? fileValues(src.file).get('engine') : undefined;
  return f ? (convert('engine', f.value, f.where) as EngineName) : 'local';
}

/** Settings for a Spark or Flink run; usage errors name the flag, variable or file line at fault. */
export function resolveEngineSettings(engine: Remote, src: SettingSources): EngineSettings {
  const file = src.file ? fileValues(src.file) : new Map<SettingKey, { value: ConfValue; where: string }>();
  const values: Partial<Record<SettingKey, unknown>> = {};
  const sources: Partial<Record<SettingKey, string>> = {};
  for (const key of SETTING_KEYS) {
    const def: Def = SETTINGS[key];
    const flag = src.flags[key];
    if (flag !== undefined && !def.for.includes(engine)) {
      throw usage(`--${key} applies to --engine ${def.for.join('|')}, not ${engine}`);
    }
    if (!def.for.includes(engine) || key === 'engine') continue;
    if (def.kind === 'map') {
      const f = file.get(key);
      const merged = { ...((f ? convert(key, f.value, f.where) : {}) as Record<string, string>), ...((flag ?? {}) as Record<string, string>) };
      values[key] = merged;
      if (flag !== undefined) sources[key] = `--${key}`;
      else if (f) sources[key] = f.where;
      continue;
    }
    if (flag !== undefined) {
      values[key] = convert(key, flag, `--${key}`);
      sources[key] = `--${key}`;
      continue;
    }
    const envKeys = [envName(key), ...(def.env ?? [])];
    if (key === 'bundle') envKeys.push(engine === 'spark' ? 'HUDI_UTILITIES_BUNDLE' : 'HUDI_FLINK_BUNDLE');
    const e = envKeys.find((n) => src.env[n] !== undefined && src.env[n] !== '');
    if (e) {
      values[key] = convert(key, src.env[e], e);
      sources[key] = e;
      continue;
    }
    const f = file.get(key);
    if (f) {
      values[key] = convert(key, f.value, f.where);
      sources[key] = f.where;
    }
  }
  const str = (k: SettingKey) => values[k] as string | undefined;
  const num = (k: SettingKey) => values[k] as number | undefined;
  const bundle = str('bundle');
  if (!bundle) {
    const what = engine === 'spark' ? 'the Hudi utilities bundle (hudi-utilities-bundle_2.12-<version>.jar)' : 'the Hudi Flink bundle (hudi-flink<flink version>-bundle-<version>.jar)';
    throw usage(`--engine ${engine} needs ${what}`, `pass --bundle, set ${engine === 'spark' ? 'HUDI_UTILITIES_BUNDLE' : 'HUDI_FLINK_BUNDLE'}, or put bundle: in --engine-conf`);
  }
  const hadoopHome = src.env.HADOOP_HOME || src.env.YARN_HOME;
  const common: CommonSettings = {
    bundle,
    jars: (values.jars as string[] | undefined) ?? [],
    props: str('props'),
    hoodieConf: (values['hoodie-conf'] as Record<string, string>) ?? {},
    parallelism: num('parallelism'),
    retry: num('retry'),
    basePath: str('base-path'),
    engineLog: str('engine-log'),
    stopGraceMs: num('stop-grace') ?? DEFAULT_STOP_GRACE_MS,
    yarn: str('yarn') ?? (hadoopHome ? joinPath(hadoopHome, 'bin', 'yarn') : 'yarn'),
    sources,
  };
  if (engine === 'flink') {
    const home = str('flink-home');
    return {
      ...common,
      engine,
      flink: str('flink') ?? (home ? joinPath(home, 'bin', 'flink') : 'flink'),
      flinkHome: home,
      target: str('target'),
      jobmanager: str('jobmanager'),
      flinkParallelism: num('flink-parallelism'),
      flinkConf: (values['flink-conf'] as Record<string, string>) ?? {},
    };
  }
  const home = str('spark-home');
  const s: SparkSettings = {
    ...common,
    engine,
    sparkSubmit: str('spark-submit') ?? (home ? joinPath(home, 'bin', 'spark-submit') : 'spark-submit'),
    sparkHome: home,
    master: str('master'),
    deployMode: str('deploy-mode') as SparkSettings['deployMode'],
    queue: str('queue'),
    name: str('name'),
    driverMemory: str('driver-memory'),
    executorMemory: str('executor-memory'),
    executorCores: num('executor-cores'),
    numExecutors: num('num-executors'),
    sparkConf: (values['spark-conf'] as Record<string, string>) ?? {},
    propertiesFile: str('properties-file'),
    principal: str('principal'),
    keytab: str('keytab'),
  };
  if (s.deployMode === 'cluster' && s.master?.startsWith('local')) throw usage(`--deploy-mode cluster cannot run on master ${s.master}`);
  if ((s.principal === undefined) !== (s.keytab === undefined)) throw usage('--principal and --keytab go together');
  return s;
}

/**
 * Whether the job can outlive the process tblcli started: a Spark driver in cluster deploy mode, a
 * Flink job on any cluster (`flink run` is only its client).
 */
export function jobMayOutliveClient(s: EngineSettings): boolean {
  return s.engine === 'spark' ? driverIsRemote(s) : s.target !== 'local';
}

/** Whether the engine's driver (Spark) or main() (Flink) runs on a cluster node, not on this machine. */
export function driverIsRemote(s: EngineSettings): boolean {
  if (s.engine === 'spark') return s.deployMode === 'cluster' || s.sparkConf['spark.submit.deployMode'] === 'cluster';
  return /-application$/.test(s.target ?? '');
}
