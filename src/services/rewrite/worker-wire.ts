// What crosses the thread boundary for a compaction worker: storage reads answered by the main
// thread's Storage (so WebHDFS auth, retries and concurrency limits stay where they were set up),
// and errors rebuilt as the same TblError/StorageError with the same fields.
import type { MessagePort } from 'node:worker_threads';
import { StorageError, TblError, type ErrorKind, type StorageErrorCode } from '../../errors/index.ts';
import type { FileStatus, Storage } from '../../storage/index.ts';

export interface WireError {
  name: string;
  message: string;
  stack?: string;
  kind?: ErrorKind;
  path?: string;
  instant?: string;
  key?: string;
  hint?: string;
  op?: string;
  code?: StorageErrorCode;
  remoteException?: string;
  status?: number;
}

export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const w: WireError = { name: e.name, message: e.message, stack: e.stack };
  if (e instanceof TblError) Object.assign(w, { kind: e.kind, path: e.path, instant: e.instant, key: e.key, hint: e.hint });
  if (e instanceof StorageError) Object.assign(w, { op: e.op, code: e.code, remoteException: e.remoteException, status: e.status });
  return w;
}

export function fromWire(w: WireError): Error {
  let e: Error;
  if (w.code !== undefined && w.op !== undefined) {
    e = new StorageError(w.op, w.path ?? '', w.code, w.message, { remoteException: w.remoteException, status: w.status });
  } else if (w.kind !== undefined) {
    e = new TblError(w.kind, w.message, { path: w.path, instant: w.instant, key: w.key, hint: w.hint });
  } else {
    e = new Error(w.message);
    e.name = w.name;
  }
  if (w.stack) e.stack = w.stack;
  return e;
}

/** The read calls a merge makes; writes never happen in the worker. */
const READS = ['list', 'stat', 'exists', 'readFile', 'readRange', 'contentSummary'] as const;
type ReadOp = (typeof READS)[number];

type Request = { id: number; op: ReadOp; args: unknown[] };
type Reply = { id: number; value?: unknown; error?: WireError };
/** A whole file read ahead for the worker (undefined bytes: the read failed, the worker asks again). */
type Prefetched = { prefetched: string; bytes?: Uint8Array };

/**
 * A file sent whole to the worker: read here, or `bytes` when the caller reads it (undefined: not
 * read, the worker asks) — the caller's own bytes, which no one else holds: a whole buffer is moved
 * to the worker, not copied.
 */
export interface Prefetch {
  path: string;
  size: number;
  bytes?: Promise<Uint8Array | undefined>;
}

/** Files read ahead for a worker: whole log files up to this many bytes in all. */
export const PREFETCH_LIMIT = 256 * 1048576;

/** `b` is the whole of an ArrayBuffer (not a view into a larger one, nor shared): it can be transferred as it is. */
export function ownsWholeBuffer(b: Uint8Array): boolean {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && !(b.buffer instanceof SharedArrayBuffer);
}

/** A fresh buffer of exactly these bytes: transferable without detaching a shared pool slab. */
function own(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}

/**
 * Main thread: answers the worker's storage requests on `port` with `storage`, and sends it the
 * `prefetch` files whole, read at once: the worker's reads of them then never wait for this thread,
 * which may be busy for tens of milliseconds at a time (decoding the base file).
 */
