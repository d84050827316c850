// Child process for clustering crash tests: schedules (when asked) and runs a clustering.
// argv: <basePath> <json options>. Options: crashAt (SIGKILL self at that point), schedule,
// sortColumns, heartbeatExpiryMs, metadataTable. Prints the result summary as JSON; exit code as the CLI maps errors.
import { openTable } from '../../../src/table/index.ts';
import { runClustering, scheduleClustering } from '../../../src/services/index.ts';
import { exitCodeFor } from '../../../src/errors/index.ts';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as { crashAt?: string; heartbeatExpiryMs?: number; schedule?: boolean; sortColumns?: string[]; metadataTable?: 'update' | 'disable' };
const onPoint = (p: string) => {
  if (p === o.crashAt) process.kill(process.pid, 'SIGKILL');
};
const common = { clockSkewMs: 1, metadataTable: o.metadataTable ?? 'update', onPoint, heartbeatExpiryMs: o.heartbeatExpiryMs, lock: { retryMs: 20 } };
try {
  if (o.schedule) await scheduleClustering(await openTable(base), { ...common, sortColumns: o.sortColumns });
  const r = await runClustering(await openTable(base), common);
  process.stdout.write(JSON.stringify({ status: r.status, instant: r.instant }));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
