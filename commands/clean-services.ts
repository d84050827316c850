// cleans run | clean schedule | clean run | clean scheduleAndExecute — offline clean without Spark, or
// (cleans run, clean run, clean scheduleAndExecute with --engine spark) executed by Hudi's HoodieCleaner
// with tblcli's plan, lock, heartbeat and verdict. Quiet on success (cron); --json prints a summary;
// --dry-run prints the plan. Exit codes: 0 done or nothing to clean, 1 failure (the engine's too:
// judged from the timeline), 4 lock held / another process runs the pending clean.
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, storageOptions, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import type { Table } from '../src/table/index.ts';
import { ENGINE_OPTIONS, engineExitCode, engineFromOpts, engineRunOptions, engineSummary, lockExpireMinutes, reportEngineRun } from './engine-options.ts';
import { heartbeatOption, lockOptions, metadataTableOption, serviceOpts, statusNote as note, VERBOSE } from './service-options.ts';

type Services = typeof import('../src/services/index.ts');
const services = (): Promise<Services> => import('../src/services/index.ts');
type CleanTableResult = import('../src/services/index.ts').CleanTableResult;
type CleanRunResult = import('../src/services/index.ts').CleanRunResult;
type EngineRunResult = import('../src/services/index.ts').EngineRunResult;
type EngineSettings = NonNullable<import('../src/services/engine/index.ts').LoadedEngine['settings']>;

const CLEAN_KEY_OPTIONS: OptionSpec[] = [
  { flags: '--policy <policy>', description: 'KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS (default: hoodie.clean.policy / hoodie.cleaner.policy of the props and the table, else KEEP_LATEST_COMMITS)' },
  { flags: '--commits-retained <n>', description: 'KEEP_LATEST_COMMITS: commits whose files stay (hoodie.clean.commits.retained, default 10)', parse: parseIntOpt },
  { flags: '--file-versions-retained <n>', description: 'KEEP_LATEST_FILE_VERSIONS: versions kept per file group (hoodie.clean.fileversions.retained, default 3)', parse: parseIntOpt },
  { flags: '--hours-retained <n>', description: 'KEEP_LATEST_BY_HOURS: hours of commits whose files stay (hoodie.clean.hours.retained, default 24)', parse: parseIntOpt },
  { flags: '--hoodieConfigs <key=value...>', description: 'Hudi configs (hudi-cli spelling); the clean keys (hoodie.clean.*, hoodie.cleaner.*, hoodie.write.concurrency.mode) are honoured' },
  { flags: '--propsFilePath <file>', description: 'properties file (local or on the table\'s file system) with Hudi configs; the clean keys are honoured' },
];

const pairParser = ENGINE_OPTIONS.find((x) => x.flags.startsWith('--hoodie-conf '))!.parse;

/** HoodieCleaner's --hoodie-conf / --props and --dry-run, worded for a command with (or without) --engine. */
function cleanerSpellings(o: { plans: boolean; engine: boolean }): OptionSpec[] {
  const spark = o.engine ? '; with --engine spark also passed to HoodieCleaner' : '';
  return [
    { flags: '--hoodie-conf <key=value>', description: `${o.plans ? 'HoodieCleaner spelling of --hoodieConfigs, repeatable' : 'Hudi setting, repeatable'}${spark}${o.engine ? ' (secret keys in a private --props file, never on the command line)' : ''}`, parse: pairParser },
    { flags: '--props <file>', description: `${o.plans ? 'HoodieCleaner spelling of --propsFilePath' : 'Hudi properties file'}${o.engine ? "; with --engine spark also HoodieCleaner's --props (local path or a URI the driver reads)" : ''}` },
    {
      flags: '--dry-run',
      description: `${o.plans ? 'print the plan (partition, file, bytes, why)' : 'print the pending clean(s) a run would execute'} and change nothing${o.engine ? '; with --engine spark also check the lock and the heartbeat and print the HoodieCleaner command line' : ''}`,
    },
  ];
}

