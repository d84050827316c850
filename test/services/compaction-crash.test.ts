// Crash safety: a child process running the compaction is SIGKILLed at each point; the snapshot never
// changes, and the next `compaction run` leaves the table complete — every record once, no stray file.
// Two concurrent runs: exactly one executes, the other exits 4 (or waits with --wait).
// With the metadata table kept (issue 14): killed inside the MDT deltacommit, between it and the data
// completion, and inside the MDT compaction that follows, the next run leaves both tables consistent —
// the orphan MDT deltacommit rolled back in the MDT as Hudi does, a pending MDT compaction finished —
// and `metadata validate-files` clean at every step.
import { cpSync, existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable, openTableAt, viewTimelineOf } from '../../src/table/index.ts';
import { assembleView, listPartitions, type ListedPartition } from '../../src/fs-view/index.ts';
import { readMetadataTableFiles } from '../../src/mdt/index.ts';
import { decodeRollbackMetadata } from '../../src/metadata/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { modifyTableProperties } from '../../src/write/table-properties.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { runCompaction } from '../../src/services/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { allFiles } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { buildCompactionChild, runChild as runChildScript } from './support/build-child.ts';

let child = '';
beforeAll(async () => {
  child = await buildCompactionChild();
}, 60_000);


const runChild = (base: string, opts: object) => runChildScript(child, base, opts);


