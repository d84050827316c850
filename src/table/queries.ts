// Reads the instants behind hudi-cli's listing commands. Each function lists the timeline once
// and decodes only the instant files its output needs, in parallel.
import { TblError } from '../errors/index.ts';
import {
  decodeCleanMetadata,
  decodeCommitMetadata,
  decodeCompactionPlan,
  decodeRestoreMetadata,
  decodeRestorePlan,
  decodeRollbackMetadata,
  decodeRollbackPlan,
  type CommitMetadata,
  type CompactionPlan,
} from '../metadata/index.ts';
import { completedCommitFilesOf, type Instant, type Timeline } from '../timeline/index.ts';
import type { FileStatus } from '../storage/index.ts';
import { parseInstantTime } from '../util/index.ts';
import { emptyCompletedCommit, loadTotals, MIN_FILES_FOR_WORKER, TotalsRun, TotalsWorker, worthAWorker, type InstantTotals, type TotalsFile } from './commit-totals.ts';
import type { Table } from './open.ts';

export interface CommitWithMetadata {
  instant: Instant;
  metadata: CommitMetadata;
}

function where(table: Table, i: Instant): { path: string } {
  const f = i.files[i.state];
  return { path: f ? table.storage.uri(f.path) : `${table.uri} instant ${i.requestedTime}` };
}

/** A completed commit's metadata; an empty file is an error naming it (emptyCompletedCommit). */
export function decodeCompletedCommit(bytes: Uint8Array, ctx: { path: string; instant: string }): CommitMetadata {
  if (bytes.length === 0) throw emptyCompletedCommit(ctx);
  return decodeCommitMetadata(bytes, ctx);
}

/** Completed commit/deltacommit/replacecommit instants, newest requested time first, decoded. */
export async function loadCommits(table: Table, opts: { limit?: number } = {}): Promise<CommitWithMetadata[]> {
  return mapCommits(table, (c) => c, opts);
}

export interface CommitTotalsRow {
  instant: Instant;
  totals: InstantTotals;
}

export interface CommitTotalsOptions {
  limit?: number;
  /** the bundled totals worker (default: beside the bundled library); null: none */
  workerUrl?: URL | null;
  /** filled in: whether decoding began on the listing, and the chunks the worker decoded */
  stats?: { early: boolean; workerChunks: number };
}

/** Totals of every completed commit, newest first, read without building full metadata objects. */
export async function loadCommitTotals(table: Table, opts: CommitTotalsOptions = {}): Promise<CommitTotalsRow[]> {
  const limited = opts.limit !== undefined && opts.limit > 0;
  // a large local timeline: a helper thread (started before the listing when the directory looks
  // big, so it boots meanwhile) begins decoding the completed commits the listing names while this
  // thread groups the timeline
  let worker: TotalsWorker | undefined;
  if (!limited && table.storage.scheme === 'file') {
    const entries = await table.storage.entryCountHint?.(table.timelineSource.timelineDir);
    if (entries !== undefined && entries >= 3 * MIN_FILES_FOR_WORKER) worker = TotalsWorker.start(opts.workerUrl);
  }
  let early: TotalsRun | undefined;
  const onListed = (listed: FileStatus[]): void => {
    const named = completedCommitFilesOf(listed, table.config.layoutVersion);
    if (!worthAWorker(table.storage, named.length)) return;
    worker ??= TotalsWorker.start(opts.workerUrl);
    if (!worker) return;
    const files = named.map(({ file, requestedTime }) => ({ path: file.path, uri: table.storage.uri(file.path), instant: requestedTime }));
    early = new TotalsRun(files, worker, opts.stats);
  };
  let commits: Instant[];
  try {
    commits = (await table.timeline(limited ? undefined : onListed)).completedCommits().reverse();
  } catch (e) {
    early?.abandon();
    worker?.stop();
    throw e;
  }
  if (limited) commits = commits.slice(0, opts.limit);
  const files = commits.map((i) => ({ path: i.files.COMPLETED!.path, uri: where(table, i).path, instant: i.requestedTime }));
  const concurrency = table.timelineSource.concurrency;
  let totals: InstantTotals[];
  if (early && sameFiles(early.files, files)) {
    if (opts.stats) opts.stats.early = true;
    totals = await early.join(table.storage, concurrency);
  } else {
    // no early start (a small or remote timeline, or one loaded before), or the names misled it (a
    // malformed timeline): decode what the grouped timeline says
    early?.abandon();
    const useWorker = !early && !limited && worthAWorker(table.storage, files.length);
    if (useWorker) worker ??= TotalsWorker.start(opts.workerUrl);
    else worker?.stop();
    totals = await loadTotals(table.storage, files, { concurrency, worker: useWorker ? worker : undefined, stats: opts.stats });
  }
  return commits.map((instant, n) => ({ instant, totals: totals[n]! }));
}

function sameFiles(a: readonly TotalsFile[], b: readonly TotalsFile[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k]!.path !== b[k]!.path || a[k]!.instant !== b[k]!.instant || a[k]!.uri !== b[k]!.uri) return false;
  return true;
}

/**
 * Like loadCommits, but hands each decoded commit to `fn` as soon as it is read, so a 20k-instant
 * listing keeps only what `fn` returns (e.g. totals) instead of every decoded metadata object.
 */
