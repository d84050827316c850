// Child process for crash and concurrency tests: schedules (if nothing is pending) and runs a compaction.
// argv: <basePath> <json options>. Options: crashAt (SIGKILL self at that point), metadataTable (default
// disable), pauseAt/pauseMs (block
// there), pauseAt/pausedFile/resumeFile (create pausedFile, then block the event loop until resumeFile
// exists), wait, heartbeatExpiryMs. Prints the RunResult summary as JSON; exit code as the CLI maps errors.
import { openTable } from '../../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../../src/services/index.ts';
import { exitCodeFor } from '../../../src/errors/index.ts';
import { existsSync, writeFileSync } from 'node:fs';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as {
  crashAt?: string;
  pauseAt?: string;
  pauseMs?: number;
  pausedFile?: string;
  resumeFile?: string;
  wait?: boolean;
  heartbeatExpiryMs?: number;
  schedule?: boolean;
  /** default 'disable' (the data-table crash tests); 'update' keeps the metadata table */
  metadataTable?: 'update' | 'disable';
};
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const onPoint = (p: string) => {
  if (p === o.crashAt) process.kill(process.pid, 'SIGKILL');
  if (p !== o.pauseAt) return;
  if (o.resumeFile) {
    // a blocked event loop: no heartbeat beats while paused, as with a long synchronous write or GC
    writeFileSync(o.pausedFile!, '');
    const until = Date.now() + 60_000;
    while (!existsSync(o.resumeFile) && Date.now() < until) block(20);
  } else block(o.pauseMs ?? 1000);
};
const common = { clockSkewMs: 1, metadataTable: o.metadataTable ?? ('disable' as const), onPoint, heartbeatExpiryMs: o.heartbeatExpiryMs, lock: { wait: o.wait, retryMs: 20 }, pollMs: 50 };
try {
  if (o.schedule) await scheduleCompaction(await openTable(base), { ...common, strategy: 'all' });
  const r = await runCompaction(await openTable(base), common);
  process.stdout.write(JSON.stringify({ status: r.status, instant: r.instant }));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
