// Child process for crash and concurrency tests: schedules (if nothing is pending) and runs a compaction.
// argv: <basePath> <json options>. Options: crashAt (SIGKILL self at that point), pauseAt/pauseMs (block
// there), wait, heartbeatExpiryMs. Prints the RunResult summary as JSON; exit code as the CLI maps errors.
import { openTable } from '../../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../../src/services/index.ts';
import { exitCodeFor } from '../../../src/errors/index.ts';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as { crashAt?: string; pauseAt?: string; pauseMs?: number; wait?: boolean; heartbeatExpiryMs?: number; schedule?: boolean };
const onPoint = (p: string) => {
  if (p === o.crashAt) process.kill(process.pid, 'SIGKILL');
  if (p === o.pauseAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, o.pauseMs ?? 1000);
};
const common = { clockSkewMs: 1, metadataTable: 'disable' as const, onPoint, heartbeatExpiryMs: o.heartbeatExpiryMs, lock: { wait: o.wait, retryMs: 20 }, pollMs: 50 };
try {
  if (o.schedule) await scheduleCompaction(await openTable(base), { ...common, strategy: 'all' });
  const r = await runCompaction(await openTable(base), common);
  process.stdout.write(JSON.stringify({ status: r.status, instant: r.instant }));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
