// A planned table-service instant executed by Spark or Flink, with tblcli's safety around it:
//
//   lock → pick the instant (live heartbeat ⇒ someone runs it: exit 4 or --wait) → check the plan's
//   inputs → roll a dead attempt back (as a local run does) → heartbeat → unlock → launch Hudi's
//   utility for exactly that instant → supervise → read the timeline: completed or not.
//
// The heartbeat: Hudi's HoodieCompactor starts its own (`.hoodie/.heartbeat/<t>`, rewritten every
// hoodie.client.heartbeat.interval_in_ms, deleted when it closes), HoodieFlinkCompactor and
// HoodieFlinkClusteringJob write none. tblcli holds one from the claim until the engine exits: it
// covers the JVM start and queueing (minutes on a busy YARN) and the whole run of an engine without a
// heartbeat of its own. When Hudi rewrites the file, tblcli's heartbeat sees it is no longer its own
// and stops beating (it never touches a file it does not own); the engine's keeps the instant alive.
//
// The verdict is the timeline's, never the engine's exit code (HoodieCompactor exits 0 when it
// throws; HoodieClusteringJob never sets one). A failed attempt is left as the engine left it: the
// next run rolls it back once its heartbeat has expired and relaunches the same instant.
import { TblError } from '../../errors/index.ts';
import { LocalStorage, makePrivateTempDir, writePrivateFile } from '../../storage/index.ts';
import type { Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { joinPath } from '../../util/index.ts';
import { isHeartbeatExpired, lastHeartbeat, startHeartbeat, type Heartbeat } from '../../write/heartbeat.ts';
import type { RollbackResult } from '../../write/rollback.ts';
import type { MetadataTablePlan } from '../mdt-sync.ts';
import { expiryOf, metadataTableFor, reopen, underLock, type ServiceOptions } from '../transaction.ts';
import { waitWhileBusy } from '../claimed.ts';
import { buildEngineCommand, cancelCommand, type EngineCommand, type EngineIds, type EngineJob, type ServiceKind } from './command.ts';
import { Redactor } from './secrets.ts';
import { jobMayOutliveClient, type EngineSettings } from './settings.ts';
import { errorLines, superviseEngine, type EngineOutcome, type StopReason, type Supervised } from './supervise.ts';

/** What a table service supplies to run on an engine (compaction/engine.ts is the model). */
export interface EngineService {
  service: ServiceKind;
  /** the pending instant's name in messages: 'compaction', 'clustering', 'clean' */
  label: string;
  isCandidate(i: Instant): boolean;
  /** the pending instants a run without --instant may take, oldest first (default: every pending candidate) */
  pending?(t: Table, tl: Timeline): Promise<Instant[]>;
  /** resolves and checks the plan's inputs before anything is written or launched; returns the operation count and what the command line needs from the plan */
  check(t: Table, tl: Timeline, i: Instant): Promise<{ operations: number; job?: PlanArgs }>;
  /** rolls a dead attempt back keeping its plan (holding the lock); absent: the engine re-executes an inflight instant from its plan (clean) */
  rollback?(t: Table, mdt: MetadataTablePlan | undefined, instant: string, opts: ServiceOptions & { keepAlive?: () => Promise<void> }): Promise<RollbackResult>;
}

export interface EngineRunOptions extends ServiceOptions {
  settings: EngineSettings;
  /** the instant to run (default: the earliest pending one not run by a live attempt) */
  instant?: string;
  maxDurationMs?: number;
  /** check everything and build the command line; write and launch nothing */
  dryRun?: boolean;
  /** with dryRun: the instant a dry-run schedule would write (it is not on the timeline) */
  plannedInstant?: string;
  /** with plannedInstant: what the command line takes from that plan */
  plannedJob?: PlanArgs;
  /** FileSystemBasedLockProvider expiry in whole minutes passed to the engine (default 1) */
  lockExpireMinutes?: number;
  /** the engine's output, line by line, secrets masked */
  output: (line: string) => void;
  /** progress notes: the launch line, the rollback */
  note?: (message: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
  /** forward this process's SIGINT/SIGTERM to the engine (the CLI) */
  signals?: boolean;
  /** with lock.wait: poll interval while another process runs the instant */
  pollMs?: number;
  /** receives the supervised engine (tests stop it as a signal would) */
  onLaunch?: (s: Supervised) => void;
}

export type EngineRunStatus = 'completed' | 'failed' | 'stopped' | 'nothing-to-do' | 'already-completed' | 'dry-run';

export type InstantState = 'REQUESTED' | 'INFLIGHT' | 'COMPLETED' | 'MISSING';

export interface EngineRunResult {
  status: EngineRunStatus;
  engine: 'spark' | 'flink';
  instant?: string;
  /** the instant's state on the timeline after the run (before it, for a dry run) */
  state?: InstantState;
  completionTime?: string;
  /** the launched command line as printed (secrets masked) */
  command?: string;
  argv?: string[];
  /** private files the command refers to, their entries as printed */
  files?: { path: string; shown: string[] }[];
  operations?: number;
  exitCode?: number | null;
  signal?: string | null;
  durationMs: number;
  ids: EngineIds;
  stoppedBy?: StopReason;
  killed?: boolean;
  cancel?: EngineOutcome['cancel'];
  spawnError?: string;
  rolledBack?: RollbackResult;
  /** dry run: an inflight attempt would be rolled back first */
  wouldRollBack?: boolean;
  /** the engine's error lines (secrets masked) when the instant did not complete */
  errorLines: string[];
  warnings: string[];
}

/** What an engine's command line takes from the plan (clustering: its sort order). */
export type PlanArgs = Pick<EngineJob, 'sortColumns' | 'layout'>;

interface Claim {
  table: Table;
  instant: string;
  job?: PlanArgs;
  heartbeat?: Heartbeat;
  state: InstantState;
  operations: number;
  rolledBack?: RollbackResult;
}

type ClaimOutcome = { claim: Claim } | { status: 'nothing-to-do' | 'already-completed'; instant?: string } | { busy: string; ageMs: number };

function stateOf(tl: Timeline, instant: string, svc: EngineService): { state: InstantState; completionTime?: string } {
  const found = tl.find(instant).filter((i) => svc.isCandidate(i));
  const done = found.find((i) => i.state === 'COMPLETED');
  if (done) return { state: 'COMPLETED', completionTime: done.completionTime };
  if (found.some((i) => i.state === 'INFLIGHT')) return { state: 'INFLIGHT' };
  return { state: found.length > 0 ? 'REQUESTED' : 'MISSING' };
}

async function claim(table: Table, svc: EngineService, opts: EngineRunOptions): Promise<ClaimOutcome> {
  const expiry = expiryOf(opts);
  return underLock(table, opts, async (locked, lock): Promise<ClaimOutcome> => {
    const tl = await locked.timeline();
    let candidates = svc.pending ? await svc.pending(locked, tl) : tl.instants.filter((i) => svc.isCandidate(i) && i.state !== 'COMPLETED');
    if (opts.instant) {
      const found = tl.find(opts.instant).filter((i) => svc.isCandidate(i));
      if (found.length === 0) throw new TblError('not-found', `${svc.label} instant ${opts.instant} not found in ${locked.uri}`, { instant: opts.instant, path: locked.uri });
      if (found.some((i) => i.state === 'COMPLETED')) return { status: 'already-completed', instant: opts.instant };
      candidates = found;
    }
    let busy: { busy: string; ageMs: number } | undefined;
    for (const i of candidates) {
      const now = Date.now();
      if (!(await isHeartbeatExpired(locked.storage, locked.metaPath, i.requestedTime, expiry, now))) {
        busy ??= { busy: i.requestedTime, ageMs: now - (await lastHeartbeat(locked.storage, locked.metaPath, i.requestedTime)) };
        continue;
      }
      const { operations, job } = await svc.check(locked, tl, i);
      const state = i.state === 'INFLIGHT' ? 'INFLIGHT' : 'REQUESTED';
      if (opts.dryRun) return { claim: { table: locked, instant: i.requestedTime, state, operations, job } };
      let t = locked;
      let rolledBack: RollbackResult | undefined;
      if (state === 'INFLIGHT' && svc.rollback) {
        // the engine's metadata table is Hudi's business; the rollback keeps it in step the Hudi way
        const m = await metadataTableFor(locked, { ...opts, metadataTable: 'update' }, 'rollback');
        t = m.table;
        rolledBack = await svc.rollback(t, m.mdt, i.requestedTime, { ...opts, keepAlive: () => lock.keepAlive() });
      }
      const heartbeat = await startHeartbeat(t.storage, t.metaPath, i.requestedTime, opts.heartbeatIntervalMs ?? Math.min(expiry / 4, 60_000));
      return { claim: { table: t, instant: i.requestedTime, heartbeat, state: rolledBack || state === 'REQUESTED' ? 'REQUESTED' : 'INFLIGHT', operations, rolledBack, job } };
    }
    if (busy) return busy;
    return { status: 'nothing-to-do' };
  });
}

function jobOf(table: Table, svc: EngineService, opts: EngineRunOptions, instant: string | undefined, plan?: PlanArgs): EngineJob {
  const s = opts.settings;
  const basePath = (s.basePath ?? (table.storage.scheme === 'file' ? table.basePath : table.uri)).replace(/(.)\/+$/, '$1');
  return { service: svc.service, basePath, tableName: table.config.name, tableVersion: table.config.version, instant, lockExpireMinutes: opts.lockExpireMinutes ?? 1, ...plan };
}

const local = new LocalStorage();

async function readLocal(path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await local.readFile(path));
  } catch (e) {
    if (e instanceof TblError && e.kind === 'not-found') return undefined;
    throw e;
  }
}

