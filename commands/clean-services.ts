// cleans run | clean schedule | clean run | clean scheduleAndExecute — offline clean without Spark.
// Quiet on success (cron); --json prints a summary; --dry-run prints the plan. Exit codes: 0 done or
// nothing to clean, 1 failure, 4 lock held / another process runs the pending clean.
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec, OptionSpec, Opts } from './spec.ts';
import { parseDurationOpt, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, storageOptions, wantsJson } from './shared.ts';
import type { Ctx } from './context.ts';
import type { Table } from '../src/table/index.ts';

type Services = typeof import('../src/services/index.ts');
const services = (): Promise<Services> => import('../src/services/index.ts');

const POLICY_OPTIONS: OptionSpec[] = [
  { flags: '--policy <policy>', description: 'KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS (default: hoodie.clean.policy / hoodie.cleaner.policy of the props and the table, else KEEP_LATEST_COMMITS)' },
  { flags: '--commits-retained <n>', description: 'KEEP_LATEST_COMMITS: commits whose files stay (hoodie.clean.commits.retained, default 10)', parse: parseIntOpt },
  { flags: '--file-versions-retained <n>', description: 'KEEP_LATEST_FILE_VERSIONS: versions kept per file group (hoodie.clean.fileversions.retained, default 3)', parse: parseIntOpt },
  { flags: '--hours-retained <n>', description: 'KEEP_LATEST_BY_HOURS: hours of commits whose files stay (hoodie.clean.hours.retained, default 24)', parse: parseIntOpt },
  { flags: '--hoodieConfigs <key=value...>', description: 'Hudi configs (hudi-cli spelling); the clean keys (hoodie.clean.*, hoodie.cleaner.*, hoodie.write.concurrency.mode) are honoured' },
  { flags: '--propsFilePath <file>', description: 'properties file (local or on the table\'s file system) with Hudi configs; the clean keys are honoured' },
  { flags: '--hoodie-conf <key=value...>', description: 'HoodieCleaner spelling of --hoodieConfigs' },
  { flags: '--props <file>', description: 'HoodieCleaner spelling of --propsFilePath' },
  { flags: '--dry-run', description: 'print the plan (partition, file, bytes, why) and change nothing' },
];

const RUN_OPTIONS: OptionSpec[] = [
  { flags: '--max-duration <duration>', description: 'stop deleting when exceeded (e.g. 30m); the clean stays pending and the next run finishes it', parse: parseDurationOpt },
  { flags: '--parallelism <n>', description: 'deletes in flight (default hoodie.clean.parallelism, at most 64; WebHDFS caps requests with --concurrency)', parse: parseIntOpt },
];

