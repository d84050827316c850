// compaction schedule | run | scheduleAndExecute | unschedule | validate — offline compaction without
// Spark/Flink, or (run, scheduleAndExecute with --engine spark|flink) executed by Hudi's own utilities
// on a cluster with tblcli's plan, lock and verdict. Exit codes: 0 done or nothing to do, 1 failure
// (the engine's too: judged from the timeline), 4 lock held / another compaction running.
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import { ENGINE_OPTIONS, engineFromOpts, engineRunOptions, lockExpireMinutes, reportEngineRun } from './engine-options.ts';
import { heartbeatOption, lockOptions, metadataTableOption, serviceOpts, statusNote as note, VERBOSE } from './service-options.ts';

const SERVICE_OPTIONS: OptionSpec[] = [...lockOptions('a compaction run by another process'), metadataTableOption(), VERBOSE];

const SCHEDULE_OPTIONS: OptionSpec[] = [
  { flags: '--strategy <name>', description: 'num-commits (default), log-size or all', default: 'num-commits', choices: ['num-commits', 'log-size', 'all'] },
  { flags: '--delta-commits <n>', description: 'num-commits: delta commits since the last compaction needed (compaction.delta_commits)', default: 5, parse: parseIntOpt },
  { flags: '--log-size-threshold <bytes>', description: 'log-size: skip slices with fewer log bytes', default: 0, parse: parseIntOpt },
];

const RUN_OPTIONS: OptionSpec[] = [
  { flags: '--max-duration <duration>', description: 'stop and roll this attempt back when exceeded (e.g. 30m); with --engine: stop the engine (and its job on the cluster)', parse: parseDurationOpt },
  { flags: '--parallelism <n>', description: "file groups compacted in parallel (default 2); with --engine: the utility's --parallelism (Spark) or --compaction-tasks (Flink), passed only when given", parse: parseIntOpt },
  { flags: '--codec <codec>', description: 'parquet codec: GZIP (Hudi default, the default), SNAPPY or UNCOMPRESSED', choices: ['GZIP', 'SNAPPY', 'UNCOMPRESSED'] },
  { flags: '--gzip-level <n>', description: 'zlib level of GZIP pages, 1-9 (default 6, what Hudi writes); lower is faster, files a few % larger', parse: parseGzipLevel },
  heartbeatOption('a running compaction'),
];

function parseGzipLevel(v: string): number {
  const n = parseIntOpt(v);
  if (n < 1 || n > 9) throw new Error(`expected an integer from 1 to 9, got '${v}'`);
  return n;
}

type Services = typeof import('../src/services/index.ts');
const services = (): Promise<Services> => import('../src/services/index.ts');


function scheduleOpts(o: Opts) {
  const strategy = String(o.strategy ?? 'num-commits');
  if (!['num-commits', 'log-size', 'all'].includes(strategy)) throw new TblError('usage', `--strategy must be num-commits, log-size or all, got '${strategy}'`);
  return {
    strategy: strategy as 'num-commits' | 'log-size' | 'all',
    deltaCommits: o.deltaCommits as number | undefined,
    logSizeThreshold: o.logSizeThreshold as number | undefined,
  };
}

function runOpts(ctx: Ctx, o: Opts, progress?: import('./progress.ts').Progress) {
  const codec = String(o.codec ?? 'GZIP').toUpperCase();
  if (!['GZIP', 'SNAPPY', 'UNCOMPRESSED'].includes(codec)) throw new TblError('usage', `--codec must be GZIP, SNAPPY or UNCOMPRESSED, got '${codec}'`);
  return {
    maxDurationMs: o.maxDuration as number | undefined,
    parallelism: o.parallelism as number | undefined,
    codec: codec as 'GZIP',
    gzipLevel: o.gzipLevel as number | undefined,
    onStart: progress ? (e: { instant: string; fileGroups: number }) => progress.start(e.fileGroups, 'file groups', `compaction ${e.instant}`) : undefined,
    onProgress: progress ? (e: { path: string; records: number; bytes: number }) => progress.step(e.records, e.bytes, `wrote ${e.path} (${e.records} records)`) : undefined,
  };
}


async function printPlan(ctx: Ctx, o: Opts, table: import('../src/table/index.ts').Table, instant: string): Promise<void> {
  const v = await import('../src/views/service-results.ts');
  const r = await v.compactionShow(table, instant);
  ctx.out.table(r.columns, r.rows, outputOptions({ ...o, json: undefined }));
}

