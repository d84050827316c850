// Node errno → StorageError, shared by the local backend's modules.
import { STORAGE_ERROR_WORDS, StorageError, type StorageErrorCode } from '../errors/index.ts';

export function codeOf(e: unknown): StorageErrorCode {
  switch ((e as NodeJS.ErrnoException)?.code) {
    case 'ENOENT':
      return 'not-found';
    case 'EEXIST':
      return 'already-exists';
    case 'EACCES':
    case 'EPERM':
      return 'permission-denied';
    case 'ENOTEMPTY':
      return 'not-empty';
    case 'ENOTDIR':
      return 'not-a-directory';
    case 'EISDIR':
      return 'is-a-directory';
    default:
      return 'io';
  }
}

export function fail(op: string, path: string, e: unknown): StorageError {
  const code = codeOf(e);
  const detail = code === 'io' ? `: ${(e as Error)?.message ?? String(e)}` : '';
  return new StorageError(op, path, code, `${op} ${path}: ${STORAGE_ERROR_WORDS[code]}${detail}`, { cause: e });
}