const SERVICE_OPTIONS: OptionSpec[] = [
  { flags: '--wait', description: 'wait for the table lock instead of exiting 4' },
  { flags: '--wait-timeout <duration>', description: 'give up waiting after this long (e.g. 10m)', parse: parseDurationOpt },
  { flags: '--lock-expire <duration>', description: 'FileSystemBasedLockProvider expiry (hoodie.write.lock.filesystem.expire; default 1m, 0 = never)', parse: parseDurationOpt },
  { flags: '--heartbeat-expiry <duration>', description: 'a pending write or clean whose heartbeat is older is considered dead (default 2m, as Hudi)', parse: parseDurationOpt },
  { flags: '--metadata-table <mode>', description: "table with a metadata table: 'update' (default: the deletions go to it in the same transaction), 'disable' or 'refuse'", default: 'update' },
  { flags: '--verbose', description: 'report progress and the result on stderr (quiet on success otherwise)' },
  { flags: '--sparkMaster <master>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
  { flags: '--sparkMemory <memory>', description: 'accepted for hudi-cli scripts; ignored (no Spark)' },
];

function serviceOpts(ctx: Ctx, o: Opts) {
  const mode = String(o.metadataTable ?? 'update');
  if (mode !== 'update' && mode !== 'refuse' && mode !== 'disable') throw new TblError('usage', `--metadata-table must be update, disable or refuse, got '${mode}'`);
  return {
    lock: { wait: o.wait === true, waitTimeoutMs: o.waitTimeout as number | undefined, expireMs: o.lockExpire as number | undefined },
    metadataTable: mode as 'update' | 'refuse' | 'disable',
    heartbeatExpiryMs: o.heartbeatExpiry as number | undefined,
    now: ctx.now,
  };
}

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

/** Status lines: stderr on a terminal, or always with --verbose (cron stays quiet otherwise). */
function note(ctx: Ctx, o: Opts, msg: string): void {
  if (o.verbose) ctx.io.stderr(`${msg}\n`);
  else ctx.out.info(msg);
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

async function printDryRun(ctx: Ctx, o: Opts, table: Table, r: import('../src/services/index.ts').CleanTableResult): Promise<void> {
  const rows: PlanRow[] = [];
  let title: string;
  if (r.pending.length > 0) {
    for (const p of r.pending) {
      for (const f of p.plan.files) rows.push({ partition: f.partition, file: f.path.slice(f.path.lastIndexOf('/') + 1), bytes: null, reason: `pending clean ${p.instant}` });
      for (const d of p.plan.partitionsToDelete) rows.push({ partition: d.partition, file: '', bytes: null, reason: `pending clean ${p.instant}: empty partition` });
    }
    title = `${r.pending.length} pending clean(s) would be finished first (${rows.length} entries); a new plan is made after them`;
  } else {
    const s = r.schedule!;
    const parts = s.planned?.partitions ?? [];
    for (const p of parts) {
      for (const f of p.files) rows.push({ partition: p.partition, file: f.name, bytes: f.size ?? null, reason: f.reason });
      if (p.deletePartition) rows.push({ partition: p.partition, file: '', bytes: null, reason: 'empty partition: deleted' });
    }
    const bytes = rows.reduce((n, x) => n + (x.bytes ?? 0), 0);
    const ectr = s.planned?.ectr ? `, earliest commit to retain ${s.planned.ectr.requestedTime}` : '';
    title = s.plan ? `Clean plan (${s.plan.policy}${ectr}): ${s.planned!.files} file(s), ${bytes} bytes, ${s.plan.partitionsToBeDeleted?.length ?? 0} partition(s) to delete` : `Nothing to clean: ${s.reason}`;
  }
  for (const w of r.schedule?.warnings ?? []) ctx.out.warn(w);
  if (wantsJson(o)) {
    ctx.out.json({ dryRun: true, summary: title, pending: r.pending.map((p) => p.instant), policy: r.schedule?.plan?.policy ?? null, earliestCommitToRetain: r.schedule?.planned?.ectr?.requestedTime ?? null, files: rows });
    return;
  }
  ctx.out.info(title);
  ctx.out.table(PLAN_COLUMNS, rows, { ...outputOptions({ ...o, json: undefined }), limit: -1 });
  void table;
}

function summaryOf(r: import('../src/services/index.ts').CleanTableResult | { cleans: import('../src/services/index.ts').CleanRunResult[]; rolledBack: { instant: string }[]; schedule?: { reason?: string } }) {
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

function report(ctx: Ctx, o: Opts, summary: ReturnType<typeof summaryOf>): void {
  for (const w of summary.warnings) ctx.out.warn(w);
  if (wantsJson(o)) return ctx.out.json(summary);
  for (const rb of summary.rolledBack) note(ctx, o, `Rolled back failed write ${rb} (expired heartbeat, LAZY failed-writes policy)`);
  if (summary.status === 'nothing-to-clean') return note(ctx, o, `Nothing to clean: ${summary.reason ?? 'no pending clean'}`);
  if (o.verbose) {
    for (const c of summary.cleans) {
      ctx.io.stderr(`Clean ${c.instant}${c.resumed ? ' (resumed from its plan)' : ''} completed: ${c.files} file(s) deleted${c.failedFiles ? `, ${c.failedFiles} failed` : ''}${c.bytes !== null ? `, ${c.bytes} bytes` : ''}, ${c.partitions} partition(s)${c.partitionsDeleted.length ? `, ${c.partitionsDeleted.length} deleted` : ''} in ${c.durationMs} ms\n`);
    }
  }
}

function runOpts(ctx: Ctx, o: Opts) {
  return {
    maxDurationMs: o.maxDuration as number | undefined,
    parallelism: o.parallelism as number | undefined,
    wantBytes: wantsJson(o) || o.verbose === true,
    onProgress: o.verbose ? (e: { type: string; path: string }) => (e.type === 'failed' ? ctx.io.stderr(`failed to delete ${e.path}\n`) : undefined) : undefined,
  };
}

async function schedule(ctx: Ctx, o: Opts, table: Table) {
  const s = await services();
  const config = await cleanConfig(ctx, o, table);
  const r = await s.scheduleClean(table, { ...serviceOpts(ctx, o), config, dryRun: o.dryRun === true, wantBytes: wantsJson(o) || o.verbose === true });
  for (const w of r.warnings) ctx.out.warn(w);
  for (const rb of r.rolledBack) note(ctx, o, `Rolled back failed write ${rb.instant} (expired heartbeat, LAZY failed-writes policy)`);
  return { r, config };
}

export const cleanServiceSpecs: CommandSpec[] = [
  {
    name: 'cleans run',
    summary: 'Clean the table without Spark (HoodieCleaner): finish pending cleans, then plan and run a new one; exit 4 when the lock is held',
    options: [...POLICY_OPTIONS, ...RUN_OPTIONS, ...SERVICE_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const config = await cleanConfig(ctx, o, table);
      const r = await (await services()).cleanTable(table, { ...serviceOpts(ctx, o), ...runOpts(ctx, o), config, dryRun: o.dryRun === true });
      if (o.dryRun) return printDryRun(ctx, o, table, r);
      for (const w of r.schedule?.warnings ?? []) ctx.out.warn(w);
      report(ctx, o, summaryOf(r));
    },
  },
  {
    name: 'clean schedule',
    summary: 'Plan a clean and write <t>.clean.requested (nothing is deleted); --dry-run prints the plan',
    options: [...POLICY_OPTIONS, ...SERVICE_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const { r } = await schedule(ctx, o, table);
      if (o.dryRun) return printDryRun(ctx, o, table, { cleans: [], pending: [], schedule: r, rolledBack: [] });
      if (wantsJson(o)) return ctx.out.json({ scheduled: r.instant !== undefined, instant: r.instant ?? null, files: r.planned?.files ?? 0, partitions: r.planned?.partitions.length ?? 0, partitionsToBeDeleted: r.plan?.partitionsToBeDeleted ?? [], reason: r.reason ?? null });
      if (!r.instant) return note(ctx, o, `Nothing to clean: ${r.reason}`);
      note(ctx, o, `Scheduled clean ${r.instant}: ${r.planned!.files} file(s) in ${r.planned!.partitions.length} partition(s)`);
    },
  },
  {
    name: 'clean run',
    summary: 'Execute pending cleans from their plans (default: all, oldest first); exit 4 when another process runs one',
    options: [{ flags: '--instant <instant>', description: 'the pending clean to run' }, ...RUN_OPTIONS, ...SERVICE_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const s = await services();
      const opts = { ...serviceOpts(ctx, o), ...runOpts(ctx, o) };
      const instant = o.instant as string | undefined;
      const cleans = instant ? [await s.runClean(table, { ...opts, instant })] : await s.runPendingCleans(table, opts);
      if (instant && cleans[0]!.status === 'already-completed' && !wantsJson(o)) return note(ctx, o, `Clean ${instant} is already completed; nothing to do`);
      report(ctx, o, summaryOf({ cleans, rolledBack: [], schedule: { reason: 'no pending clean' } }));
    },
  },
  {
    name: 'clean scheduleAndExecute',
    summary: 'Plan a clean and run exactly that instant',
    options: [...POLICY_OPTIONS, ...RUN_OPTIONS, ...SERVICE_OPTIONS],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const { r } = await schedule(ctx, o, table);
      if (o.dryRun) return printDryRun(ctx, o, table, { cleans: [], pending: [], schedule: r, rolledBack: [] });
      const cleans = [];
      if (r.instant) {
        const known = new Map<string, number>();
        for (const p of r.planned?.partitions ?? []) for (const f of p.files) if (f.size !== undefined) known.set(f.path, f.size);
        cleans.push(await (await services()).runClean(table, { ...serviceOpts(ctx, o), ...runOpts(ctx, o), instant: r.instant, knownSizes: known }));
      }
      report(ctx, o, summaryOf({ cleans, rolledBack: [], schedule: r }));
    },
  },
];