/** The engine settings (--engine and the rest), without the three flags the clean words itself. */
const CLEAN_ENGINE_OPTIONS: OptionSpec[] = ENGINE_OPTIONS.filter((x) => !/^--(hoodie-conf|props|dry-run)\b/.test(x.flags)).map((x) =>
  x.flags.startsWith('--engine ') ? { ...x, description: "who executes the clean: local (tblcli itself, the default) or spark (Hudi's HoodieCleaner via spark-submit; Hudi has no Flink cleaner); env TBLCLI_ENGINE" } : x,
);

const RUN_OPTIONS: OptionSpec[] = [
  { flags: '--max-duration <duration>', description: 'stop deleting when exceeded (e.g. 30m); the clean stays pending and the next run finishes it; with --engine: stop the engine (and its job on the cluster)', parse: parseDurationOpt },
  { flags: '--parallelism <n>', description: 'deletes in flight (default hoodie.clean.parallelism, at most 64; WebHDFS caps requests with --concurrency); not with --engine spark (set hoodie.clean.parallelism with --hoodie-conf)', parse: parseIntOpt },
];

const SERVICE_OPTIONS: OptionSpec[] = [
  ...lockOptions('a clean run by another process'),
  heartbeatOption('a pending write or clean'),
  metadataTableOption('the deletions go to it in the same transaction'),
  VERBOSE,
  { flags: '--sparkMaster <master>', description: 'hudi-cli spelling of --master for --engine spark; ignored otherwise' },
  { flags: '--sparkMemory <memory>', description: 'hudi-cli spelling of --executor-memory for --engine spark; ignored otherwise' },
];


/** The clean configuration: flags over --hoodieConfigs over --propsFilePath over hoodie.properties. */
async function cleanConfig(ctx: Ctx, o: Opts, table: Table) {
  const s = await services();
  const layers: ReadonlyMap<string, string>[] = [table.config.props];
  const propsFile = o.propsFilePath ?? o.props;
  if (propsFile) {
    const { resolveLocation } = await import('../src/storage/index.ts');
    const { parseProperties } = await import('../src/config/index.ts');
    const loc = await resolveLocation(String(propsFile), storageOptions(ctx, o));
    layers.push(parseProperties(await loc.storage.readFile(loc.path)));
  }
  const raw = [o.hoodieConfigs, o.hoodieConf].flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]));
  if (raw.length > 0) layers.push(s.parseHoodieConfigs(raw));
  return s.resolveCleanConfig(
    layers,
    {
      policy: o.policy as string | undefined,
      commitsRetained: o.commitsRetained as number | undefined,
      fileVersionsRetained: o.fileVersionsRetained as number | undefined,
      hoursRetained: o.hoursRetained as number | undefined,
    },
    table.config.version,
  );
}


interface PlanRow {
  partition: string;
  file: string;
  bytes: number | null;
  reason: string;
}

const PLAN_COLUMNS = [
  { key: 'partition', header: 'Partition Path', value: (r: PlanRow) => r.partition },
  { key: 'file', header: 'File', value: (r: PlanRow) => r.file },
  { key: 'bytes', header: 'Size', value: (r: PlanRow) => r.bytes },
  { key: 'reason', header: 'Reason', value: (r: PlanRow) => r.reason },
];

/** The dry run's title, rows and --json value (shared by the local and the engine dry runs). */
function dryRunOf(r: Pick<CleanTableResult, 'pending' | 'schedule'>): { title: string; rows: PlanRow[]; json: Record<string, unknown> } {
  const rows: PlanRow[] = [];
  let title: string;
  if (r.pending.length > 0) {
    for (const p of r.pending) {
      for (const f of p.plan.files) rows.push({ partition: f.partition, file: f.path.slice(f.path.lastIndexOf('/') + 1), bytes: null, reason: `pending clean ${p.instant}` });
      for (const d of p.plan.partitionsToDelete) rows.push({ partition: d.partition, file: '', bytes: null, reason: `pending clean ${p.instant}: empty partition` });
    }
    const busy = r.pending.filter((p) => p.busy).map((p) => p.instant);
    title = `${r.pending.length} pending clean(s) would be finished first (${rows.length} entries); a new plan is made after them${busy.length ? `; ${busy.join(', ')} is being run by another process (a run would exit 4)` : ''}`;
  } else {
    const s = r.schedule!;
    for (const p of s.planned?.partitions ?? []) {
      for (const f of p.files) rows.push({ partition: p.partition, file: f.name, bytes: f.size ?? null, reason: f.reason });
      if (p.deletePartition) rows.push({ partition: p.partition, file: '', bytes: null, reason: 'empty partition: deleted' });
    }
    const bytes = rows.reduce((n, x) => n + (x.bytes ?? 0), 0);
    const ectr = s.planned?.ectr ? `, earliest commit to retain ${s.planned.ectr.requestedTime}` : '';
    title = s.plan ? `Clean plan (${s.plan.policy}${ectr}): ${s.planned!.files} file(s), ${bytes} bytes, ${s.plan.partitionsToBeDeleted?.length ?? 0} partition(s) to delete` : `Nothing to clean: ${s.reason}`;
  }
  const json = {
    dryRun: true,
    summary: title,
    instant: r.pending[0]?.instant ?? (r.schedule?.plan ? r.schedule.instant ?? null : null),
    pending: r.pending.map((p) => p.instant),
    busy: r.pending.filter((p) => p.busy).map((p) => p.instant),
    policy: r.schedule?.plan?.policy ?? null,
    earliestCommitToRetain: r.schedule?.planned?.ectr?.requestedTime ?? null,
    files: rows,
  };
  return { title, rows, json };
}

