// Crash safety of rollback and restore (issue 15): a child process running `commit rollback` or
// `savepoint rollback` is SIGKILLed between every two steps (the engine's onPoint hooks, the metadata
// table's included); the table reads as before or after the rollback, never half rolled back, and
// rerunning the same command completes it: snapshot as expected, no pending rollback or restore
// left, the target gone, the metadata table in step, nothing for `orphans`.
// Also the other crash state a previous writer can leave (format-services-write.md §3.5): 0.14's
// proposed order completes the rollback before deleting the target's files — a completed rollback
// next to a still-pending target is rolled back once more, harmlessly.
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSavepoint, restoreToSavepoint, rollbackCommit, rollbackFailedWrites } from '../../src/services/remediation/index.ts';
import { openTable } from '../../src/table/index.ts';
import { instantFilePath } from '../../src/timeline/writer.ts';
import { WRITE_ACTIONS } from '../../src/timeline/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Fresh } from '../support/trino.ts';
import { buildRemediationChild, runChild as runChildScript } from './support/build-child.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { addDeleteCommit } from './support/writes.ts';

let child = '';
beforeAll(async () => {
  child = await buildRemediationChild();
}, 60_000);

// the killed child leaves the table lock behind: the rerun takes it over once expired (--lock-expire)
const RERUN = { clockSkewMs: 1, lock: { expireMs: 200, wait: true, waitTimeoutMs: 10_000 } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const runChild = (base: string, opts: object) => runChildScript(child, base, opts);

const ROLLBACK_POINTS = ['rollback-requested', 'rollback-inflight', 'rollback-files-deleted', 'rollback-before-complete', 'rollback-target-inflight-deleted', 'rollback-target-deleted', 'rollback-completed'];
const MDT_V8_POINTS = ['mdt-rollback-requested', 'mdt-rollback-inflight', 'mdt-rollback-files-deleted', 'mdt-rollback-target-deleted', 'mdt-rollback-completed'];
const MDT_V6_POINTS = ['mdt-inflight', 'mdt-log-written', 'mdt-rollback-deltacommit', ...MDT_V8_POINTS];
const RESTORE_POINTS = [
  'restore-requested', 'restore-inflight', 'rollback-requested#1', 'rollback-inflight#1', 'rollback-files-deleted#1', 'rollback-target-deleted#1',
  'restore-instant-rolled-back#1', 'rollback-files-deleted#2', 'restore-instant-rolled-back#2', 'restore-instant-rolled-back#3',
  'restore-before-complete', 'restore-completed', 'restore-rollbacks-deleted',
];

interface Layout {
  name: string;
  fresh: () => string;
  rollbackPoints: string[];
  restorePoints: string[];
}

const LAYOUTS: Layout[] = [
  { name: 'MOR v6 (quickstart_trips_table/mor/avro/v6_trips_8i1u)', fresh: () => tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u'), rollbackPoints: ROLLBACK_POINTS, restorePoints: RESTORE_POINTS },
  { name: 'COW v8 (sample_table/cow/v8_simplekeygen_nonhivestyle)', fresh: () => tableFresh('sample_table/cow/v8_simplekeygen_nonhivestyle'), rollbackPoints: ROLLBACK_POINTS, restorePoints: RESTORE_POINTS.slice(0, 7) },
  {
    name: 'MOR v9 with a metadata table (sample_table/mor/avro/v9_txns_simple_meta)',
    fresh: () => tableFresh('sample_table/mor/avro/v9_txns_simple_meta'),
    rollbackPoints: [...ROLLBACK_POINTS.slice(0, 3), ...MDT_V8_POINTS, ...ROLLBACK_POINTS.slice(3)],
    restorePoints: ['restore-metadata-table-dropped', ...RESTORE_POINTS],
  },
];

async function types(base: string) {
  return logicalTypes((await openTable(base)).config.createSchema);
}

/** The state every completed rollback of `t` leaves. */
async function checkRolledBack(base: string, t: string, expected: unknown[]): Promise<void> {
  expect(comparable(await snapshotRows(base), await types(base))).toEqual(expected);
  const table = await openTable(base);
  const tl = await table.timeline();
  expect(tl.find(t).filter((i) => WRITE_ACTIONS.has(i.effectiveAction))).toEqual([]);
  expect(tl.pending().filter((i) => i.action === 'rollback')).toEqual([]);
  if (table.config.metadataPartitions.includes('files')) {
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    const mdt = await openTable(`${base}/.hoodie/metadata`);
    expect((await mdt.timeline()).pending().map((i) => `${i.requestedTime} ${i.action}`)).toEqual([]);
  }
  const orphans = await runJson<Record<string, unknown>[]>(['orphans', '--path', base, '--older-than', '0s']);
  expect(orphans.filter((o) => JSON.stringify(o).includes(t))).toEqual([]);
}

function layouts(): Layout[] {
  const out = HAVE_FIXTURES ? [...LAYOUTS] : [];
  if (HAVE_TRINO_V6) {
    out.push({ name: 'MOR v6 with a metadata table (Trino hudi_multi_fg_pt_v6_mor)', fresh: trinoV6Fresh, rollbackPoints: [...ROLLBACK_POINTS.slice(0, 3), ...MDT_V6_POINTS, ...ROLLBACK_POINTS.slice(3)], restorePoints: [] });
  }
  return out;
}

describe.skipIf(layouts().length === 0)('rollback crash safety: killed between every two steps, rerun completes it', () => {
  for (const l of layouts()) {
    describe(l.name, () => {
      for (const point of l.rollbackPoints) {
        it(`killed at ${point}`, async () => {
          const base = l.fresh();
          const ty = await types(base);
          const before = comparable(await snapshotRows(base), ty);
          const w = await addDeleteCommit(base, { count: 1 });
          const after = comparable(await snapshotRows(base), ty);
          const c = await runChild(base, { op: 'rollback', instant: w.instant, crashAt: point });
          expect(c.signal, c.stderr).toBe('SIGKILL');
          // never half rolled back: the table reads as with the write or as before it
          const now = comparable(await snapshotRows(base), ty);
          expect([before, after]).toContainEqual(now);
          await sleep(250);
          await rollbackCommit(await openTable(base), w.instant, RERUN);
          await checkRolledBack(base, w.instant, before);
        });
      }
    });
  }
});

describe.skipIf(layouts().every((x) => x.restorePoints.length === 0))('restore crash safety: killed between every two steps, rerun completes it', () => {
  for (const l of layouts().filter((x) => x.restorePoints.length > 0)) {
    describe(l.name, () => {
      for (const point of l.restorePoints) {
        it(`killed at ${point}`, async () => {
          const base = l.fresh();
          const ty = await types(base);
          const sp = (await (await openTable(base)).timeline()).completedCommits().at(-1)!.requestedTime;
          const saved = comparable(await snapshotRows(base), ty);
          await createSavepoint(await openTable(base), sp, { clockSkewMs: 1 });
          await addDeleteCommit(base, { count: 1 });
          await addDeleteCommit(base, { count: 1 });
          await addDeleteCommit(base, { count: 1, pending: true });
          const c = await runChild(base, { op: 'restore', instant: sp, crashAt: point });
          expect(c.signal, c.stderr).toBe('SIGKILL');
          await sleep(250);
          await restoreToSavepoint(await openTable(base), sp, RERUN);
          expect(comparable(await snapshotRows(base), ty)).toEqual(saved);
          const tl = await (await openTable(base)).timeline();
          const restores = tl.instants.filter((i) => i.action === 'restore');
          expect(restores.map((i) => i.state)).toEqual(['COMPLETED']);
          expect(tl.instants.filter((i) => i.requestedTime > sp && (WRITE_ACTIONS.has(i.effectiveAction) || i.action === 'rollback'))).toEqual([]);
          const rows = await runJson<Record<string, unknown>[]>(['show', 'restores', '--path', base]);
          expect(rows.length).toBeGreaterThan(0);
          expect(rows.every((r) => r.instant === restores[0]!.requestedTime && r.restoreState === 'COMPLETED')).toBe(true);
        });
      }
    });
  }
});

describe.skipIf(!HAVE_FIXTURES)('a completed rollback next to a still-pending target (0.14 order) is rolled back again', () => {
  it('quickstart_trips_table/mor/avro/v6_trips_8i1u', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const ty = await types(base);
    const before = comparable(await snapshotRows(base), ty);
    const w = await addDeleteCommit(base, { count: 1, pending: true });
    await rollbackCommit(await openTable(base), w.instant, { clockSkewMs: 1 });
    // the target's pending files as a writer that completed the rollback first and then died leaves them
    const t = await openTable(base);
    writeFileSync(instantFilePath(t.timelineSource, w.instant, 'deltacommit', 'REQUESTED'), '');
    writeFileSync(instantFilePath(t.timelineSource, w.instant, 'deltacommit', 'INFLIGHT'), '');
    const r = await rollbackFailedWrites(await openTable(base), { clockSkewMs: 1, olderThanMs: 0 });
    expect(r.results.map((x) => [x.instant, x.ok])).toEqual([[w.instant, true]]);
    await checkRolledBack(base, w.instant, before);
    const rows = await runJson<Record<string, unknown>[]>(['show', 'rollbacks', '--path', base, '--limit', '-1']);
    expect(rows.filter((x) => x.rolledbackInstant === w.instant)).toHaveLength(2);
  });
});