const EXPIRY = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TABLES = ['quickstart_trips_table/mor/avro/v6_trips_8i1u', 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d'];
const POINTS = ['after-schedule', 'after-inflight', 'after-marker', 'after-base-file', 'before-complete', 'after-complete'];
// points where the killed attempt left `<t>.compaction.inflight`: the next run rolls it back first
const ROLLED_BACK = new Set(['after-inflight', 'after-marker', 'after-base-file', 'before-complete']);

describe.skipIf(!HAVE_FIXTURES)('compaction crash safety', () => {
  for (const id of TABLES) {
    for (const point of POINTS) {
      it(`${id}: killed at ${point} → next run completes it exactly once`, async () => {
        const base = tableFresh(id);
        const before = comparable(await snapshotRows(base));
        const oldCompactions = new Set((await (await openTable(base)).timeline()).instants.filter((i) => i.effectiveAction === 'compaction').map((i) => i.requestedTime));
        const dataBefore = new Set(allFiles(base).filter((f) => !f.includes('/.hoodie/')));
        const c = await runChild(base, { schedule: true, crashAt: point, heartbeatExpiryMs: EXPIRY });
        expect(c.signal, c.stderr).toBe('SIGKILL');
        // the snapshot never changes across the crash
        expect(comparable(await snapshotRows(base))).toEqual(before);
        await sleep(EXPIRY + 200);
        const r = await runCompaction(await openTable(base), { clockSkewMs: 1, metadataTable: 'disable', heartbeatExpiryMs: EXPIRY });
        expect(r.status).toBe(point === 'after-complete' ? 'nothing-to-do' : 'completed');
        const after = await snapshotRows(base);
        expect(comparable(after)).toEqual(before);
        const keys = after.map((x) => `${x._hoodie_partition_path}/${x._hoodie_record_key}`);
        expect(new Set(keys).size).toBe(keys.length);
        // no stray file: data files are the old ones plus exactly one new base file per planned file group
        const tl = await (await openTable(base)).timeline();
        const comp = tl.instants.filter((i) => i.effectiveAction === 'compaction' && !oldCompactions.has(i.requestedTime));
        expect(comp).toHaveLength(1);
        expect(comp[0]!.state).toBe('COMPLETED');
        const T = comp[0]!.requestedTime;
        const newFiles = allFiles(base).filter((f) => !f.includes('/.hoodie/') && !dataBefore.has(f));
        expect(newFiles.every((f) => f.endsWith(`_${T}.parquet`)), newFiles.join('\n')).toBe(true);
        const fileIds = newFiles.map((f) => f.split('/').pop()!.split('_')[0]);
        expect(new Set(fileIds).size).toBe(fileIds.length);
        for (const f of newFiles) expect(statSync(f).size).toBeGreaterThan(0);
        expect(existsSync(join(base, '.hoodie/.temp', T))).toBe(false);
        expect(existsSync(join(base, '.hoodie/.heartbeat', T))).toBe(false);
        expect(existsSync(join(base, '.hoodie/.aux/lock'))).toBe(false);
        // every snapshot row of a compacted file group is read from the new base file
        const newNames = new Set(newFiles.map((f) => f.split('/').pop()));
        expect(after.filter((x) => newNames.has(String(x._hoodie_file_name))).length).toBeGreaterThan(0);
        // the plan is kept and re-executed under the same instant time
        expect(comp[0]!.files.REQUESTED).toBeDefined();
        expect(comp[0]!.files.INFLIGHT).toBeDefined();
        const commits = await runJson<{ commitTime: string }[]>(['commits', 'show', '--path', base, '--limit', '1000']);
        expect(commits.map((x) => x.commitTime)).toContain(T);

        // a rollback instant for the killed attempt, exactly when it had gone inflight
        const rollbacks = tl.instants.filter((i) => i.action === 'rollback');
        const shown = await runJson<{ instant: string; rolledbackInstant: string; totalFilesDeleted: number }[]>(['show', 'rollbacks', '--path', base]);
        const mine = shown.filter((x) => x.rolledbackInstant === T);
        if (!ROLLED_BACK.has(point)) {
          expect(mine).toHaveLength(0);
          expect(rollbacks.filter((i) => i.requestedTime > T)).toHaveLength(0);
          expect(r.rolledBack).toBeUndefined();
          return;
        }
        expect(mine, JSON.stringify(shown)).toHaveLength(1);
        const rb = mine[0]!.instant;
        expect(rb > T).toBe(true);
        const rbInstant = rollbacks.find((i) => i.requestedTime === rb)!;
        expect(rbInstant.state).toBe('COMPLETED');
        expect(rbInstant.files.REQUESTED && rbInstant.files.INFLIGHT).toBeTruthy();
        expect(r.rolledBack?.rollbackInstant).toBe(rb);
        // the rollback completed before the compaction did
        const ct = (i: { completionTime?: string; requestedTime: string }) => i.completionTime ?? i.requestedTime;
        if (tl.layout === 2) expect(ct(rbInstant) < ct(comp[0]!)).toBe(true);
        const files = await runJson<{ instant: string; rolledbackInstant: string; deletedFile: string; succeeded: boolean }[]>(['show', 'rollback', '--path', base, '--instant', rb]);
        expect(files.length).toBe(mine[0]!.totalFilesDeleted + files.filter((f) => !f.succeeded).length);
        for (const f of files) {
          expect(f.rolledbackInstant).toBe(`[${T}]`);
          expect(f.deletedFile.endsWith(`_${T}.parquet`) || f.deletedFile.includes('.tblcli-tmp-'), f.deletedFile).toBe(true);
          // a deleted file exists again only as the re-run's output (same deterministic write token)
          if (f.succeeded && existsSync(f.deletedFile)) expect(newNames.has(f.deletedFile.split('/').pop())).toBe(true);
        }
        if (point === 'after-base-file' || point === 'before-complete') expect(mine[0]!.totalFilesDeleted).toBeGreaterThan(0);
        if (point === 'after-inflight') expect(files).toHaveLength(0);
        const active = await runJson<{ instant: string; action: string }[]>(['timeline', 'show', 'active', '--path', base, '--show-rollback-info']);
        expect(active.find((x) => x.instant === rb)?.action).toBe(`rollback\nRolls back\n${T}`);
      }, 30_000);
    }
  }

  it('two concurrent runs: exactly one executes, the other exits 4; with --wait the other waits and finds it done', async () => {
    const base = tableFresh(TABLES[1]!);
    const before = comparable(await snapshotRows(base));
    const first = runChild(base, { schedule: true, pauseAt: 'after-inflight', pauseMs: 1500, heartbeatExpiryMs: 10_000 });
    // wait until the first one holds the plan (the table already has one completed compaction)
    const inflights = () => readdirSync(join(base, '.hoodie/timeline')).filter((f) => f.endsWith('.compaction.inflight')).length;
    const initial = inflights();
    for (let n = 0; n < 200 && inflights() === initial; n++) await sleep(25);
    const second = await runChild(base, { heartbeatExpiryMs: 10_000 });
    const waiting = runChild(base, { wait: true, heartbeatExpiryMs: 10_000 });
    const a = await first;
    const w = await waiting;
    expect(a.code, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout).status).toBe('completed');
    expect(second.code, second.stderr).toBe(4);
    expect(second.stderr).toMatch(/being run by another process|lock/);
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(w.stdout).status).toBe('nothing-to-do');
    const tl = await (await openTable(base)).timeline();
    expect(tl.instants.filter((i) => i.effectiveAction === 'compaction' && i.state === 'COMPLETED')).toHaveLength(2);
    expect(tl.pending().filter((i) => i.effectiveAction === 'compaction')).toHaveLength(0);
    expect(comparable(await snapshotRows(base))).toEqual(before);
  }, 60_000);
});

