// Many unlinks on a local file system (archival deletes 30,000 timeline files): synchronous, in order,
// no thread-pool hop per file; a file with data held open across its unlink so that the kernel frees
// its blocks at the close, on the thread pool; and for deleteOrdered, the `first` files unlinked by a
// worker thread while this thread unlinks the `last` ones behind it.
import { close as closeFd, constants as fsConstants, openSync, statfsSync, unlinkSync } from 'node:fs';
import * as nodePath from 'node:path';
import { fail } from './local-errors.ts';
import type { DeleteOrderedOptions, OrderedDelete } from './types.ts';

/**
 * File systems (statfs f_type) where an unlinked open file is only an orphan inode freed at its last
 * close: ext2/3/4, XFS, Btrfs. Elsewhere the unlinks are plain — an NFS client "silly-renames" an
 * open file to .nfsXXXX instead (two round trips, and a leftover if the process dies).
 */
const HOLD_OPEN_FS = new Set([0xef53, 0x58465342, 0x9123683e]);

export function holdsOpenWellOn(fsType: number): boolean {
  return HOLD_OPEN_FS.has(fsType);
}

function holdsOpenWell(dir: string): boolean {
  try {
    return holdsOpenWellOn(statfsSync(dir).type);
  } catch {
    return false;
  }
}

/** releaseInParallel: files opened per round, open descriptors at most */
const HELD_CHUNK = 256;
const HELD_MAX = 1024;

/**
 * An fd that keeps the inode alive past its unlink, or undefined (missing, a symlink, unreadable: plain
 * unlink). O_NONBLOCK: a FIFO's open must not wait for a writer.
 */
