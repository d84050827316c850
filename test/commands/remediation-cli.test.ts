// The remediation commands as a user runs them (issue 15): dry runs list the changes, write nothing
// and exit 3; refusals are one line naming the instant or file, exit 1, and leave the table
// byte-identical; a held lock exits 4; --json prints the report; hudi-cli's messages and tables.
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProperties } from '../../src/config/index.ts';
import { decodeCommitMetadata, encodeCompactionPlan } from '../../src/metadata/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Fresh } from '../support/trino.ts';
import { comparable, snapshotRows } from '../services/support/snapshot.ts';
import { addDeleteCommit } from '../services/support/writes.ts';

const MOR6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
const COW6 = 'sample_table/cow/v6_simplekeygen_nonhivestyle';
const MOR9 = 'sample_table/mor/avro/v9_txns_simple_meta';
// the CLI's clock is fixed in tests: ages and heartbeats need the real one
const NOW = { get now() { return new Date(); } };
const cli = (argv: string[]) => runCli(argv, NOW);

function expectOneLineError(r: { exitCode: number; stderr: string }, code: number, text: string): void {
  expect(r.exitCode, r.stderr).toBe(code);
  expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('warning:'))).toHaveLength(1);
  expect(r.stderr).toContain(text);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe.skipIf(!HAVE_FIXTURES)('commit rollback (CLI)', () => {
  it('dry run lists the changes, writes nothing, exits 3; the real run does what it listed', async () => {
    const base = tableFresh(MOR6);
    const w = await addDeleteCommit(base, { count: 1 });
    const digest = treeDigest(base);
    const dry = await cli(['commit', 'rollback', '--commit', w.instant, '--dry-run', '--path', base]);
    expect(dry.exitCode, dry.stderr).toBe(3);
    expect(dry.stdout).toContain(`Dry run: rolling back deltacommit ${w.instant} (completed) would:`);
    expect(dry.stdout).toContain('rollback command block');
    expect(treeDigest(base)).toEqual(digest);
    const j = JSON.parse((await cli(['commit', 'rollback', '--commit', w.instant, '--dry-run', '--json', '--path', base])).stdout) as { changes: { op: string; path: string }[]; requests: unknown[] };
    expect(j.requests).toHaveLength(1);
    const r = await runJson<{ changes: { op: string; path: string }[]; rollbackInstant: string }>(['commit', 'rollback', '--commit', w.instant, '--path', base], NOW);
    // the same changes, with the rollback instant filled in; what it says it created exists, what it deleted is gone
    expect(r.changes.map((c) => c.op)).toEqual(j.changes.map((c) => c.op));
    for (const c of r.changes) {
      if (c.path.includes('.temp') || c.path.includes('.heartbeat') || c.path.endsWith('.inflight') || c.path.endsWith('.requested') || c.path.includes('<')) continue;
      expect(existsSync(join(base, c.path)), c.path).toBe(c.op === 'create');
    }
    const again = await cli(['commit', 'rollback', '--commit', w.instant, '--path', base]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`already rolled back by ${r.rollbackInstant}`);
  });

  it("refuses as hudi-cli does, one line, nothing written: unknown, savepointed, out of order, a live writer; a held lock exits 4", async () => {
    const base = tableFresh(MOR6);
    const tl = await (await openTable(base)).timeline();
    const commits = tl.completedCommits();
    const digest = () => treeDigest(base, LOCKS_AND_HEARTBEATS);
    const d0 = digest();
    expectOneLineError(await cli(['commit', 'rollback', '--commit', '20000101000000000', '--path', base]), 1, 'Commit 20000101000000000 not found in Commits [');
    expectOneLineError(await cli(['commit', 'rollback', '--commit', commits[0]!.requestedTime, '--path', base]), 1, `Found commits after time :${commits[0]!.requestedTime}, please rollback greater commits first`);
    expect(digest()).toEqual(d0);
    // a pending write that is not the newest
    const older = await addDeleteCommit(base, { count: 1, pending: true });
    const newer = await addDeleteCommit(base, { count: 1, pending: true, fileGroup: 1 });
    const d1 = digest();
    expectOneLineError(await cli(['commit', 'rollback', '--commit', older.instant, '--path', base]), 1, `Found in-flight commits after time :${older.instant}, please rollback greater commits first`);
    // a live heartbeat: refused naming it, --force rolls it back
    writeFileSync(join(base, '.hoodie/.heartbeat', newer.instant), '');
    expectOneLineError(await cli(['commit', 'rollback', '--commit', newer.instant, '--path', base]), 1, `has a live heartbeat: .hoodie/.heartbeat/${newer.instant} was touched`);
    expect(digest()).toEqual(d1);
    // the lock of another process
    writeFileSync(join(base, '.hoodie/.aux/lock'), 'someone');
    expectOneLineError(await cli(['commit', 'rollback', '--commit', newer.instant, '--force', '--path', base]), 4, 'lock');
    rmSync(join(base, '.hoodie/.aux/lock'));
    expect((await cli(['commit', 'rollback', '--commit', newer.instant, '--force', '--path', base])).exitCode).toBe(0);
    expect((await cli(['commit', 'rollback', '--commit', older.instant, '--path', base])).exitCode).toBe(0);
    // savepointed
    const last = commits.at(-1)!.requestedTime;
    expect((await cli(['savepoint', 'create', '--commit', last, '--path', base])).exitCode).toBe(0);
    const d2 = digest();
    expectOneLineError(await cli(['commit', 'rollback', '--commit', last, '--path', base]), 1, `Could not rollback a savepointed commit. Delete savepoint first before rolling back ${last}`);
    expect(digest()).toEqual(d2);
  });

  it('a pending compaction goes back to requested; a requested one is refused with the fix', async () => {
    const base = tableFresh(MOR6);
    const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    expectOneLineError(await cli(['commit', 'rollback', '--commit', s.instant, '--path', base]), 1, `compaction ${s.instant} has not started (requested only)`);
    const t = await openTable(base);
    writeFileSync(join(t.timelineSource.timelineDir, `${s.instant}.compaction.inflight`), '');
    expect((await cli(['commit', 'rollback', '--commit', s.instant, '--path', base])).exitCode).toBe(0);
    const tl = await (await openTable(base)).timeline();
    expect(tl.find(s.instant).map((i) => [i.effectiveAction, i.state])).toEqual([['compaction', 'REQUESTED']]);
    expect((await runJson<{ status: string }>(['compaction', 'run', '--path', base], NOW)).status).toBe('completed');
  });
});