async function schedule(ctx: Ctx, o: Opts): Promise<string | undefined> {
  const table = await openFromOpts(ctx, o);
  const s = await (await services()).scheduleCompaction(table, { ...serviceOpts(ctx, o), ...scheduleOpts(o), dryRun: o.dryRun === true });
  if (s.metadataTableDisabled) ctx.out.warn(`metadata table of ${table.uri} disabled (hoodie.table.metadata.partitions cleared, .hoodie/metadata deleted)`);
  if (!s.instant) {
    if (wantsJson(o)) ctx.out.json({ scheduled: false, ...(o.dryRun === true ? { dryRun: true } : {}), reason: s.reason });
    else note(ctx, o, `Nothing to compact: ${s.reason}`);
    return undefined;
  }
  if (o.dryRun === true) {
    const ops = (s.plan?.operations ?? []).map((op) => ({ partitionPath: op.partitionPath ?? '', fileId: op.fileId ?? '', baseInstantTime: op.baseInstantTime ?? '', dataFilePath: op.dataFilePath ?? null, deltaFilePaths: op.deltaFilePaths ?? [] }));
    if (wantsJson(o)) ctx.out.json({ scheduled: false, dryRun: true, instant: s.instant, operations: ops });
    else {
      note(ctx, o, `Would schedule compaction ${s.instant} of ${ops.length} file group(s) (dry run: nothing written)`);
      ctx.out.table(
        [
          { key: 'partitionPath', header: 'Partition Path', value: (x: (typeof ops)[number]) => x.partitionPath },
          { key: 'fileId', header: 'File Id', value: (x) => x.fileId },
          { key: 'baseInstantTime', header: 'Base Instant', value: (x) => x.baseInstantTime },
          { key: 'dataFilePath', header: 'Data File Path', value: (x) => x.dataFilePath ?? '' },
          { key: 'deltaFilePaths', header: 'Total Delta Files', value: (x) => x.deltaFilePaths.length },
        ],
        ops,
        outputOptions({ ...o, json: undefined }),
      );
    }
    return undefined;
  }
  if (wantsJson(o)) ctx.out.json({ scheduled: true, instant: s.instant, operations: s.plan?.operations?.length ?? 0 });
  else {
    note(ctx, o, `Attempted to schedule compaction for ${s.instant}`);
    if (o.noPlanOutput) return s.instant;
    await printPlan(ctx, o, await (await import('../src/table/index.ts')).openTableAt(table.storage, table.basePath, table.uri), s.instant);
  }
  return s.instant;
}

type Engine = typeof import('../src/services/engine/index.ts');
type Loaded = import('../src/services/engine/index.ts').LoadedEngine;

async function engineSettingsOf(ctx: Ctx, o: Opts): Promise<{ engine: Engine; loaded: Loaded }> {
  const engine = await import('../src/services/engine/index.ts');
  return { engine, loaded: await engineFromOpts(ctx, o, engine) };
}

/** `compaction run --engine spark|flink`: the planned instant executed by Hudi's compactor utility. */
async function runOnEngine(ctx: Ctx, o: Opts, settings: NonNullable<Loaded['settings']>, instant?: string, plannedInstant?: string): Promise<number> {
  const table = await openFromOpts(ctx, o);
  const r = await (await services()).runCompactionOnEngine(table, {
    ...serviceOpts(ctx, o),
    ...engineRunOptions(ctx, o, settings),
    instant,
    plannedInstant,
  });
  return reportEngineRun(ctx, o, 'compaction', r);
}

/** `compaction run --dry-run` (local): the instant a run would take and its plan; nothing is claimed or written. */
async function dryRunCompaction(ctx: Ctx, o: Opts, instant?: string): Promise<number> {
  const table = await openFromOpts(ctx, o);
  const next = await (await services()).compactionToRun(table, { instant, heartbeatExpiryMs: o.heartbeatExpiry as number | undefined });
  if (wantsJson(o)) {
    ctx.out.json(next ? { dryRun: true, instant: next.instant, state: next.state, busy: next.busy, operations: next.operations } : { dryRun: true, instant: null });
    return next?.busy ? EXIT_LOCK_HELD : 0;
  }
  if (!next) return void note(ctx, o, 'NO PENDING COMPACTION TO RUN'), 0;
  note(ctx, o, next.busy ? `Compaction ${next.instant} is being run by another process (its heartbeat is live): a run would exit 4` : `Would run compaction ${next.instant} (${next.state.toLowerCase()}${next.state === 'INFLIGHT' ? ': its dead attempt would be rolled back first' : ''}); dry run, nothing written`);
  await printPlan(ctx, o, table, next.instant);
  return next.busy ? EXIT_LOCK_HELD : 0;
}

