// Worker-thread entry (bundled as dist/rewrite-worker.js): merges one file group (compaction) or
// clusters one group into new base file bytes under the heap limit the main thread set, reading through the main thread's Storage;
// with `twoStage`, only scans and merges, the main thread encoding the row groups (two-stage.ts; a
// clustering group: gathers, the main thread encoding the fields, cluster-stage.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { mergeToParquet, type MergeJob } from './merge-op.ts';
import { runMergeStage, type StageReply } from './two-stage.ts';
import { ownsWholeBuffer, storageOverPort, toWire } from './worker-wire.ts';
import { clusterGroup, type ClusterJob } from './cluster-op.ts';
import { remoteSink, type ClusterStageReply } from './cluster-stage.ts';

export interface WorkerInput {
  /** a compaction's file group (one of job / cluster) */
  job: MergeJob;
  /** a clustering group */
  cluster?: ClusterJob;
  storagePort: MessagePort;
  scheme: string;
  uriPrefix: string;
  twoStage?: boolean;
  /** files the main thread sends whole (storageOverPort) */
  prefetch?: string[];
  /** the main thread posts the base files' order ({ order }, cluster-stage.ts) */
  orderGiven?: boolean;
}

const input = workerData as WorkerInput;
const storage = storageOverPort(input.storagePort, input.scheme, input.uriPrefix, input.prefetch);
const port = parentPort!;
try {
  if (input.cluster) {
    // with `twoStage` the main thread encodes the gathered fields (cluster-stage.ts)
    const sink = input.twoStage
      ? remoteSink(
          (m) => port.postMessage(m),
          (f) => port.on('message', (r: ClusterStageReply) => f(r)),
        )
      : undefined;
    const order = input.orderGiven
      ? new Promise<Int32Array | undefined>((resolve) => port.on('message', (r: ClusterStageReply) => 'order' in r && resolve(r.order ?? undefined)))
      : undefined;
    const out = await clusterGroup(storage, input.cluster, sink, order);
    // the files' parts are handed over, not copied (a part that is a view, or shares its buffer, is copied first)
    const seen = new Set<ArrayBufferLike>();
    const whole = (p: Uint8Array): Uint8Array => {
      const own = ownsWholeBuffer(p) && !seen.has(p.buffer);
      const q = own ? p : new Uint8Array(p);
      seen.add(q.buffer);
      return q;
    };
    const files = out.files.map((f) => ({ ...f, parts: f.parts.map(whole) }));
    port.postMessage({ clustered: { ...out, files } }, [...seen] as ArrayBuffer[]);
  } else if (input.twoStage) {
    await runMergeStage(
      storage,
      input.job,
      (m, transfer) => port.postMessage(m, transfer),
      (f) => port.on('message', (r: StageReply) => f(r)),
    );
  } else {
    const out = await mergeToParquet(storage, input.job);
    // the bytes are handed over, not copied (writer chunks are fresh buffers; copy only a view)
    const bytes = out.bytes.byteOffset === 0 && out.bytes.byteLength === out.bytes.buffer.byteLength ? out.bytes : new Uint8Array(out.bytes);
    port.postMessage({ ok: { ...out, bytes } }, [bytes.buffer as ArrayBuffer]);
  }
} catch (e) {
  port.postMessage({ error: toWire(e) });
} finally {
  input.storagePort.close();
}