const EXIT_LOCK_HELD = 4;

/** Prints a dry run; exit 4 when a pending clean it would run is another process's. */
function printDryRun(ctx: Ctx, o: Opts, r: Pick<CleanTableResult, 'pending' | 'schedule'>): number {
  const d = dryRunOf(r);
  for (const w of r.schedule?.warnings ?? []) ctx.out.warn(w);
  if (wantsJson(o)) ctx.out.json(d.json);
  else {
    ctx.out.info(d.title);
    ctx.out.table(PLAN_COLUMNS, d.rows, { ...outputOptions({ ...o, json: undefined }), limit: -1 });
  }
  return r.pending.some((p) => p.busy) ? EXIT_LOCK_HELD : 0;
}

function summaryOf(r: { cleans: CleanRunResult[]; rolledBack: { instant: string }[]; schedule?: { reason?: string } }) {
  const done = r.cleans.filter((c) => c.status === 'completed');
  const last = done[done.length - 1];
  const bytes = done.every((c) => c.bytes !== undefined) ? done.reduce((n, c) => n + (c.bytes ?? 0), 0) : null;
  return {
    status: done.length > 0 ? 'cleaned' : 'nothing-to-clean',
    instant: last?.instant ?? null,
    completionTime: last?.completionTime ?? null,
    files: done.reduce((n, c) => n + c.deleted, 0),
    failedFiles: done.reduce((n, c) => n + c.failed, 0),
    bytes,
    partitions: done.reduce((n, c) => n + c.partitions, 0),
    partitionsDeleted: done.flatMap((c) => c.partitionsDeleted),
    durationMs: done.reduce((n, c) => n + c.durationMs, 0),
    cleans: done.map((c) => ({ instant: c.instant, completionTime: c.completionTime ?? null, resumed: c.resumed, files: c.deleted, failedFiles: c.failed, bytes: c.bytes ?? null, partitions: c.partitions, partitionsDeleted: c.partitionsDeleted, durationMs: c.durationMs })),
    rolledBack: r.rolledBack.map((x) => x.instant),
    reason: done.length === 0 ? r.schedule?.reason ?? null : null,
    warnings: r.cleans.flatMap((c) => c.warnings),
  };
}

