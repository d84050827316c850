// `orphans --delete --yes`: quarantines exactly the reported deletable orphans, keeps live in-progress
// and young files, never moves files of a pending instant without an expired heartbeat, re-reads the
// timeline before deleting, and the table reads the same afterwards.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { openTable, loadFileSystemView } from '../../src/table/index.ts';
import { decodeCommitMetadata, encodeCommitMetadataAvro, encodeCommitMetadataJson } from '../../src/metadata/index.ts';
import { completeInstant, newInstantTime, timesOnTimeline } from '../../src/timeline/index.ts';
import { deleteOrphans, findOrphans, ROLL_BACK_FIRST, type DeleteResult, type Orphan } from '../../src/triage/index.ts';
import type { DemoSummary } from '../../src/demo/index.ts';
import { demoTable, scanOf } from './support.ts';

async function latestSlices(dir: string): Promise<string> {
  const view = await loadFileSystemView(await openTable(dir));
  return JSON.stringify(view.latestFileSlices().map((s) => [s.partition, s.fileId, s.baseInstant, s.baseFile?.name, s.logFiles.map((l) => l.name)]));
}

/** Every file under the table (.hoodie included, the trash left out) with size and mtime. */
function listing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = join(e.parentPath, e.name);
    const rel = abs.slice(dir.length + 1);
    if (e.isDirectory() || rel.startsWith('.hoodie/.tblcli-trash/')) continue;
    const st = statSync(abs);
    out.set(rel, `${st.size}@${st.mtimeMs}`);
  }
  return out;
}

/** The listing without the deletable orphans (a deletable dir takes everything below it). */
function withoutDeletable(files: Map<string, string>, listed: Orphan[]): [string, string][] {
  const gone = listed.filter((o) => o.deletable).map((o) => o.path);
  return [...files].filter(([p]) => !gone.some((g) => p === g || p.startsWith(`${g}/`))).sort();
}

const paths = (demo: DemoSummary, k: string) => demo.problems.filter((p) => p.kind === k).flatMap((p) => p.paths);

/** The demo with its zombie files hours old (the in-progress file stays young = live) and a young unparseable file. */
async function agedDemo(version: 6 | 8, now: Date) {
  const { dir, demo } = await demoTable(version, now);
  const old = new Date(now.getTime() - 3 * 3600_000);
  const [inprogress, pending] = paths(demo, 'flink-leftover') as [string, string];
  utimesSync(join(dir, pending), old, old);
  for (const p of [...paths(demo, 'orphan-data-file'), ...[...paths(demo, 'marker-dir')].reverse()]) utimesSync(join(dir, p), old, old);
  writeFileSync(join(dir, 'region=us', 'notes.txt'), 'young');
  const stuck = demo.problems.find((p) => p.kind === 'stuck-inflight')!.instants![0]!;
  return { dir, demo, old, inprogress, pending, stuck, dataFile: paths(demo, 'orphan-data-file')[0]!, markerDir: paths(demo, 'marker-dir')[0]! };
}

/** A heartbeat file of `instant` last beaten at `at` (Storage has no utimes: node:fs here). */
function heartbeat(dir: string, instant: string, at: Date): void {
  mkdirSync(join(dir, '.hoodie', '.heartbeat'), { recursive: true });
  const f = join(dir, '.hoodie', '.heartbeat', instant);
  writeFileSync(f, '');
  utimesSync(f, at, at);
}

/** Runs list, --delete --yes, and checks: moved = deletable, everything else (files and table reads) unchanged. */
async function deleteAndCheck(dir: string, now: Date) {
  const before = { commits: (await runCli(['commits', 'show', '--path', dir, '--json'], { now })).stdout, slices: await latestSlices(dir) };
  const listed = JSON.parse((await runCli(['orphans', '--path', dir, '--json'], { now })).stdout) as Orphan[];
  const kept = withoutDeletable(listing(dir), listed);
  const r = await runCli(['orphans', '--path', dir, '--delete', '--yes', '--json'], { now });
  expect(r.exitCode).toBe(0);
  const results = JSON.parse(r.stdout) as (DeleteResult & { to: string | null })[];
  const moved = results.filter((x) => x.action === 'moved');
  expect(moved.map((x) => x.path).sort()).toEqual(listed.filter((o) => o.deletable).map((o) => o.path).sort());
  expect(results.filter((x) => x.action === 'kept').map((x) => x.path).sort()).toEqual(listed.filter((o) => !o.deletable).map((o) => o.path).sort());
  const runs = moved.length > 0 ? readdirSync(join(dir, '.hoodie', '.tblcli-trash')) : [];
  for (const m of moved) {
    expect(m.to).toBe(`.hoodie/.tblcli-trash/${runs[0]}/${m.path}`);
    expect(existsSync(join(dir, m.path))).toBe(false);
    expect(existsSync(join(dir, m.to!))).toBe(true);
  }
  expect(listing(dir).size).toBe(kept.length);
  expect([...listing(dir)].sort()).toEqual(kept);
  const after = { commits: (await runCli(['commits', 'show', '--path', dir, '--json'], { now })).stdout, slices: await latestSlices(dir) };
  expect(after).toEqual(before);
  return { listed, results };
}

