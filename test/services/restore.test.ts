// Acceptance of savepoints and `savepoint rollback` (a restore, issue 15) on fresh copies of real
// tables: savepoint the latest commit → more commits (completed and failed writes of the test
// writer) → restore: the snapshot equals the savepointed one, the restore (plan v2 with
// savepointToRestoreTimestamp, newest first) reads back through `show restores`, no instant after the
// savepoint and none of the restore's rollbacks are left, the metadata table is dropped the Hudi way
// (with a warning), `savepoints show` lists ours as Hudi's, `savepoint delete` removes it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeRestorePlan, decodeSavepointMetadata } from '../../src/metadata/index.ts';
import { createSavepoint, deleteSavepoint, restoreToSavepoint, rollbackCommit } from '../../src/services/remediation/index.ts';
import { loadFileSystemView, openTable } from '../../src/table/index.ts';
import { WRITE_ACTIONS } from '../../src/timeline/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Fresh } from '../support/trino.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { addDeleteCommit } from './support/writes.ts';

const OPTS = { clockSkewMs: 1 };

const TABLES = [
  'sample_table/cow/v6_simplekeygen_nonhivestyle',
  'sample_table/cow/v8_simplekeygen_nonhivestyle',
  'sample_table/cow/v9_txns_simple_meta',
  'quickstart_trips_table/mor/avro/v6_trips_8i1u',
  'quickstart_trips_table/mor/avro/v8_trips_8i3u1d',
  'sample_table/mor/avro/v9_txns_simple_meta',
];

async function savepointThenRestore(base: string): Promise<void> {
  const types = logicalTypes((await openTable(base)).config.createSchema);
  const hadMdt = (await openTable(base)).config.metadataPartitions.includes('files');
  const sp = (await (await openTable(base)).timeline()).completedCommits().at(-1)!.requestedTime;
  const saved = comparable(await snapshotRows(base), types);

  const s = await createSavepoint(await openTable(base), sp, { ...OPTS, user: 'oncall', comments: 'before the fix' });
  expect(await runJson(['savepoints', 'show', '--path', base])).toEqual([{ savepointTime: sp }]);
  // the savepoint lists the files of the latest slices at the commit, as Hudi's does
  const tl = await (await openTable(base)).timeline();
  const spInstant = tl.find(sp).find((i) => i.action === 'savepoint')!;
  expect(spInstant.state).toBe('COMPLETED');
  const meta = decodeSavepointMetadata(await tl.read(spInstant), { path: 'sp' });
  expect(meta).toMatchObject({ savepointedBy: 'oncall', comments: 'before the fix', version: 1 });
  expect(meta).toEqual(s.metadata);
  const view = await loadFileSystemView(await openTable(base));
  const listed = Object.values(meta.partitionMetadata).flatMap((p) => p.savepointDataFile.map((n) => `${p.partitionPath}/${n}`)).sort();
  const live = view.latestFileSlices().flatMap((x) => [...(x.baseFile ? [x.baseFile.name] : []), ...x.logFiles.map((l) => l.name)].map((n) => `${x.partition}/${n}`)).sort();
  expect(listed).toEqual(live);
  // a savepointed commit cannot be rolled back
  await expect(rollbackCommit(await openTable(base), sp, OPTS)).rejects.toThrow(`Could not rollback a savepointed commit. Delete savepoint first before rolling back ${sp}`);

  // more commits: two completed writes and a failed one
  const w1 = await addDeleteCommit(base, { count: 1 });
  const w2 = await addDeleteCommit(base, { count: 1 });
  const w3 = await addDeleteCommit(base, { count: 1, pending: true });
  expect(comparable(await snapshotRows(base), types)).not.toEqual(saved);

  const dry = await restoreToSavepoint(await openTable(base), sp, { ...OPTS, dryRun: true });
  expect(dry.instantsToRollback.map((e) => e.commitTime)).toEqual([w3.instant, w2.instant, w1.instant]);
  const r = await restoreToSavepoint(await openTable(base), sp, OPTS);
  expect(r.instantsToRollback).toEqual(dry.instantsToRollback);
  expect(r.rolledBack.map((x) => x.instant)).toEqual([w3.instant, w2.instant, w1.instant]);
  if (hadMdt) {
    expect(r.warnings.some((w) => w.includes('metadata table'))).toBe(true);
    expect(existsSync(join(base, '.hoodie/metadata'))).toBe(false);
    expect((await openTable(base)).config.metadataPartitions).toEqual([]);
  }
  // the snapshot is the savepointed one
  expect(comparable(await snapshotRows(base), types)).toEqual(saved);
  // timeline: nothing after the savepoint but the restore; no rollback instant of the restore left
  const after = await (await openTable(base)).timeline();
  // (other actions after it, an index build say, are not the restore's)
  const rest = after.instants.filter((i) => i.requestedTime > sp && (WRITE_ACTIONS.has(i.effectiveAction) || ['rollback', 'restore'].includes(i.action)));
  expect(rest.map((i) => [i.action, i.state])).toEqual([['restore', 'COMPLETED']]);
  const ri = rest[0]!;
  const plan = decodeRestorePlan(await after.read(ri, 'REQUESTED'), { path: 'plan' });
  expect(plan).toEqual({ instantsToRollback: r.instantsToRollback, version: 2, savepointToRestoreTimestamp: sp });
  const rows = await runJson<Record<string, unknown>[]>(['show', 'restores', '--path', base]);
  expect(rows.map((x) => [x.instant, x.restoredInstant, x.restoreState])).toEqual([w3.instant, w2.instant, w1.instant].map((t) => [ri.requestedTime, t, 'COMPLETED']));
  expect(await runJson<Record<string, unknown>[]>(['show', 'restore', '--instant', ri.requestedTime, '--path', base])).toEqual(rows);
  // nothing of the rolled-back writes is left
  const orphans = await runJson<Record<string, unknown>[]>(['orphans', '--path', base, '--older-than', '0s']);
  for (const w of [w1, w2, w3]) expect(orphans.filter((o) => JSON.stringify(o).includes(w.instant))).toEqual([]);
  // and the savepoint goes
  await deleteSavepoint(await openTable(base), sp, OPTS);
  expect(await runJson(['savepoints', 'show', '--path', base])).toEqual([]);
  expect((await (await openTable(base)).timeline()).find(sp).filter((i) => i.action === 'savepoint')).toEqual([]);
}

describe.skipIf(!HAVE_FIXTURES)('savepoint → more commits → savepoint rollback on real tables', () => {
  for (const id of TABLES) it(id, async () => savepointThenRestore(tableFresh(id)));
});

describe.skipIf(!HAVE_TRINO_V6)('savepoint rollback on the Trino table version 6 with a metadata table', () => {
  it('hudi_multi_fg_pt_v6_mor', async () => savepointThenRestore(trinoV6Fresh()));
});
