// clustering schedule | run | scheduleAndExecute | show all | show — offline clustering without
// Spark, or (run, scheduleAndExecute with --engine spark|flink) executed by Hudi's HoodieClusteringJob /
// HoodieFlinkClusteringJob with tblcli's plan, lock and verdict. Exit codes as compaction's: 0 done or
// nothing to do, 1 failure (the engine's too: judged from the timeline), 4 lock held / another run.
import { readFileSync } from 'node:fs';
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, tableAction, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import { ENGINE_OPTIONS, engineFromOpts, engineRunOptions, lockExpireMinutes, reportEngineRun } from './engine-options.ts';
import { lockOptions, metadataTableOption, serviceOpts, statusNote as note, VERBOSE } from './service-options.ts';

/** Bytes: an integer, or with a unit (KB, MB, GB; powers of 1024). */
export function parseBytesOpt(v: string): number {
  const m = /^\s*(\d+)\s*([kmgt]?i?b?)?\s*$/i.exec(v);
  if (!m) throw new Error(`expected a size in bytes (e.g. 134217728 or 128MB), got '${v}'`);
  const unit = (m[2] ?? '').toUpperCase().replace(/I?B$/, '');
  const mult = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[unit];
  if (mult === undefined) throw new Error(`unknown size unit in '${v}'`);
  return Number(m[1]) * mult;
}

const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter((s) => s !== '');

const COMMON: OptionSpec[] = [
  { flags: '--hoodieConfigs <configs...>', description: 'Hudi settings k=v (several, or comma-separated) over the table properties, e.g. hoodie.clustering.plan.strategy.sort.columns=a,b' },
  { flags: '--propsFilePath <path>', description: 'a properties file of Hudi settings (applied before --hoodieConfigs)' },
  { flags: '--sparkMaster <master>', description: 'hudi-cli spelling of --master (--engine spark); otherwise ignored' },
  { flags: '--sparkMemory <memory>', description: 'hudi-cli spelling of --executor-memory (--engine spark); otherwise ignored' },
  ...lockOptions('a clustering run by another process'),
  metadataTableOption('kept in step in the same transaction, record_index included'),
  VERBOSE,
];

const SCHEDULE: OptionSpec[] = [
  { flags: '--small-file-limit <bytes>', description: 'only slices whose base file is smaller are clustered (default 300MB)', parse: parseBytesOpt },
  { flags: '--target-file-max-bytes <bytes>', description: 'size of the new files (default 1GB)', parse: parseBytesOpt },
  { flags: '--max-bytes-per-group <bytes>', description: 'input bytes per clustering group (default 2GB)', parse: parseBytesOpt },
  { flags: '--max-num-groups <n>', description: 'groups per plan (default 30)', parse: parseIntOpt },
  { flags: '--sort-columns <a,b>', description: 'sort the new files by these columns (written into the plan)', parse: list },
  { flags: '--layout <layout>', description: 'linear (default), z-order or hilbert (hoodie.layout.optimize.strategy)' },
  { flags: '--partitions <p1,p2>', description: 'only these partitions (hoodie.clustering.plan.strategy.partition.selected)', parse: list },
  { flags: '--partition-regex <regex>', description: 'only partitions matching this regex in full' },
  { flags: '--recent-days <n>', description: 'only the n newest partitions (RECENT_DAYS filter mode)', parse: parseIntOpt },
  { flags: '--include-savepointed', description: "also plan file groups whose latest slice a savepoint keeps (Hudi's planner does; left out by default: their bytes would be stored twice until the savepoint goes)" },
  { flags: '--dry-run', description: 'print the plan, write nothing' },
];

const RUN: OptionSpec[] = [
  { flags: '--max-duration <duration>', description: 'stop and roll this attempt back when exceeded (e.g. 30m); with --engine: stop the engine (and its job on the cluster)', parse: parseDurationOpt },
  { flags: '--parallelism <n>', description: "groups clustered in parallel (default 2); with --engine: the utility's --parallelism (Spark) or --clustering-tasks (Flink), passed only when given", parse: parseIntOpt },
  { flags: '--codec <codec>', description: 'parquet codec: GZIP (Hudi default, the default), SNAPPY or UNCOMPRESSED' },
  { flags: '--heartbeat-expiry <duration>', description: 'a running clustering whose heartbeat is older is considered dead (default 2m)', parse: parseDurationOpt },
];