function openToRelease(path: string): number | undefined {
  try {
    return openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/**
 * Closes descriptors on the thread pool (the kernel frees an unlinked inode's blocks at its last close).
 * Each close goes to libuv's queue at once: the pool's threads drain it while this thread is busy
 * unlinking, where a queue of our own would wait for this thread to hand out the next close.
 */
class Closer {
  private open = 0;
  private waiters: (() => void)[] = [];

  close(fd: number): void {
    this.open++;
    // a close error on a read-only descriptor of an unlinked file has nothing left to report
    closeFd(fd, () => {
      this.open--;
      const w = this.waiters;
      this.waiters = [];
      for (const r of w) r();
    });
  }

  /** Resolves once fewer than `n` descriptors are still open. */
  async below(n: number): Promise<void> {
    while (this.open >= n) await new Promise<void>((r) => this.waiters.push(r));
  }
}

export interface UnlinkOptions {
  releaseInParallel?: boolean;
  /** the full delete, for what a plain unlink refuses (a directory, EPERM, EACCES) */
  slow: (path: string) => Promise<boolean>;
  /** awaited (when it returns a promise) before `paths[i]` is unlinked */
  before?: (i: number) => Promise<void> | undefined;
  /** awaited after each round of HELD_CHUNK files, with the count done so far */
  onProgress?: (done: number) => Promise<void>;
}

/** Unlinks `paths` one after another in order; false where nothing was there. Stops at the first failure. */
export async function unlinkInOrder(paths: readonly string[], opts: UnlinkOptions): Promise<boolean[]> {
  const out: boolean[] = [];
  const closer = opts.releaseInParallel && paths.length > 0 && holdsOpenWell(nodePath.dirname(paths[0]!)) ? new Closer() : undefined;
  try {
    for (let i = 0; i < paths.length; i += HELD_CHUNK) {
      const chunk = paths.slice(i, i + HELD_CHUNK);
      const fds = closer ? chunk.map(openToRelease) : [];
      let k = 0;
      try {
        for (; k < chunk.length; k++) {
          const p = chunk[k]!;
          const wait = opts.before?.(i + k);
          if (wait) await wait;
          try {
            unlinkSync(p);
            out.push(true);
          } catch (e) {
            const code = (e as NodeJS.ErrnoException)?.code;
            if (code === 'ENOENT') out.push(false);
            else if (code === 'EISDIR' || code === 'EPERM' || code === 'EACCES') out.push(await opts.slow(p));
            else throw fail('delete', p, e);
          }
          if (fds[k] !== undefined) closer!.close(fds[k]!);
        }
      } finally {
        // a failure part way: the chunk's files not reached keep their names; release them too
        for (; k < fds.length; k++) if (fds[k] !== undefined) closer!.close(fds[k]!);
      }
      await closer?.below(HELD_MAX);
      await opts.onProgress?.(out.length);
    }
  } finally {
    await closer?.below(1);
  }
  return out;
}

/** below this many items a worker's start costs more than its help */
export const ORDERED_WORKER_MIN = 512;

// Shared state of deleteOrderedLocal: items are claimed through NEXT by the worker and, when it has to
// wait, by this thread; FLAGS + i is 1 once item i's `first` files are gone.
const NEXT = 0;
const DELETED = 1;
const STOP = 2;
const FINISHED = 3;
const FLAGS = 4;

// The worker claims items in order and unlinks their `first` files. A failure other than a missing file
// stops it with that item unflagged (the caller deletes it, and reports the error); so does STOP.
// FINISHED is set however it ends.
const WORKER = `
const { paths, ends, state } = require('node:worker_threads').workerData;
try {
  const { unlinkSync } = require('node:fs');
  for (;;) {
    if (Atomics.load(state, ${STOP}) === 1) break;
    const i = Atomics.add(state, ${NEXT}, 1);
    if (i >= ends.length) break;
    let ok = true;
    for (let p = i === 0 ? 0 : ends[i - 1]; ok && p < ends[i]; p++) {
      try {
        unlinkSync(paths[p]);
        Atomics.add(state, ${DELETED}, 1);
      } catch (e) {
        ok = e.code === 'ENOENT';
      }
    }
    if (!ok) break;
    Atomics.store(state, ${FLAGS} + i, 1);
    Atomics.notify(state, ${FLAGS} + i);
  }
} finally {
  Atomics.store(state, ${FINISHED}, 1);
}
`;

/**
 * Storage.deleteOrdered for local files: from ORDERED_WORKER_MIN items on, a worker thread unlinks the
 * `first` files while this thread unlinks each item's `last` file as soon as that item's are gone —
 * two threads unlinking in one directory take about the time of the slower stream, not the sum. While
 * it would wait (the worker starting, or behind), this thread deletes the next `first` files itself.
 */
export async function deleteOrderedLocal(items: readonly OrderedDelete[], opts: DeleteOrderedOptions & { slow: (path: string) => Promise<boolean>; worker: boolean }): Promise<number> {
  const state = new Int32Array(new SharedArrayBuffer(4 * (FLAGS + items.length)));
  let exited: Promise<unknown> | undefined;
  if (opts.worker) {
    // the worker's copy of the `first` paths, flat, with each item's end
    const paths: string[] = [];
    const ends: number[] = [];
    for (const it of items) {
      paths.push(...it.first);
      ends.push(paths.length);
    }
    try {
      const { Worker } = await import('node:worker_threads');
      const worker = new Worker(WORKER, { eval: true, workerData: { paths, ends, state } });
      // a worker that cannot start has claimed nothing: this thread does its share
      worker.on('error', () => undefined);
      exited = new Promise((resolve) => worker.once('exit', resolve));
    } catch {
      // no thread to be had: this thread deletes everything
    }
  }
  if (exited === undefined) Atomics.store(state, FINISHED, 1);
  let ownDeleted = 0;
  /** item j's `first` files, here: plain unlinks, the full delete for what they refuse */
  const deleteFirsts = (j: number): Promise<void> | undefined => {
    const rest: string[] = [];
    for (const p of items[j]!.first) {
      try {
        unlinkSync(p);
        ownDeleted++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT') rest.push(p);
      }
    }
    const flag = () => void Atomics.store(state, FLAGS + j, 1);
    if (rest.length === 0) return flag();
    return (async () => {
      for (const p of rest) if (await opts.slow(p)) ownDeleted++;
      flag();
    })();
  };
  const before = (i: number): Promise<void> | undefined => {
    for (;;) {
      if (Atomics.load(state, FLAGS + i) === 1) return undefined;
      const j = Atomics.add(state, NEXT, 1);
      if (j < items.length) {
        const wait = deleteFirsts(j);
        if (!wait) continue;
        if (j === i) return wait;
        // a later item that fails keeps its flag unset: its error comes when its turn does
        return wait.then(
          () => before(i),
          () => before(i),
        );
      }
      // item i is the worker's: in progress, or where it stopped
      if (Atomics.load(state, FINISHED) === 1) {
        if (Atomics.load(state, FLAGS + i) === 1) return undefined;
        return deleteFirsts(i);
      }
      Atomics.wait(state, FLAGS + i, 0, 50);
    }
  };
  try {
    const lasts = await unlinkInOrder(
      items.map((it) => it.last),
      { releaseInParallel: opts.releaseInParallel, slow: opts.slow, before, onProgress: opts.onProgress },
    );
    return lasts.filter(Boolean).length + ownDeleted + Atomics.load(state, DELETED);
  } finally {
    Atomics.store(state, STOP, 1);
    await exited;
  }
}
