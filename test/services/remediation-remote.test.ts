// The remediation commands over WebHDFS (the test NameNode/DataNode serving a fresh copy): per table
// layout (timeline layout 1 / table version 6, layout 2 / versions 8 and 9 with a metadata table, COW
// and MOR) a `commit rollback`, a `rollback failed --yes` and a savepoint + `savepoint rollback`
// through webhdfs:// leave the table as the local runs do: the snapshot as before, the metadata
// table in step, nothing pending.
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { WRITE_ACTIONS } from '../../src/timeline/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { addDeleteCommit } from './support/writes.ts';

// the CLI's clock is fixed in tests: age and heartbeats need the real one
const NOW = { get now() { return new Date(); } };

const TABLES = ['quickstart_trips_table/mor/avro/v6_trips_8i1u', 'sample_table/cow/v6_simplekeygen_nonhivestyle', 'sample_table/cow/v8_simplekeygen_nonhivestyle', 'sample_table/mor/avro/v9_txns_simple_meta'];

describe.skipIf(!HAVE_FIXTURES)('commit rollback, rollback failed and savepoint rollback over WebHDFS', () => {
  for (const id of TABLES) {
    it(id, async () => {
      const base = tableFresh(id);
      const types = logicalTypes((await openTable(base)).config.createSchema);
      const mdt = (await openTable(base)).config.metadataPartitions.includes('files');
      const srv = await startWebHdfsServer({ root: dirname(base) });
      try {
        const uri = srv.uri(`/${base.split('/').pop()}`);
        const before = comparable(await snapshotRows(base), types);
        // a completed write rolled back
        const w = await addDeleteCommit(base, { count: 1 });
        const r = await runJson<{ rollbackInstant: string; dryRun: boolean }>(['commit', 'rollback', '--commit', w.instant, '--path', uri], NOW);
        expect(r.dryRun).toBe(false);
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        if (mdt) expect(await runJson(['metadata', 'validate-files', '--path', base], NOW)).toEqual([]);
        expect(srv.requests.some((q) => q.op === 'CREATE')).toBe(true);
        // a failed write: listed by the dry run (exit 3), rolled back with --yes
        const f = await addDeleteCommit(base, { count: 1, pending: true });
        const dry = await runCli(['rollback', 'failed', '--older-than', '0s', '--path', uri, '--json'], NOW);
        expect(dry.exitCode, dry.stderr).toBe(3);
        expect((JSON.parse(dry.stdout) as { candidates: { instant: string }[] }).candidates.map((c) => c.instant)).toEqual([f.instant]);
        const yes = await runJson<{ results: { instant: string; ok: boolean }[] }>(['rollback', 'failed', '--older-than', '0s', '--yes', '--path', uri], NOW);
        expect(yes.results).toEqual([expect.objectContaining({ instant: f.instant, ok: true })]);
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        // savepoint, more commits, restore
        const sp = (await (await openTable(base)).timeline()).completedCommits().at(-1)!.requestedTime;
        expect((await runCli(['savepoint', 'create', '--commit', sp, '--path', uri], NOW)).exitCode).toBe(0);
        expect(await runJson(['savepoints', 'show', '--path', uri], NOW)).toEqual([{ savepointTime: sp }]);
        await addDeleteCommit(base, { count: 1 });
        await addDeleteCommit(base, { count: 1, pending: true });
        const rs = await runCli(['savepoint', 'rollback', '--savepoint', sp, '--path', uri], NOW);
        expect(rs.exitCode, rs.stderr).toBe(0);
        expect(rs.stdout).toContain(`Savepoint "${sp}" rolled back`);
        if (mdt) expect(rs.stderr).toContain('metadata table');
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        const tl = await (await openTable(base)).timeline();
        expect(tl.pending()).toEqual([]);
        expect(tl.instants.filter((i) => i.requestedTime > sp && WRITE_ACTIONS.has(i.effectiveAction))).toEqual([]);
        expect((await runJson<unknown[]>(['show', 'restores', '--path', uri], NOW)).length).toBe(2);
      } finally {
        await srv.close();
      }
    }, 60_000);
  }
});