function build(table: Table, svc: EngineService, opts: EngineRunOptions, instant: string | undefined, privateDir: string, plan?: PlanArgs): Promise<EngineCommand> {
  const cwdPath = (p: string) => (p.startsWith('/') ? p : joinPath(opts.cwd, p));
  return buildEngineCommand(opts.settings, jobOf(table, svc, opts, instant, plan), { privateDir, readLocal: (p) => readLocal(cwdPath(p)), env: opts.env });
}

function base(opts: EngineRunOptions, started: number): Pick<EngineRunResult, 'engine' | 'durationMs' | 'ids' | 'errorLines' | 'warnings'> {
  return { engine: opts.settings.engine, durationMs: Date.now() - started, ids: {}, errorLines: [], warnings: [] };
}

/** Runs one pending instant of `svc` on the configured engine. Throws TblError('lock-held') when it is taken (exit 4). */
export async function runOnEngine(table: Table, svc: EngineService, opts: EngineRunOptions): Promise<EngineRunResult> {
  const started = Date.now();
  // the settings' usage errors before the table is touched
  const DRY_DIR = '$TMPDIR/tblcli-engine-XXXXXX';
  const probe = await build(table, svc, opts, opts.plannedInstant ?? opts.instant ?? '00000000000000000', DRY_DIR, opts.plannedJob);
  if (opts.dryRun && opts.plannedInstant) {
    return { ...base(opts, started), status: 'dry-run', instant: opts.plannedInstant, state: 'MISSING', command: probe.display, argv: probe.argv, files: shownFiles(probe), warnings: probe.warnings };
  }
  let outcome: ClaimOutcome;
  for (;;) {
    outcome = await claim(table, svc, opts);
    if (!('busy' in outcome)) break;
    // a dry run never waits
    await waitWhileBusy(svc.label, outcome, opts.dryRun ? { ...opts, lock: { ...opts.lock, wait: false } } : opts, started);
  }
  if (!('claim' in outcome)) return { ...base(opts, started), status: outcome.status, instant: outcome.instant, state: outcome.instant ? 'COMPLETED' : undefined };
  const c = outcome.claim;
  if (opts.dryRun) {
    const cmd = await build(c.table, svc, opts, c.instant, DRY_DIR, c.job);
    return { ...base(opts, started), status: 'dry-run', instant: c.instant, state: c.state, operations: c.operations, wouldRollBack: c.state === 'INFLIGHT', command: cmd.display, argv: cmd.argv, files: shownFiles(cmd), warnings: cmd.warnings };
  }
  if (c.rolledBack) opts.note?.(`Rolled back the failed attempt of ${c.instant} with rollback ${c.rolledBack.rollbackInstant} (${c.rolledBack.deletedFiles.length} file(s) deleted)`);
  return launch(c, svc, opts, started);
}

