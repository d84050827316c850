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

/** Rewrites the frames of a stack to their original sources (the CLI's: commands/stack.ts reads its source maps). */
export type StackMapper = (stack: string) => string;

// a frame in tblcli's own sources, shown from the package root: `src/table/open.ts:51:15`
const OWN_FRAME = /^\s*at (?:.*? \()?(?:.*\/)?((?:src|commands)\/[^()]+?\.tsx?:\d+:\d+)\)?$/;

/** Where in tblcli's sources `e` was thrown (its innermost own frame), for the one-line bug report. */
export function ownFrameOf(e: Error, mapStack: StackMapper = (s) => s): string | undefined {
  if (typeof e.stack !== 'string') return undefined;
  for (const line of mapStack(e.stack).split('\n')) {
    const m = OWN_FRAME.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * One line for stderr: the message plus the hint (a bug also names where in tblcli's sources it was
 * thrown); the cause chain and the stacks, mapped by `mapStack`, only with --debug.
 */
export function formatError(e: unknown, debug: boolean, mapStack: StackMapper = (s) => s): string {
  if (!(e instanceof Error)) return `error: ${String(e)}`;
  const bug = !(e instanceof TblError) || e.kind === 'bug';
  let line = `error: ${e.message.split('\n')[0]}`;
  if (e instanceof TblError && e.hint) line += ` (${e.hint})`;
  if (bug && !debug) {
    const at = ownFrameOf(e, mapStack);
    line += `${at ? ` (at ${at})` : ''} [this is a bug in tblcli; rerun with --debug and report it]`;
  }
  if (!debug) return line;
  const parts = [line];
  let cur: unknown = e;
  while (cur instanceof Error) {
    if (cur.stack) parts.push(mapStack(cur.stack));
    cur = cur.cause;
    if (cur !== undefined && !(cur instanceof Error)) parts.push(`caused by: ${String(cur)}`);
  }
  return parts.join('\n');
}