export async function mapCommits<T>(table: Table, fn: (c: CommitWithMetadata) => T, opts: { limit?: number } = {}): Promise<T[]> {
  const tl = await table.timeline();
  let commits = tl.completedCommits().reverse();
  // Only the rows that can be shown need decoding when no sort reorders them.
  if (opts.limit !== undefined && opts.limit > 0) commits = commits.slice(0, opts.limit);
  return tl.mapRead(commits, 'COMPLETED', (bytes, i) =>
    fn({ instant: i, metadata: decodeCompletedCommit(bytes, { ...where(table, i), instant: i.requestedTime }) }),
  );
}

/** getCommitForInstant: completed commit, replacecommit or deltacommit with that time. */
export async function findCommit(table: Table, instantTime: string): Promise<CommitWithMetadata> {
  const tl = await table.timeline();
  const found = tl
    .completedCommits()
    .filter((i) => i.requestedTime === instantTime && ['commit', 'replacecommit', 'deltacommit'].includes(i.action));
  const order = ['commit', 'replacecommit', 'deltacommit'];
  found.sort((a, b) => order.indexOf(a.action) - order.indexOf(b.action));
  const instant = found[0];
  if (!instant) {
    throw new TblError('not-found', `Commit ${instantTime} not found in Commits of ${table.uri} (${tl.completedCommits().length} completed commits)`, {
      instant: instantTime,
      path: table.uri,
    });
  }
  const metadata = decodeCompletedCommit(await tl.read(instant, 'COMPLETED'), { ...where(table, instant), instant: instantTime });
  return { instant, metadata };
}

/** The command line is right, the table is of the wrong type: a runtime refusal (exit 1), not a usage error. */
export function requireMergeOnRead(table: Table): void {
  if (table.config.type !== 'MERGE_ON_READ') {
    throw new TblError('unsupported', `Compactions can only be run for table type : MERGE_ON_READ (${table.uri} is ${table.config.type})`, {
      path: table.uri,
    });
  }
}

export interface CompactionInfo {
  instant: string;
  state: string;
  plan: CompactionPlan;
}

/** Instants that carry a compaction plan (pending compactions and completed compaction commits), newest first. */
export async function loadCompactions(table: Table): Promise<CompactionInfo[]> {
  const tl = await table.timeline();
  const withPlan = tl.instants.filter((i) => i.stateActions.REQUESTED === 'compaction').slice().reverse();
  return tl.mapRead(withPlan, 'REQUESTED', (bytes, i) => ({
    instant: i.requestedTime,
    state: i.state,
    plan: decodeCompactionPlan(bytes, { path: table.storage.uri(i.files.REQUESTED!.path) }),
  }));
}

export async function loadCompactionPlan(table: Table, instantTime: string): Promise<CompactionPlan> {
  const tl = await table.timeline();
  const i = tl.find(instantTime).find((x) => x.stateActions.REQUESTED === 'compaction');
  if (!i) {
    throw new TblError('not-found', `Compaction instant ${instantTime} not found in ${table.uri}`, { instant: instantTime, path: table.uri });
  }
  return decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: table.storage.uri(i.files.REQUESTED!.path) });
}

export interface RollbackInfo {
  /** rollback instant → the instant(s) it rolls back, joined with ',' */
  rollsBack: Map<string, string>;
  /** rolled-back instant → rollback instants */
  rolledBackBy: Map<string, string[]>;
}

/** What every rollback instant on the timeline rolls back (plan when pending, metadata when complete). */
export async function loadRollbackInfo(table: Table, tl: Timeline): Promise<RollbackInfo> {
  const rollbacks = tl.instants.filter((i) => i.action === 'rollback');
  const targets = await tl.mapRead(rollbacks, 'latest', (bytes, i) => {
    try {
      if (i.state === 'COMPLETED') return decodeRollbackMetadata(bytes, where(table, i)).commitsRollback ?? [];
      return []; // pending: read below from the requested plan
    } catch {
      return null;
    }
  });
  const info: RollbackInfo = { rollsBack: new Map(), rolledBackBy: new Map() };
  for (let n = 0; n < rollbacks.length; n++) {
    const rb = rollbacks[n]!;
    let list = targets[n] ?? null;
    if (rb.state !== 'COMPLETED' && rb.files.REQUESTED) {
      try {
        const plan = decodeRollbackPlan(await tl.read(rb, 'REQUESTED'), { path: table.storage.uri(rb.files.REQUESTED.path) });
        list = plan.instantToRollback ? [plan.instantToRollback.commitTime] : [];
      } catch {
        list = null;
      }
    }
    info.rollsBack.set(rb.requestedTime, list === null ? '-' : list.join(','));
    for (const t of list ?? []) {
      const by = info.rolledBackBy.get(t) ?? [];
      by.push(rb.requestedTime);
      info.rolledBackBy.set(t, by);
    }
  }
  return info;
}

/** HoodieInflightCommitsUtil.inflightWriteCommitsOlderThan: pending write instants older than `mins`. */
export async function inflightsOlderThan(table: Table, mins: number, now: Date): Promise<Instant[]> {
  const tl = await table.timeline();
  const cutoff = now.getTime() - mins * 60_000;
  return tl
    .pending()
    .filter((i) => ['commit', 'deltacommit', 'replacecommit', 'clustering'].includes(i.effectiveAction))
    .filter((i) => {
      const t = parseInstantTime(i.requestedTime, table.config.timezone);
      return t !== undefined && t.getTime() <= cutoff;
    });
}

export { decodeCleanMetadata, decodeRollbackMetadata, decodeRestoreMetadata, decodeRestorePlan };
