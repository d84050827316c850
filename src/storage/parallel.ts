import { StorageError } from '../errors/index.ts';
import type { DeleteEachOptions, DeleteOrderedOptions, OrderedDelete, Storage } from './types.ts';

/** Maps with at most `limit` promises in flight, keeping input order in the result. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}

/**
 * Reads whole files and maps each one's bytes with `fn` (Storage.readEach when the backend has it,
 * else readFile with `limit` in flight). `fn` must not keep the bytes past its call.
 */
export function readEach<T>(storage: Storage, paths: readonly string[], limit: number, fn: (bytes: Uint8Array, index: number) => T): Promise<T[]> {
  if (storage.readEach) return storage.readEach(paths, fn);
  return mapLimit(paths, limit, async (p, i) => fn(await storage.readFile(p), i));
}

/**
 * Deletes files in order (Storage.deleteEach when the backend has it, else delete one at a time, or
 * with `limit` in flight when the order does not matter). False where nothing was there.
 */
export async function deleteEach(storage: Storage, paths: readonly string[], opts: { ordered: boolean; limit?: number } & DeleteEachOptions): Promise<boolean[]> {
  if (storage.deleteEach) return storage.deleteEach(paths, { releaseInParallel: opts.releaseInParallel });
  if (opts.ordered) {
    const out: boolean[] = [];
    for (const p of paths) out.push(await storage.delete(p));
    return out;
  }
  return mapLimit(paths, opts.limit ?? 16, (p) => storage.delete(p));
}

/**
 * Deletes each item's `first` files, then its `last` file, the `last` files in item order
 * (Storage.deleteOrdered when the backend has it). Else in rounds of items: the next round's `first`
 * files (with `limit` in flight) while this round's `last` files go one by one. Returns files deleted.
 */
export async function deleteOrdered(storage: Storage, items: readonly OrderedDelete[], opts: { limit: number } & DeleteOrderedOptions): Promise<number> {
  if (items.length === 0) return 0;
  if (storage.deleteOrdered) return storage.deleteOrdered(items, { releaseInParallel: opts.releaseInParallel, onProgress: opts.onProgress });
  let n = 0;
  // every started delete settles before this returns; the first failure is thrown after
  const firsts = async (round: readonly OrderedDelete[]): Promise<void> => {
    let failure: { e: unknown } | undefined;
    await mapLimit(round.flatMap((it) => it.first), opts.limit, async (p) => {
      if (failure) return;
      try {
        if (await storage.delete(p)) n++;
      } catch (e) {
        failure ??= { e };
      }
    });
    if (failure) throw failure.e;
  };
  let ahead: Promise<void> = firsts(items.slice(0, ORDERED_ROUND));
  for (let i = 0; i < items.length; i += ORDERED_ROUND) {
    await ahead;
    const next = items.slice(i + ORDERED_ROUND, i + 2 * ORDERED_ROUND);
    ahead = firsts(next);
    try {
      const done = await deleteEach(storage, items.slice(i, i + ORDERED_ROUND).map((it) => it.last), { ordered: true, releaseInParallel: opts.releaseInParallel });
      n += done.filter(Boolean).length;
      await opts.onProgress?.(Math.min(i + ORDERED_ROUND, items.length));
    } catch (e) {
      await ahead.catch(() => undefined);
      throw e;
    }
  }
  await ahead;
  return n;
}

const ORDERED_ROUND = 256;

/**
 * Replaces an existing file's bytes: in one step where the backend can (Storage.replace), else by
 * deleting it and creating it again (a crash between the two leaves no file).
 */
export async function replaceFile(storage: Storage, path: string, data: Uint8Array): Promise<void> {
  if (storage.replace) return storage.replace(path, data);
  if (!(await storage.delete(path))) throw new StorageError('replace', storage.uri(path), 'not-found', `replace ${storage.uri(path)}: no such file or directory`);
  await storage.writeNew(path, data);
}
