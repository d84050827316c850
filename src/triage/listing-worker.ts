// Worker-thread entry (bundled as dist/triage-worker.js): the listing pass of a local table while the
// main thread reads the write stats (listing-job.ts).
import { parentPort } from 'node:worker_threads';
import { LocalStorage } from '../storage/index.ts';
import { runJob, type ListingJob, type ListingMessage } from './listing-job.ts';

parentPort!.once('message', (job: ListingJob) => {
  const post = (m: ListingMessage) => parentPort!.postMessage(m);
  runJob(new LocalStorage(), job, (progress) => post({ progress })).then(
    (done) => post({ done }),
    (e: unknown) => post({ failed: (e as Error).message }),
  );
});