type Services = typeof import('../src/services/index.ts');
const services = (): Promise<Services> => import('../src/services/index.ts');

/** --propsFilePath, then --hoodieConfigs (k=v entries; a comma starts a new entry only before `key=`). */
export async function extraProps(o: Opts): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (typeof o.propsFilePath === 'string' && o.propsFilePath !== '') {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(o.propsFilePath);
    } catch (e) {
      throw new TblError('usage', `--propsFilePath ${o.propsFilePath}: ${(e as Error).message}`, { path: o.propsFilePath });
    }
    const { parseProperties } = await import('../src/config/properties.ts');
    return new Map([...parseProperties(bytes), ...hoodieConfigs(o)]);
  }
  for (const [k, v] of hoodieConfigs(o)) out.set(k, v);
  return out;
}

function hoodieConfigs(o: Opts): Map<string, string> {
  const out = new Map<string, string>();
  const raw = o.hoodieConfigs === undefined ? [] : Array.isArray(o.hoodieConfigs) ? (o.hoodieConfigs as string[]) : [String(o.hoodieConfigs)];
  for (const arg of raw) {
    for (const entry of arg.split(/,(?=[\w.-]+=)/)) {
      const i = entry.indexOf('=');
      if (i <= 0) throw new TblError('usage', `--hoodieConfigs entry ${JSON.stringify(entry)} is not key=value`);
      out.set(entry.slice(0, i).trim(), entry.slice(i + 1).trim());
    }
  }
  return out;
}

async function clusteringOpts(ctx: Ctx, o: Opts) {
  return { ...serviceOpts(ctx, o), props: await extraProps(o) };
}

function scheduleOpts(o: Opts) {
  return {
    smallFileLimit: o.smallFileLimit as number | undefined,
    targetFileMaxBytes: o.targetFileMaxBytes as number | undefined,
    maxBytesPerGroup: o.maxBytesPerGroup as number | undefined,
    maxNumGroups: o.maxNumGroups as number | undefined,
    sortColumns: o.sortColumns as string[] | undefined,
    layout: o.layout as string | undefined,
    partitions: o.partitions as string[] | undefined,
    partitionRegex: o.partitionRegex as string | undefined,
    recentDays: o.recentDays as number | undefined,
    includeSavepointed: o.includeSavepointed === true,
    dryRun: o.dryRun === true,
  };
}

function runOpts(o: Opts, progress?: import('./progress.ts').Progress) {
  const codec = String(o.codec ?? 'GZIP').toUpperCase();
  if (!['GZIP', 'SNAPPY', 'UNCOMPRESSED'].includes(codec)) throw new TblError('usage', `--codec must be GZIP, SNAPPY or UNCOMPRESSED, got '${codec}'`);
  return {
    maxDurationMs: o.maxDuration as number | undefined,
    parallelism: o.parallelism as number | undefined,
    codec: codec as 'GZIP',
    layout: o.layout as string | undefined,
    targetFileMaxBytes: o.targetFileMaxBytes as number | undefined,
    onStart: progress ? (e: { instant: string; groups: number }) => progress.start(e.groups, 'groups', `clustering ${e.instant}`) : undefined,
    onGroup: progress
      ? (e: { files: { path: string; records: number }[]; records: number; bytes: number }) => progress.step(e.records, e.bytes, e.files.map((f) => `wrote ${f.path} (${f.records} records)`).join('\n'))
      : undefined,
  };
}


async function schedule(ctx: Ctx, o: Opts): Promise<string | undefined> {
  const table = await openFromOpts(ctx, o);
  const s = await (await services()).scheduleClustering(table, { ...(await clusteringOpts(ctx, o)), ...scheduleOpts(o) });
  if (s.metadataTableDisabled) ctx.out.warn(`metadata table of ${table.uri} disabled (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted)`);
  const groups = s.plan?.inputGroups ?? [];
  const summary = {
    scheduled: s.instant !== undefined && o.dryRun !== true,
    instant: s.instant ?? null,
    dryRun: o.dryRun === true,
    reason: s.reason ?? null,
    inputGroups: groups.length,
    fileGroups: groups.reduce((n, g) => n + (g.slices?.length ?? 0), 0),
    outputFileGroups: groups.reduce((n, g) => n + (g.numOutputFileGroups ?? 1), 0),
    skipped: s.skipped,
  };
  if (wantsJson(o) && !o.noPlanOutput) ctx.out.json(o.dryRun ? { ...summary, plan: s.plan ?? null } : summary);
  else if (!s.plan) note(ctx, o, `Nothing to cluster: ${s.reason}`);
  else if (o.dryRun) note(ctx, o, `Would schedule clustering ${s.instant} of ${summary.fileGroups} file group(s) in ${summary.inputGroups} group(s) into ${summary.outputFileGroups} new file group(s) (dry run: nothing written)`);
  else note(ctx, o, `Succeeded to schedule clustering for ${s.instant}`);
  return s.instant;
}