const MDT_TABLES: { name: string; fresh: () => string }[] = [
  ...(HAVE_FIXTURES
    ? ['quickstart_trips_table/mor/avro/v8_trips_8i3u1d', 'sample_table/mor/avro/v9_timebasedkeygen_nonhivestyle'].map((id) => ({ name: id, fresh: () => tableFresh(id) }))
    : []),
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
/** inside the MDT deltacommit, between it and the data completion: the data attempt dies pending */
const MDT_WRITE_POINTS = ['mdt-inflight', 'mdt-log-written', 'after-mdt-commit'];
/** inside the MDT compaction after the data instant completed */
const MDT_COMPACTION_POINTS = ['mdt-compaction-requested', 'mdt-compaction-inflight', 'mdt-compaction-file-written', 'mdt-compaction-before-complete'];
const local = new LocalStorage();

function sliceKeys(view: ReturnType<typeof assembleView>): string[] {
  return view.latestFileSlices().map((x) => JSON.stringify([x.partition, x.fileId, x.baseInstant, x.baseFile?.name ?? null, x.logFiles.map((l) => l.name)])).sort();
}

/** The file-system view built from the MDT's `files` listing. */
async function mdtView(base: string): Promise<string[]> {
  const files = await readMetadataTableFiles(local, base);
  const listed: ListedPartition[] = files.partitions.map((p) => ({
    partition: p,
    files: [...files.files.get(p)!].map(([name, size]) => ({ path: join(base, p, name), name, isDirectory: false, size, mtimeMs: 0 })),
  }));
  return sliceKeys(assembleView(listed, await viewTimelineOf(await openTable(base))));
}

async function storageView(base: string): Promise<string[]> {
  return sliceKeys(assembleView(await listPartitions(local, base), await viewTimelineOf(await openTable(base))));
}

describe.skipIf(MDT_TABLES.length === 0)('compaction crash safety with the metadata table kept', () => {
  for (const { name, fresh } of MDT_TABLES) {
    for (const point of [...MDT_WRITE_POINTS, ...MDT_COMPACTION_POINTS]) {
      it(`${name}: killed at ${point} → next run leaves both tables consistent`, async () => {
        const base = fresh();
        // the MDT compaction is due right after the run's deltacommit
        await modifyTableProperties(local, join(base, '.hoodie'), (p) => p.set('hoodie.metadata.compact.max.delta.commits', '1'), new Date());
        const types = logicalTypes((await openTable(base)).config.createSchema);
        const before = comparable(await snapshotRows(base), types);
        const mdtPath = join(base, '.hoodie', 'metadata');
        const mdtBefore = new Set((await (await openTableAt(local, mdtPath)).timeline()).instants.map((i) => `${i.requestedTime} ${i.action}`));
        const c = await runChild(base, { schedule: true, crashAt: point, heartbeatExpiryMs: EXPIRY, metadataTable: 'update' });
        expect(c.signal, c.stderr).toBe('SIGKILL');
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        // readers listing through the MDT see the committed table across the crash (validate-files
        // would list the killed attempt's uncommitted files, as hudi-cli's does)
        expect(await mdtView(base)).toEqual(await storageView(base));
        const T = (await (await openTable(base)).timeline()).instants.filter((i) => i.effectiveAction === 'compaction').at(-1)!.requestedTime;
        await sleep(EXPIRY + 200);

        // the killed run held the table lock (1 minute expiry by default)
        const lock = { expireMs: 300, wait: true, retryMs: 20 };
        const r = await runCompaction(await openTable(base), { clockSkewMs: 1, metadataTable: 'update', heartbeatExpiryMs: EXPIRY, lock });
        expect(r.status).toBe(MDT_WRITE_POINTS.includes(point) ? 'completed' : 'nothing-to-do');
        expect(r.warnings).toEqual([]);
        expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
        expect(await mdtView(base)).toEqual(await storageView(base));
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        const data = await (await openTable(base)).timeline();
        expect(data.find(T).map((i) => i.state)).toEqual(['COMPLETED']);
        const mdt = await openTableAt(local, mdtPath);
        const tl = await mdt.timeline();
        expect(tl.pending().map((i) => `${i.requestedTime} ${i.effectiveAction}`)).toEqual([]);
        expect(tl.find(T).map((i) => [i.action, i.state])).toEqual([['deltacommit', 'COMPLETED']]);
        const news = tl.instants.filter((i) => !mdtBefore.has(`${i.requestedTime} ${i.action}`));
        // one MDT compaction, after the run's deltacommit (v6 at <T>001), complete
        const compactions = news.filter((i) => i.action === 'commit');
        expect(compactions).toHaveLength(1);
        // v6: <latest MDT deltacommit>001 (after a rollback that is the rollback's own deltacommit)
        const latestDc = tl.completed().filter((i) => i.action === 'deltacommit' && i.requestedTime < compactions[0]!.requestedTime).at(-1)!.requestedTime;
        if (tl.layout === 1) expect(compactions[0]!.requestedTime).toBe(`${latestDc}001`);
        const C = compactions[0]!.requestedTime;
        // the orphan MDT deltacommit of the killed attempt was rolled back in the MDT (v8/9 at the data
        // rollback's time, v6 at <rb>006); a killed MDT compaction's partial files were rolled back too
        const rollbacks = await Promise.all(
          news.filter((i) => i.action === 'rollback').map(async (i) => ({ i, m: decodeRollbackMetadata(await tl.read(i), { path: i.files.COMPLETED!.path }) })),
        );
        const ofT = rollbacks.filter((x) => x.m.commitsRollback.includes(T));
        expect(ofT).toHaveLength(MDT_WRITE_POINTS.includes(point) ? 1 : 0);
        if (ofT.length > 0) {
          const dataRb = r.rolledBack!.rollbackInstant;
          expect(ofT[0]!.i.requestedTime).toBe(tl.layout === 1 ? `${dataRb}006` : dataRb);
        }
        const ofC = rollbacks.filter((x) => x.m.commitsRollback.includes(C));
        expect(ofC).toHaveLength(point === 'mdt-compaction-file-written' || point === 'mdt-compaction-before-complete' || point === 'mdt-compaction-inflight' ? 1 : 0);
        // no stray file: one base file per compacted file group, no temp file, no marker left
        const outputs = allFiles(mdtPath).filter((f) => f.endsWith(`_${C}.hfile`));
        const ids = outputs.map((f) => f.split('/').pop()!.split('_')[0]);
        expect(new Set(ids).size).toBe(ids.length);
        expect(outputs.length).toBeGreaterThan(0);
        expect(allFiles(mdtPath).filter((f) => f.includes('.tblcli-tmp-'))).toEqual([]);
        expect(existsSync(join(mdtPath, '.hoodie', '.temp', C))).toBe(false);
        expect(existsSync(join(mdtPath, '.hoodie', '.temp', T))).toBe(false);
        // and the run that follows is a plain one
        expect((await runCompaction(await openTable(base), { clockSkewMs: 1, metadataTable: 'update', lock })).status).toBe('nothing-to-do');
      }, 60_000);
    }
  }
});
