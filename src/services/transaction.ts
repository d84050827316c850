// The shared write transaction every tblcli mutation of a table goes through (format-timeline.md
// §6–§9, format-mdt-write.md §4):
//
//   lock → fresh table → validate inputs (nothing written yet) → instant (requested: the plan) →
//   heartbeat → inflight → markers + data files (no lock) → lock → still ours? → metadata-table
//   deltacommit with the same instant time, completed first → completed data instant → unlock →
//   markers and heartbeat removed
//
// and on failure, while the attempt still owns its instant, a rollback of the attempt in both tables.
// Services (compaction, clean, clustering, rollback, restore) supply what differs: the plan, the data
// work, the commit metadata and the metadata-table change it implies. Every storage call of a service
// goes through the table's confined storage (src/storage/confine.ts): no path from metadata leaves it.
import { TblError } from '../errors/index.ts';
import type { RollbackMetadata } from '../metadata/index.ts';
import { confineStorage } from '../storage/confine.ts';
import type { FileData } from '../storage/types.ts';
import { openTableAt, type Table } from '../table/index.ts';
import type { Action, Timeline } from '../timeline/index.ts';
import { completeInstant, instantFilePath, newInstantTime, timesOnTimeline, transitionToInflight } from '../timeline/writer.ts';
import { joinPath } from '../util/index.ts';
import { HEARTBEAT_DEFAULTS, startHeartbeat, type Heartbeat } from '../write/heartbeat.ts';
import { withTableLock, type LockOptions, type TableLock } from '../write/lock.ts';
import { createMarker, deleteMarkerDir, type IOType } from '../write/markers.ts';
import { rollbackInstant, type RollbackOptions, type RollbackResult } from '../write/rollback.ts';
import { disableMetadataTable } from '../write/table-properties.ts';
import { compactMetadataTableIfDue, finishPendingMdtCompactions, type MdtCompactionResult } from '../mdt/compaction.ts';
import { checkMetadataTableRollback, dropMetadataPartitions, metadataTableChange, prepareMetadataTable, type MetadataChange, type MetadataTableMode, type MetadataTablePlan, type WriteKind } from './mdt-sync.ts';

export type { MetadataTableMode } from './mdt-sync.ts';

export interface ServiceOptions {
  lock?: LockOptions;
  /** heartbeat beat interval (default 60 s) and expiry (default 120 s, Hudi's 60 s × 2 misses) */
  heartbeatIntervalMs?: number;
  heartbeatExpiryMs?: number;
  /** what to do when the table has a metadata table (default update) */
  metadataTable?: MetadataTableMode;
  /** TrueTime-style wait after generating an instant time, holding the lock (Hudi: 200 ms) */
  clockSkewMs?: number;
  now?: () => Date;
  /**
   * Test hook: called at named points of a run (e.g. 'after-inflight'); crash tests kill the process
   * there. Never set in production code paths; absent = no-op.
   */
  onPoint?: (point: string) => void | Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function expiryOf(opts: ServiceOptions): number {
  return opts.heartbeatExpiryMs ?? HEARTBEAT_DEFAULTS.intervalMs * HEARTBEAT_DEFAULTS.tolerableMisses;
}

/** The table re-opened (fresh hoodie.properties and timeline) on storage confined to its base path. */
export function reopen(table: Table): Promise<Table> {
  return openTableAt(confineStorage(table.storage, table.basePath), table.basePath, table.uri);
}

/** Runs `fn` holding the table lock, with the table re-opened under it. */
export function underLock<T>(table: Table, opts: ServiceOptions, fn: (t: Table, lock: TableLock) => Promise<T>): Promise<T> {
  return withTableLock(table.storage, table.metaPath, opts.lock ?? {}, async (lock) => fn(await reopen(table), lock));
}

/** A fresh instant time later than everything on the timeline, after the TrueTime wait. Under the lock. */
export async function nextInstantTime(t: Table, tl: Timeline, opts: ServiceOptions, extra: string[] = []): Promise<string> {
  const time = newInstantTime([...timesOnTimeline(tl), ...extra], t.config.timezone, (opts.now ?? (() => new Date()))());
  await sleep(opts.clockSkewMs ?? 200);
  return time;
}

/**
 * The metadata-table step every write runs under the lock after its inputs were checked and before
 * its first timeline write: 'update' keeps the MDT in step (dropping, the Hudi way, only partitions
 * the action changes and tblcli cannot maintain), 'disable' drops the MDT the Hudi way, 'refuse'
 * fails. With 'update', a pending MDT compaction (a crashed one) is finished first, as Hudi's writer
 * does at a write's start (runAnyPendingCompactions): every MDT write after it sees a plain MDT.
 * Returns the (re-opened) table, the MDT plan, and what it did.
 */
export async function metadataTableFor(
  t: Table,
  opts: ServiceOptions,
  kind: WriteKind,
  keepAlive?: () => Promise<void>,
): Promise<{ table: Table; mdt?: MetadataTablePlan; disabled: boolean; warnings: string[]; finished?: MdtCompactionResult[] }> {
  const plan = await prepareMetadataTable(t, opts.metadataTable ?? 'update', kind);
  const now = (opts.now ?? (() => new Date()))();
  if (plan === 'disable') {
    await disableMetadataTable(t.storage, t.metaPath, now);
    return { table: await reopen(t), disabled: true, warnings: [] };
  }
  if (!plan) return { table: t, disabled: false, warnings: [] };
  const finished = await finishPendingMdtCompactions(t, { now: opts.now, clockSkewMs: opts.clockSkewMs, keepAlive, onPoint: opts.onPoint });
  const warnings = await dropMetadataPartitions(t, plan, now);
  return { table: warnings.length > 0 ? await reopen(t) : t, mdt: plan, disabled: false, warnings, finished };
}

export interface CommitSpec {
  /** the completed file's action (a compaction completes as commit, a clustering as replacecommit) */
  completedAction: Action;
  /** the completed file's content for the table's layout */
  content: (layout: 1 | 2) => Uint8Array;
  /** what the metadata table must receive in the same transaction */
  mdt: MetadataChange;
  /**
   * Under the lock, after the ownership check and before anything is written: throws to abort the
   * commit (clustering: a writer that committed to an input file group meanwhile).
   */
  check?: (t: Table, tl: Timeline) => Promise<void>;
}

/**
 * One attempt at an instant: it owns the instant while its heartbeat is its own. Created under the
 * lock by `start`; data files go through `writeFile` (marker first); `commit` completes both tables.
 */
export class Attempt {
  private constructor(
    /** the table as it was at the start (confined storage) */
    readonly table: Table,
    readonly instant: string,
    /** the pending action (compaction, clean, replacecommit/clustering, rollback …) */
    readonly action: Action,
    readonly heartbeat: Heartbeat,
    readonly mdt: MetadataTablePlan | undefined,
    private readonly opts: ServiceOptions,
  ) {}

