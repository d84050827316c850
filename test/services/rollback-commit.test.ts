// Acceptance of `commit rollback` (issue 15) on fresh copies of real tables — COW and MOR, table
// versions 6, 8 and 9, with and without a metadata table (hudi-rs fixtures, the Trino v6 table):
//   1. the table's own latest completed commit (written by Hudi) is rolled back: the snapshot equals
//      the snapshot as of the instant before it (our reader; DuckDB over the base files for COW);
//   2. a pending write (tblcli's test writer, killed after its files) and a completed one of ours
//      are rolled back: the snapshot equals the one before them;
// and after each: `show rollbacks` / `show rollback` show it as Hudi's are shown, `metadata
// validate-files` is clean, `orphans` finds nothing the rollback should have removed, the target is
// gone from the timeline (both tables) and the rollback is completed (MDT first).
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { decodeRollbackMetadata } from '../../src/metadata/index.ts';
import { rollbackCommit } from '../../src/services/remediation/index.ts';
import { loadFileSystemView, openTable, openTableAt } from '../../src/table/index.ts';
import { WRITE_ACTIONS } from '../../src/timeline/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Fresh } from '../support/trino.ts';
import { comparable, logicalTypes, snapshotRows, storage } from './support/snapshot.ts';
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

async function types(base: string) {
  return logicalTypes((await openTable(base)).config.createSchema);
}

/** Record keys of the latest base files, read by DuckDB (COW snapshot). */
async function duckKeys(base: string): Promise<string[]> {
  const view = await loadFileSystemView(await openTable(base));
  const files = view.latestFileSlices().filter((s) => s.baseFile).map((s) => `'${s.baseFile!.path}'`);
  if (files.length === 0) return [];
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const rows = (await con.runAndReadAll(`select _hoodie_record_key as k from read_parquet([${files.join(',')}])`)).getRowObjectsJS();
    return rows.map((r) => String(r.k)).sort();
  } finally {
    con.closeSync();
  }
}

/** Whether the metadata table has a deltacommit of `t` (then the rollback must roll it back too). */
async function mdtHas(base: string, t: string): Promise<boolean> {
  const table = await openTable(base);
  if (!table.config.metadataPartitions.includes('files')) return false;
  return (await (await openTableAt(storage, join(base, '.hoodie/metadata'))).timeline()).find(t).some((i) => i.action === 'deltacommit');
}

/** What must hold after rolling back `t` with rollback `rb`. */
async function checkAfter(base: string, t: string, rb: string, expected: unknown[], expectedKeys: string[], mdtHadTarget: boolean): Promise<void> {
  expect(comparable(await snapshotRows(base), await types(base))).toEqual(expected);
  const table = await openTable(base);
  if (table.config.type === 'COPY_ON_WRITE' && expectedKeys) expect(await duckKeys(base)).toEqual(expectedKeys);
  const tl = await table.timeline();
  expect(tl.find(t).filter((i) => WRITE_ACTIONS.has(i.effectiveAction) || WRITE_ACTIONS.has(i.action))).toEqual([]);
  const r = tl.find(rb).find((i) => i.action === 'rollback')!;
  expect(r.state).toBe('COMPLETED');
  const meta = decodeRollbackMetadata(await tl.read(r), { path: r.files.COMPLETED!.path });
  expect(meta.commitsRollback).toEqual([t]);
  // show rollbacks / show rollback: one row for it, its files
  const rows = await runJson<Record<string, unknown>[]>(['show', 'rollbacks', '--path', base, '--limit', '-1']);
  expect(rows.filter((x) => x.instant === rb)).toEqual([
    expect.objectContaining({ instant: rb, rolledbackInstant: t, totalFilesDeleted: meta.totalFilesDeleted, totalPartitions: Object.keys(meta.partitionMetadata).length }),
  ]);
  const files = await runJson<Record<string, unknown>[]>(['show', 'rollback', '--instant', rb, '--path', base, '--limit', '-1']);
  const deleted = Object.values(meta.partitionMetadata).flatMap((p) => p.successDeleteFiles);
  expect(files.filter((f) => f.succeeded === true).map((f) => f.deletedFile).sort()).toEqual([...deleted].sort());
  // the metadata table agrees with the listing, its copy of t is rolled back too, at the same time (v8+) and first
  if (table.config.metadataPartitions.includes('files')) {
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    const mtl = await (await openTableAt(storage, join(base, '.hoodie/metadata'))).timeline();
    expect(mtl.find(t).filter((i) => i.action === 'deltacommit')).toEqual([]);
    const m = mtl.find(table.config.version >= 8 ? rb : `${rb}006`).find((i) => i.action === 'rollback');
    if (!mdtHadTarget) expect(m).toBeUndefined();
    else {
      expect(m?.state).toBe('COMPLETED');
      if (table.config.version >= 8) expect(m!.completionTime! < r.completionTime!).toBe(true);
      // v6: the MDT also got a deltacommit at the rollback's time (its files records)
      else expect(mtl.find(rb).find((i) => i.action === 'deltacommit')?.state).toBe('COMPLETED');
    }
  }
  // nothing the rollback should have removed is left: no file, marker or instant of t
  const orphans = await runJson<Record<string, unknown>[]>(['orphans', '--path', base, '--older-than', '0s']);
  expect(orphans.filter((o) => JSON.stringify(o).includes(t) || JSON.stringify(o).includes(rb))).toEqual([]);
}

