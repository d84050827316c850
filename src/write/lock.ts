// Hudi's FileSystemBasedLockProvider (format-timeline.md §8.1): the lock is the file
// `<base>/.hoodie/.aux/lock`, taken by an atomic create-if-absent, released by deleting it, and
// considered expired (deleted by the next taker) when its mtime is older than the expiry (the engines'
// auto-configured default is 1 minute). Critical sections must stay well below the expiry, or call
// keepAlive() during long work.
//
// The content is LockInfo-like pretty JSON as Hudi writes it, plus a random `lockToken` naming this
// holder: release() deletes only a lock that still carries our token, and a taker of an expired lock
// deletes it only if its content is still what it judged expired. Without a compare-and-delete in
// the storage API the takeover is not strictly atomic, so a taker re-reads its own lock after a short
// settle delay and gives up if another taker replaced it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { StorageError, TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { joinPath, parentPath } from '../util/index.ts';

export interface LockOptions {
  /** wait for the lock instead of failing with 'lock-held' */
  wait?: boolean;
  /** give up waiting after this long (default: forever) */
  waitTimeoutMs?: number;
  /** hoodie.write.lock.filesystem.expire in ms; 0 = never expires (default 60 000, as engines configure it) */
  expireMs?: number;
  /** retry interval while waiting (default 200 ms, hoodie.write.lock.wait_time_ms_between_retry) */
  retryMs?: number;
  /** after taking over an expired lock, wait this long before re-reading it to confirm (default 50 ms) */
  settleMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface TableLock {
  path: string;
  /** random id written into the lock file */
  token: string;
  /** Deletes the lock file if it still carries our token; false when it was not ours any more. */
  release(): Promise<boolean>;
  /**
   * Refreshes the lock file's mtime (at most every expiry/4) so a long critical section does not let
   * it expire. Throws TblError('conflict') when the lock is no longer ours.
   */
  keepAlive(): Promise<void>;
}

export function lockFilePath(metaPath: string): string {
  return joinPath(metaPath, '.aux', 'lock');
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function two(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** LockInfo.toString() shape (Jackson pretty JSON) plus our token; Hudi never parses it. */
export function lockContent(now: number, token: string): string {
  const d = new Date(now);
  const ts = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${two(d.getMilliseconds(), 3)}`;
  const info = { lockCreateTime: ts, lockThreadName: `tblcli pid ${process.pid} on ${hostname()}`, lockStacksInfo: [] as string[], lockToken: token };
  return JSON.stringify(info, null, 2).replace(/": /g, '" : ');
}

/** The token in a lock file's content (keepAlive appends newlines; Hudi's content has none). */
export function lockTokenOf(content: string | undefined): string | undefined {
  if (content === undefined) return undefined;
  try {
    const t = (JSON.parse(content) as { lockToken?: unknown }).lockToken;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

const isNotFound = (e: unknown) => e instanceof StorageError && e.code === 'not-found';

async function readText(storage: Storage, path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await storage.readFile(path));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

interface TryOptions {
  expireMs: number;
  now: number;
  token: string;
  settleMs: number;
  sleep: (ms: number) => Promise<void>;
}

/** One attempt (FileSystemBasedLockProvider.tryLock, with the content checks described above). */
async function tryLock(storage: Storage, path: string, o: TryOptions): Promise<boolean> {
  let tookOver = false;
  const judged = await readText(storage, path);
  if (judged !== undefined) {
    let mtime: number;
    try {
      mtime = (await storage.stat(path)).mtimeMs;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      mtime = -1;
    }
    if (mtime >= 0) {
      if (o.expireMs <= 0 || o.now - mtime <= o.expireMs) return false;
      // delete only what we judged expired: a holder that refreshed it, or another taker that
      // already replaced it, changed the content
      if ((await readText(storage, path)) !== judged) return false;
      try {
        await storage.delete(path);
      } catch (e) {
        // another taker deleted it between our check and our delete
        if (!isNotFound(e)) throw e;
      }
      tookOver = true;
    }
  }
  try {
    await storage.mkdirs(parentPath(path));
    await storage.writeNew(path, new TextEncoder().encode(lockContent(o.now, o.token)));
  } catch (e) {
    if (e instanceof StorageError && e.code === 'already-exists') return false;
    throw e;
  }
  // another taker that judged the same expired content may delete ours and create its own
  if (tookOver && o.settleMs > 0) await o.sleep(o.settleMs);
  return lockTokenOf(await readText(storage, path)) === o.token;
}

export async function acquireTableLock(storage: Storage, metaPath: string, opts: LockOptions = {}): Promise<TableLock> {
  const path = lockFilePath(metaPath);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? sleepMs;
  const expireMs = opts.expireMs ?? 60_000;
  const token = randomBytes(12).toString('hex');
  const start = now();
  for (;;) {
    if (await tryLock(storage, path, { expireMs, now: now(), token, settleMs: opts.settleMs ?? 50, sleep })) {
      let released = false;
      let refreshed = now();
      const mine = async () => lockTokenOf(await readText(storage, path)) === token;
      const refresh = async () => {
        if (!(await mine())) {
          throw new TblError('conflict', `table lock ${storage.uri(path)} is no longer held by this process (it expired and another writer took it)`, {
            path: storage.uri(path),
          });
        }
        // an append changes the mtime without a moment where the file is missing
        await storage.append(path, new Uint8Array([0x0a]));
        refreshed = now();
      };
      return {
        path,
        token,
        async release() {
          if (released) return true;
          released = true;
          if (!(await mine())) return false;
          // close to expiry a taker may be judging it right now: refresh first so it cannot
          if (expireMs > 0 && now() - refreshed > expireMs / 2) {
            try {
              await refresh();
            } catch (e) {
              if (e instanceof TblError && e.kind === 'conflict') return false;
              throw e;
            }
            if (!(await mine())) return false;
          }
          await storage.delete(path);
          return true;
        },
        async keepAlive() {
          // a lock that never expires needs no refresh
          if (expireMs <= 0 || now() - refreshed < expireMs / 4) return;
          await refresh();
        },
      };
    }
    const waited = now() - start;
    if (!opts.wait || (opts.waitTimeoutMs !== undefined && waited >= opts.waitTimeoutMs)) {
      throw new TblError('lock-held', `table lock ${storage.uri(path)} is held by another writer`, {
        path: storage.uri(path),
        hint: opts.wait ? `gave up after ${waited} ms` : 'pass --wait to wait for it',
      });
    }
    await sleep(opts.retryMs ?? 200);
  }
}

/** Runs `fn` holding the table lock; always releases it (only if it is still ours). */
export async function withTableLock<T>(storage: Storage, metaPath: string, opts: LockOptions, fn: (lock: TableLock) => Promise<T>): Promise<T> {
  const lock = await acquireTableLock(storage, metaPath, opts);
  try {
    return await fn(lock);
  } finally {
    await lock.release();
  }
}
