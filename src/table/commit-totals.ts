// `commits show` totals of many completed instants. On the local file system a 20k-instant timeline is
// CPU-bound (read + JSON.parse of ~90 MB), so a worker thread decodes chunks of files beside this
// thread: both take the next chunk from one shared counter, so neither waits for the other however
// late the worker starts. Results, and the error reported (the first in timeline order, with its
// cause chain: the worker only says which chunk failed), are what a single thread gives.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TblError } from '../errors/index.ts';
import { decodeCommitTotals } from '../metadata/index.ts';
import { readEach, type Storage } from '../storage/index.ts';

export type InstantTotals = ReturnType<typeof decodeCommitTotals>;

/** One completed commit file: its storage path, the URI messages name, its instant time. */
export interface TotalsFile {
  path: string;
  uri: string;
  instant: string;
}

/** Files per chunk: small enough to balance two threads, large enough that a message per chunk is noise. */
export const TOTALS_CHUNK = 256;
/** Below this many files a worker's start-up (~40 ms) costs more than it saves. */
export const MIN_FILES_FOR_WORKER = 2048;

/**
 * A completed commit file must carry metadata: Java 1.x reads an empty one as "no writes", which
 * hides the crash that produced it, so name it instead.
 */
export function emptyCompletedCommit(ctx: { path: string; instant: string }): TblError {
  return new TblError('metadata', `${ctx.path}: empty completed commit file for instant ${ctx.instant} (a writer crashed while completing it?)`, {
    path: ctx.path,
    instant: ctx.instant,
  });
}

function totalsOf(bytes: Uint8Array, f: TotalsFile): InstantTotals {
  if (bytes.length === 0) throw emptyCompletedCommit({ path: f.uri, instant: f.instant });
  return decodeCommitTotals(bytes, { path: f.uri });
}

/** Totals of chunk `c` of `files` (bytes read in a reused buffer: totals keep no reference to them). */
export function chunkTotals(storage: Storage, files: readonly TotalsFile[], c: number, limit = 16): Promise<InstantTotals[]> {
  const part = files.slice(c * TOTALS_CHUNK, (c + 1) * TOTALS_CHUNK);
  return readEach(
    storage,
    part.map((f) => f.path),
    limit,
    (bytes, k) => totalsOf(bytes, part[k]!),
  );
}

/**
 * What the worker posts: each chunk's totals, or that a chunk failed (this thread decodes that chunk
 * again and throws the real error, cause chain and all), then `done`.
 */
export type TotalsMessage = { chunk: number; rows: InstantTotals[] } | { chunk: number; failed: true } | { done: true };

/** The files as NUL-joined strings (NUL cannot occur in a path): one string clones in a copy, 20k small objects do not. */
export interface TotalsWorkerInput {
  paths: string;
  /** absent when every URI is its path (local storage) */
  uris?: string;
  instants: string;
  /** Int32Array over it: [next chunk to claim] */
  counter: SharedArrayBuffer;
}

export function toWorkerInput(files: readonly TotalsFile[], counter: SharedArrayBuffer): TotalsWorkerInput {
  const paths = files.map((f) => f.path).join('\0');
  const uris = files.map((f) => f.uri).join('\0');
  return { paths, uris: uris === paths ? undefined : uris, instants: files.map((f) => f.instant).join('\0'), counter };
}

export function fromWorkerInput(input: TotalsWorkerInput): TotalsFile[] {
  if (input.paths === '') return [];
  const paths = input.paths.split('\0');
  const uris = input.uris?.split('\0') ?? paths;
  const instants = input.instants.split('\0');
  return paths.map((path, n) => ({ path, uri: uris[n]!, instant: instants[n]! }));
}

/** Run from sources (vitest) no worker file exists: decode in this thread only. */
function defaultWorkerUrl(): URL | undefined {
  return import.meta.url.endsWith('.ts') ? undefined : new URL('./totals-worker.js', import.meta.url);
}

/**
 * A worker thread for totals. Started as soon as a timeline looks large (a big directory before the
 * listing, else on the listing), it boots meanwhile and waits for its input (TotalsWorkerInput) as its
 * first message.
 */
export class TotalsWorker {
  #gone = false;
  #onGone: (() => void) | undefined;
  readonly #worker: Worker;
  /** settles when the thread has failed or exited */
  readonly exited: Promise<void>;

  private constructor(worker: Worker) {
    this.#worker = worker;
    // it may fail or exit before run(): remember it, so run() never waits for a dead thread
    this.exited = new Promise<void>((resolve) => {
      const gone = (): void => {
        this.#gone = true;
        this.#onGone?.();
        resolve();
      };
      worker.on('error', gone);
      worker.on('exit', gone);
    });
    worker.unref(); // an unused worker never keeps the process alive; run() refs it while it works
  }

  /** undefined when no worker can run here (no bundled worker file, one core, a failed start). */
  static start(url: URL | null | undefined = defaultWorkerUrl()): TotalsWorker | undefined {
    if (!url || availableParallelism() < 2) return undefined;
    try {
      // it never prints (failures come back as messages or 'error' events): stdio left unpiped, or
      // this thread would build process.stdout/stderr and switch those pipes to non-blocking
      return new TotalsWorker(new Worker(url, { stdout: true, stderr: true }));
    } catch {
      return undefined;
    }
  }

