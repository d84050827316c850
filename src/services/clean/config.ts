// The clean keys of HoodieCleanConfig (format-services-write.md §1.1), resolved the way a Hudi writer
// resolves them: command-line options over --hoodieConfigs over --propsFilePath over hoodie.properties
// over Hudi's defaults; 1.x key names first, the 0.14 names as alternatives.
import { TblError } from '../../errors/index.ts';

export const CLEAN_POLICIES = ['KEEP_LATEST_COMMITS', 'KEEP_LATEST_FILE_VERSIONS', 'KEEP_LATEST_BY_HOURS'] as const;
export type CleanPolicy = (typeof CLEAN_POLICIES)[number];
export type FailedWritesPolicy = 'EAGER' | 'LAZY' | 'NEVER';

export interface CleanConfig {
  policy: CleanPolicy;
  commitsRetained: number;
  fileVersionsRetained: number;
  hoursRetained: number;
  /** hoodie.clean.trigger.max.commits: completed commits since the last clean before a clean is planned */
  maxCommits: number;
  /** hoodie.clean.incremental.enabled */
  incremental: boolean;
  failedWritesPolicy: FailedWritesPolicy;
  /** hoodie.clean.parallelism: deletes in flight (the storage layer caps its own requests) */
  parallelism: number;
}

/** 1.x name, then the 0.14 alternatives. */
const KEYS = {
  policy: ['hoodie.clean.policy', 'hoodie.cleaner.policy'],
  commitsRetained: ['hoodie.clean.commits.retained', 'hoodie.cleaner.commits.retained'],
  hoursRetained: ['hoodie.clean.hours.retained', 'hoodie.cleaner.hours.retained'],
  fileVersionsRetained: ['hoodie.clean.fileversions.retained', 'hoodie.cleaner.fileversions.retained'],
  triggerStrategy: ['hoodie.clean.trigger.strategy'],
  maxCommits: ['hoodie.clean.trigger.max.commits', 'hoodie.clean.max.commits'],
  incremental: ['hoodie.clean.incremental.enabled', 'hoodie.cleaner.incremental.mode'],
  failedWrites: ['hoodie.clean.failed.writes.policy', 'hoodie.cleaner.policy.failed.writes'],
  parallelism: ['hoodie.clean.parallelism', 'hoodie.cleaner.parallelism'],
  concurrencyMode: ['hoodie.write.concurrency.mode'],
} as const;

export const DEFAULT_CLEAN_CONFIG: CleanConfig = {
  policy: 'KEEP_LATEST_COMMITS',
  commitsRetained: 10,
  fileVersionsRetained: 3,
  hoursRetained: 24,
  maxCommits: 1,
  incremental: true,
  failedWritesPolicy: 'EAGER',
  parallelism: 200,
};

/** Command-line values (undefined = not given). */
export interface CleanFlags {
  policy?: string;
  commitsRetained?: number;
  fileVersionsRetained?: number;
  hoursRetained?: number;
}

/** `k=v` pairs of --hoodieConfigs (each value may hold several, comma-separated). */
export function parseHoodieConfigs(values: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values) {
    const parts = v.split(',').every((p) => p.includes('=')) ? v.split(',') : [v];
    for (const p of parts) {
      const t = p.trim();
      if (t === '') continue;
      const eq = t.indexOf('=');
      if (eq <= 0) throw new TblError('usage', `--hoodieConfigs: expected key=value, got '${t}'`);
      out.set(t.slice(0, eq).trim(), t.slice(eq + 1).trim());
    }
  }
  return out;
}

function intOf(key: string, v: string, min: number): number {
  if (!/^-?\d+$/.test(v.trim()) || Number(v) < min) throw new TblError('config', `${key}=${v}: expected an integer ≥ ${min}`, { key });
  return Number(v);
}

function boolOf(key: string, v: string): boolean {
  const s = v.trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw new TblError('config', `${key}=${v}: expected true or false`, { key });
}

function policyOf(where: string, v: string): CleanPolicy {
  const p = v.trim().toUpperCase();
  if (!(CLEAN_POLICIES as readonly string[]).includes(p)) throw new TblError('usage', `${where}: unknown cleaning policy '${v}' (use ${CLEAN_POLICIES.join(', ')})`);
  return p as CleanPolicy;
}