const EXIT_LOCK_HELD = 4;

async function run(ctx: Ctx, o: Opts, instant?: string): Promise<void> {
  const table = await openFromOpts(ctx, o);
  // a bar on a terminal's stderr, plain lines with --verbose in a pipe, nothing in cron
  const progress = (await import('./progress.ts')).progressFor(ctx, 'compaction', { verbose: o.verbose === true });
  let r: Awaited<ReturnType<Services['runCompaction']>>;
  try {
    r = await (await services()).runCompaction(table, { ...serviceOpts(ctx, o), ...runOpts(ctx, o, progress), instant: instant ?? (o.instant as string | undefined) });
  } finally {
    progress.end();
  }
  const summary = {
    status: r.status,
    instant: r.instant ?? null,
    completionTime: r.completionTime ?? null,
    fileGroups: r.fileGroups,
    records: r.records,
    bytes: r.bytes,
    durationMs: r.durationMs,
    rolledBackFiles: r.rolledBack?.deletedFiles.length ?? 0,
    rollbackInstant: r.rolledBack?.rollbackInstant ?? null,
    metadataCompaction: r.metadataCompaction?.instant ?? null,
    warnings: r.warnings,
  };
  for (const w of r.warnings) ctx.out.warn(w);
  if (wantsJson(o)) return ctx.out.json(summary);
  if (r.status === 'nothing-to-do') return note(ctx, o, 'NO PENDING COMPACTION TO RUN');
  if (r.status === 'already-completed') return note(ctx, o, `Compaction ${r.instant} is already completed; nothing to do`);
  if (r.rolledBack) {
    note(ctx, o, `Rolled back the failed attempt of ${r.instant} with rollback ${r.rolledBack.rollbackInstant}${r.rolledBack.reused ? ' (reused pending rollback)' : ''} (${r.rolledBack.deletedFiles.length} file(s) deleted)`);
  }
  if (r.metadataCompaction) note(ctx, o, `Compacted the metadata table at ${r.metadataCompaction.instant} (${r.metadataCompaction.files.length} base file(s)), as a Hudi writer would now`);
  if (o.verbose) {
    const rb = r.rolledBack ? ` after rolling back the previous attempt (rollback ${r.rolledBack.rollbackInstant})` : '';
    if (ctx.io.isStderrTTY) {
      // for a person: the same facts in units one reads at a glance
      const p = await import('../src/render/progress.ts');
      const { humanDuration } = await import('../src/render/time-chart.ts');
      ctx.io.stderr(`Compaction ${r.instant} completed${rb}: ${r.fileGroups} file group(s), ${p.shortCount(r.records)} records, ${p.shortBytes(r.bytes)} in ${humanDuration(r.durationMs)}\n`);
    } else ctx.io.stderr(`Compaction successfully completed for ${r.instant}${rb}: ${r.fileGroups} file group(s), ${r.records} records, ${r.bytes} bytes in ${r.durationMs} ms\n`);
  }
}

