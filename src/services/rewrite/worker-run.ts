// Main-thread side of the compaction worker: one Worker per file group, its heap capped from the
// group's input size so V8 collects early instead of letting the heap grow to hundreds of MB before
// its first full GC (issue 6: peak RSS ≤ 2 × slice + 300 MB).
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { TblError } from '../../errors/index.ts';
import type { Storage } from '../../storage/index.ts';
import { PackedUnsupported } from '../../parquet/packed.ts';
import { mergeToParquet, type MergeJob, type MergeOutput } from './merge-op.ts';
import { clusterGroup, inputBytesOf, type ClusterJob, type ClusterOutput } from './cluster-op.ts';
import { encodingStage, type StageMessage } from './two-stage.ts';
import { encodingSide, orderAhead, type ClusterStageMessage, type ClusterStageReply } from './cluster-stage.ts';
import { fromWire, PREFETCH_LIMIT, serveStorage, uriPrefixOf, type WireError } from './worker-wire.ts';

/** 'auto': a worker when the bundled worker file is there, in-process if the worker cannot run; 'always': a worker or an error; 'never': in-process. */
export type FileGroupWorkers = 'auto' | 'always' | 'never';

export interface WorkerSettings {
  mode: FileGroupWorkers;
  /** the bundled worker entry (default: rewrite-worker.js next to the bundled library) */
  url?: URL;
  /**
   * 2: the worker scans and merges, this thread encodes and assembles the packed file (two-stage.ts),
   * for when a core is free; 1 (default): the worker does it all
   */
  threads?: 1 | 2;
}

/**
 * Heap limits for merging `inputBytes` of base + log files: old generation 2 × input + 88 MB, at least
 * 160 MB. The live set is one decoded base row group, the writer's open row group and the compact log
 * map (ordering + Avro bytes per key). Measured on the 41 MB bench slice (1M + 250k records): 160 MB
 * runs ~15% slower from GC, 176 MB ~6%, 200 MB none but peaks at ~384 MB RSS (goal ≤ 383 MB).
 */
export function heapLimitsFor(inputBytes: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  const mb = inputBytes / 1048576;
  return { maxOldGenerationSizeMb: Math.max(160, Math.ceil(2 * mb + 88)), maxYoungGenerationSizeMb: mb > 64 ? 32 : 16 };
}

/**
 * Threads for a file group that starts while `running` groups (itself included) merge or cluster on
 * `cores` cores: 2 (its worker merges or gathers, this thread encodes) while fewer groups run than there are cores and
 * no other group encodes here — this thread is one more thread, not one per group.
 */
export function fileGroupThreadsFor(running: number, encodingHere: boolean, cores: number): 1 | 2 {
  return !encodingHere && running < cores ? 2 : 1;
}

/** The rule above kept for one run: how many groups run now and whether one encodes on this thread. */
export class ThreadBudget {
  private running = 0;
  private encodingHere = false;
  constructor(private readonly cores = availableParallelism()) {}

  /** Threads for a group starting now (`fixed`: that many, counted all the same); give them back with release. */
  claim(fixed?: 1 | 2): 1 | 2 {
    this.running++;
    const threads = fixed ?? fileGroupThreadsFor(this.running, this.encodingHere, this.cores);
    if (threads === 2) this.encodingHere = true;
    return threads;
  }

  release(threads: 1 | 2): void {
    this.running--;
    if (threads === 2) this.encodingHere = false;
  }
}

/** Run from sources (vitest) there is no loader a worker could use for the .ts files: no default worker. */
function defaultWorkerUrl(): URL | undefined {
  return import.meta.url.endsWith('.ts') ? undefined : new URL('./rewrite-worker.js', import.meta.url);
}

/** The worker could not run the job (not a merge error): failed to start, ran out of heap, died. */
class WorkerFailure extends Error {}