  /**
   * Heartbeat first (so nobody sees the attempt as dead), then requested → inflight. Call holding
   * the lock, after every input was validated.
   */
  static async start(t: Table, instant: string, action: Action, mdt: MetadataTablePlan | undefined, opts: ServiceOptions, inflight?: Uint8Array): Promise<Attempt> {
    const expiry = expiryOf(opts);
    const heartbeat = await startHeartbeat(t.storage, t.metaPath, instant, opts.heartbeatIntervalMs ?? Math.min(expiry / 4, HEARTBEAT_DEFAULTS.intervalMs));
    try {
      await transitionToInflight(t.timelineSource, instant, action, inflight);
    } catch (e) {
      await heartbeat.stop();
      throw e;
    }
    return new Attempt(t, instant, action, heartbeat, mdt, opts);
  }

  /**
   * Takes over an instant that is already inflight (a clean re-executed from its plan: cleans are
   * never rolled back). Heartbeat first, then the inflight file must still be there. Under the lock.
   */
  static async resume(t: Table, instant: string, action: Action, mdt: MetadataTablePlan | undefined, opts: ServiceOptions): Promise<Attempt> {
    const expiry = expiryOf(opts);
    const heartbeat = await startHeartbeat(t.storage, t.metaPath, instant, opts.heartbeatIntervalMs ?? Math.min(expiry / 4, HEARTBEAT_DEFAULTS.intervalMs));
    if (!(await t.storage.exists(instantFilePath(t.timelineSource, instant, action, 'INFLIGHT')))) {
      await heartbeat.stop();
      throw new TblError('conflict', `${action} ${instant} is no longer inflight: another process completed it`, { instant });
    }
    return new Attempt(t, instant, action, heartbeat, mdt, opts);
  }

  /** Gives the instant up without touching the timeline (it stays pending for the next run). */
  async release(): Promise<void> {
    await this.heartbeat.stop().catch(() => undefined);
  }

  /** Beats now; a lost heartbeat becomes the attempt's conflict error. */
  async beat(): Promise<void> {
    try {
      await this.heartbeat.beat();
    } catch (e) {
      const reason = await this.lostReason().catch(() => undefined);
      throw reason ? this.lost(reason, e) : e;
    }
  }

  /** Why this attempt no longer owns its instant, or undefined. */
  lostReason(): Promise<string | undefined> {
    return this.heartbeat.lostReason(expiryOf(this.opts));
  }

  lost(reason: string, cause?: unknown): TblError {
    return new TblError('conflict', `${this.action} ${this.instant}: this attempt (${this.heartbeat.attemptId}) no longer owns the instant: ${reason}; it left the timeline alone`, {
      instant: this.instant,
      hint: `another process took it over; check \`timeline show active\` for its outcome`,
      cause,
    });
  }

  /** A data file of this attempt: its marker, then the file itself (write-once). Returns its path. */
  async writeFile(partition: string, fileName: string, bytes: FileData, ioType: IOType, signal?: AbortSignal): Promise<string> {
    const { storage, basePath } = this.table;
    signal?.throwIfAborted();
    await createMarker(storage, basePath, this.instant, { partition, fileName, ioType });
    await this.opts.onPoint?.('after-marker');
    const path = partition === '' ? joinPath(basePath, fileName) : joinPath(basePath, partition, fileName);
    signal?.throwIfAborted();
    await storage.writeNew(path, bytes);
    return path;
  }