export const compactionServiceSpecs: CommandSpec[] = [
  {
    name: 'compaction schedule',
    pager: false,
    summary: 'Schedule a compaction (writes <t>.compaction.requested); no Spark needed',
    options: [{ flags: '--dry-run', description: 'print the plan that would be scheduled and write nothing' }, ...SCHEDULE_OPTIONS, ...SERVICE_OPTIONS],
    writes: { plan: ['--dry-run'] },
    table: { limit: -1 },
    async action(ctx, o) {
      await schedule(ctx, o);
    },
  },
  {
    name: 'compaction run',
    pager: false,
    summary: 'Run a pending compaction (default: the earliest); exit 4 when another process holds the lock or runs it',
    writes: { plan: ['--dry-run'] },
    options: [{ flags: '--instant <instant>', description: 'compaction instant to run (alias --compactionInstant)' }, { flags: '--compactionInstant <instant>', description: 'hudi-cli spelling of --instant' }, ...RUN_OPTIONS, ...SERVICE_OPTIONS, ...ENGINE_OPTIONS],
    async action(ctx, o) {
      const instant = (o.instant ?? o.compactionInstant) as string | undefined;
      const { loaded } = await engineSettingsOf(ctx, o);
      if (loaded.settings) return runOnEngine(ctx, o, loaded.settings, instant);
      if (o.dryRun === true) return dryRunCompaction(ctx, o, instant);
      await run(ctx, o, instant);
    },
  },
  {
    name: 'compaction scheduleAndExecute',
    pager: false,
    summary: 'Schedule a compaction and run exactly that instant',
    writes: { plan: ['--dry-run'] },
    options: [...SCHEDULE_OPTIONS, ...RUN_OPTIONS, ...SERVICE_OPTIONS, ...ENGINE_OPTIONS],
    table: { limit: -1 },
    async action(ctx, o) {
      runOpts(ctx, o); // a bad run option fails before a plan is written
      const { loaded } = await engineSettingsOf(ctx, o);
      if (loaded.settings) lockExpireMinutes(o);
      if (loaded.settings && o.dryRun) {
        // plan without writing it, then show the command for the instant it would get
        const table = await openFromOpts(ctx, o);
        const s = await (await services()).scheduleCompaction(table, { ...serviceOpts(ctx, o), ...scheduleOpts(o), dryRun: true });
        if (!s.instant) {
          if (wantsJson(o)) ctx.out.json({ scheduled: false, reason: s.reason });
          else note(ctx, o, `Nothing to compact: ${s.reason}`);
          return;
        }
        return runOnEngine(ctx, { ...o, instant: undefined }, loaded.settings, undefined, s.instant);
      }
      if (o.dryRun === true) return void (await schedule(ctx, o));
      const instant = await schedule(ctx, { ...o, json: undefined, format: undefined, noPlanOutput: wantsJson(o) });
      if (!instant) return;
      if (loaded.settings) return runOnEngine(ctx, o, loaded.settings, instant);
      await run(ctx, o, instant);
    },
  },
  {
    name: 'compaction unschedule',
    pager: false,
    summary: 'Remove a compaction plan that has not started',
    writes: { plan: ['--dry-run'] },
    options: [{ flags: '--instant <instant>', description: 'compaction instant (required)' }, { flags: '--dry-run', description: 'check the plan can be unscheduled and write nothing' }, ...SERVICE_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const instant = o.instant as string | undefined;
      if (!instant) throw new TblError('usage', '--instant is required');
      const r = await (await services()).unscheduleCompaction(table, instant, { ...serviceOpts(ctx, o), dryRun: o.dryRun === true });
      if (wantsJson(o)) ctx.out.json({ ...r, dryRun: o.dryRun === true });
      else if (o.dryRun === true) ctx.out.info(`Would unschedule pending compaction ${r.instant} (${r.operations} operation(s)); dry run, nothing written`);
      else ctx.out.info(`No File renames needed to unschedule pending compaction. Operation successful. (${r.instant}, ${r.operations} operation(s))`);
    },
  },
  {
    name: 'compaction validate',
    pager: false,
    summary: "Check that a compaction plan's base and log files still exist",
    options: [{ flags: '--instant <instant>', description: 'compaction instant (required)' }],
    table: { limit: -1 },
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const instant = o.instant as string | undefined;
      if (!instant) throw new TblError('usage', '--instant is required');
      const r = await (await services()).validateCompaction(table, instant);
      if (!wantsJson(o)) ctx.out.info(`\n\n\t COMPACTION PLAN ${r.valid ? 'VALID' : 'INVALID'}\n\n`);
      ctx.out.table(
        [
          { key: 'fileId', header: 'File Id', value: (x: (typeof r.rows)[number]) => x.fileId },
          { key: 'baseInstantTime', header: 'Base Instant Time', value: (x) => x.baseInstantTime },
          { key: 'baseDataFile', header: 'Base Data File', value: (x) => x.baseDataFile },
          { key: 'numDeltaFiles', header: 'Num Delta Files', value: (x) => x.numDeltaFiles },
          { key: 'valid', header: 'Valid', value: (x) => x.valid },
          { key: 'error', header: 'Error', value: (x) => x.error },
        ],
        r.rows,
        outputOptions(o),
      );
      return r.valid ? 0 : 1;
    },
  },
];
