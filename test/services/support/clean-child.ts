// Child process for the clean crash and concurrency tests: `cleans run` through the library.
// argv: <basePath> <json options>. Options: policy/commitsRetained/fileVersionsRetained (the clean
// config), crashAt (SIGKILL self at that point; 'file-deleted' counts files: crashAfterFiles),
// pauseAt + pausedFile/resumeFile (create pausedFile, then block the event loop until resumeFile
// exists), heartbeatExpiryMs, lockExpireMs. Prints the summary as JSON; exit code as the CLI maps errors.
import { existsSync, writeFileSync } from 'node:fs';
import { exitCodeFor } from '../../../src/errors/index.ts';
import { cleanTable, resolveCleanConfig } from '../../../src/services/index.ts';
import { openTable } from '../../../src/table/index.ts';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as {
  policy: string;
  commitsRetained?: number;
  fileVersionsRetained?: number;
  crashAt?: string;
  crashAfterFiles?: number;
  pauseAt?: string;
  pauseAfterFiles?: number;
  pausedFile?: string;
  resumeFile?: string;
  heartbeatExpiryMs?: number;
  lockExpireMs?: number;
};
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
let files = 0;
const onPoint = (p: string) => {
  if (p === 'file-deleted') files++;
  const at = (name: string | undefined, after: number | undefined) => p === name && (p !== 'file-deleted' || files === (after ?? 1));
  if (at(o.crashAt, o.crashAfterFiles)) process.kill(process.pid, 'SIGKILL');
  if (at(o.pauseAt, o.pauseAfterFiles)) {
    // a blocked event loop, as in a long GC pause: nothing of this process moves meanwhile
    writeFileSync(o.pausedFile!, '');
    const until = Date.now() + 60_000;
    while (!existsSync(o.resumeFile!) && Date.now() < until) block(20);
  }
};
try {
  const t = await openTable(base);
  const config = resolveCleanConfig([t.config.props], { policy: o.policy, commitsRetained: o.commitsRetained, fileVersionsRetained: o.fileVersionsRetained }, t.config.version);
  const r = await cleanTable(t, {
    config,
    clockSkewMs: 1,
    onPoint,
    parallelism: 1,
    heartbeatExpiryMs: o.heartbeatExpiryMs,
    heartbeatIntervalMs: 50,
    lock: { expireMs: o.lockExpireMs, wait: true, retryMs: 20 },
  });
  process.stdout.write(JSON.stringify({ cleans: r.cleans.map((c) => ({ status: c.status, instant: c.instant, deleted: c.deleted, failed: c.failed })) }));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
