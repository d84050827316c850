import { StorageError } from '../errors/index.ts';
import type { FileStatus, Storage } from './types.ts';

/** Lists `dir`; a directory that does not exist (or is not a directory, e.g. deleted and re-created) lists as empty. */
export async function listOrEmpty(storage: Storage, dir: string): Promise<FileStatus[]> {
  try {
    return await storage.list(dir);
  } catch (e) {
    if (e instanceof StorageError && (e.code === 'not-found' || e.code === 'not-a-directory')) return [];
    throw e;
  }
}
