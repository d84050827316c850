import { StorageError } from '../errors/index.ts';
import type { DeleteEachOptions, Storage } from './types.ts';

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
 * Replaces an existing file's bytes: in one step where the backend can (Storage.replace), else by
 * deleting it and creating it again (a crash between the two leaves no file).
 */
export async function replaceFile(storage: Storage, path: string, data: Uint8Array): Promise<void> {
  if (storage.replace) return storage.replace(path, data);
  if (!(await storage.delete(path))) throw new StorageError('replace', storage.uri(path), 'not-found', `replace ${storage.uri(path)}: no such file or directory`);
  await storage.writeNew(path, data);
}