function runInWorker(url: URL, storage: Storage, job: MergeJob, inputBytes: number, twoStage: boolean, signal?: AbortSignal): Promise<MergeOutput> {
  const { port1, port2 } = new MessageChannel();
  // the log files whole, ahead of the worker's scan (it reads every byte of them anyway)
  const prefetch = job.logFiles.reduce((n, f) => n + f.size, 0) <= PREFETCH_LIMIT ? job.logFiles : [];
  serveStorage(port1, storage, prefetch);
  return new Promise<MergeOutput>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      port1.close();
      f();
    };
    let worker: Worker;
    try {
      worker = new Worker(url, {
        workerData: { job, storagePort: port2, scheme: storage.scheme, uriPrefix: uriPrefixOf(storage), twoStage, prefetch: prefetch.map((f) => f.path) },
        transferList: [port2],
        resourceLimits: heapLimitsFor(inputBytes),
      });
    } catch (e) {
      settle(() => reject(new WorkerFailure(`cannot start ${url.href}: ${(e as Error).message}`, { cause: e })));
      return;
    }
    const finish = (f: () => void): void => {
      settle(f);
      void worker.terminate();
    };
    const stage = twoStage
      ? encodingStage(
          storage,
          job,
          (r, transfer) => worker.postMessage(r, transfer),
          (out) => finish(() => resolve(out)),
          (e) => finish(() => reject(e)),
        )
      : undefined;
    worker.on('message', (m: { ok?: MergeOutput; error?: WireError } | StageMessage) => {
      if ('ok' in m && m.ok) finish(() => resolve(m.ok!));
      else if ('error' in m && m.error) finish(() => reject(fromWire(m.error!)));
      else if (stage && !settled) stage(m as StageMessage);
    });
    worker.on('error', (e) => settle(() => reject(new WorkerFailure(`${url.href}: ${e.message}`, { cause: e }))));
    worker.on('exit', (code) => settle(() => reject(new WorkerFailure(`${url.href} exited with code ${code} before answering`))));
    // the run failed elsewhere: stop this merge now instead of letting the thread outlive the failure
    signal?.addEventListener(
      'abort',
      () => {
        settle(() => reject(signal.reason));
        void worker.terminate();
      },
      { once: true },
    );
  });
}

/** Merges one file group per the settings: in a worker thread when possible, else in this thread. */
export async function mergeJob(storage: Storage, job: MergeJob, settings: WorkerSettings, signal?: AbortSignal): Promise<MergeOutput> {
  const url = settings.url ?? defaultWorkerUrl();
  if (settings.mode === 'never' || (settings.mode === 'auto' && !url)) return mergeToParquet(storage, job);
  if (!url) {
    throw new TblError('usage', 'compaction workers were required but no worker file is known (running from sources?)', {
      hint: 'pass workerUrl with a bundled compaction worker, or use the built tblcli',
    });
  }
  const inputBytes = (job.baseFile?.size ?? 0) + job.logFiles.reduce((n, f) => n + f.size, 0);
  try {
    const twoStage = settings.threads === 2 && job.mergePath !== 'rows' && job.baseFile !== undefined;
    // a base page the packed reader does not take, met on this thread: the worker merges it whole
    return await runInWorker(url, storage, job, inputBytes, twoStage, signal).catch((e: unknown) => {
      if (twoStage && e instanceof PackedUnsupported) return runInWorker(url, storage, job, inputBytes, false, signal);
      throw e;
    });
  } catch (e) {
    if (!(e instanceof WorkerFailure) || signal?.aborted) throw e;
    if (settings.mode === 'always') {
      throw new TblError('bug', `compaction worker for file group ${job.fileId} failed: ${e.message}`, { instant: job.instant, cause: e });
    }
    // the in-process merge is the reference: same inputs, same bytes, only without the heap cap
    return mergeToParquet(storage, job);
  }
}

/**
 * Heap limits for clustering a group of `inputBytes`: its records are held (packed columns live in
 * ArrayBuffers outside the heap; strings of sort keys and row objects of the row path inside it).
 */