async function run(ctx: Ctx, o: Opts, instant: string | undefined, label?: string): Promise<void> {
  const table = await openFromOpts(ctx, o);
  // a bar on a terminal's stderr, plain lines with --verbose in a pipe, nothing in cron
  const progress = (await import('./progress.ts')).progressFor(ctx, 'clustering', { verbose: o.verbose === true });
  let r: Awaited<ReturnType<Services['runClustering']>>;
  try {
    r = await (await services()).runClustering(table, { ...(await clusteringOpts(ctx, o)), ...runOpts(o, progress), instant });
  } finally {
    progress.end();
  }
  for (const w of r.warnings) ctx.out.warn(w);
  if (wantsJson(o)) {
    return ctx.out.json({
      status: r.status,
      instant: r.instant ?? null,
      completionTime: r.completionTime ?? null,
      replacedFileGroups: r.replacedFileGroups,
      files: r.files,
      records: r.records,
      bytes: r.bytes,
      durationMs: r.durationMs,
      rolledBackFiles: r.rolledBack?.deletedFiles.length ?? 0,
      rollbackInstant: r.rolledBack?.rollbackInstant ?? null,
      partitionToReplaceFileIds: r.partitionToReplaceFileIds,
      warnings: r.warnings,
    });
  }
  if (r.status === 'nothing-to-do') return note(ctx, o, 'NO PENDING CLUSTERING TO RUN');
  if (r.status === 'already-completed') return note(ctx, o, `Clustering ${r.instant} is already completed; nothing to do`);
  if (r.rolledBack) note(ctx, o, `Rolled back the failed attempt of ${r.instant} with rollback ${r.rolledBack.rollbackInstant} (${r.rolledBack.deletedFiles.length} file(s) deleted)`);
  note(ctx, o, `Succeeded to run clustering for ${label ?? r.instant}`);
  if (o.verbose) {
    const rb = r.rolledBack ? ` after rolling back the previous attempt (rollback ${r.rolledBack.rollbackInstant})` : '';
    if (ctx.io.isStderrTTY) {
      // for a person: the same facts in units one reads at a glance
      const p = await import('../src/render/progress.ts');
      const { humanDuration } = await import('../src/render/time-chart.ts');
      ctx.io.stderr(`Clustering ${r.instant} completed${rb}: ${r.replacedFileGroups} file group(s) into ${r.files} file(s), ${p.shortCount(r.records)} records, ${p.shortBytes(r.bytes)} in ${humanDuration(r.durationMs)}\n`);
    } else {
      ctx.io.stderr(`Clustering successfully completed for ${r.instant}${rb}: ${r.replacedFileGroups} file group(s) replaced by ${r.files} file(s), ${r.records} records, ${r.bytes} bytes in ${r.durationMs} ms\n`);
    }
  }
}

type Loaded = import('../src/services/engine/index.ts').LoadedEngine;

/**
 * The engine these options name. hudi-cli's --retry (a local run ignores it: the next run retries a
 * failed attempt), --sparkMaster and --sparkMemory reach Spark as --retry, --master and --executor-memory.
 */
async function engineOf(ctx: Ctx, o: Opts): Promise<Loaded> {
  const engine = await import('../src/services/engine/index.ts');
  const loaded = await engineFromOpts(ctx, { ...o, retry: undefined }, engine);
  if (!loaded.settings) return loaded;
  const spark = loaded.engine === 'spark' ? { master: o.master ?? o.sparkMaster, executorMemory: o.executorMemory ?? o.sparkMemory } : {};
  return engineFromOpts(ctx, { ...o, ...spark, hoodieConf: await engineHoodieConf(o), props: enginePropsFile(o) }, engine);
}