describe.skipIf(!HAVE_FIXTURES)('commit rollback of a completed compaction a later plan depends on', () => {
  it('is refused naming the plan (its rollback would delete the base files the plan compacts)', async () => {
    const base = tableFresh(MOR6);
    const c = await runJson<{ instant: string }>(['compaction', 'scheduleAndExecute', '--path', base, '--strategy', 'all'], NOW);
    const t = await openTable(base);
    const tl = await t.timeline();
    const C = tl.completedCommits().at(-1)!;
    expect(C.action).toBe('commit');
    const m = decodeCommitMetadata(await tl.read(C), { path: 'c' });
    const [partition, stats] = Object.entries(m.partitionToWriteStats)[0]!;
    const P = '20991231000000000';
    writeFileSync(
      join(t.timelineSource.timelineDir, `${P}.compaction.requested`),
      encodeCompactionPlan({
        operations: [{ baseInstantTime: C.requestedTime, deltaFilePaths: [], dataFilePath: stats[0]!.path!.split('/').pop()!, fileId: stats[0]!.fileId, partitionPath: partition, metrics: {}, bootstrapFilePath: null }],
        extraMetadata: null, version: 2, strategy: null, preserveHoodieMetadata: false, missingSchedulePartitions: null,
      }),
    );
    const d0 = treeDigest(base, LOCKS_AND_HEARTBEATS);
    expectOneLineError(await cli(['commit', 'rollback', '--commit', C.requestedTime, '--path', base]), 1, `compaction ${P} is planned on file slices ${C.requestedTime} wrote`);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(d0);
    expect(c).toBeDefined();
  });
});

