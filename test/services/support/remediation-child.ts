// Child process for the rollback and restore crash tests: runs `commit rollback` or `savepoint
// rollback` on a table and SIGKILLs itself at a named point. argv: <basePath> <json options>:
// op ('rollback' | 'restore'), instant, crashAt ('<point>' or '<point>#<n>': its n-th occurrence).
import { exitCodeFor } from '../../../src/errors/index.ts';
import { restoreToSavepoint, rollbackCommit } from '../../../src/services/remediation/index.ts';
import { openTable } from '../../../src/table/index.ts';

const [base, json] = process.argv.slice(2) as [string, string];
const o = JSON.parse(json) as { op: 'rollback' | 'restore'; instant: string; crashAt?: string };
const [point, nth] = (o.crashAt ?? '').split('#') as [string, string | undefined];
let seen = 0;
const onPoint = (p: string) => {
  if (p !== point) return;
  seen += 1;
  if (seen === Number(nth ?? 1)) process.kill(process.pid, 'SIGKILL');
};
const opts = { clockSkewMs: 1, onPoint };
try {
  const table = await openTable(base);
  const r = o.op === 'rollback' ? await rollbackCommit(table, o.instant, opts) : await restoreToSavepoint(table, o.instant, opts);
  process.stdout.write(JSON.stringify(r));
  process.exitCode = 0;
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = exitCodeFor(e);
}