async function report(ctx: Ctx, o: Opts, summary: ReturnType<typeof summaryOf>): Promise<void> {
  for (const w of summary.warnings) ctx.out.warn(w);
  if (wantsJson(o)) return ctx.out.json(summary);
  for (const rb of summary.rolledBack) note(ctx, o, `Rolled back failed write ${rb} (expired heartbeat, LAZY failed-writes policy)`);
  if (summary.status === 'nothing-to-clean') return note(ctx, o, `Nothing to clean: ${summary.reason ?? 'no pending clean'}`);
  if (!o.verbose) return;
  // for a person (a terminal): the facts in units one reads at a glance, as compaction run --verbose does
  const person = ctx.io.isStderrTTY ? { p: await import('../src/render/progress.ts'), t: await import('../src/render/time-chart.ts') } : undefined;
  for (const c of summary.cleans) {
    const failed = c.failedFiles ? `, ${person ? person.p.shortCount(c.failedFiles) : c.failedFiles} failed` : '';
    const deletedParts = c.partitionsDeleted.length ? `, ${c.partitionsDeleted.length} deleted` : '';
    const resumed = c.resumed ? ' (resumed from its plan)' : '';
    if (person) {
      const bytes = c.bytes !== null ? `, ${person.p.shortBytes(c.bytes)}` : '';
      ctx.io.stderr(`Clean ${c.instant} completed${resumed}: ${person.p.shortCount(c.files)} file(s) deleted${failed}${bytes}, ${c.partitions} partition(s)${deletedParts} in ${person.t.humanDuration(c.durationMs)}\n`);
    } else {
      ctx.io.stderr(`Clean ${c.instant}${resumed} completed: ${c.files} file(s) deleted${failed}${c.bytes !== null ? `, ${c.bytes} bytes` : ''}, ${c.partitions} partition(s)${deletedParts} in ${c.durationMs} ms\n`);
    }
  }
}

type Progress = import('./progress.ts').Progress;

/** Progress of the deletions: a bar per clean on a terminal, ~20 plain lines with --verbose in a pipe, nothing in cron. */
function deletionProgress(ctx: Ctx, o: Opts, progress: Progress | undefined) {
  if (!progress) return {};
  const tty = ctx.io.isStderrTTY;
  let chunk = 1;
  let unreported = 0;
  let done = 0;
  let total = 0;
  return {
    onStart: (e: { instant: string; files: number }) => {
      progress.start(e.files, 'files', `clean ${e.instant}`);
      chunk = tty ? 1 : Math.max(1, Math.ceil(e.files / 20));
      [unreported, done, total] = [0, 0, e.files];
    },
    onProgress: (e: { type: 'deleted' | 'failed'; path: string }) => {
      unreported++;
      done++;
      const failed = e.type === 'failed' && o.verbose ? `failed to delete ${e.path}` : undefined;
      if (failed || unreported >= chunk || done === total) {
        progress.step(0, 0, failed, unreported);
        unreported = 0;
      }
    },
  };
}

function runOpts(ctx: Ctx, o: Opts, progress?: Progress) {
  return {
    maxDurationMs: o.maxDuration as number | undefined,
    parallelism: o.parallelism as number | undefined,
    wantBytes: wantsJson(o) || o.verbose === true,
    ...deletionProgress(ctx, o, progress),
  };
}

/** Runs `work` with a deletion progress (drawn on a terminal or with --verbose), removed afterwards. */
async function withProgress<T>(ctx: Ctx, o: Opts, work: (p: Progress | undefined) => Promise<T>): Promise<T> {
  if (!ctx.io.isStderrTTY && !o.verbose) return work(undefined);
  const p = (await import('./progress.ts')).progressFor(ctx, 'clean', { verbose: o.verbose === true, noRecords: true, noBytes: true });
  try {
    return await work(p);
  } finally {
    p.end();
  }
}

async function schedule(ctx: Ctx, o: Opts, table: Table, config: Awaited<ReturnType<typeof cleanConfig>>, dryRun = o.dryRun === true) {
  const s = await services();
  const r = await s.scheduleClean(table, { ...serviceOpts(ctx, o), config, dryRun, wantBytes: wantsJson(o) || o.verbose === true });
  for (const w of r.warnings) ctx.out.warn(w);
  for (const rb of r.rolledBack) note(ctx, o, `Rolled back failed write ${rb.instant} (expired heartbeat, LAZY failed-writes policy)`);
  return r;
}

// --- --engine spark ---------------------------------------------------------------------------

/** The engine settings when --engine (or its env/conf) names one; undefined for local. */
async function engineSettings(ctx: Ctx, o: Opts): Promise<EngineSettings | undefined> {
  const engine = await import('../src/services/engine/index.ts');
  // hudi-cli's --sparkMaster / --sparkMemory (cleans run) stand for --master / --executor-memory
  const withCli = { ...o, master: o.master ?? o.sparkMaster, executorMemory: o.executorMemory ?? o.sparkMemory };
  const loaded = await engineFromOpts(ctx, withCli, engine);
  if (!loaded.settings) return undefined;
  lockExpireMinutes(o);
  return loaded.settings;
}