export function clusterHeapLimitsFor(inputBytes: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  const mb = inputBytes / 1048576;
  return { maxOldGenerationSizeMb: Math.max(256, Math.ceil(4 * mb + 128)), maxYoungGenerationSizeMb: mb > 64 ? 32 : 16 };
}

function clusterInWorker(url: URL, storage: Storage, job: ClusterJob, twoStage: boolean, signal?: AbortSignal): Promise<ClusterOutput> {
  const { port1, port2 } = new MessageChannel();
  // two threads: this one orders a base-files group while the worker starts
  const ahead = twoStage ? orderAhead(storage, job) : undefined;
  serveStorage(port1, storage, ahead?.prefetch);
  return new Promise<ClusterOutput>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      port1.close();
      f();
    };
    let worker: Worker;
    try {
      worker = new Worker(url, {
        workerData: { cluster: job, storagePort: port2, scheme: storage.scheme, uriPrefix: uriPrefixOf(storage), twoStage, prefetch: ahead?.prefetch.map((f) => f.path), orderGiven: ahead !== undefined },
        transferList: [port2],
        resourceLimits: clusterHeapLimitsFor(inputBytesOf(job)),
      });
    } catch (e) {
      settle(() => reject(new WorkerFailure(`cannot start ${url.href}: ${(e as Error).message}`, { cause: e })));
      return;
    }
    const finish = (f: () => void): void => {
      settle(f);
      void worker.terminate();
    };
    let answered = false;
    const stage = twoStage
      ? encodingSide(
          job,
          (r) => worker.postMessage(r),
          (e) => finish(() => reject(e)),
        )
      : undefined;
    worker.on('message', (m: { clustered?: ClusterOutput; error?: WireError } | ClusterStageMessage) => {
      if ('clustered' in m && m.clustered) {
        const out = m.clustered;
        // the worker is done and exits; the files may still be finishing here
        answered = true;
        if (!stage) finish(() => resolve(out));
        else
          stage.finish(out).then(
            (o) => finish(() => resolve(o)),
            (e: unknown) => finish(() => reject(e)),
          );
      } else if ('error' in m && m.error) finish(() => reject(fromWire(m.error!)));
      else if (stage && !settled) stage.onMessage(m as ClusterStageMessage);
    });
    ahead?.order().then((order) => {
      if (settled) return;
      const transfer = order && !(order.buffer instanceof SharedArrayBuffer) ? [order.buffer as ArrayBuffer] : [];
      worker.postMessage({ order: order ?? null } satisfies ClusterStageReply, transfer);
    });
    worker.on('error', (e) => settle(() => reject(new WorkerFailure(`${url.href}: ${e.message}`, { cause: e }))));
    worker.on('exit', (code) => answered || settle(() => reject(new WorkerFailure(`${url.href} exited with code ${code} before answering`))));
    signal?.addEventListener(
      'abort',
      () => {
        settle(() => reject(signal.reason));
        void worker.terminate();
      },
      { once: true },
    );
  });
}

/** Clusters one group per the settings: in a worker thread when possible (threads 2: its fields encoded by this thread), else in this thread. */
export async function clusterJob(storage: Storage, job: ClusterJob, settings: WorkerSettings, signal?: AbortSignal): Promise<ClusterOutput> {
  const url = settings.url ?? defaultWorkerUrl();
  if (settings.mode === 'never' || (settings.mode === 'auto' && !url)) return clusterGroup(storage, job);
  if (!url) {
    throw new TblError('usage', 'rewrite workers were required but no worker file is known (running from sources?)', {
      hint: 'pass workerUrl with a bundled rewrite worker, or use the built tblcli',
    });
  }
  try {
    return await clusterInWorker(url, storage, job, settings.threads === 2 && job.mergePath !== 'rows', signal);
  } catch (e) {
    if (!(e instanceof WorkerFailure) || signal?.aborted) throw e;
    if (settings.mode === 'always') throw new TblError('bug', `clustering worker for partition ${job.partition} failed: ${e.message}`, { instant: job.instant, cause: e });
    return clusterGroup(storage, job);
  }
}
