// Worker-thread entry (bundled as dist/totals-worker.js): decodes `commits show` totals of local
// commit files, chunk by chunk, beside the main thread (commit-totals.ts).
import { parentPort } from 'node:worker_threads';
import { LocalStorage } from '../storage/index.ts';
import { serveTotals, type TotalsWorkerInput } from './commit-totals.ts';

// started before the timeline is listed: the input is the first message
parentPort!.once('message', (input: TotalsWorkerInput) => {
  void serveTotals(new LocalStorage(), input, (m) => parentPort!.postMessage(m)).finally(() => parentPort!.close());
});
