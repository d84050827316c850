// Crash safety of clustering: a child process running it is SIGKILLed at each point; the snapshot never
// changes, and the next `clustering run` rolls the failed attempt back (plan kept) and completes it
// under the same instant: every record once, no stray file, the metadata table in step.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { runClustering } from '../../src/services/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { allFiles } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { buildClusteringChild, runChild as runChildScript } from './support/build-child.ts';

let child = '';
beforeAll(async () => {
  child = await buildClusteringChild();
}, 60_000);

const runChild = (base: string, opts: object) => runChildScript(child, base, opts);

const EXPIRY = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// [table, sort columns, has a metadata table]
const TABLES: [string, string[], boolean][] = [
  ['quickstart_trips_table/mor/avro/v6_trips_8i1u', ['city'], false],
  ['sample_table/cow/v9_txns_simple_meta', ['txn_ts'], true],
];
const POINTS = ['after-schedule', 'after-inflight', 'after-marker', 'after-base-file', 'before-complete', 'after-mdt-commit', 'after-complete'];
const ROLLED_BACK = new Set(['after-inflight', 'after-marker', 'after-base-file', 'before-complete', 'after-mdt-commit']);

describe.skipIf(!HAVE_FIXTURES)('clustering crash safety', () => {
  for (const [id, sortColumns, mdt] of TABLES) {
    for (const point of POINTS.filter((p) => mdt || p !== 'after-mdt-commit')) {
      it(`${id}: killed at ${point} → next run completes it exactly once`, async () => {
        const base = tableFresh(id);
        const table = await openTable(base);
        const hasMdt = table.config.metadataPartitions.length > 0;
        expect(hasMdt).toBe(mdt);
        const types = logicalTypes(table.config.createSchema);
        const before = comparable(await snapshotRows(base), types);
        const oldInstants = new Set((await table.timeline()).instants.map((i) => i.requestedTime));
        const dataBefore = new Set(allFiles(base).filter((f) => !f.includes('/.hoodie/')));
        const c = await runChild(base, { schedule: true, crashAt: point, heartbeatExpiryMs: EXPIRY, sortColumns });
        expect(c.signal, c.stderr).toBe('SIGKILL');
        expect(comparable(await snapshotRows(base), types)).toEqual(before);
        await sleep(EXPIRY + 200);
        // killed holding the lock (at after-mdt-commit): the lock is taken over once expired
        const r = await runClustering(await openTable(base), { clockSkewMs: 1, heartbeatExpiryMs: EXPIRY, lock: { expireMs: EXPIRY } });
        expect(r.status).toBe(point === 'after-complete' ? 'nothing-to-do' : 'completed');
        const after = await snapshotRows(base);
        expect(comparable(after, types)).toEqual(before);
        const tl = await (await openTable(base)).timeline();
        const mine = tl.instants.filter((i) => !oldInstants.has(i.requestedTime) && i.action === 'replacecommit');
        expect(mine).toHaveLength(1);
        expect(mine[0]!.state).toBe('COMPLETED');
        const T = mine[0]!.requestedTime;
        // the plan kept and re-executed under the same instant
        expect(mine[0]!.files.REQUESTED).toBeDefined();
        if (point !== 'after-complete') expect(r.instant).toBe(T);
        // no stray file: the new data files are exactly the completed instant's
        const newFiles = allFiles(base).filter((f) => !f.includes('/.hoodie/') && !dataBefore.has(f));
        expect(newFiles.every((f) => f.endsWith(`_${T}.parquet`)), newFiles.join('\n')).toBe(true);
        // every group was small: every snapshot row now reads from a new file
        const named = new Set(newFiles.map((f) => f.split('/').pop()));
        expect(after.every((x) => named.has(String(x._hoodie_file_name)))).toBe(true);
        for (const f of newFiles) expect(statSync(f).size).toBeGreaterThan(0);
        expect(existsSync(join(base, '.hoodie/.temp', T))).toBe(false);
        expect(existsSync(join(base, '.hoodie/.heartbeat', T))).toBe(false);
        expect(existsSync(join(base, '.hoodie/.aux/lock'))).toBe(false);
        const rollbacks = tl.instants.filter((i) => i.action === 'rollback' && !oldInstants.has(i.requestedTime));
        if (ROLLED_BACK.has(point)) {
          expect(rollbacks).toHaveLength(1);
          expect(rollbacks[0]!.state).toBe('COMPLETED');
          expect(r.rolledBack?.rollbackInstant).toBe(rollbacks[0]!.requestedTime);
        } else expect(rollbacks).toHaveLength(0);
        if (hasMdt) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
      }, 60_000);
    }
  }
});
