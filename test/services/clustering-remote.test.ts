// Clustering over WebHDFS (the test NameNode/DataNode over a fresh copy): scheduleAndExecute through
// webhdfs:// on one COW table with a metadata table and one MOR table, then every acceptance check on
// the files the server wrote; and `clustering run --max-duration` rolling the attempt back, plan kept.
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { captureBefore, checkAfter } from './support/clustering-check.ts';
import { decodeCommitMetadata } from '../../src/metadata/index.ts';
import { readClusteringPlan, type ClusteringRunResult, type ClusteringScheduleResult } from '../../src/services/index.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';

const CASES: [string, string[]][] = [
  ['sample_table/cow/v9_txns_simple_meta', ['txn_type', 'txn_ts']],
  ['quickstart_trips_table/mor/avro/v6_trips_8i1u', ['city']],
];

describe.skipIf(!HAVE_FIXTURES)('clustering over WebHDFS', () => {
  it.each(CASES)('%s: schedule + run through webhdfs://', async (id, sortColumns) => {
    const base = tableFresh(id);
    const before = await captureBefore(base);
    const srv = await startWebHdfsServer({ root: dirname(base) });
    try {
      const uri = srv.uri(`/${base.split('/').pop()}`);
      const s = await runJson<{ instant: string }>(['clustering', 'schedule', '--path', uri, '--sort-columns', sortColumns.join(',')]);
      expect(s.instant).toMatch(/^\d{17}$/);
      const plan = await runJson<{ dataFilePath: string }[]>(['clustering', 'show', '--path', uri, '--instant', s.instant]);
      expect(plan.every((p) => p.dataFilePath.startsWith('webhdfs://'))).toBe(true);
      const r = await runJson<{ status: string; instant: string; files: number; records: number }>(['clustering', 'run', '--path', uri]);
      expect(r.status).toBe('completed');
      expect(srv.requests.some((q) => q.op === 'CREATE')).toBe(true);
      // the same checks as a local run, on the files the server wrote
      const table = await openTable(base);
      const tl = await table.timeline();
      const sched = { instant: s.instant, plan: await readClusteringPlan(table, tl, tl.find(s.instant)[0]!) } as ClusteringScheduleResult;
      const done = tl.find(s.instant)[0]!;
      const m = decodeCommitMetadata(await tl.read(done), { path: done.files.COMPLETED!.path });
      const result = { ...r, writeStats: Object.values(m.partitionToWriteStats).flat(), partitionToReplaceFileIds: m.partitionToReplaceFileIds } as unknown as ClusteringRunResult;
      await checkAfter(base, before, sched, result, sortColumns);
      if (table.config.metadataPartitions.length > 0) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe.skipIf(!HAVE_FIXTURES)('clustering run --max-duration', () => {
  it('stops, rolls the attempt back through a rollback instant, keeps the plan; the next run completes it', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const before = await captureBefore(base);
    const s = await runJson<{ instant: string }>(['clustering', 'schedule', '--path', base]);
    const r = await runCli(['clustering', 'run', '--path', base, '--max-duration', '1ms']);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('--max-duration');
    expect(r.stderr).toContain(s.instant);
    const tl = await (await openTable(base)).timeline();
    expect(tl.find(s.instant).map((i) => i.state)).toEqual(['REQUESTED']);
    const rbs = await runJson<{ instant: string; rolledbackInstant: string }[]>(['show', 'rollbacks', '--path', base]);
    expect(rbs.filter((x) => x.rolledbackInstant === s.instant)).toHaveLength(1);
    const ok = await runJson<{ status: string; instant: string }>(['clustering', 'run', '--path', base]);
    expect(ok).toMatchObject({ status: 'completed', instant: s.instant });
    const all = await runJson<{ clusteringInstantTime: string; state: string }[]>(['clustering', 'show', 'all', '--path', base]);
    expect(all).toContainEqual(expect.objectContaining({ clusteringInstantTime: s.instant, state: 'COMPLETED' }));
    expect(comparable(await snapshotRows(base), before.types)).toEqual(before.rows);
  }, 60_000);
});