async function rollBackLatestHudiCommit(base: string): Promise<void> {
  const tl = await (await openTable(base)).timeline();
  const commits = tl.completedCommits();
  const last = commits.at(-1)!;
  const prev = commits.at(-2);
  const ty = await types(base);
  const expected = comparable(prev ? await snapshotRows(base, { asOf: prev.requestedTime }) : [], ty);
  const expectedKeys = expected.map((r) => String(r._hoodie_record_key)).sort();
  const inMdt = await mdtHas(base, last.requestedTime);
  const r = await rollbackCommit(await openTable(base), last.requestedTime, OPTS);
  expect(r.dryRun).toBe(false);
  await checkAfter(base, last.requestedTime, r.rollbackInstant!, expected, expectedKeys, inMdt);
}

async function rollBackOurWrites(base: string): Promise<void> {
  const ty = await types(base);
  const before = comparable(await snapshotRows(base), ty);
  const beforeKeys = before.map((r) => String(r._hoodie_record_key)).sort();
  // a failed (pending) write, then a completed one (the pending one first: Hudi refuses out of order)
  const failed = await addDeleteCommit(base, { pending: true });
  expect(comparable(await snapshotRows(base), ty)).toEqual(before); // an inflight write is invisible
  const r1 = await rollbackCommit(await openTable(base), failed.instant, OPTS);
  await checkAfter(base, failed.instant, r1.rollbackInstant!, before, beforeKeys, false);
  const done = await addDeleteCommit(base, { count: 1 });
  const afterDelete = comparable(await snapshotRows(base), ty);
  expect(afterDelete.length).toBe(before.length - 1);
  const inMdt = await mdtHas(base, done.instant);
  expect(inMdt).toBe((await openTable(base)).config.metadataPartitions.includes('files'));
  const r2 = await rollbackCommit(await openTable(base), done.instant, OPTS);
  await checkAfter(base, done.instant, r2.rollbackInstant!, before, beforeKeys, inMdt);
}

describe.skipIf(!HAVE_FIXTURES)('commit rollback on real tables', () => {
  for (const id of TABLES) {
    it(`${id}: Hudi's latest commit, then a failed and a completed write of ours`, async () => {
      const base = tableFresh(id);
      await rollBackLatestHudiCommit(base);
      await rollBackOurWrites(base);
    });
  }
});

describe.skipIf(!HAVE_TRINO_V6)('commit rollback on the Trino table version 6 with a metadata table', () => {
  it("hudi_multi_fg_pt_v6_mor: Hudi's latest commit, then a failed and a completed write of ours", async () => {
    const base = trinoV6Fresh();
    await rollBackLatestHudiCommit(base);
    await rollBackOurWrites(base);
  });
});
