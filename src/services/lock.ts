// Hudi's FileSystemBasedLockProvider (format-timeline.md §8.1): the lock is the file
// `<base>/.hoodie/.aux/lock`, taken by an atomic create-if-absent, released by deleting it, and
// considered expired (deleted by the next taker) when its mtime is older than the expiry (the engines'
// auto-configured default is 1 minute). Critical sections must stay well below the expiry.
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
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface TableLock {
  path: string;
  release(): Promise<void>;
}

export function lockFilePath(metaPath: string): string {
  return joinPath(metaPath, '.aux', 'lock');
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function two(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** LockInfo.toString()-like text; informational only, nobody parses it. */
function lockInfo(now: number): string {
  const d = new Date(now);
  const ts = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${two(d.getMilliseconds(), 3)}`;
  return `LockHolder: tblcli pid ${process.pid} on ${hostname()}\nLockCreateTime: ${ts}\n`;
}

/** One attempt (FileSystemBasedLockProvider.tryLock). */
async function tryLock(storage: Storage, path: string, expireMs: number, now: number): Promise<boolean> {
  try {
    const st = await storage.stat(path);
    if (expireMs <= 0 || now - st.mtimeMs <= expireMs) return false;
    await storage.delete(path);
  } catch (e) {
    if (!(e instanceof StorageError && e.code === 'not-found')) throw e;
  }
  try {
    await storage.mkdirs(parentPath(path));
    await storage.writeNew(path, new TextEncoder().encode(lockInfo(now)));
    return true;
  } catch (e) {
    if (e instanceof StorageError && e.code === 'already-exists') return false;
    throw e;
  }
}

export async function acquireTableLock(storage: Storage, metaPath: string, opts: LockOptions = {}): Promise<TableLock> {
  const path = lockFilePath(metaPath);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? sleepMs;
  const expireMs = opts.expireMs ?? 60_000;
  const start = now();
  for (;;) {
    if (await tryLock(storage, path, expireMs, now())) {
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          await storage.delete(path);
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

/** Runs `fn` holding the table lock; always releases it. */
export async function withTableLock<T>(storage: Storage, metaPath: string, opts: LockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireTableLock(storage, metaPath, opts);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
