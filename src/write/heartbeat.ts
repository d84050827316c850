// Heartbeat of a running instant (HoodieHeartbeatClient): `.hoodie/.heartbeat/<instant>`, whose mtime
// is the last beat; missing ⇒ expired; expired when now - mtime > interval × tolerable misses
// (Hudi defaults 60 s × 2). Beats append a byte: an overwrite would leave a moment where the file is
// missing, and a concurrent checker would then see the instant as dead.
//
// Hudi only looks at the file's existence and mtime; tblcli writes a random attempt id as the
// content (`tblcli-attempt <id>`), so an attempt can tell whether the heartbeat is still its own:
// another process that judged it dead rolls the instant back (deleting the file) and re-claims it
// with a heartbeat of its own.
import { randomBytes } from 'node:crypto';
import { StorageError, TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';

export const HEARTBEAT_DEFAULTS = { intervalMs: 60_000, tolerableMisses: 2 } as const;

export function heartbeatPath(metaPath: string, instant: string): string {
  return joinPath(metaPath, '.heartbeat', instant);
}

/** Last beat in epoch ms, 0 when there is no heartbeat file (HoodieHeartbeatUtils.getLastHeartbeatTime). */
export async function lastHeartbeat(storage: Storage, metaPath: string, instant: string): Promise<number> {
  try {
    return (await storage.stat(heartbeatPath(metaPath, instant))).mtimeMs;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'not-found') return 0;
    throw e;
  }
}

export async function isHeartbeatExpired(storage: Storage, metaPath: string, instant: string, expiryMs: number, now = Date.now()): Promise<boolean> {
  return now - (await lastHeartbeat(storage, metaPath, instant)) > expiryMs;
}

const PREFIX = 'tblcli-attempt ';

/** The attempt id a tblcli heartbeat file names; undefined when absent or written by someone else. */
export async function heartbeatOwner(storage: Storage, metaPath: string, instant: string): Promise<string | undefined> {
  let text: string;
  try {
    text = new TextDecoder().decode(await storage.readFile(heartbeatPath(metaPath, instant)));
  } catch (e) {
    if (e instanceof StorageError && e.code === 'not-found') return undefined;
    throw e;
  }
  const first = text.split('\n', 1)[0] ?? '';
  return first.startsWith(PREFIX) ? first.slice(PREFIX.length) : undefined;
}

export interface Heartbeat {
  instant: string;
  /** random id of this attempt, the first line of the heartbeat file */
  attemptId: string;
  /** beats now; throws TblError('conflict') when the heartbeat is no longer this attempt's */
  beat(): Promise<void>;
  /**
   * Why this attempt no longer owns the instant, or undefined when it does: the file still names our
   * attempt id, and both its mtime and our last successful beat are within `expiryMs`.
   */
  lostReason(expiryMs: number, now?: number): Promise<string | undefined>;
  /**
   * Stops beating and deletes the file if it is still ours; false when it was not. `keepFile`: stop
   * beating but leave the file to expire (someone else may still be working on the instant).
   */
  stop(opts?: { keepFile?: boolean }): Promise<boolean>;
}

/**
 * Creates the heartbeat file (replacing a stale one) and refreshes it every `intervalMs` until
 * stopped. Call while no one else can run the instant (table lock held, instant not yet inflight).
 */
export async function startHeartbeat(storage: Storage, metaPath: string, instant: string, intervalMs: number = HEARTBEAT_DEFAULTS.intervalMs): Promise<Heartbeat> {
  const path = heartbeatPath(metaPath, instant);
  const attemptId = randomBytes(8).toString('hex');
  await storage.mkdirs(joinPath(metaPath, '.heartbeat'));
  await storage.delete(path);
  await storage.writeNew(path, new TextEncoder().encode(`${PREFIX}${attemptId}\n`));
  let lastBeat = Date.now();
  let lost: string | undefined;
  let failed: unknown;
  const ours = async () => (await heartbeatOwner(storage, metaPath, instant)) === attemptId;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const beatOnce = async () => {
    if (lost || stopped) return;
    // never append to a file that is gone (append would re-create it) or belongs to another attempt
    if (!(await ours())) {
      lost = `its heartbeat ${storage.uri(path)} was deleted or replaced by another process`;
      clearInterval(timer);
      return;
    }
    if (stopped) return; // stop() may have begun while we checked: it deletes the file
    await storage.append(path, new Uint8Array([0x0a]));
    lastBeat = Date.now();
  };
  // beats never overlap, and stop() waits for the one in flight before deleting the file
  const beat = () => (inFlight = inFlight.then(beatOnce, beatOnce));
  const timer = setInterval(() => {
    beat().catch((e) => {
      failed = e;
    });
  }, intervalMs);
  timer.unref();
  return {
    instant,
    attemptId,
    async beat() {
      if (failed) throw failed;
      await beat();
      if (lost) throw new TblError('conflict', `${instant}: this attempt no longer owns the instant: ${lost}`, { instant, path: storage.uri(path) });
    },
    async lostReason(expiryMs, now = Date.now()) {
      if (lost) return lost;
      if (!(await ours())) return `its heartbeat ${storage.uri(path)} was deleted or replaced by another process`;
      if (now - lastBeat > expiryMs) return `its last beat was ${now - lastBeat} ms ago (expiry ${expiryMs} ms), so another process may have taken it over`;
      const mtime = await lastHeartbeat(storage, metaPath, instant);
      if (now - mtime > expiryMs) return `its heartbeat file is ${now - mtime} ms old (expiry ${expiryMs} ms), so another process may have taken it over`;
      return undefined;
    },
    async stop(opts = {}) {
      clearInterval(timer);
      stopped = true;
      await inFlight.catch(() => undefined);
      if (!(await ours())) return false;
      if (opts.keepFile) return true;
      await storage.delete(path);
      return true;
    },
  };
}
