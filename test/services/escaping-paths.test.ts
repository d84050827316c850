// No path from table metadata may leave the table (issue 13 §5). Each escaping form is planted in a
// real table's metadata — a compaction plan's operations, a pending rollback plan, a timeline-server
// marker file — and every command that would act on it must refuse with one line naming the instant
// and the entry, writing nothing: the table stays byte-identical and the victim outside it untouched.
// Also through the WebHDFS test server, and through a symbolic link out of the table.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { decodeCommitMetadata, decodeCompactionPlan, encodeCommitMetadataJson, encodeCompactionPlan, encodeRollbackPlan, type CompactionPlan } from '../../src/metadata/index.ts';
import { rollbackInstant, runCompaction, scheduleCompaction, underLock } from '../../src/services/index.ts';
import { confineStorage, resolveTableEntry } from '../../src/storage/confine.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';
import { demoTable } from '../triage/support.ts';

const V6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
const V8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const OPTS = { clockSkewMs: 1, metadataTable: 'disable' as const };

async function refused(p: Promise<unknown>): Promise<TblError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e, 'the command should have refused').toBeInstanceOf(TblError);
  const err = e as TblError;
  expect(err.message).not.toContain('\n');
  return err;
}

/** A victim file next to the table (the tables sit in their own temp dir, so ../victim is outside). */
function victim(base: string): string {
  const v = join(dirname(base), 'victim.parquet');
  writeFileSync(v, 'do not touch');
  return v;
}

describe('resolveTableEntry', () => {
  const s = new LocalStorage();
  const base = '/data/t';
  const ok = (e: string, rel?: string) => resolveTableEntry(s, base, e, { source: 'test', instant: '1', relativeTo: rel });
  const no = (e: string) => expect(() => ok(e), e).toThrow(TblError);

  it('takes relative names, absolute paths and file: URIs inside the table', () => {
    expect(ok('p=1/a.parquet')).toBe('/data/t/p=1/a.parquet');
    expect(ok('a.parquet', '/data/t/p=1')).toBe('/data/t/p=1/a.parquet');
    expect(ok('/data/t/p=1/a.parquet')).toBe('/data/t/p=1/a.parquet');
    expect(ok('file:/data/t/p=1/a.parquet')).toBe('/data/t/p=1/a.parquet');
    expect(ok('file:///data/t/a.parquet')).toBe('/data/t/a.parquet');
  });

  it('refuses .., percent-encoded .., absolute paths and URIs outside it, other file systems, the base itself', () => {
    for (const e of ['../../etc/passwd', 'p/../../x', '/etc/passwd', '/data/t2/a', '/data/t', 'file:/etc/passwd', 'hdfs://other-cluster/data/t/a', 'webhdfs://nn:9870/data/t/a', '%2e%2e/x', 'p/%2E%2E/%2e%2e/x', '%2e%2e%2fx', 'a\0b', '']) no(e);
  });

  it('an error names the instant and the entry', () => {
    try {
      ok('../../etc/passwd');
      expect.unreachable();
    } catch (e) {
      expect((e as TblError).message).toMatch(/^instant 1: test entry "\.\.\/\.\.\/etc\/passwd" climbs out/);
    }
  });
});

describe('confineStorage', () => {
  it('refuses to write, rename or delete outside the root, or through a symbolic link that leaves it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-confine-'));
    const root = join(dir, 't');
    const outside = join(dir, 'outside');
    mkdirSync(join(root, 'p'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep'), 'x');
    symlinkSync(outside, join(root, 'link'));
    const s = confineStorage(new LocalStorage(), root);
    await s.writeNew(join(root, 'p', 'ok'), new Uint8Array(1));
    await expect(s.writeNew(join(root, 'link', 'evil'), new Uint8Array(1))).rejects.toThrow(/symbolic link/);
    await expect(s.delete(join(root, 'link', 'keep'))).rejects.toThrow(/symbolic link/);
    // the batch forms check every path (each directory once) before touching any
    writeFileSync(join(root, 'p', 'a'), 'a');
    await expect(s.deleteEach!([join(root, 'p', 'a'), join(root, 'link', 'keep')])).rejects.toThrow(/symbolic link/);
    await expect(s.deleteEach!([join(root, 'p', 'a'), `${root}/p/../../outside/keep`])).rejects.toThrow(/climbs out/);
    await expect(s.readEach!([join(root, 'p', 'a'), join(root, 'link', 'keep')], (b) => b.length)).rejects.toThrow(/symbolic link/);
    await expect(s.deleteOrdered!([{ first: [join(root, 'p', 'a')], last: join(root, 'link', 'keep') }])).rejects.toThrow(/symbolic link/);
    await expect(s.deleteOrdered!([{ first: [join(root, 'link', 'keep')], last: join(root, 'p', 'a') }])).rejects.toThrow(/symbolic link/);
    await expect(s.deleteOrdered!([{ first: [], last: root }])).rejects.toThrow(/table root/);
    expect(readdirSync(join(root, 'p')).sort()).toEqual(['a', 'ok']);
    expect(await s.readEach!([join(root, 'p', 'a')], (b) => b.length)).toEqual([1]);
    await expect(s.writeNew(join(root, '..', 'evil'), new Uint8Array(1))).rejects.toThrow(/outside the table/);
    await expect(s.writeNew(join(dir, 'evil'), new Uint8Array(1))).rejects.toThrow(/outside the table/);
    await expect(s.writeNew(`${root}/p/../../evil`, new Uint8Array(1))).rejects.toThrow(/climbs out/);
    await expect(s.rename(join(root, 'p', 'ok'), join(outside, 'ok'))).rejects.toThrow(/symbolic link|outside/);
    expect(readdirSync(outside)).toEqual(['keep']);
    // the link itself is inside the table: removing it removes the link, not its target
    expect(await s.delete(join(root, 'link'))).toBe(true);
    expect(readdirSync(outside)).toEqual(['keep']);
  });
});

