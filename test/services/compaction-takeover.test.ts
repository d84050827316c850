// Takeover safety: attempt A stalls (event loop blocked after writing its base files) past its
// heartbeat expiry; B rolls A back and re-runs the same instant. When A resumes it must find it no
// longer owns the instant and fail with a conflict (exit 1) without touching the timeline, B's
// heartbeat or B's files — whether B has already completed or is still running.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { runCompaction, type RunResult } from '../../src/services/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';
import { runCli } from '../support/run-cli.ts';
import { buildCompactionChild, runChild as runChildScript } from './support/build-child.ts';

let child = '';
beforeAll(async () => {
  child = await buildCompactionChild();
}, 60_000);

const runChild = (base: string, opts: object) => runChildScript(child, base, opts);

function dataFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.hoodie') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) dataFiles(p, out);
    else out.push(p);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const EXPIRY = 400;
const TABLE = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';

/** Starts A (schedules, runs, blocks at before-complete) and waits until it is blocked there. */
async function stalledA(base: string) {
  const ctl = mkdtempSync(join(tmpdir(), 'takeover-'));
  const pausedFile = join(ctl, 'paused');
  const resumeFile = join(ctl, 'resume');
  const done = runChild(base, { schedule: true, pauseAt: 'before-complete', pausedFile, resumeFile });
  for (let n = 0; n < 600 && !existsSync(pausedFile); n++) await sleep(25);
  expect(existsSync(pausedFile)).toBe(true);
  const tl = await (await openTable(base)).timeline();
  const T = tl.pending().find((i) => i.effectiveAction === 'compaction')!.requestedTime;
  // A's heartbeat is now older than B's expiry
  await sleep(EXPIRY + 200);
  return { T, done, resume: () => writeFileSync(resumeFile, '') };
}

async function checkTable(base: string, before: unknown, oldCompactions: Set<string>, T: string, b: RunResult) {
  const tl = await (await openTable(base)).timeline();
  const comp = tl.instants.filter((i) => i.effectiveAction === 'compaction' && !oldCompactions.has(i.requestedTime));
  expect(comp.map((i) => [i.requestedTime, i.state])).toEqual([[T, 'COMPLETED']]);
  expect(tl.pending()).toHaveLength(0);
  // one rollback of A's attempt, done by B
  const rollbacks = tl.instants.filter((i) => i.action === 'rollback' && i.requestedTime > T);
  expect(rollbacks.map((i) => i.requestedTime)).toEqual([b.rolledBack!.rollbackInstant]);
  const rows = await snapshotRows(base);
  expect(comparable(rows)).toEqual(before);
  const keys = rows.map((x) => `${x._hoodie_partition_path}/${x._hoodie_record_key}`);
  expect(new Set(keys).size).toBe(keys.length);
  // every file B wrote is there, and they are the only new data files
  const written = b.writeStats.map((s) => join(base, s.path ?? "")).sort();
  expect(written.length).toBeGreaterThan(0);
  for (const f of written) expect(existsSync(f), f).toBe(true);
  expect(dataFiles(base).filter((f) => f.endsWith(`_${T}.parquet`)).sort()).toEqual(written);
  expect(existsSync(join(base, '.hoodie/.heartbeat', T))).toBe(false);
  expect(existsSync(join(base, '.hoodie/.aux/lock'))).toBe(false);
}

describe.skipIf(!HAVE_FIXTURES)('compaction takeover of a stalled attempt', () => {
  it('B takes over and completes; A resumes, fails with a conflict (exit 1) and changes nothing', async () => {
    const base = tableFresh(TABLE);
    const before = comparable(await snapshotRows(base));
    const oldCompactions = new Set((await (await openTable(base)).timeline()).instants.filter((i) => i.effectiveAction === 'compaction').map((i) => i.requestedTime));
    const a = await stalledA(base);
    const b = await runCompaction(await openTable(base), { clockSkewMs: 1, metadataTable: 'disable', heartbeatExpiryMs: EXPIRY });
    expect(b.status).toBe('completed');
    expect(b.instant).toBe(a.T);
    expect(b.rolledBack?.instant).toBe(a.T);
    expect(b.rolledBack!.deletedFiles.length).toBeGreaterThan(0);
    a.resume();
    const r = await a.done;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`compaction ${a.T}`);
    expect(r.stderr).toMatch(/no longer owns the instant/);
    await checkTable(base, before, oldCompactions, a.T, b);
  }, 60_000);

  it('A resumes while B is still running: A fails without rolling back B or deleting its heartbeat; B then completes', async () => {
    const base = tableFresh(TABLE);
    const before = comparable(await snapshotRows(base));
    const oldCompactions = new Set((await (await openTable(base)).timeline()).instants.filter((i) => i.effectiveAction === 'compaction').map((i) => i.requestedTime));
    const a = await stalledA(base);
    let reached!: () => void;
    const atPoint = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const bDone = runCompaction(await openTable(base), {
      clockSkewMs: 1,
      metadataTable: 'disable',
      heartbeatExpiryMs: EXPIRY,
      onPoint: async (p) => {
        if (p !== 'before-complete') return;
        reached();
        await gate;
      },
    });
    // B holds the instant and has written all its files (A's were rolled back)
    await Promise.race([atPoint, bDone]);
    const hb = join(base, '.hoodie/.heartbeat', a.T);
    const bHeartbeat = readFileSync(hb, 'utf8').split('\n')[0];
    expect(bHeartbeat).toMatch(/^tblcli-attempt [0-9a-f]+$/);
    const bFiles = dataFiles(base).filter((f) => f.endsWith(`_${a.T}.parquet`)).sort();
    expect(bFiles.length).toBeGreaterThan(0);
    const timelineBefore = readdirSync(join(base, '.hoodie/timeline')).sort();

    a.resume();
    const r = await a.done;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`compaction ${a.T}.*no longer owns the instant`));
    // A left the timeline, B's heartbeat and B's files alone
    expect(readdirSync(join(base, '.hoodie/timeline')).sort()).toEqual(timelineBefore);
    expect(readFileSync(hb, 'utf8').split('\n')[0]).toBe(bHeartbeat);
    for (const f of bFiles) expect(existsSync(f), f).toBe(true);

    release();
    const b = await bDone;
    expect(b.status).toBe('completed');
    expect(b.rolledBack?.instant).toBe(a.T);
    await checkTable(base, before, oldCompactions, a.T, b);
  }, 60_000);

  it('compaction run names the rollback instant of the attempt it rolled back (--verbose and --json)', async () => {
    for (const mode of ['--verbose', '--json']) {
      const base = tableFresh(TABLE);
      const c = await runChild(base, { schedule: true, crashAt: 'after-base-file' });
      expect(c.code).toBeNull();
      await sleep(EXPIRY + 100);
      const r = await runCli(['compaction', 'run', '--path', base, '--heartbeat-expiry', `${EXPIRY}ms`, '--metadata-table', 'disable', mode]);
      expect(r.exitCode, r.stderr).toBe(0);
      const tl = await (await openTable(base)).timeline();
      const rb = tl.instants.filter((i) => i.action === 'rollback' && i.state === 'COMPLETED').at(-1)!.requestedTime;
      if (mode === '--json') expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', rollbackInstant: rb });
      else expect(r.stderr).toMatch(new RegExp(`Compaction successfully completed for \\d+ after rolling back the previous attempt \\(rollback ${rb}\\)`));
    }
  }, 60_000);
});
