// The listing pass of a local table on a worker thread, beside the main thread reading the write stats
// (a 200,000-file table: ~1.5 s of listing and ~1.5 s of commit metadata, on two cores at once). The
// pass needs only timeline facts, sent as plain data; its result comes back as plain data too. Any
// failure in the worker (a directory that cannot be listed, say) makes the scan list in its own thread,
// which reports the real error.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { viewAssembler, type ViewTimeline } from '../fs-view/index.ts';
import type { Storage } from '../storage/index.ts';
import type { Instant } from '../timeline/index.ts';
import { feedTableDir, newPassResult, streamWalk, type PassContext, type PassResult } from './listing.ts';
import type { InstantWrites } from './timing.ts';

/** Everything the listing pass needs, as structured-clone data. */
export interface ListingJob {
  roots: { abs: string; rel: string }[];
  metaPath: string;
  layout: 1 | 2;
  view: Omit<ViewTimeline, 'completionTimeOf'> & { completionTimes: [string, string][] };
  /** write instants: requested time, state, effective action, window, whether it overlaps another write */
  writes: { t: string; state: string; action: string; start?: number; end?: number; capable: boolean }[];
  pending: string[];
  nowMs: number;
  heartbeats: [string, number][];
  heartbeatExpiryMs: number;
  mdtFiles?: Map<string, Map<string, number>>;
  since?: { instant: string; ms: number };
}

export type ListingMessage = { progress: { dirs: number; files: number; partitions: number } } | { done: PassResult } | { failed: string };

export function toJob(
  roots: ListingJob['roots'],
  metaPath: string,
  ctx: PassContext,
  vt: ViewTimeline,
  completionTimes: [string, string][],
  writes: readonly InstantWrites[],
  capable: readonly boolean[],
  heartbeats: ReadonlyMap<string, number>,
  heartbeatExpiryMs: number,
): ListingJob {
  const { completionTimeOf: _, ...view } = vt;
  return {
    roots,
    metaPath,
    layout: ctx.layout,
    view: { ...view, completionTimes },
    writes: writes.map((w, k) => ({ t: w.instant.requestedTime, state: w.instant.state, action: w.instant.effectiveAction, start: w.startMs, end: w.endMs, capable: capable[k]! })),
    pending: [...ctx.pending],
    nowMs: ctx.overlap.now.getTime(),
    heartbeats: [...heartbeats],
    heartbeatExpiryMs,
    ...(ctx.mdtFiles ? { mdtFiles: ctx.mdtFiles } : {}),
    ...(ctx.since ? { since: ctx.since } : {}),
  };
}

/** The pass context a job describes (in the worker). */
export function fromJob(job: ListingJob): PassContext {
  const completion = new Map(job.view.completionTimes);
  const vt: ViewTimeline = { ...job.view, completionTimeOf: (t) => completion.get(t) };
  const writes = job.writes.map(
    (w): InstantWrites => ({ instant: { requestedTime: w.t, state: w.state, effectiveAction: w.action } as Instant, startMs: w.start, endMs: w.end, replaced: [] }),
  );
  const capable = new Set(writes.filter((_, k) => job.writes[k]!.capable));
  const heartbeats = new Map(job.heartbeats);
  const now = new Date(job.nowMs);
  return {
    layout: job.layout,
    asm: viewAssembler(vt),
    byTime: new Map(writes.map((w) => [w.instant.requestedTime, w])),
    pending: new Set(job.pending),
    overlap: {
      layout: job.layout,
      now,
      heartbeat: (t) => {
        const m = heartbeats.get(t);
        if (m === undefined) return 'missing';
        return job.nowMs - m > job.heartbeatExpiryMs ? 'expired' : 'alive';
      },
    },
    ...(capable.size > 0 ? { mayOverlap: (a: InstantWrites, b: InstantWrites) => capable.has(a) && capable.has(b) } : {}),
    ...(job.mdtFiles ? { mdtFiles: job.mdtFiles } : {}),
    ...(job.since ? { since: job.since } : {}),
  };
}

/** Runs a job's listing pass (the worker's whole work); progress at most every 100 ms. */
export async function runJob(storage: Storage, job: ListingJob, onProgress: (p: { dirs: number; files: number; partitions: number }) => void): Promise<PassResult> {
  const ctx = fromJob(job);
  const pass = newPassResult();
  let last = 0;
  await streamWalk(storage, job.roots, new Set([job.metaPath]), 1, (rel, files) => {
    feedTableDir(ctx, pass, rel, files);
    const t = performance.now();
    if (t - last >= 100) {
      last = t;
      onProgress({ dirs: pass.dirs, files: pass.files, partitions: pass.partitions.length });
    }
  });
  pass.partitions.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
  return pass;
}

/** Run from sources (vitest) no worker file exists: the scan lists in its own thread. */
function defaultWorkerUrl(): URL | undefined {
  return import.meta.url.endsWith('.ts') ? undefined : new URL('./triage-worker.js', import.meta.url);
}

/** A listing worker: started with its job, it boots and lists while the main thread reads instants. */
export class ListingWorker {
  readonly #result: Promise<PassResult | undefined>;
  readonly #worker: Worker;

  private constructor(worker: Worker, job: ListingJob, onProgress: (p: { dirs: number; files: number; partitions: number }) => void) {
    this.#worker = worker;
    this.#result = new Promise((resolve) => {
      worker.on('message', (m: ListingMessage) => {
        if ('progress' in m) onProgress(m.progress);
        else if ('done' in m) resolve(m.done);
        else resolve(undefined);
      });
      worker.on('error', () => resolve(undefined));
      worker.on('exit', () => resolve(undefined));
    });
    worker.postMessage(job);
  }

  /** undefined when no worker can run here (no bundled worker file, one core, a failed start). */
  static start(job: ListingJob, onProgress: (p: { dirs: number; files: number; partitions: number }) => void, url = defaultWorkerUrl()): ListingWorker | undefined {
    if (!url || availableParallelism() < 2) return undefined;
    try {
      // it never prints (failures come back as messages): stdio left unpiped, or this thread would
      // build process.stdout/stderr and switch those pipes to non-blocking
      // a young generation that holds a partition's listing: most of it then dies there instead of being promoted
      return new ListingWorker(new Worker(url, { stdout: true, stderr: true, resourceLimits: { maxYoungGenerationSizeMb: 64 } }), job, onProgress);
    } catch {
      return undefined;
    }
  }

  /** The pass, or undefined if the worker failed (then list in this thread). */
  async result(): Promise<PassResult | undefined> {
    const r = await this.#result;
    void this.#worker.terminate();
    return r;
  }
}