/** A fresh table with a real compaction plan, and a function that rewrites the plan's first operation. */
async function withPlan(id: string) {
  const base = tableFresh(id);
  const s = await scheduleCompaction(await openTable(base), { ...OPTS, strategy: 'all' });
  const instant = s.instant!;
  const tlDir = (await openTable(base)).timelineSource.timelineDir;
  const planFile = join(tlDir, `${instant}.compaction.requested`);
  const plan = decodeCompactionPlan(readFileSync(planFile), { path: planFile });
  const plant = (edit: (p: CompactionPlan) => void) => {
    const p = structuredClone(plan);
    edit(p);
    writeFileSync(planFile, encodeCompactionPlan(p));
  };
  return { base, instant, plan, plant, tlDir };
}

const PLANTS: [string, (p: CompactionPlan, victimName: string) => void][] = [
  ['a base file named ../../victim.parquet', (p) => (p.operations![0]!.dataFilePath = '../../victim.parquet')],
  ['a base file named by an absolute path outside', (p, v) => (p.operations![0]!.dataFilePath = v)],
  ['a log file named %2e%2e', (p) => (p.operations![0]!.deltaFilePaths = ['%2e%2e'])],
  ['a partition ../..', (p) => (p.operations![0]!.partitionPath = '../..')],
  ['a partition /etc', (p) => (p.operations![0]!.partitionPath = '/etc')],
  ['a partition hdfs://other-cluster/warehouse', (p) => (p.operations![0]!.partitionPath = 'hdfs://other-cluster/warehouse')],
  ['a partition p/%2E%2E/%2e%2e', (p) => (p.operations![0]!.partitionPath = 'p/%2E%2E/%2e%2e')],
];

describe.skipIf(!HAVE_FIXTURES)('escaping paths planted in real tables are refused, nothing changes', () => {
  for (const id of [V6, V8]) {
    it.each(PLANTS.map(([name, edit]) => [name, edit] as const))(`${id}: compaction plan with %s`, async (_name, edit) => {
      const { base, instant, plant } = await withPlan(id);
      const v = victim(base);
      plant((p) => edit(p, v));
      const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
      const e = await refused(runCompaction(await openTable(base), { ...OPTS, instant }));
      expect(e.kind).toBe('metadata');
      expect(e.message).toContain(instant);
      expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
      expect(readFileSync(v, 'utf8')).toBe('do not touch');
    });
  }

  it(`${V6}: a pending rollback plan of a dead compaction naming files outside (absolute, file: URI, ..)`, async () => {
    for (const entry of ['VICTIM', 'file:VICTIM', '../victim.parquet', 'hdfs://other-cluster/x.parquet']) {
      const { base, instant, tlDir } = await withPlan(V6);
      const v = victim(base);
      // the compaction is inflight with no heartbeat (dead); a rollback of it was planned and is pending
      writeFileSync(join(tlDir, `${instant}.compaction.inflight`), '');
      const rb = String(BigInt(instant) + 1n);
      const file = entry.replace('VICTIM', v);
      writeFileSync(join(tlDir, `${rb}.rollback.requested`), encodeRollbackPlan({
        instantToRollback: { commitTime: instant, action: 'compaction' },
        RollbackRequests: [{ partitionPath: '', fileId: '', latestBaseInstant: '', filesToBeDeleted: [file], logBlocksToBeDeleted: {} }],
        version: 1,
      }));
      const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
      const e = await refused(runCompaction(await openTable(base), { ...OPTS, instant, heartbeatExpiryMs: 1 }));
      expect(e.message).toContain(`instant ${rb}: rollback plan entry`);
      expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
      expect(readFileSync(v, 'utf8')).toBe('do not touch');
    }
  });

  it(`${V6}: a timeline-server marker file of a dead compaction naming ../../victim`, async () => {
    const { base, instant, tlDir } = await withPlan(V6);
    const v = victim(base);
    writeFileSync(join(tlDir, `${instant}.compaction.inflight`), '');
    const markers = join(base, '.hoodie', '.temp', instant);
    mkdirSync(markers, { recursive: true });
    writeFileSync(join(markers, 'MARKERS.type'), 'TIMELINE_SERVER_BASED');
    writeFileSync(join(markers, 'MARKERS0'), `${relative(base, v)}.marker.CREATE\n`);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const e = await refused(runCompaction(await openTable(base), { ...OPTS, instant, heartbeatExpiryMs: 1 }));
    expect(e.message).toMatch(new RegExp(`^instant ${instant}: marker entry ".*victim\\.parquet" climbs out`));
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(readFileSync(v, 'utf8')).toBe('do not touch');
  });

  it(`${V6}: a partition directory replaced by a symbolic link out of the table`, async () => {
    const { base, instant, plan } = await withPlan(V6);
    const partition = plan.operations!.find((o) => o.partitionPath)!.partitionPath!;
    const outside = join(dirname(base), 'moved-partition');
    renameSync(join(base, partition), outside);
    symlinkSync(outside, join(base, partition));
    const outsideBefore = treeDigest(outside);
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const e = await refused(runCompaction(await openTable(base), { ...OPTS, instant }));
    expect(e.message).toMatch(/symbolic link/);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(treeDigest(outside)).toEqual(outsideBefore);
  });
});