/**
 * Resolves the clean configuration. `layers` go from lowest to highest precedence (hoodie.properties,
 * the props file, --hoodieConfigs); `flags` override them all. Table version ≥ 8 infers the policy
 * from the one `*.retained` key set explicitly when no policy is given (HoodieCleanConfig 1.x).
 */
export function resolveCleanConfig(layers: readonly ReadonlyMap<string, string>[], flags: CleanFlags, tableVersion: number): CleanConfig {
  const get = (keys: readonly string[]): { key: string; value: string } | undefined => {
    for (let i = layers.length - 1; i >= 0; i--) {
      for (const k of keys) {
        const v = layers[i]!.get(k);
        if (v !== undefined && v.trim() !== '') return { key: k, value: v };
      }
    }
    return undefined;
  };
  const c: CleanConfig = { ...DEFAULT_CLEAN_CONFIG };
  const commits = get(KEYS.commitsRetained);
  const hours = get(KEYS.hoursRetained);
  const versions = get(KEYS.fileVersionsRetained);
  if (commits) c.commitsRetained = intOf(commits.key, commits.value, 0);
  if (hours) c.hoursRetained = intOf(hours.key, hours.value, 0);
  if (versions) c.fileVersionsRetained = intOf(versions.key, versions.value, 1);
  if (flags.commitsRetained !== undefined) c.commitsRetained = checkFlag('--commits-retained', flags.commitsRetained, 0);
  if (flags.hoursRetained !== undefined) c.hoursRetained = checkFlag('--hours-retained', flags.hoursRetained, 0);
  if (flags.fileVersionsRetained !== undefined) c.fileVersionsRetained = checkFlag('--file-versions-retained', flags.fileVersionsRetained, 1);

  const policy = get(KEYS.policy);
  if (flags.policy !== undefined) c.policy = policyOf('--policy', flags.policy);
  else if (policy) c.policy = policyOf(policy.key, policy.value);
  else if (tableVersion >= 8) {
    const set = [
      ['KEEP_LATEST_COMMITS', commits !== undefined || flags.commitsRetained !== undefined],
      ['KEEP_LATEST_BY_HOURS', hours !== undefined || flags.hoursRetained !== undefined],
      ['KEEP_LATEST_FILE_VERSIONS', versions !== undefined || flags.fileVersionsRetained !== undefined],
    ].filter(([, on]) => on);
    if (set.length === 1) c.policy = set[0]![0] as CleanPolicy;
  }

  const trigger = get(KEYS.triggerStrategy);
  if (trigger && trigger.value.trim().toUpperCase() !== 'NUM_COMMITS') {
    throw new TblError('config', `${trigger.key}=${trigger.value}: Hudi only knows NUM_COMMITS`, { key: trigger.key });
  }
  const max = get(KEYS.maxCommits);
  if (max) c.maxCommits = intOf(max.key, max.value, 0);
  const inc = get(KEYS.incremental);
  if (inc) c.incremental = boolOf(inc.key, inc.value);
  const par = get(KEYS.parallelism);
  if (par) c.parallelism = intOf(par.key, par.value, 1);
  const fw = get(KEYS.failedWrites);
  if (fw) {
    const v = fw.value.trim().toUpperCase();
    if (v !== 'EAGER' && v !== 'LAZY' && v !== 'NEVER') throw new TblError('config', `${fw.key}=${fw.value}: expected EAGER, LAZY or NEVER`, { key: fw.key });
    c.failedWritesPolicy = v;
  } else {
    // inferred LAZY for multi-writer (0.14: OCC; 1.x: any multi-writer mode)
    const mode = get(KEYS.concurrencyMode)?.value.trim().toUpperCase();
    if (mode === 'OPTIMISTIC_CONCURRENCY_CONTROL' || (tableVersion >= 8 && mode === 'NON_BLOCKING_CONCURRENCY_CONTROL')) c.failedWritesPolicy = 'LAZY';
  }
  return c;
}

function checkFlag(flag: string, n: number, min: number): number {
  if (!Number.isInteger(n) || n < min) throw new TblError('usage', `${flag} must be an integer ≥ ${min}, got ${n}`);
  return n;
}