  /** Hands it the files; settles (never rejects) once it is done or gone. */
  run(input: TotalsWorkerInput, accept: (c: number, rows: InstantTotals[]) => void): Promise<void> {
    const worker = this.#worker;
    if (this.#gone) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        this.#onGone = undefined;
        resolve();
        this.stop();
      };
      this.#onGone = finish;
      worker.on('message', (m: TotalsMessage) => {
        if ('done' in m) finish();
        else if ('rows' in m) accept(m.chunk, m.rows);
        // a failed chunk stays undone: join() decodes it again and meets the error itself
      });
      worker.ref();
      worker.postMessage(input);
    });
  }

  stop(): void {
    void this.#worker.terminate();
  }
}

export interface TotalsOptions {
  /** in-flight reads for backends without a batch read */
  concurrency?: number;
  /** a started worker to share the decoding with (local storage only); stopped when not needed */
  worker?: TotalsWorker;
  /** files below which the worker is not used (default MIN_FILES_FOR_WORKER) */
  minFilesForWorker?: number;
  /** filled in: how many chunks the worker decoded */
  stats?: { workerChunks: number };
}

/**
 * One decoding of `files`, shared by a worker (handed the files at once, possibly before this thread
 * joins: it can begin while the timeline is still being grouped) and this thread (join()).
 */
export class TotalsRun {
  private readonly chunks: number;
  private readonly out: InstantTotals[];
  private readonly done: Uint8Array;
  private readonly counter = new Int32Array(new SharedArrayBuffer(4));
  private readonly helper: Promise<void> | undefined;

  constructor(
    readonly files: TotalsFile[],
    private readonly worker?: TotalsWorker,
    stats?: { workerChunks: number },
  ) {
    this.chunks = Math.ceil(files.length / TOTALS_CHUNK);
    this.out = new Array<InstantTotals>(files.length);
    this.done = new Uint8Array(this.chunks);
    if (worker) {
      const fromWorker = (c: number, rows: InstantTotals[]): void => {
        if (stats) stats.workerChunks += 1;
        this.accept(c, rows);
      };
      this.helper = worker.run(toWorkerInput(files, this.counter.buffer as SharedArrayBuffer), fromWorker);
    }
  }

  private accept(c: number, rows: InstantTotals[]): void {
    for (let k = 0; k < rows.length; k++) this.out[c * TOTALS_CHUNK + k] = rows[k]!;
    this.done[c] = 1;
  }

  /** Not needed after all (the files were not the ones wanted): stop the worker, drop everything. */
  abandon(): void {
    Atomics.store(this.counter, 0, this.chunks);
    this.worker?.stop();
  }

  /** Decodes chunks beside the worker until none is left; totals of every file, in order. */
  async join(storage: Storage, concurrency?: number): Promise<InstantTotals[]> {
    const { chunks, counter, files } = this;
    if (!this.worker) {
      // alone: one pass, so a remote backend keeps its reads in flight across what would be chunks
      return readEach(storage, files.map((f) => f.path), concurrency ?? 16, (bytes, k) => totalsOf(bytes, files[k]!));
    }
    const errors = new Map<number, unknown>();
    for (let c = Atomics.add(counter, 0, 1); c < chunks; c = Atomics.add(counter, 0, 1)) {
      try {
        this.accept(c, await chunkTotals(storage, files, c, concurrency));
      } catch (e) {
        errors.set(c, e);
        Atomics.store(counter, 0, chunks); // later chunks cannot matter: stop claiming
      }
    }
    await this.helper;
    // chunks the worker failed, claimed and never answered (it died), or never claimed: decoded here
    // in order, so the error thrown is the first in timeline order, as a single thread would meet it
    for (let c = 0; c < chunks; c++) {
      if (errors.has(c)) throw errors.get(c);
      if (!this.done[c]) this.accept(c, await chunkTotals(storage, files, c, concurrency));
    }
    return this.out;
  }
}

/** Whether a worker should share decoding these files. */
export function worthAWorker(storage: Storage, files: number, minFiles = MIN_FILES_FOR_WORKER): boolean {
  return storage.scheme === 'file' && files >= minFiles;
}

/** Totals of every file, in order. */
export function loadTotals(storage: Storage, files: TotalsFile[], opts: TotalsOptions = {}): Promise<InstantTotals[]> {
  let worker = opts.worker;
  if (worker && !worthAWorker(storage, files.length, opts.minFilesForWorker)) {
    worker.stop();
    worker = undefined;
  }
  return new TotalsRun(files, worker, opts.stats).join(storage, opts.concurrency);
}

/** The worker's loop (totals-worker.ts): claim chunks until none is left, post each one's totals. */
export async function serveTotals(storage: Storage, input: TotalsWorkerInput, post: (m: TotalsMessage) => void): Promise<void> {
  const counter = new Int32Array(input.counter);
  const files = fromWorkerInput(input);
  const chunks = Math.ceil(files.length / TOTALS_CHUNK);
  for (let c = Atomics.add(counter, 0, 1); c < chunks; c = Atomics.add(counter, 0, 1)) {
    try {
      post({ chunk: c, rows: await chunkTotals(storage, files, c) });
    } catch {
      post({ chunk: c, failed: true });
      Atomics.store(counter, 0, chunks);
    }
  }
  post({ done: true });
}