/** For the engine: --hoodieConfigs and the clustering flags read at execution as Hudi settings; --hoodie-conf wins. */
async function engineHoodieConf(o: Opts): Promise<string[]> {
  const out = [...hoodieConfigs(o)].map(([k, v]) => `${k}=${v}`);
  if (o.targetFileMaxBytes !== undefined) out.push(`hoodie.clustering.plan.strategy.target.file.max.bytes=${o.targetFileMaxBytes as number}`);
  return [...out, ...((o.hoodieConf as string[] | undefined) ?? [])];
}

/** hudi-cli hands --propsFilePath to the Spark job as its --props. */
function enginePropsFile(o: Opts): string | undefined {
  const a = o.props as string | undefined;
  const b = typeof o.propsFilePath === 'string' && o.propsFilePath !== '' ? o.propsFilePath : undefined;
  if (a !== undefined && b !== undefined && a !== b) throw new TblError('usage', '--propsFilePath and --props name different files; with --engine give one');
  return a ?? b;
}

/** `clustering run --engine spark|flink`: the planned instant executed by Hudi's clustering job. */
async function runOnEngine(ctx: Ctx, o: Opts, settings: NonNullable<Loaded['settings']>, instant?: string, planned?: { instant: string; plan?: import('../src/metadata/index.ts').ClusteringPlan }): Promise<number> {
  const table = await openFromOpts(ctx, o);
  const svc = await services();
  const base = await clusteringOpts(ctx, o);
  const opts = {
    ...base,
    ...engineRunOptions(ctx, o, settings),
    instant,
    layout: o.layout as string | undefined,
  };
  const plannedArgs = planned ? { plannedInstant: planned.instant, plannedJob: svc.planArgsOf(planned.plan, opts, planned.instant) } : {};
  const r = await svc.runClusteringOnEngine(table, { ...opts, ...plannedArgs });
  return reportEngineRun(ctx, o, 'clustering', r);
}

/** `clustering run --dry-run`: the pending plan a run would take (the earliest, or --clusteringInstant), nothing written. */
async function dryRun(ctx: Ctx, o: Opts, instant: string | undefined): Promise<void> {
  const table = await openFromOpts(ctx, o);
  const svc = await services();
  const tl = await table.timeline();
  const pending = await svc.pendingClusterings(table, tl);
  const i = instant ? pending.find((x) => x.requestedTime === instant) : pending[0];
  if (instant && !i) {
    if (tl.isCompleted(instant)) return void (wantsJson(o) ? ctx.out.json({ status: 'already-completed', instant }) : note(ctx, o, `Clustering ${instant} is already completed; nothing to do`));
    throw new TblError('not-found', `Clustering instant ${instant} not found in ${table.uri}`, { instant, path: table.uri });
  }
  if (!i) return void (wantsJson(o) ? ctx.out.json({ status: 'nothing-to-do', instant: null }) : note(ctx, o, 'NO PENDING CLUSTERING TO RUN'));
  const plan = (await svc.readClusteringPlan(table, tl, i))!;
  const groups = plan.inputGroups ?? [];
  const summary = {
    status: 'would-run',
    instant: i.requestedTime,
    state: i.state,
    rollsBackFailedAttempt: i.state === 'INFLIGHT',
    inputGroups: groups.length,
    fileGroups: groups.reduce((n, g) => n + (g.slices?.length ?? 0), 0),
    outputFileGroups: groups.reduce((n, g) => n + (g.numOutputFileGroups ?? 1), 0),
    strategyParams: plan.strategy?.strategyParams ?? {},
  };
  if (wantsJson(o)) return ctx.out.json(summary);
  note(ctx, o, `Would run clustering ${summary.instant}${summary.rollsBackFailedAttempt ? ' (after rolling back its failed attempt)' : ''}: ${summary.fileGroups} file group(s) in ${summary.inputGroups} group(s) into ${summary.outputFileGroups} new file group(s) (dry run: nothing written)`);
}