function engineOpts(ctx: Ctx, o: Opts, settings: EngineSettings) {
  return { ...serviceOpts(ctx, o), ...engineRunOptions(ctx, o, settings) };
}

/** The command line's usage errors (bundle, flags HoodieCleaner does not take, Flink) before the table is touched. */
async function probeEngine(ctx: Ctx, o: Opts, table: Table, settings: EngineSettings): Promise<void> {
  await (await services()).runCleanOnEngine(table, { ...engineOpts(ctx, o, settings), dryRun: true, plannedInstant: '00000000000000000' });
}

/** An engine dry run: the plan (pending or new) and the HoodieCleaner command line for it. */
async function engineDryRun(ctx: Ctx, o: Opts, table: Table, settings: EngineSettings, d: Pick<CleanTableResult, 'pending' | 'schedule'>): Promise<number> {
  const s = await services();
  const opts = { ...engineOpts(ctx, o, settings), dryRun: true };
  const planned = d.pending.length === 0 ? d.schedule?.instant : undefined;
  if (d.pending.length === 0 && !d.schedule?.plan) return printDryRun(ctx, o, d);
  const r = await s.runCleanOnEngine(table, planned ? { ...opts, plannedInstant: planned } : { ...opts, instant: d.pending[0]!.instant });
  // a plan not written yet: the engine run would delete the files it lists
  if (planned) r.operations = d.schedule?.planned?.files;
  const plan = dryRunOf(d);
  if (wantsJson(o)) {
    for (const w of r.warnings) ctx.out.warn(w);
    ctx.out.json({ ...plan.json, engine: engineSummary(r) });
    return 0;
  }
  ctx.out.info(plan.title);
  ctx.out.table(PLAN_COLUMNS, plan.rows, { ...outputOptions({ ...o, json: undefined }), limit: -1 });
  return reportEngineRun(ctx, o, 'clean', r, 'file(s)');
}

/** What the completed cleans of the engine runs deleted (from their clean metadata). */
async function engineFacts(table: Table, runs: EngineRunResult[]): Promise<(Record<string, unknown> & { instant: string | null; files?: number; failedFiles?: number; partitions?: number })[]> {
  const s = await services();
  return Promise.all(
    runs.map(async (r) => ({ ...engineSummary(r), instant: r.instant ?? null, ...(r.status === 'completed' && r.instant ? ((await s.cleanOutcome(table, r.instant)) ?? {}) : {}) })),
  );
}

/** Reports engine runs (the last one decides the exit code); JSON: the last run's summary with every run listed. */
async function reportEngineRuns(ctx: Ctx, o: Opts, table: Table, runs: EngineRunResult[], extra: { rolledBack: string[]; reason?: string }): Promise<number> {
  const last = runs[runs.length - 1];
  if (wantsJson(o)) {
    for (const r of runs) for (const w of r.warnings) ctx.out.warn(w);
    const facts = await engineFacts(table, runs);
    ctx.out.json(last ? { ...facts[facts.length - 1], rolledBack: extra.rolledBack, reason: null, runs: facts } : { status: 'nothing-to-do', engine: null, instant: null, rolledBack: extra.rolledBack, reason: extra.reason ?? null, runs: [] });
    return last ? engineExitCode(last) : 0;
  }
  if (!last) return void note(ctx, o, `Nothing to clean: ${extra.reason ?? 'no pending clean'}`), 0;
  let code = 0;
  for (const r of runs) code = reportEngineRun(ctx, o, 'clean', r, 'file(s)');
  if (o.verbose) {
    for (const f of await engineFacts(table, runs)) if (f.files !== undefined) ctx.io.stderr(`Clean ${f.instant}: ${f.files} file(s) deleted${f.failedFiles ? `, ${f.failedFiles} failed` : ''}, ${f.partitions} partition(s)\n`);
  }
  return code;
}