  /**
   * Completes the instant: under the lock (waited for, bounded), re-checks ownership and state,
   * writes the metadata-table deltacommit, then the completed file (layout 2: a completion time
   * after the TrueTime wait, ownership checked once more right before). Then, still under the lock,
   * the MDT compaction if Hudi's writer would run one now (its failure is a warning: the data instant
   * is complete; a crash leaves a plan the next write finishes). Markers and heartbeat go after.
   */
  async commit(spec: CommitSpec): Promise<{ completionTime?: string; metadataCompaction?: MdtCompactionResult; warnings: string[] }> {
    const lockOpts = { ...this.opts, lock: { ...this.opts.lock, wait: true, waitTimeoutMs: this.opts.lock?.waitTimeoutMs ?? 120_000 } };
    const warnings: string[] = [];
    let metadataCompaction: MdtCompactionResult | undefined;
    const completionTime = await underLock(this.table, lockOpts, async (t, lock) => {
      const lostBefore = await this.lostReason();
      if (lostBefore) throw this.lost(lostBefore);
      const tl = await t.timeline();
      const mine = tl.find(this.instant).find((i) => i.effectiveAction === this.action || i.stateActions.INFLIGHT === this.action);
      if (!mine || mine.state !== 'INFLIGHT') {
        throw new TblError('conflict', `${this.action} ${this.instant} is no longer inflight (${mine ? mine.state.toLowerCase() : 'gone'}): another process rolled it back or completed it`, { instant: this.instant });
      }
      await spec.check?.(t, tl);
      if (this.mdt) {
        await metadataTableChange(t, this.mdt, this.instant, spec.mdt, { ...this.opts, keepAlive: () => lock.keepAlive() });
        await this.opts.onPoint?.('after-mdt-commit');
      }
      const ct = t.config.layoutVersion === 2 ? await nextInstantTime(t, await reloadTimeline(t), this.opts) : undefined;
      const lost = await this.lostReason();
      if (lost) throw this.lost(lost);
      await completeInstant(t.timelineSource, this.instant, this.action, spec.completedAction, spec.content(t.config.layoutVersion), ct);
      if (this.mdt) {
        try {
          const r = await compactMetadataTableIfDue(await reopen(t), { now: this.opts.now, clockSkewMs: this.opts.clockSkewMs, keepAlive: () => lock.keepAlive(), onPoint: this.opts.onPoint });
          metadataCompaction = r.result;
        } catch (e) {
          warnings.push(`metadata-table compaction after ${this.instant} failed and was taken back (the ${this.action} is complete): ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return ct;
    });
    await this.opts.onPoint?.('after-complete');
    // complete: failing to tidy up must not report the instant as failed (`tblcli orphans` finds leftovers)
    await deleteMarkerDir(this.table.storage, this.table.basePath, this.instant).catch(() => undefined);
    await this.heartbeat.stop().catch(() => undefined);
    return { completionTime, metadataCompaction, warnings };
  }

  /**
   * Error path: roll this attempt back right away (instead of waiting for its heartbeat to expire),
   * but only while the instant is still ours. Returns the error to throw.
   */
  async abort(e: unknown, rollback: (t: Table, keepAlive: () => Promise<void>) => Promise<unknown>): Promise<unknown> {
    const lockOpts = { ...this.opts, lock: { ...this.opts.lock, wait: true, waitTimeoutMs: 30_000 } };
    let lost: string | undefined;
    try {
      lost = await underLock(this.table, lockOpts, async (t, lock) => {
        const reason = await this.lostReason();
        if (reason) return reason;
        const i = (await t.timeline()).find(this.instant).find((x) => x.stateActions.INFLIGHT === this.action);
        if (i?.state === 'INFLIGHT') await rollback(t, () => lock.keepAlive());
        return undefined;
      });
    } catch {
      // the rollback is retried by the next run once the heartbeat expires
    }
    await this.heartbeat.stop().catch(() => undefined);
    if (lost && !(e instanceof TblError && e.kind === 'conflict')) return this.lost(lost, e);
    return e;
  }
}

async function reloadTimeline(t: Table): Promise<Timeline> {
  return (await reopen(t)).timeline();
}

/**
 * Rolls an instant back in the data table and keeps the metadata table in step (format-mdt-write.md
 * §3.5): the MDT change runs before the data rollback completes. Call holding the lock.
 */
export async function rollbackWithMetadataTable(
  t: Table,
  mdt: MetadataTablePlan | undefined,
  target: string,
  opts: ServiceOptions & Omit<RollbackOptions, 'beforeComplete'>,
): Promise<RollbackResult> {
  // refused before the first write: the MDT cannot take back a deltacommit folded into its compaction
  if (mdt) await checkMetadataTableRollback(t, mdt, target);
  return rollbackInstant(t, target, {
    ...opts,
    beforeComplete: mdt
      ? (rb: string, metadata: RollbackMetadata) => metadataTableChange(t, mdt, rb, { kind: 'rollback', target, metadata }, opts)
      : undefined,
  });
}
