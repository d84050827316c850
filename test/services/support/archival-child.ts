// Child process for the archival crash tests: `trigger archival` through the library, SIGKILLing itself
// at the named point. argv: <basePath> <json options {crashAt, minCommits, maxCommits, commitsRetained, archiveChunkInstants,
// lockExpireMs (with it: wait for an expired lock of a killed run)}>.
// Prints the number of archived instants as JSON; exit code as the CLI maps errors.
import { openTable } from '../../../src/table/index.ts';
import { triggerArchival } from '../../../src/services/index.ts';
import { exitCodeFor } from '../../../src/errors/index.ts';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as { crashAt?: string; minCommits?: number; maxCommits?: number; commitsRetained?: number; lockExpireMs?: number; archiveChunkInstants?: number };
const onPoint = (p: string) => {
  if (p === o.crashAt) process.kill(process.pid, 'SIGKILL');
};
try {
  const r = await triggerArchival(await openTable(base), { minCommits: o.minCommits, maxCommits: o.maxCommits, commitsRetained: o.commitsRetained, archiveChunkInstants: o.archiveChunkInstants, clockSkewMs: 1, onPoint, lock: { expireMs: o.lockExpireMs, wait: o.lockExpireMs !== undefined, retryMs: 20 } });
  const m = r.metadataTable;
  process.stdout.write(JSON.stringify({ archived: r.decision.toArchive.length, recovered: r.recovered.length, compacted: r.compactedFiles.length, mdtArchived: m ? m.decision.toArchive.length : null, mdtRecovered: m ? m.recovered.length : null }));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
