// Crash safety: a child process running the compaction is SIGKILLed at each point; the snapshot never
// changes, and the next `compaction run` leaves the table complete — every record once, no stray file.
// Two concurrent runs: exactly one executes, the other exits 4 (or waits with --wait).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { runCompaction } from '../../src/services/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { allFiles } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';
import { buildCompactionChild } from './support/build-child.ts';

let child = '';
beforeAll(async () => {
  child = await buildCompactionChild();
}, 60_000);

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(base: string, opts: object): { done: Promise<ChildResult> } {
  const p = spawn(process.execPath, [child, base, JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  return { done: new Promise((r) => p.on('close', (code, signal) => r({ code, signal, stdout, stderr }))) };
}


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
        const c = await runChild(base, { schedule: true, crashAt: point, heartbeatExpiryMs: EXPIRY }).done;
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
    const second = await runChild(base, { heartbeatExpiryMs: 10_000 }).done;
    const waiting = runChild(base, { wait: true, heartbeatExpiryMs: 10_000 });
    const a = await first.done;
    const w = await waiting.done;
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
