// Worker-thread entry (bundled as dist/compaction-worker.js): merges one file group into new base
// file bytes under the heap limit the main thread set, reading through the main thread's Storage.
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { mergeToParquet, type MergeJob } from './merge-op.ts';
import { storageOverPort, toWire } from './worker-wire.ts';

export interface WorkerInput {
  job: MergeJob;
  storagePort: MessagePort;
  scheme: string;
  uriPrefix: string;
}

const input = workerData as WorkerInput;
const storage = storageOverPort(input.storagePort, input.scheme, input.uriPrefix);
try {
  const out = await mergeToParquet(storage, input.job);
  // the bytes are handed over, not copied (writer chunks are fresh buffers; copy only a view)
  const bytes = out.bytes.byteOffset === 0 && out.bytes.byteLength === out.bytes.buffer.byteLength ? out.bytes : new Uint8Array(out.bytes);
  parentPort!.postMessage({ ok: { ...out, bytes } }, [bytes.buffer as ArrayBuffer]);
} catch (e) {
  parentPort!.postMessage({ error: toWire(e) });
} finally {
  input.storagePort.close();
}
