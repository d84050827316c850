import { StorageError, type StorageErrorCode, STORAGE_ERROR_WORDS } from '../../errors/index.ts';

/** The `RemoteException` object of a WebHDFS/HttpFS error body. */
export interface RemoteException {
  exception: string;
  javaClassName?: string;
  message?: string;
}

/** Why one HTTP exchange failed; `WebHdfsClient` decides from this whether to retry or fail over. */
export type Failure =
  | { kind: 'remote'; status: number; remote: RemoteException }
  | { kind: 'http'; status: number; statusText: string }
  | { kind: 'network'; code: string; refused: boolean }
  | { kind: 'timeout'; ms: number }
  | { kind: 'protocol'; detail: string };

/** Thrown by one attempt; carries the classified failure up to the retry loop. */
export class AttemptError extends Error {
  constructor(readonly failure: Failure) {
    super(describeFailure(failure));
    this.name = 'AttemptError';
  }
}

const RETRIABLE_REMOTE = new Set(['RetriableException']);

export function isStandby(f: Failure): boolean {
  return f.kind === 'remote' && f.remote.exception === 'StandbyException';
}

/** Failures worth retrying for an idempotent operation. */
export function isTransient(f: Failure): boolean {
  switch (f.kind) {
    case 'remote':
      return RETRIABLE_REMOTE.has(f.remote.exception) || f.remote.exception === 'StandbyException';
    case 'http':
      return f.status === 502 || f.status === 503 || f.status === 504;
    case 'network':
      // A certificate that fails verification will fail again.
      return !/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(f.code);
    case 'timeout':
      return true;
    default:
      return false;
  }
}

/** True when the server certainly did not execute the request (safe to resend a non-idempotent op). */
export function notExecuted(f: Failure): boolean {
  return isStandby(f) || (f.kind === 'network' && f.refused);
}

/** A non-idempotent request whose failure leaves unknown whether the server applied it. */
export function mayHaveExecuted(f: Failure): boolean {
  return !notExecuted(f) && (isTransient(f) || (f.kind === 'http' && f.status >= 500));
}

export function codeFor(f: Failure): StorageErrorCode {
  switch (f.kind) {
    case 'remote':
      switch (f.remote.exception) {
        case 'FileNotFoundException':
          return 'not-found';
        case 'FileAlreadyExistsException':
          return 'already-exists';
        case 'AccessControlException':
        case 'SecurityException':
        case 'AuthorizationException':
        case 'InvalidToken':
          return 'permission-denied';
        case 'PathIsNotEmptyDirectoryException':
          return 'not-empty';
        case 'ParentNotDirectoryException':
        case 'PathIsNotDirectoryException':
          return 'not-a-directory';
        case 'StandbyException':
        case 'RetriableException':
        case 'SafeModeException':
          return 'unavailable';
        default:
          return 'io';
      }
    case 'http':
      if (f.status === 401 || f.status === 403) return 'permission-denied';
      if (f.status === 404) return 'not-found';
      if (f.status === 502 || f.status === 503 || f.status === 504) return 'unavailable';
      return 'io';
    case 'network':
      return 'unavailable';
    case 'timeout':
      return 'timeout';
    default:
      return 'io';
  }
}

export const WORDS = STORAGE_ERROR_WORDS;

function firstLine(s: string): string {
  return s.split(/\r?\n/)[0]!.trim();
}

export function describeFailure(f: Failure): string {
  switch (f.kind) {
    case 'remote':
      return `${f.remote.exception}: ${firstLine(f.remote.message ?? '')}`.replace(/: $/, '');
    case 'http':
      return `HTTP ${f.status}${f.statusText ? ` ${f.statusText}` : ''}`;
    case 'network':
      return f.refused ? `connection refused (${f.code})` : `connection failed (${f.code})`;
    case 'timeout':
      return `no response within ${f.ms} ms`;
    default:
      return f.detail;
  }
}

/** Removes secrets from text that may reach a message, log or debug line. */
export function makeRedactor(secrets: (string | undefined)[]): (s: string) => string {
  const list = secrets.filter((s): s is string => !!s && s.length >= 4);
  return (s: string): string => {
    let out = s.replace(/([?&]delegation=)[^&#\s]*/gi, '$1***').replace(/([?&]token=)[^&#\s]*/gi, '$1***');
    for (const secret of list) out = out.split(secret).join('***');
    return out;
  };
}

/** A StorageError with a one-line message: `<op> <uri>: <words> (<WEBHDFS OP> → <remote exception>)`. */
export function storageError(
  op: string,
  path: string,
  uri: string,
  webOp: string,
  f: Failure,
  redact: (s: string) => string,
  attempts = 1,
): StorageError {
  const code = codeFor(f);
  const tries = attempts > 1 ? `; gave up after ${attempts} attempts` : '';
  const msg = redact(`${op} ${uri}: ${WORDS[code]} (${webOp} → ${describeFailure(f)}${tries})`);
  // The cause is a fresh, redacted error: never the raw fetch error, whose chain may hold URLs.
  const cause = new Error(redact(describeFailure(f)));
  return new StorageError(op, path, code, msg, {
    remoteException: f.kind === 'remote' ? f.remote.exception : undefined,
    status: f.kind === 'remote' || f.kind === 'http' ? f.status : undefined,
    cause,
  });
}