describe.each([6, 8] as const)('orphans --delete on demo v%i', (version) => {
  it('a pending instant without a heartbeat file: its data file and markers are reported, never moved', async () => {
    const now = new Date();
    const { dir, inprogress, pending, dataFile, markerDir, stuck } = await agedDemo(version, now);
    const listed = JSON.parse((await runCli(['orphans', '--path', dir, '--json', '--older-than', '1s'], { now })).stdout) as Orphan[];
    expect(listed.filter((o) => o.deletable).map((o) => o.path)).toEqual([pending]);
    const data = listed.find((o) => o.path === dataFile)!;
    expect([data.kind, data.instant, data.instantState, data.heartbeat, data.deletable]).toEqual(['uncommitted-file', stuck, 'inflight', 'missing', false]);
    // JSON has no keepReason field: the reason column carries it
    expect(data.reason).toContain(`kept: instant ${stuck} is inflight with no heartbeat file`);
    expect(data.reason).toContain(ROLL_BACK_FIRST);
    const marker = listed.find((o) => o.path === markerDir)!;
    expect([marker.kind, marker.deletable]).toEqual(['marker-dir', false]);
    expect(listed.find((o) => o.path === inprogress)!.deletable).toBe(false);
    expect(listed.find((o) => o.path === 'region=us/notes.txt')!.deletable).toBe(false);

    expect((await runCli(['orphans', '--path', dir, '--delete'], { now })).exitCode).toBe(2);
    expect(existsSync(join(dir, pending))).toBe(true);

    const { results } = await deleteAndCheck(dir, now);
    expect(results.filter((x) => x.action === 'moved').map((x) => x.path)).toEqual([pending]);
    for (const p of [dataFile, markerDir, inprogress, 'region=us/notes.txt']) expect(existsSync(join(dir, p))).toBe(true);
    // the trash is under .hoodie: not listed as orphans again
    const again = JSON.parse((await runCli(['orphans', '--path', dir, '--json'], { now })).stdout) as Orphan[];
    expect(again.map((o) => o.path).sort()).toEqual(listed.filter((o) => !o.deletable).map((o) => o.path).sort());
  });

  it('a heartbeat file that exists and expired: the data file is moved, the markers (pending instant) stay', async () => {
    const now = new Date();
    const { dir, old, pending, dataFile, markerDir, stuck } = await agedDemo(version, now);
    heartbeat(dir, stuck, old);
    const { listed } = await deleteAndCheck(dir, now);
    const data = listed.find((o) => o.path === dataFile)!;
    expect([data.heartbeat, data.deletable]).toEqual(['expired', true]);
    expect(listed.filter((o) => o.deletable).map((o) => o.path).sort()).toEqual([dataFile, pending].sort());
    expect(existsSync(join(dir, markerDir))).toBe(true);
  });

  it('a live heartbeat keeps the data file even when it is old', async () => {
    const now = new Date();
    const { dir, dataFile, stuck } = await agedDemo(version, now);
    heartbeat(dir, stuck, new Date(now.getTime() - 10_000));
    const data = findOrphans(await scanOf(dir, now)).find((o) => o.path === dataFile)!;
    expect([data.heartbeat, data.deletable, data.keepReason]).toEqual(['alive', false, `instant ${stuck} has a live heartbeat`]);
  });

  it('an instant removed from the timeline (its files remain): data file and marker dir are moved', async () => {
    const now = new Date();
    const { dir, pending, dataFile, markerDir, stuck } = await agedDemo(version, now);
    const tlDir = join(dir, '.hoodie', version === 8 ? 'timeline' : '');
    const removed = readdirSync(tlDir).filter((n) => n.startsWith(`${stuck}.`));
    expect(removed).toHaveLength(2);
    for (const n of removed) rmSync(join(tlDir, n));
    const { listed } = await deleteAndCheck(dir, now);
    expect(listed.filter((o) => o.deletable).map((o) => o.path).sort()).toEqual([dataFile, markerDir, pending].sort());
    expect(listed.find((o) => o.path === dataFile)!.instantState).toBe('absent');
    expect(existsSync(join(dir, dataFile))).toBe(false);
    expect(existsSync(join(dir, markerDir))).toBe(false);
  });

  it('an instant that completes between the scan and the delete loses nothing', async () => {
    const now = new Date();
    const { dir, old, pending, dataFile, markerDir, stuck } = await agedDemo(version, now);
    heartbeat(dir, stuck, old);
    const scan = await scanOf(dir, now);
    const orphans = findOrphans(scan);
    expect(orphans.find((o) => o.path === dataFile)!.deletable).toBe(true);

    // the writer finishes: the inflight workload, with the file's path, becomes the completed metadata
    const table = await openTable(dir);
    const tl = await table.timeline();
    const inflight = tl.find(stuck).find((i) => i.state === 'INFLIGHT')!;
    const m = decodeCommitMetadata(await tl.read(inflight, 'INFLIGHT', false), { path: inflight.files.INFLIGHT!.path });
    for (const stats of Object.values(m.partitionToWriteStats)) for (const s of stats) s.path = dataFile;
    const bytes = version === 8 ? encodeCommitMetadataAvro(m) : encodeCommitMetadataJson(m);
    const completion = version === 8 ? newInstantTime(timesOnTimeline(tl), table.config.timezone, new Date()) : undefined;
    await completeInstant(table.timelineSource, stuck, 'deltacommit', 'deltacommit', bytes, completion);

    const r = await deleteOrphans(scan, orphans, { run: 'race' });
    const byPath = new Map(r.results.map((x) => [x.path, x]));
    expect(byPath.get(dataFile)).toMatchObject({ action: 'skipped', reason: `instant ${stuck} completed since the scan` });
    expect(byPath.get(markerDir)!.action).toBe('kept');
    expect(r.results.filter((x) => x.action === 'moved').map((x) => x.path)).toEqual([pending]);
    expect(existsSync(join(dir, dataFile))).toBe(true);
    expect(existsSync(join(dir, '.hoodie', '.tblcli-trash', 'race', dataFile))).toBe(false);
    // the table now serves the file as part of the completed instant
    expect(await latestSlices(dir)).toContain(dataFile.split('/').pop());
  });

  it('a marker dir that got a new marker file since the scan is skipped', async () => {
    const now = new Date();
    const { dir, markerDir, stuck } = await agedDemo(version, now);
    const tlDir = join(dir, '.hoodie', version === 8 ? 'timeline' : '');
    for (const n of readdirSync(tlDir).filter((x) => x.startsWith(`${stuck}.`))) rmSync(join(tlDir, n));
    const scan = await scanOf(dir, now);
    const orphans = findOrphans(scan);
    expect(orphans.find((o) => o.path === markerDir)!.deletable).toBe(true);
    writeFileSync(join(dir, markerDir, 'late.marker.CREATE'), '');
    const r = await deleteOrphans(scan, orphans, { run: 'late' });
    expect(r.results.find((x) => x.path === markerDir)).toMatchObject({ action: 'skipped', reason: 'modified since the scan' });
    expect(existsSync(join(dir, markerDir, 'late.marker.CREATE'))).toBe(true);
  });

  it('--purge removes instead of moving', async () => {
    const now = new Date();
    const { dir, pending } = await agedDemo(version, now);
    const r = await runCli(['orphans', '--path', dir, '--delete', '--purge', '--yes', '--json'], { now });
    const results = JSON.parse(r.stdout) as DeleteResult[];
    expect(results.filter((x) => x.action === 'purged').map((x) => x.path)).toEqual([pending]);
    expect(existsSync(join(dir, pending))).toBe(false);
    expect(existsSync(join(dir, '.hoodie', '.tblcli-trash'))).toBe(false);
  });
});

describe('--older-than', () => {
  it('a value that is not a duration → usage error, exit 2', async () => {
    const { dir } = await demoTable(8);
    const r = await runCli(['orphans', '--path', dir, '--older-than', 'soon'], {});
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--older-than.*duration.*soon/);
  });
});