/** `cleans run --engine spark`: pending cleans first (HoodieCleaner executes them all), then tblcli's new plan. */
async function cleansRunOnEngine(ctx: Ctx, o: Opts, table: Table, settings: EngineSettings): Promise<number> {
  const s = await services();
  const config = await cleanConfig(ctx, o, table);
  await probeEngine(ctx, o, table, settings);
  if (o.dryRun) {
    const pending = await s.pendingCleanPlans(table, { heartbeatExpiryMs: o.heartbeatExpiry as number | undefined });
    return engineDryRun(ctx, o, table, settings, { pending, schedule: pending.length > 0 ? undefined : await schedule(ctx, o, table, config, true) });
  }
  const opts = engineOpts(ctx, o, settings);
  const runs: EngineRunResult[] = [];
  if (await s.hasPendingClean(table)) {
    const r = await s.runCleanOnEngine(table, opts);
    runs.push(r);
    if (r.status !== 'completed' && r.status !== 'nothing-to-do') return reportEngineRuns(ctx, o, table, runs, { rolledBack: [] });
  }
  const sch = await schedule(ctx, o, table, config, false);
  if (sch.instant) runs.push(await s.runCleanOnEngine(table, { ...opts, instant: sch.instant }));
  return reportEngineRuns(ctx, o, table, runs.filter((r) => r.status !== 'nothing-to-do'), { rolledBack: sch.rolledBack.map((x) => x.instant), reason: sch.reason });
}

// --- the commands -----------------------------------------------------------------------------

async function cleansRun(ctx: Ctx, o: Opts): Promise<number | void> {
  const settings = await engineSettings(ctx, o);
  const table = await openFromOpts(ctx, o);
  if (settings) return cleansRunOnEngine(ctx, o, table, settings);
  const config = await cleanConfig(ctx, o, table);
  const s = await services();
  const r = await withProgress(ctx, o, (p) => s.cleanTable(table, { ...serviceOpts(ctx, o), ...runOpts(ctx, o, p), config, dryRun: o.dryRun === true }));
  if (o.dryRun) return printDryRun(ctx, o, r);
  for (const w of r.schedule?.warnings ?? []) ctx.out.warn(w);
  await report(ctx, o, summaryOf(r));
}

async function cleanRun(ctx: Ctx, o: Opts): Promise<number | void> {
  const settings = await engineSettings(ctx, o);
  const table = await openFromOpts(ctx, o);
  const s = await services();
  const instant = o.instant as string | undefined;
  if (settings) {
    await probeEngine(ctx, o, table, settings);
    const r = await s.runCleanOnEngine(table, { ...engineOpts(ctx, o, settings), instant });
    if (o.dryRun) return reportEngineRun(ctx, o, 'clean', r, 'file(s)');
    return reportEngineRuns(ctx, o, table, r.status === 'nothing-to-do' ? [] : [r], { rolledBack: [], reason: 'no pending clean' });
  }
  if (o.dryRun) {
    const pending = await s.pendingCleanPlans(table, { heartbeatExpiryMs: o.heartbeatExpiry as number | undefined, instant });
    if (instant && pending.length === 0) {
      // the same answers a run gives: not found (exit 1) or already completed (exit 0)
      const tl = await table.timeline();
      const found = tl.find(instant).filter((i) => s.isClean(i));
      if (found.length === 0) throw new TblError('not-found', `Clean instant ${instant} not found in ${table.uri}`, { instant, path: table.uri });
    }
    if (pending.length === 0) {
      if (wantsJson(o)) ctx.out.json({ ...dryRunOf({ pending, schedule: { reason: 'no pending clean', rolledBack: [], warnings: [] } }).json, summary: 'Nothing to clean: no pending clean' });
      else note(ctx, o, instant ? `Clean ${instant} is already completed; nothing to do` : 'Nothing to clean: no pending clean');
      return 0;
    }
    return printDryRun(ctx, o, { pending });
  }
  const opts = { ...serviceOpts(ctx, o) };
  const cleans = await withProgress(ctx, o, async (p) => (instant ? [await s.runClean(table, { ...opts, ...runOpts(ctx, o, p), instant })] : await s.runPendingCleans(table, { ...opts, ...runOpts(ctx, o, p) })));
  if (instant && cleans[0]!.status === 'already-completed' && !wantsJson(o)) return note(ctx, o, `Clean ${instant} is already completed; nothing to do`);
  await report(ctx, o, summaryOf({ cleans, rolledBack: [], schedule: { reason: 'no pending clean' } }));
}

