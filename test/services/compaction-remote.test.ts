// `compaction run --max-duration` (the attempt is rolled back through a rollback instant, the plan
// stays) and schedule + run over WebHDFS (the test NameNode/DataNode over a fresh copy) giving the same
// snapshot and the same files as the local run.
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { startWebHdfsServer } from '../support/webhdfs-server.ts';
import { allFiles } from '../support/files.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { modifyTableProperties } from '../../src/write/table-properties.ts';
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

// The same compaction with the metadata table kept (the default), and the MDT compaction it then
// triggers (hoodie.metadata.compact.max.delta.commits=1), through the WebHDFS test server: the MDT
// ends up with the local run's files, validate-files over webhdfs:// is clean, and every MDT log
// block and base HFile became visible whole (CREATE of a temp name, then RENAME; no APPEND).
const MDT_REMOTE: { name: string; fresh: () => string }[] = [
  ...(HAVE_FIXTURES ? [{ name: V8, fresh: () => tableFresh(V8) }] : []),
  ...(HAVE_TRINO_V6
    ? [
        {
          name: 'trino hudi_multi_fg_pt_v6_mor',
          fresh: () => {
            const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
            cpSync(trinoV6Table(), dest, { recursive: true });
            return dest;
          },
        },
      ]
    : []),
];

function mdtFiles(base: string): string[] {
  const mdt = join(base, '.hoodie', 'metadata');
  return allFiles(mdt)
    .map((f) => f.slice(mdt.length + 1))
    .filter((f) => !f.startsWith('.hoodie/'))
    .sort();
}

describe.skipIf(MDT_REMOTE.length === 0)('compaction over WebHDFS with the metadata table kept', () => {
  for (const { name, fresh } of MDT_REMOTE) {
    it(`${name}: schedule + run + MDT compaction through webhdfs:// = the local run`, async () => {
      const local = fresh();
      const remote = fresh();
      for (const b of [local, remote]) await modifyTableProperties(new LocalStorage(), join(b, '.hoodie'), (p) => p.set('hoodie.metadata.compact.max.delta.commits', '1'), new Date());
      const mdtBefore = new Set(mdtFiles(remote));
      const srv = await startWebHdfsServer({ root: dirname(remote) });
      try {
        const uri = srv.uri(`/${remote.split('/').pop()}`);
        const ls = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', local, '--strategy', 'all']);
        const lr = await runJson<{ status: string; metadataCompaction: string | null }>(['compaction', 'run', '--path', local]);
        const rs = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', uri, '--strategy', 'all']);
        const scheduleRequests = srv.requests.length;
        const rr = await runJson<{ status: string; metadataCompaction: string | null }>(['compaction', 'run', '--path', uri]);
        const runRequests = srv.requests.slice(scheduleRequests);
        expect(rr.status).toBe('completed');
        expect(rr.metadataCompaction).not.toBeNull();
        expect(lr.metadataCompaction).not.toBeNull();
        // the same MDT files (names differ by the instant times)
        const norm = (files: string[], times: string[]) => files.map((f) => times.reduce((x, t) => x.replaceAll(t, 'T'), f)).sort();
        expect(norm(mdtFiles(remote), [rs.instant, rr.metadataCompaction!])).toEqual(norm(mdtFiles(local), [ls.instant, lr.metadataCompaction!]));
        expect(await runJson(['metadata', 'validate-files', '--path', uri])).toEqual([]);
        expect(await runJson(['metadata', 'validate-files', '--path', local])).toEqual([]);
        // every new MDT file was created under a temp name and renamed into place
        const created = mdtFiles(remote).filter((f) => !mdtBefore.has(f));
        expect(created.length).toBeGreaterThan(0);
        const renamedTo = new Set(runRequests.filter((q) => q.op === 'RENAME').map((q) => q.query.destination));
        for (const f of created) {
          const hdfs = `/${remote.split('/').pop()}/.hoodie/metadata/${f}`;
          expect(renamedTo.has(hdfs), hdfs).toBe(true);
          expect(runRequests.some((q) => q.op === 'CREATE' && q.path === hdfs), hdfs).toBe(false);
        }
        expect(runRequests.filter((q) => q.op === 'APPEND' && q.path.includes('/.hoodie/metadata/'))).toEqual([]);
        const byOp: Record<string, number> = {};
        for (const q of runRequests.filter((x) => x.server === 'nn')) byOp[q.op] = (byOp[q.op] ?? 0) + 1;
        console.log(`[requests] ${name}: compaction run with the MDT kept + MDT compaction over WebHDFS: ${runRequests.length} requests (NameNode ${runRequests.filter((x) => x.server === 'nn').length}, DataNode ${runRequests.filter((x) => x.server === 'dn').length}); NameNode by op ${JSON.stringify(byOp)}; on .hoodie/metadata paths ${runRequests.filter((q) => q.server === 'nn' && q.path.includes('/.hoodie/metadata')).length} NameNode requests; MDT files written ${created.length}`);
      } finally {
        await srv.close();
      }
    }, 120_000);
  }
});