/** Lines appended to a local file in order (`--engine-log`). */
function appendSink(path: string): { write: (line: string) => void; flush: () => Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  let pending: string[] = [];
  let failed: unknown;
  const drain = () => {
    const text = pending.join('');
    pending = [];
    return text === '' ? Promise.resolve() : local.append(path, new TextEncoder().encode(text));
  };
  return {
    write: (line) => {
      pending.push(`${line}\n`);
      if (pending.length === 1) chain = chain.then(drain).catch((e) => void (failed ??= e));
    },
    flush: async () => {
      await (chain = chain.then(drain));
      if (failed) throw failed;
    },
  };
}

const shownFiles = (cmd: EngineCommand) => cmd.files.map((f) => ({ path: f.path, shown: f.shown }));

async function launch(c: Claim, svc: EngineService, opts: EngineRunOptions, started: number): Promise<EngineRunResult> {
  const s = opts.settings;
  let privateDir: string | undefined;
  let outcome: EngineOutcome | undefined;
  let built: EngineCommand | undefined;
  try {
    privateDir = await makePrivateTempDir('tblcli-engine-');
    const cmd = (built = await build(c.table, svc, opts, c.instant, privateDir, c.job));
    for (const f of cmd.files) await writePrivateFile(f.path, f.content);
    opts.note?.(`Launching ${s.engine} for ${svc.label} ${c.instant}: ${cmd.display}`);
    const sink = s.engineLog ? appendSink(s.engineLog.startsWith('/') ? s.engineLog : joinPath(opts.cwd, s.engineLog)) : undefined;
    const supervised = superviseEngine(cmd.argv, {
      cwd: opts.cwd,
      env: { ...opts.env, ...(s.engine === 'spark' && s.sparkHome ? { SPARK_HOME: s.sparkHome } : {}), ...(s.engine === 'flink' && s.flinkHome ? { FLINK_HOME: s.flinkHome } : {}) },
      maxDurationMs: opts.maxDurationMs,
      stopGraceMs: s.stopGraceMs,
      output: sink ? sink.write : opts.output,
      redactor: new Redactor(cmd.secrets),
      cancel: (ids) => cancelCommand(s, ids),
      signals: opts.signals,
    });
    opts.onLaunch?.(supervised);
    outcome = await supervised.done;
    await sink?.flush();
  } finally {
    // a job that may still run on the cluster keeps the instant until its heartbeat expires
    const maybeRunning = outcome !== undefined && outcome.stoppedBy !== undefined && jobMayOutliveClient(s) && outcome.cancel?.exitCode !== 0;
    await c.heartbeat?.stop({ keepFile: maybeRunning }).catch(() => undefined);
    if (privateDir) await local.delete(privateDir, { recursive: true }).catch(() => undefined);
  }
  const result = outcome;
  const cmd = built!;
  const keptClaim = result.stoppedBy !== undefined && jobMayOutliveClient(s) && result.cancel?.exitCode !== 0;
  const tl = await (await reopen(c.table)).timeline();
  const { state, completionTime } = stateOf(tl, c.instant, svc);
  const warnings = [...cmd.warnings];
  if (state === 'COMPLETED' && result.exitCode !== 0) warnings.push(`${s.engine} exited ${result.exitCode ?? result.signal} after ${svc.label} ${c.instant} completed`);
  if (result.cancel?.error) warnings.push(`could not stop the job on the cluster: ${result.cancel.error}; stop it with: ${result.cancel.argv.join(' ')}`);
  else if (result.cancel && result.cancel.exitCode !== 0) warnings.push(`${result.cancel.argv.join(' ')} exited ${result.cancel.exitCode}; the job may still be running`);
  else if (!result.cancel && keptClaim && state !== 'COMPLETED') warnings.push(`no application or job id was seen to cancel the job on the cluster: if it still runs, stop it there`);
  if (keptClaim && state !== 'COMPLETED') warnings.push(`${svc.label} ${c.instant} stays claimed until its heartbeat expires (${expiryOf(opts)} ms), in case the job still runs`);
  return {
    status: state === 'COMPLETED' ? 'completed' : result.stoppedBy ? 'stopped' : 'failed',
    engine: s.engine,
    instant: c.instant,
    state,
    completionTime,
    command: cmd.display,
    argv: cmd.argv,
    files: shownFiles(cmd),
    operations: c.operations,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: Date.now() - started,
    ids: result.ids,
    stoppedBy: result.stoppedBy,
    killed: result.killed,
    cancel: result.cancel,
    spawnError: result.spawnError,
    rolledBack: c.rolledBack,
    errorLines: state === 'COMPLETED' ? [] : errorLines(result.tail),
    warnings,
  };
}
