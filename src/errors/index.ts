// One error family for the whole library. Commands map `kind` to an exit code in one place
// (exitCodeFor); messages name the offending path / instant / key.

export type ErrorKind =
  | 'usage'
  | 'not-found'
  | 'storage'
  | 'config'
  | 'timeline'
  | 'metadata'
  | 'logfile'
  | 'parquet'
  | 'unsupported'
  | 'conflict'
  | 'lock-held'
  | 'interrupted'
  | 'bug';

export interface TblErrorFields {
  path?: string;
  instant?: string;
  key?: string;
  hint?: string;
  cause?: unknown;
}

export class TblError extends Error {
  readonly kind: ErrorKind;
  readonly path?: string;
  readonly instant?: string;
  readonly key?: string;
  readonly hint?: string;

  constructor(kind: ErrorKind, message: string, fields: TblErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'TblError';
    this.kind = kind;
    this.path = fields.path;
    this.instant = fields.instant;
    this.key = fields.key;
    this.hint = fields.hint;
  }
}

/** Storage failures carry the operation and, for WebHDFS, the remote exception name. */
export type StorageErrorCode =
  | 'not-found'
  | 'already-exists'
  | 'permission-denied'
  | 'not-empty'
  | 'not-a-directory'
  | 'is-a-directory'
  | 'unavailable'
  | 'timeout'
  | 'io';

/** How every storage backend words a failure code in its one-line message. */
export const STORAGE_ERROR_WORDS: Record<StorageErrorCode, string> = {
  'not-found': 'no such file or directory',
  'already-exists': 'already exists',
  'permission-denied': 'permission denied',
  'not-empty': 'directory not empty',
  'not-a-directory': 'not a directory',
  'is-a-directory': 'is a directory',
  unavailable: 'service unavailable',
  timeout: 'timed out',
  io: 'I/O error',
};

export class StorageError extends TblError {
  readonly op: string;
  readonly code: StorageErrorCode;
  readonly remoteException?: string;
  readonly status?: number;

  constructor(
    op: string,
    path: string,
    code: StorageErrorCode,
    message: string,
    extra: { remoteException?: string; status?: number; cause?: unknown } = {},
  ) {
    super(code === 'not-found' ? 'not-found' : 'storage', message, { path, cause: extra.cause });
    this.name = 'StorageError';
    this.op = op;
    this.code = code;
    this.remoteException = extra.remoteException;
    this.status = extra.status;
  }
}

export function isTblError(e: unknown): e is TblError {
  return e instanceof Error && typeof (e as TblError).kind === 'string' && e.name !== 'Error'
    ? true
    : e instanceof TblError;
}

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  findings: 3,
  lockHeld: 4,
  interrupted: 130,
} as const;

export function exitCodeFor(e: unknown): number {
  if (!(e instanceof TblError)) return EXIT.error;
  switch (e.kind) {
    case 'usage':
      return EXIT.usage;
    case 'lock-held':
      return EXIT.lockHeld;
    case 'interrupted':
      return EXIT.interrupted;
    default:
      return EXIT.error;
  }
}

/** One line for stderr: the message plus the hint; the cause chain only with --debug. */
export function formatError(e: unknown, debug: boolean): string {
  if (!(e instanceof Error)) return `error: ${String(e)}`;
  const bug = !(e instanceof TblError) || e.kind === 'bug';
  let line = `error: ${e.message.split('\n')[0]}`;
  if (e instanceof TblError && e.hint) line += ` (${e.hint})`;
  if (bug && !debug) line += ' [this is a bug in tblcli; rerun with --debug and report it]';
  if (!debug) return line;
  const parts = [line];
  let cur: unknown = e;
  while (cur instanceof Error) {
    if (cur.stack) parts.push(cur.stack);
    cur = cur.cause;
    if (cur !== undefined && !(cur instanceof Error)) parts.push(`caused by: ${String(cur)}`);
  }
  return parts.join('\n');
}