async function scheduleAndExecute(ctx: Ctx, o: Opts): Promise<number | void> {
  const settings = await engineSettings(ctx, o);
  const table = await openFromOpts(ctx, o);
  const config = await cleanConfig(ctx, o, table);
  if (settings) await probeEngine(ctx, o, table, settings);
  const r = await schedule(ctx, o, table, config);
  if (o.dryRun) return settings ? engineDryRun(ctx, o, table, settings, { pending: [], schedule: r }) : printDryRun(ctx, o, { pending: [], schedule: r });
  if (settings) {
    const runs = r.instant ? [await (await services()).runCleanOnEngine(table, { ...engineOpts(ctx, o, settings), instant: r.instant })] : [];
    return reportEngineRuns(ctx, o, table, runs, { rolledBack: r.rolledBack.map((x) => x.instant), reason: r.reason });
  }
  const cleans: CleanRunResult[] = [];
  if (r.instant) {
    const known = new Map<string, number>();
    for (const p of r.planned?.partitions ?? []) for (const f of p.files) if (f.size !== undefined) known.set(f.path, f.size);
    const s = await services();
    cleans.push(await withProgress(ctx, o, (p) => s.runClean(table, { ...serviceOpts(ctx, o), ...runOpts(ctx, o, p), instant: r.instant, knownSizes: known })));
  }
  await report(ctx, o, summaryOf({ cleans, rolledBack: r.rolledBack, schedule: r }));
}

export const cleanServiceSpecs: CommandSpec[] = [
  {
    name: 'cleans run',
    pager: false,
    summary: 'Clean the table without Spark (HoodieCleaner): finish pending cleans, then plan and run a new one; exit 4 when the lock is held',
    options: [...CLEAN_KEY_OPTIONS, ...cleanerSpellings({ plans: true, engine: true }), ...RUN_OPTIONS, ...SERVICE_OPTIONS, ...CLEAN_ENGINE_OPTIONS],
    writes: { plan: ['--dry-run'] },
    action: cleansRun,
  },
  {
    name: 'clean schedule',
    pager: false,
    summary: 'Plan a clean and write <t>.clean.requested (nothing is deleted); --dry-run prints the plan',
    options: [...CLEAN_KEY_OPTIONS, ...cleanerSpellings({ plans: true, engine: false }), ...SERVICE_OPTIONS.filter((x) => !/^--spark/.test(x.flags))],
    writes: { plan: ['--dry-run'] },
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await schedule(ctx, o, table, await cleanConfig(ctx, o, table));
      if (o.dryRun) return printDryRun(ctx, o, { pending: [], schedule: r });
      if (wantsJson(o)) return ctx.out.json({ scheduled: r.instant !== undefined, instant: r.instant ?? null, files: r.planned?.files ?? 0, partitions: r.planned?.partitions.length ?? 0, partitionsToBeDeleted: r.plan?.partitionsToBeDeleted ?? [], reason: r.reason ?? null });
      if (!r.instant) return note(ctx, o, `Nothing to clean: ${r.reason}`);
      note(ctx, o, `Scheduled clean ${r.instant}: ${r.planned!.files} file(s) in ${r.planned!.partitions.length} partition(s)`);
    },
  },
  {
    name: 'clean run',
    pager: false,
    summary: 'Execute pending cleans from their plans (default: all, oldest first); exit 4 when another process runs one',
    options: [{ flags: '--instant <instant>', description: 'the pending clean to run (with --engine spark: the one whose completion is the verdict; HoodieCleaner executes every pending clean)' }, ...cleanerSpellings({ plans: false, engine: true }), ...RUN_OPTIONS, ...SERVICE_OPTIONS, ...CLEAN_ENGINE_OPTIONS],
    writes: { plan: ['--dry-run'] },
    action: cleanRun,
  },
  {
    name: 'clean scheduleAndExecute',
    pager: false,
    summary: 'Plan a clean and run exactly that instant',
    options: [...CLEAN_KEY_OPTIONS, ...cleanerSpellings({ plans: true, engine: true }), ...RUN_OPTIONS, ...SERVICE_OPTIONS, ...CLEAN_ENGINE_OPTIONS],
    writes: { plan: ['--dry-run'] },
    action: scheduleAndExecute,
  },
];