describe.skipIf(!HAVE_FIXTURES)('rollback failed, savepoints, markers (CLI)', () => {
  it('rollback failed: dry run exit 3, --yes rolls back newest first, then nothing found (exit 0)', async () => {
    const base = tableFresh(COW6);
    const before = comparable(await snapshotRows(base));
    const a = await addDeleteCommit(base, { count: 1, pending: true });
    const b = await addDeleteCommit(base, { count: 1, pending: true, fileGroup: 1 });
    const digest = treeDigest(base);
    const dry = await cli(['rollback', 'failed', '--older-than', '0s', '--path', base]);
    expect(dry.exitCode, dry.stderr).toBe(3);
    expect(dry.stdout).toContain('2 failed write(s); nothing was changed');
    expect(treeDigest(base)).toEqual(digest);
    // younger than the default --older-than (1h): not failed yet
    expect((await cli(['rollback', 'failed', '--path', base])).stdout).toContain('No failed writes found.');
    const yes = await runJson<{ results: { instant: string; ok: boolean }[] }>(['rollback', 'failed', '--older-than', '0s', '--yes', '--path', base], NOW);
    expect(yes.results.map((x) => [x.instant, x.ok])).toEqual([[b.instant, true], [a.instant, true]]);
    expect(comparable(await snapshotRows(base))).toEqual(before);
    expect((await cli(['rollback', 'failed', '--older-than', '0s', '--path', base])).exitCode).toBe(0);
  });

  it('savepoint create/delete/rollback: hudi-cli messages, dry runs write nothing, errors name the instant', async () => {
    const base = tableFresh(COW6);
    const sp = (await (await openTable(base)).timeline()).completedCommits().at(-1)!.requestedTime;
    const d0 = treeDigest(base);
    expect((await cli(['savepoint', 'create', '--commit', sp, '--dry-run', '--path', base])).exitCode).toBe(3);
    expect(treeDigest(base)).toEqual(d0);
    const c = await cli(['savepoint', 'create', '--commit', sp, '--user', 'ops', '--comments', 'pre-upgrade', '--path', base]);
    expect(c.stdout).toContain(`The commit "${sp}" has been savepointed.`);
    expectOneLineError(await cli(['savepoint', 'create', '--commit', '20000101000000000', '--path', base]), 1, 'Commit 20000101000000000 not found in Commits');
    expectOneLineError(await cli(['savepoint', 'rollback', '--savepoint', '20000101000000000', '--path', base]), 1, 'Could not restore to savepoint 20000101000000000');
    await addDeleteCommit(base, { count: 1 });
    const d1 = treeDigest(base);
    const dry = await cli(['savepoint', 'rollback', '--savepoint', sp, '--dry-run', '--path', base]);
    expect(dry.exitCode, dry.stderr).toBe(3);
    expect(dry.stdout).toContain(`rolls back 1 instant(s)`);
    expect(treeDigest(base)).toEqual(d1);
    expect((await cli(['savepoint', 'rollback', '--savepoint', sp, '--path', base])).stdout).toContain(`Savepoint "${sp}" rolled back`);
    expect((await cli(['savepoint', 'delete', '--commit', sp, '--path', base])).stdout).toContain(`Savepoint "${sp}" deleted.`);
    expectOneLineError(await cli(['savepoint', 'delete', '--commit', sp, '--path', base]), 1, 'There are no completed savepoint to run delete');
  });

  it('marker delete: refuses a live writer, warns for a pending instant, deletes the directory', async () => {
    const base = tableFresh(MOR6);
    const w = await addDeleteCommit(base, { count: 1, pending: true });
    const dir = join(base, '.hoodie/.temp', w.instant);
    expect(existsSync(dir)).toBe(true);
    writeFileSync(join(base, '.hoodie/.heartbeat', w.instant), '');
    expectOneLineError(await cli(['marker', 'delete', '--commit', w.instant, '--path', base]), 1, 'its markers are what its rollback reads');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(base, '.hoodie/.heartbeat', w.instant), old, old);
    expect((await cli(['marker', 'delete', '--commit', w.instant, '--dry-run', '--path', base])).exitCode).toBe(3);
    expect(existsSync(dir)).toBe(true);
    const r = await cli(['marker', 'delete', '--commit', w.instant, '--path', base]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`Marker "${w.instant}" deleted.`);
    expect(r.stderr).toContain('its rollback is listing-based');
    expect(existsSync(dir)).toBe(false);
  });
});