export const clusteringSpecs: CommandSpec[] = [
  {
    name: 'clustering schedule',
    pager: false,
    writes: { plan: ['--dry-run'] },
    summary: 'Schedule a clustering (small file slices grouped per partition; writes <t>.replacecommit.requested / <t>.clustering.requested); no Spark needed',
    options: [...SCHEDULE, ...COMMON],
    async action(ctx, o) {
      await schedule(ctx, o);
    },
  },
  {
    name: 'clustering run',
    pager: false,
    writes: { plan: ['--dry-run'] },
    summary: 'Run a pending clustering (default: the earliest); exit 4 when another process holds the lock or runs it',
    options: [
      { flags: '--clusteringInstant <instant>', description: 'clustering instant to run (alias --instant)' },
      { flags: '--instant <instant>', description: 'same as --clusteringInstant' },
      { flags: '--layout <layout>', description: 'linear, z-order or hilbert (default: as planned, else hoodie.layout.optimize.strategy, else linear)' },
      { flags: '--target-file-max-bytes <bytes>', description: 'size of the new files (default 1GB)', parse: parseBytesOpt },
      ...RUN,
      ...COMMON,
      ...ENGINE_OPTIONS,
    ],
    async action(ctx, o) {
      const instant = (o.clusteringInstant ?? o.instant) as string | undefined;
      const loaded = await engineOf(ctx, o);
      if (loaded.settings) return runOnEngine(ctx, o, loaded.settings, instant);
      if (o.dryRun === true) return dryRun(ctx, o, instant);
      await run(ctx, o, instant);
    },
  },
  {
    name: 'clustering scheduleAndExecute',
    pager: false,
    writes: { plan: ['--dry-run'] },
    summary: 'Schedule a clustering and run exactly that instant',
    options: [...SCHEDULE.filter((x) => x.flags !== '--dry-run'), ...RUN, ...COMMON, ...ENGINE_OPTIONS],
    async action(ctx, o) {
      runOpts(o); // a bad run option fails before a plan is written
      const loaded = await engineOf(ctx, o);
      if (loaded.settings) lockExpireMinutes(o);
      if (loaded.settings && o.dryRun === true) {
        // plan without writing it, then show the command for the instant it would get
        const table = await openFromOpts(ctx, o);
        const s = await (await services()).scheduleClustering(table, { ...(await clusteringOpts(ctx, o)), ...scheduleOpts(o), dryRun: true });
        if (!s.plan || !s.instant) {
          if (wantsJson(o)) ctx.out.json({ status: 'nothing-to-do', instant: null, reason: s.reason ?? null });
          else note(ctx, o, `Nothing to cluster: ${s.reason}`);
          return;
        }
        return runOnEngine(ctx, { ...o, clusteringInstant: undefined, instant: undefined }, loaded.settings, undefined, { instant: s.instant, plan: s.plan });
      }
      const instant = await schedule(ctx, { ...o, noPlanOutput: wantsJson(o) && o.dryRun !== true });
      if (!instant || o.dryRun) {
        if (wantsJson(o) && !instant && o.dryRun !== true) ctx.out.json({ status: 'nothing-to-do', instant: null });
        return;
      }
      if (loaded.settings) return runOnEngine(ctx, o, loaded.settings, instant);
      await run(ctx, o, instant, 'scheduleAndExecute');
    },
  },
  {
    // one command for both forms: commander cannot have `show` both a command and the group of `show all`
    name: 'clustering show',
    summary: "'clustering show all': the clustering instants (pending and completed) of the active timeline; 'clustering show --instant T': the slices of one plan",
    table: { limit: -1 },
    args: ['[all]'],
    options: [
      { flags: '--instant <instant>', description: 'clustering instant time (without `all`: required)' },
      { flags: '--partition <partition>', description: 'only slices of this partition' },
    ],
    jsonFields: async () => {
      const v = await import('../src/views/clustering.ts');
      return [...v.clusteringColumns.map((c) => `all: ${c.key}`), ...v.clusteringPlanColumns.map((c) => c.key)];
    },
    action: tableAction(async (table, o) => {
      const v = await import('../src/views/clustering.ts');
      const args = ((o.args as (string | undefined)[] | undefined) ?? []).filter((a): a is string => a !== undefined);
      if (args.length > 0 && !(args.length === 1 && args[0] === 'all')) throw new TblError('usage', `clustering show takes 'all' or --instant, got '${args.join(' ')}'`);
      if (args[0] === 'all') return v.clusteringShowAll(table);
      const instant = o.instant as string | undefined;
      if (!instant) throw new TblError('usage', '--instant is required (or use `clustering show all`)');
      return v.clusteringShow(table, instant, o.partition as string | undefined);
    }, outputOptions),
  },
];