describe.skipIf(!HAVE_FIXTURES)('escaping paths over WebHDFS', () => {
  let server: WebHdfsServer;
  let root: string;
  beforeAll(async () => {
    // the per-run temp root holds every fresh table copy (and the victims beside them)
    root = tmpdir();
    server = await startWebHdfsServer({ root });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(PLANTS.map(([name, edit]) => [name, edit] as const))(`${V8}: compaction plan with %s`, async (_name, edit) => {
    const { base, instant, plant } = await withPlan(V8);
    const hdfsBase = `/${relative(root, base)}`;
    const v = victim(base);
    plant((p) => edit(p, `/${relative(root, v)}`));
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const e = await refused(runCompaction(await openTable(server.uri(hdfsBase)), { ...OPTS, instant }));
    expect(e.kind).toBe('metadata');
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(readFileSync(v, 'utf8')).toBe('do not touch');
  });
});

describe('orphans --delete stays inside the table', () => {
  it('a partition that is a symbolic link out of the table: its orphans are not moved out of (or into) it', async () => {
    const now = new Date();
    const { dir, demo } = await demoTable(8, now);
    const old = new Date(now.getTime() - 3 * 3600_000);
    const leftovers = demo.problems.filter((p) => p.kind === 'flink-leftover').flatMap((p) => p.paths);
    for (const p of leftovers) utimesSync(join(dir, p), old, old);
    const partition = leftovers[0]!.split('/')[0]!;
    const outside = join(dirname(dir), 'elsewhere');
    renameSync(join(dir, partition), outside);
    symlinkSync(outside, join(dir, partition));
    const outsideBefore = treeDigest(outside);
    const listed = JSON.parse((await runCli(['orphans', '--path', dir, '--json'], { now })).stdout) as { path: string; deletable: boolean }[];
    expect(listed.some((o) => o.deletable && o.path.startsWith(`${partition}/`))).toBe(true);
    const r = await runCli(['orphans', '--path', dir, '--delete', '--yes'], { now });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(treeDigest(outside)).toEqual(outsideBefore);
  });
});

describe.skipIf(!HAVE_FIXTURES)('write stats naming files outside the table', () => {
  it(`${V6}: a listing-based rollback of a delta commit whose write stat names ../../victim refuses before writing`, async () => {
    const base = tableFresh(V6);
    const v = victim(base);
    const t = await openTable(base);
    const tl = await t.timeline();
    const dc = tl.completed().filter((i) => i.action === 'deltacommit').at(-1)!;
    const m = decodeCommitMetadata(readFileSync(dc.files.COMPLETED!.path), { path: dc.files.COMPLETED!.path });
    const [partition, stats] = Object.entries(m.partitionToWriteStats).find(([, s]) => s.some((x) => x.prevCommit && x.prevCommit !== 'null'))!;
    const stat = stats.find((x) => x.prevCommit && x.prevCommit !== 'null')!;
    stat.path = `${partition}/../../../${relative(dirname(base), v).replace('victim.parquet', '.victim_00000000000000000.log.1_0-0-0')}`;
    writeFileSync(dc.files.COMPLETED!.path, encodeCommitMetadataJson(m, { delta: true }));
    const before = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const e = await refused(underLock(t, { clockSkewMs: 1 }, (locked) => rollbackInstant(locked, dc.requestedTime, { targetFiles: 'delete', clockSkewMs: 1 })));
    expect(e.message).toMatch(/rollback plan entry .* climbs out/);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(before);
    expect(readFileSync(v, 'utf8')).toBe('do not touch');
  });
});