describe.skipIf(!HAVE_FIXTURES)('repairs and table configs (CLI)', () => {
  it('repair addpartitionmeta: dry run by default (exit 3), --dryrun false writes the missing file', async () => {
    const base = tableFresh(COW6);
    const orig = readFileSync(join(base, '30/.hoodie_partition_metadata'));
    rmSync(join(base, '30/.hoodie_partition_metadata'));
    const dry = await runCli(['repair', 'addpartitionmeta', '--path', base, '--json'], NOW);
    expect(dry.exitCode).toBe(3);
    expect((JSON.parse(dry.stdout) as { rows: unknown[] }).rows).toEqual([
      { partitionPath: '10', metadataPresent: 'Yes', action: 'None' },
      { partitionPath: '20', metadataPresent: 'Yes', action: 'None' },
      { partitionPath: '30', metadataPresent: 'No', action: 'None' },
    ]);
    expect(existsSync(join(base, '30/.hoodie_partition_metadata'))).toBe(false);
    const r = await cli(['repair', 'addpartitionmeta', '--dryrun', 'false', '--path', base]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/30\s+│ No\s+│ Repaired/);
    const p = parseProperties(readFileSync(join(base, '30/.hoodie_partition_metadata')));
    expect(p.get('partitionDepth')).toBe(parseProperties(orig).get('partitionDepth'));
    expect(p.get('commitTime')).toBe((await (await openTable(base)).timeline()).completed().filter((i) => i.action === 'commit').at(-1)!.requestedTime);
  });

  it('table update-configs / delete-configs / recover-configs and repair overwrite-hoodie-props: old/new table, safe update, checksum', async () => {
    const base = tableFresh(COW6);
    const props = join(base, '.hoodie/hoodie.properties');
    const before = parseProperties(readFileSync(props));
    const file = join(base, '..', 'update.properties');
    writeFileSync(file, 'tblcli.test.key=1\nhoodie.datasource.write.hive_style_partitioning=false\n');
    const d0 = treeDigest(base);
    const dry = await cli(['table', 'update-configs', '--props-file', file, '--dry-run', '--path', base]);
    expect(dry.exitCode).toBe(3);
    expect(treeDigest(base)).toEqual(d0);
    const rows = await runJson<{ rows: { property: string; oldValue: string; newValue: string }[] }>(['table', 'update-configs', '--props-file', file, '--path', base], NOW);
    expect(rows.rows.find((x) => x.property === 'tblcli.test.key')).toEqual({ property: 'tblcli.test.key', oldValue: 'null', newValue: '1' });
    const after = parseProperties(readFileSync(props));
    expect(after.get('tblcli.test.key')).toBe('1');
    expect([...after.keys()].at(-1)).toBe('hoodie.table.checksum');
    expect(after.get('hoodie.table.checksum')).toBe(before.get('hoodie.table.checksum'));
    expect(existsSync(`${props}.backup`)).toBe(false);
    expect((await cli(['table', 'delete-configs', '--comma-separated-configs', 'tblcli.test.key', '--path', base])).stdout).toMatch(/tblcli\.test\.key\s+│ 1\s+│ null/);
    expect(parseProperties(readFileSync(props)).has('tblcli.test.key')).toBe(false);
    // a properties file that would not open: refused, nothing written
    writeFileSync(file, 'hoodie.table.type=COPY_ON_WRITE\n');
    const d1 = treeDigest(base, LOCKS_AND_HEARTBEATS);
    expectOneLineError(await cli(['repair', 'overwrite-hoodie-props', '--new-props-file', file, '--path', base]), 1, 'would not open');
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(d1);
    // overwrite without a checksum: recomputed
    const full = new Map(before);
    full.delete('hoodie.table.checksum');
    writeFileSync(file, [...full].map(([k, v]) => `${k}=${v.replace(/:/g, '\\:')}`).join('\n'));
    const o = await runJson<{ rows: { property: string; oldValue: string; newValue: string }[] }>(['repair', 'overwrite-hoodie-props', '--new-props-file', file, '--path', base], NOW);
    expect(o.rows.map((x) => x.property)).toEqual([...new Set([...before.keys(), ...full.keys()])].sort());
    expect(parseProperties(readFileSync(props)).get('hoodie.table.checksum')).toBe(before.get('hoodie.table.checksum'));
    // a crashed update: hoodie.properties gone, the backup left; recover-configs restores it
    writeFileSync(`${props}.backup`, readFileSync(props));
    rmSync(props);
    expect((await cli(['table', 'recover-configs', '--dry-run', '--path', base])).exitCode).toBe(3);
    const rec = await cli(['table', 'recover-configs', '--path', base]);
    expect(rec.exitCode, rec.stderr).toBe(0);
    expect(rec.stdout).toContain('hoodie.table.name');
    expect(existsSync(props)).toBe(true);
    expect(existsSync(`${props}.backup`)).toBe(false);
  });

  it('repair corrupted clean files and repair show empty commit metadata', async () => {
    const base = tableFresh(COW6);
    const t = await openTable(base);
    const clean = join(t.timelineSource.timelineDir, '20991231000000000.clean.requested');
    writeFileSync(clean, 'not avro');
    const dry = await cli(['repair', 'corrupted', 'clean', 'files', '--dry-run', '--path', base]);
    expect(dry.exitCode).toBe(3);
    expect(existsSync(clean)).toBe(true);
    expect((await cli(['repair', 'corrupted', 'clean', 'files', '--path', base])).stdout).toContain('20991231000000000');
    expect(existsSync(clean)).toBe(false);
    expect((await cli(['repair', 'show', 'empty', 'commit', 'metadata', '--path', base])).stdout).toContain('No empty commit metadata found.');
    const c = (await t.timeline()).completedCommits()[0]!;
    writeFileSync(c.files.COMPLETED!.path, '');
    const r = await cli(['repair', 'show', 'empty', 'commit', 'metadata', '--exit-code', '--path', base]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain(`Empty Commit: [${c.requestedTime}__commit__COMPLETED]`);
  });
});

describe.skipIf(!HAVE_FIXTURES)('compaction unscheduleFileId and compaction repair (CLI)', () => {
  it('v6: log files written into the pending compaction slice are renamed back; the plan loses the operation', async () => {
    const base = tableFresh(MOR6);
    const s = await runJson<{ instant: string; operations: number }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    const w = await addDeleteCommit(base, { count: 1, slice: 'pending-compaction' });
    expect(w.file).toContain(`_${s.instant}.log.1_`);
    const before = comparable(await snapshotRows(base));
    const d0 = treeDigest(base);
    const dry = await cli(['compaction', 'unscheduleFileId', '--fileId', w.fileId, '--dryRun', '--path', base]);
    expect(dry.exitCode, dry.stderr).toBe(3);
    expect(dry.stdout).toContain('There were some file renames that needed to be done to unschedule file from pending compaction');
    expect(treeDigest(base)).toEqual(d0);
    const r = await runJson<{ renames: { from: string; to: string; succeeded: boolean }[]; planRemoved: boolean }>(['compaction', 'unscheduleFileId', '--fileId', w.fileId, '--path', base], NOW);
    expect(r.renames).toHaveLength(1);
    expect(r.renames[0]!.succeeded).toBe(true);
    expect(existsSync(r.renames[0]!.from)).toBe(false);
    expect(r.renames[0]!.to).toMatch(/\.log\.\d+_1-0-1$/);
    // the file group is out of the plan, the delete still applies
    const plan = await runJson<{ fileId: string }[]>(['compaction', 'show', '--instant', s.instant, '--path', base], NOW).catch(() => []);
    expect(plan.map((x) => x.fileId)).not.toContain(w.fileId);
    expect(comparable(await snapshotRows(base))).toEqual(before);
  });

  it('v6: a log file written on the compacted slice after scheduling is moved onto the new slice by compaction repair', async () => {
    const base = tableFresh(MOR6);
    const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    const w = await addDeleteCommit(base, { count: 1, slice: 'before-pending-compaction' });
    expect((await cli(['compaction', 'repair', '--instant', s.instant, '--dryRun', '--path', base])).exitCode).toBe(3);
    const r = await runJson<{ renames: { from: string; to: string; succeeded: boolean }[] }>(['compaction', 'repair', '--instant', s.instant, '--path', base], NOW);
    expect(r.renames.map((x) => x.from.split('/').pop())).toEqual([w.file.split('/').pop()]);
    expect(r.renames[0]!.to).toContain(`_${s.instant}.log.1_1-0-1`);
    expect((await cli(['compaction', 'repair', '--instant', s.instant, '--path', base])).stdout).toContain('No File renames needed to repair compaction. Operation successful.');
  });

  it('v9 needs no renames: the file group leaves the plan', async () => {
    const base = tableFresh(MOR9);
    await addDeleteCommit(base, { count: 1 });
    const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    expect(s.instant).toMatch(/^\d{17}$/);
    const plan = await runJson<{ fileId: string }[]>(['compaction', 'show', '--instant', s.instant, '--path', base], NOW);
    const r = await cli(['compaction', 'unscheduleFileId', '--fileId', plan[0]!.fileId, '--path', base]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('No File renames needed to unschedule file from pending compaction. Operation successful.');
  });
});

describe.skipIf(!HAVE_TRINO_V6)('compaction unscheduleFileId on a v6 table with a metadata table', () => {
  it('renames would leave the metadata table listing old names: refused (nothing written) unless --metadata-table disable', async () => {
    const base = trinoV6Fresh();
    const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    const w = await addDeleteCommit(base, { count: 1, slice: 'pending-compaction' });
    expect(w.file).toContain(`_${s.instant}.log.`);
    const d0 = treeDigest(base, LOCKS_AND_HEARTBEATS);
    expectOneLineError(await cli(['compaction', 'unscheduleFileId', '--fileId', w.fileId, '--path', base]), 1, 'has a metadata table: renaming 1 log file(s)');
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(d0);
    const r = await cli(['compaction', 'unscheduleFileId', '--fileId', w.fileId, '--metadata-table', 'disable', '--path', base]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('metadata table');
    expect(existsSync(join(base, '.hoodie/metadata'))).toBe(false);
  });
});