export function serveStorage(port: MessagePort, storage: Storage, prefetch: Prefetch[] = []): void {
  for (const { path, size, bytes: read } of prefetch) {
    (read ?? storage.readRange(path, 0, size)).then(
      (b) => {
        if (!b) {
          port.postMessage({ prefetched: path } satisfies Prefetched);
          return;
        }
        // the caller's own bytes move across when they are a whole buffer
        const bytes = read && ownsWholeBuffer(b) ? b : own(b);
        port.postMessage({ prefetched: path, bytes } satisfies Prefetched, [bytes.buffer as ArrayBuffer]);
      },
      () => port.postMessage({ prefetched: path } satisfies Prefetched),
    );
  }
  port.on('message', (req: Request) => {
    if (!(READS as readonly string[]).includes(req.op)) {
      port.postMessage({ id: req.id, error: toWire(new TblError('bug', `compaction worker asked for storage.${req.op}`)) } satisfies Reply);
      return;
    }
    const call = (storage[req.op] as (...a: unknown[]) => Promise<unknown>).apply(storage, req.args);
    call.then(
      (value) => {
        if (value instanceof Uint8Array) {
          const b = own(value);
          port.postMessage({ id: req.id, value: b } satisfies Reply, [b.buffer as ArrayBuffer]);
        } else port.postMessage({ id: req.id, value: strip(value) } satisfies Reply);
      },
      (e: unknown) => port.postMessage({ id: req.id, error: toWire(e) } satisfies Reply),
    );
  });
}

/** FileStatus objects may fill size/mtime lazily through getters: send plain values. */
function strip(v: unknown): unknown {
  const plain = (f: FileStatus): FileStatus => ({ path: f.path, name: f.name, isDirectory: f.isDirectory, size: f.size, mtimeMs: f.mtimeMs });
  if (Array.isArray(v)) return v.map((x) => plain(x as FileStatus));
  if (v && typeof v === 'object' && 'isDirectory' in v) return plain(v as FileStatus);
  return v;
}

/** What `uri` puts before an absolute path ('' for local paths, `webhdfs://host:port` for WebHDFS). */
export function uriPrefixOf(storage: Storage): string {
  return storage.uri('/').slice(0, -1);
}

/**
 * Worker thread: a read-only Storage whose calls are made by the main thread; ranges of the
 * `prefetch` files are views of the whole file the main thread sends (a failed or short read ahead
 * falls back to asking).
 */
export function storageOverPort(port: MessagePort, scheme: string, uriPrefix: string, prefetch: string[] = []): Storage {
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const ahead = new Map<string, { bytes: Promise<Uint8Array | undefined>; arrived: (b: Uint8Array | undefined) => void }>();
  for (const path of prefetch) {
    let arrived!: (b: Uint8Array | undefined) => void;
    const bytes = new Promise<Uint8Array | undefined>((resolve) => (arrived = resolve));
    ahead.set(path, { bytes, arrived });
  }
  port.on('message', (r: Reply | Prefetched) => {
    if ('prefetched' in r) {
      ahead.get(r.prefetched)?.arrived(r.bytes);
      return;
    }
    const w = waiting.get(r.id);
    if (!w) return;
    waiting.delete(r.id);
    if (r.error) w.reject(fromWire(r.error));
    else w.resolve(r.value);
  });
  const call = <T>(op: ReadOp, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      port.postMessage({ id, op, args } satisfies Request);
    });
  const readOnly = (op: string) => (): Promise<never> => Promise.reject(new TblError('bug', `storage.${op} is not available in a compaction worker`));
  return {
    scheme,
    uri: (p) => (uriPrefix === '' ? p : `${uriPrefix}${p.startsWith('/') ? p : `/${p}`}`),
    list: (dir, opts) => call('list', dir, opts),
    stat: (path) => call('stat', path),
    exists: (path) => call('exists', path),
    readFile: (path) => call('readFile', path),
    readRange: async (path, offset, length) => {
      const b = await ahead.get(path)?.bytes;
      if (b && offset >= 0 && length >= 0 && offset + length <= b.length) return b.subarray(offset, offset + length);
      return call('readRange', path, offset, length);
    },
    contentSummary: (path) => call('contentSummary', path),
    writeNew: readOnly('writeNew'),
    append: readOnly('append'),
    rename: readOnly('rename'),
    delete: readOnly('delete'),
    mkdirs: readOnly('mkdirs'),
    close: async () => undefined,
  };
}
