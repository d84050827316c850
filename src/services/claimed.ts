// What compaction and clustering (and the engine launcher) share around their write transaction:
// waiting on a plan another process runs, the claim → execute → abort-and-roll-back loop, tidying up
// after completed attempts, and running a plan's parts so the first failure stops the rest.
import { TblError } from '../errors/index.ts';
import { mapLimit } from '../storage/index.ts';
import type { Table } from '../table/index.ts';
import type { Instant, Timeline } from '../timeline/index.ts';
import { joinPath } from '../util/index.ts';
import { heartbeatPath } from '../write/heartbeat.ts';
import { deleteMarkerDir } from '../write/markers.ts';
import { expiryOf, sleep, type Attempt, type ServiceOptions } from './transaction.ts';

/** A plan whose heartbeat is live: another process runs it. */
export interface Busy {
  busy: string;
  ageMs: number;
}

export type ClaimOutcome<C> = { claim: C } | { status: 'nothing-to-do' | 'already-completed'; instant?: string; metadataTableDisabled?: boolean } | Busy;

export interface WaitOptions extends ServiceOptions {
  /** with --wait: poll interval while another process runs the plan */
  pollMs?: number;
}

/**
 * A plan is busy: throws TblError('lock-held') (exit 4) unless the run waits (`--wait`, within its
 * timeout), in which case it sleeps one poll interval so the caller claims again.
 */
export async function waitWhileBusy(label: string, b: Busy, opts: WaitOptions, started: number): Promise<void> {
  if (!opts.lock?.wait) {
    const expiresIn = Math.max(0, expiryOf(opts) - b.ageMs);
    throw new TblError('lock-held', `${label} ${b.busy} is being run by another process (heartbeat ${b.ageMs} ms ago)`, {
      instant: b.busy,
      hint: `pass --wait to wait for it; a dead run's heartbeat expires in ${expiresIn} ms`,
    });
  }
  if (opts.lock.waitTimeoutMs !== undefined && Date.now() - started > opts.lock.waitTimeoutMs) {
    throw new TblError('lock-held', `gave up waiting for ${label} ${b.busy} run by another process`, { instant: b.busy });
  }
  await sleep(opts.pollMs ?? 1000);
}

export interface ClaimedRun<C extends { attempt: Attempt; instant: string }, R> {
  /** 'compaction', 'clustering': names the plan in messages */
  label: string;
  opts: WaitOptions;
  started: number;
  claim: () => Promise<ClaimOutcome<C>>;
  execute: (c: C) => Promise<R>;
  /** takes the failed attempt back (called holding the lock, only while the instant is still ours) */
  rollback: (c: C, t: Table, keepAlive: () => Promise<void>) => Promise<unknown>;
  /** the result when there was nothing to run */
  none: (status: 'nothing-to-do' | 'already-completed', instant: string | undefined, metadataTableDisabled: boolean) => R;
}

/**
 * Claims a plan and runs it; on failure the attempt is rolled back at once (Attempt.abort) and the
 * error rethrown; while another process runs the plan, waits or exits 4.
 */
export async function runClaimed<C extends { attempt: Attempt; instant: string }, R>(run: ClaimedRun<C, R>): Promise<R> {
  for (;;) {
    const outcome = await run.claim();
    if ('claim' in outcome) {
      const c = outcome.claim;
      try {
        await run.opts.onPoint?.('after-inflight');
        return await run.execute(c);
      } catch (e) {
        throw await c.attempt.abort(e, (t, keepAlive) => run.rollback(c, t, keepAlive));
      }
    }
    if ('busy' in outcome) {
      await waitWhileBusy(run.label, outcome, run.opts, run.started);
      continue;
    }
    return run.none(outcome.status, outcome.instant, outcome.metadataTableDisabled ?? false);
  }
}

/**
 * Removes the markers and heartbeats of completed instants of a service (a crash right after
 * completing leaves them); `isDone` tells the service's completed instants.
 */
export async function cleanupCompleted(table: Table, tl: Timeline, isDone: (i: Instant) => boolean): Promise<void> {
  const done = (name: string) => tl.isCompleted(name) && tl.find(name).some(isDone);
  const temp = joinPath(table.metaPath, '.temp');
  if (await table.storage.exists(temp)) {
    for (const e of await table.storage.list(temp)) if (e.isDirectory && done(e.name)) await deleteMarkerDir(table.storage, table.basePath, e.name);
  }
  const hb = joinPath(table.metaPath, '.heartbeat');
  if (await table.storage.exists(hb)) {
    for (const e of await table.storage.list(hb)) if (!e.isDirectory && done(e.name)) await table.storage.delete(heartbeatPath(table.metaPath, e.name));
  }
}

/**
 * `fn` over `items`, `limit` at a time. On the first failure no more items start, the running ones
 * see `signal` aborted, and all are waited for before the first error is thrown — so nothing writes
 * after the caller rolls the attempt back.
 */
export async function mapUntilFailure<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number, signal: AbortSignal) => Promise<R>, abort = new AbortController()): Promise<R[]> {
  const settled = await mapLimit(items, limit, async (item, i) => {
    try {
      abort.signal.throwIfAborted();
      return { ok: await fn(item, i, abort.signal) };
    } catch (error) {
      if (!abort.signal.aborted) abort.abort(error);
      return { error };
    }
  });
  if (abort.signal.aborted) throw abort.signal.reason;
  return settled.map((r) => r.ok as R);
}
