// `compaction run --max-duration` (the attempt is rolled back through a rollback instant, the plan
// stays) and schedule + run over WebHDFS (the test NameNode/DataNode over a fresh copy) giving the same
// snapshot and the same files as the local run.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';

const V8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const V6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';

function dataFiles(base: string, dir = base, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.hoodie') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) dataFiles(base, p, out);
    else out.push(p.slice(base.length + 1));
  }
  return out.sort();
}

describe.skipIf(!HAVE_FIXTURES)('compaction run --max-duration', () => {
  it('stops, rolls the attempt back through a rollback instant, keeps the plan; the next run completes it', async () => {
    const base = tableFresh(V8);
    const before = comparable(await snapshotRows(base));
    const filesBefore = dataFiles(base);
    const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all', '--metadata-table', 'disable']);
    const T = s.instant;
    expect(T).toMatch(/^\d{17}$/);

    const r = await runCli(['compaction', 'run', '--path', base, '--max-duration', '1ms', '--metadata-table', 'disable']);
    expect(r.exitCode, r.stderr).not.toBe(0);
    expect(r.stderr).toContain('--max-duration');
    expect(r.stderr).toContain(T);
    let tl = await (await openTable(base)).timeline();
    const comp = tl.find(T).filter((i) => i.effectiveAction === 'compaction');
    expect(comp.map((i) => i.state)).toEqual(['REQUESTED']);
    expect(comp[0]!.files.INFLIGHT).toBeUndefined();
    const rbs = await runJson<{ instant: string; rolledbackInstant: string }[]>(['show', 'rollbacks', '--path', base]);
    const mine = rbs.filter((x) => x.rolledbackInstant === T);
    expect(mine).toHaveLength(1);
    expect(tl.find(mine[0]!.instant)[0]!.state).toBe('COMPLETED');
    expect(dataFiles(base)).toEqual(filesBefore);
    expect(existsSync(join(base, '.hoodie/.temp', T))).toBe(false);
    expect(comparable(await snapshotRows(base))).toEqual(before);

    const ok = await runJson<{ status: string; instant: string }>(['compaction', 'run', '--path', base, '--metadata-table', 'disable']);
    expect(ok.status).toBe('completed');
    expect(ok.instant).toBe(T);
    tl = await (await openTable(base)).timeline();
    expect(tl.isCompleted(T)).toBe(true);
    expect(comparable(await snapshotRows(base))).toEqual(before);
  }, 30_000);
});

describe.skipIf(!HAVE_FIXTURES)('compaction over WebHDFS', () => {
  for (const id of [V6, V8]) {
    it(`${id}: schedule + run through webhdfs:// gives the local run's snapshot and files`, async () => {
      const local = tableFresh(id);
      const remote = tableFresh(id);
      const before = comparable(await snapshotRows(local));
      const srv = await startWebHdfsServer({ root: dirname(remote) });
      try {
        const uri = srv.uri(`/${remote.split('/').pop()}`);
        const ls = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', local, '--strategy', 'all', '--metadata-table', 'disable']);
        const rs = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', uri, '--strategy', 'all', '--metadata-table', 'disable']);
        expect(rs.instant).toMatch(/^\d{17}$/);
        const lr = await runJson<{ status: string; records: number; fileGroups: number }>(['compaction', 'run', '--path', local, '--metadata-table', 'disable']);
        const rr = await runJson<{ status: string; records: number; fileGroups: number }>(['compaction', 'run', '--path', uri, '--metadata-table', 'disable']);
        expect(rr.status).toBe('completed');
        expect({ records: rr.records, fileGroups: rr.fileGroups }).toEqual({ records: lr.records, fileGroups: lr.fileGroups });
        expect(srv.requests.some((q) => q.op === 'CREATE')).toBe(true);

        const snap = (rows: Record<string, unknown>[], t: string) =>
          comparable(rows.map((x) => ({ ...x, _hoodie_file_name: String(x._hoodie_file_name).replace(t, 'T'), _hoodie_commit_seqno: String(x._hoodie_commit_seqno).replace(t, 'T'), _hoodie_commit_time: x._hoodie_commit_time === t ? 'T' : x._hoodie_commit_time })));
        const lrows = await snapshotRows(local);
        const rrows = await snapshotRows(remote);
        expect(comparable(lrows)).toEqual(before);
        expect(snap(rrows, rs.instant)).toEqual(snap(lrows, ls.instant));
        // the same new base files (names differ only by the instant time)
        const norm = (files: string[], t: string) => files.map((f) => f.replace(t, 'T'));
        expect(norm(dataFiles(remote), rs.instant)).toEqual(norm(dataFiles(local), ls.instant));
        const rtl = await (await openTable(remote)).timeline();
        expect(rtl.isCompleted(rs.instant)).toBe(true);
        expect(existsSync(join(remote, '.hoodie/.temp', rs.instant))).toBe(false);
      } finally {
        await srv.close();
      }
    }, 60_000);
  }
});
