// Crash safety of the clean (issue 16): a child process running `cleans run` is SIGKILLed after
// planning, in the middle of the deletions, before completion (and, with a metadata table, after the
// MDT deltacommit); the next run completes the same plan — same instant — and deletes nothing else.
// Files the killed run had deleted are recorded as failed deletes, as Hudi records them.
// A writer committing while the clean runs (our writer, in this process; the clean in a child): no
// file of the new commit is touched.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCleanerPlan, decodeCleanMetadata } from '../../src/metadata/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { snapshotAsOf } from './support/asof.ts';
import { buildCleanChild, runChild as runChildScript } from './support/build-child.ts';
import { dataFiles, runClean } from './support/clean-check.ts';
import { predictClean, type OracleConfig } from './support/clean-oracle.ts';
import { GenTable } from './support/gen-table.ts';

let child = '';
beforeAll(async () => {
  child = await buildCleanChild();
}, 60_000);


const runChild = (base: string, opts: object) => runChildScript(child, base, opts);

const EXPIRY = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function generated(type: 'COPY_ON_WRITE' | 'MERGE_ON_READ', version: 6 | 8): Promise<GenTable> {
  const g = await GenTable.create(join(mkdtempSync(join(tmpdir(), 'tblcli-clean-crash-')), 't'), { type, version });
  await g.insert(2, 3);
  for (let i = 1; i <= 6; i++) {
    await g.update();
    if (type === 'MERGE_ON_READ' && i % 2 === 0) await g.compact();
  }
  return g;
}

function copy(base: string): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-clean-crash-')), 't');
  cpSync(base, dest, { recursive: true });
  return dest;
}

async function cleanInstants(base: string) {
  return (await (await openTable(base)).timeline()).instants.filter((i) => i.action === 'clean');
}

interface Case {
  name: string;
  base: () => Promise<string>;
  cfg: OracleConfig;
  mdt: boolean;
}

const CASES: Case[] = [
  { name: 'generated COW v8', base: async () => (await generated('COPY_ON_WRITE', 8)).base, cfg: { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 2 }, mdt: false },
  { name: 'generated MOR v6', base: async () => (await generated('MERGE_ON_READ', 6)).base, cfg: { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 }, mdt: false },
];
if (HAVE_FIXTURES) {
  CASES.push({
    name: 'hudi-rs v9 MOR with a metadata table (+1 compaction)',
    base: async () => {
      const b = tableFresh('sample_table/mor/avro/v9_txns_simple_meta');
      const s = await scheduleCompaction(await openTable(b), { clockSkewMs: 1, strategy: 'all' });
      await runCompaction(await openTable(b), { clockSkewMs: 1, instant: s.instant!, fileGroupWorkers: 'never' });
      return b;
    },
    cfg: { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 },
    mdt: true,
  });
}

describe('clean crash safety', () => {
  for (const c of CASES) {
    const points: { point: string; after?: number }[] = [{ point: 'after-schedule' }, { point: 'after-inflight' }, { point: 'file-deleted', after: 2 }, { point: 'before-complete' }];
    if (c.mdt) points.push({ point: 'after-mdt-commit' });
    let template: string | undefined;
    for (const { point, after } of points) {
      it(`${c.name}: killed at ${point}${after ? ` #${after}` : ''} → the next run completes the same plan, nothing else`, async () => {
        template ??= await c.base();
        const base = copy(template);
        const prediction = predictClean(base, c.cfg);
        expect(prediction.files.size).toBeGreaterThan(2);
        const before = await snapshotAsOf(base);
        const filesBefore = dataFiles(base);
        const k = await runChild(base, { ...c.cfg, crashAt: point, crashAfterFiles: after, heartbeatExpiryMs: EXPIRY, lockExpireMs: 500 });
        expect(k.signal, k.stderr).toBe('SIGKILL');
        const pending = (await cleanInstants(base)).filter((i) => i.state !== 'COMPLETED');
        expect(pending).toHaveLength(1);
        const T = pending[0]!.requestedTime;
        const tl = await (await openTable(base)).timeline();
        const plan = decodeCleanerPlan(await tl.read(pending[0]!, 'REQUESTED'), { path: 'plan' });
        const planned = Object.values(plan.filePathsToBeDeletedPerPartition ?? {}).flatMap((l) => l.map((f) => f.filePath!.replace(/^file:/, '').slice(base.length + 1)));
        expect(planned.sort()).toEqual([...prediction.files].sort());
        const goneAtCrash = [...filesBefore].filter((f) => !existsSync(join(base, f)));
        if (point === 'file-deleted') expect(goneAtCrash).toHaveLength(after!);
        if (point === 'after-schedule' || point === 'after-inflight') expect(goneAtCrash).toHaveLength(0);
        if (point === 'before-complete' || point === 'after-mdt-commit') expect(goneAtCrash.length).toBe(prediction.files.size);

        await sleep(EXPIRY + 300);
        const r = await runClean(base, c.cfg, { heartbeatExpiryMs: EXPIRY, lock: { expireMs: 500, wait: true, waitTimeoutMs: 10_000 } });
        // the pending clean was finished; no second clean was planned (nothing else is eligible)
        expect(r.cleans.map((x) => x.instant)).toEqual([T]);
        expect(r.cleans[0]!.resumed).toBe(point !== 'after-schedule');
        const cleans = await cleanInstants(base);
        expect(cleans.filter((i) => i.requestedTime === T).map((i) => i.state)).toEqual(['COMPLETED']);
        expect(cleans.filter((i) => i.state !== 'COMPLETED')).toHaveLength(0);
        const deleted = [...filesBefore].filter((f) => !existsSync(join(base, f)));
        expect(deleted.sort()).toEqual([...prediction.files].sort());
        // what the killed run had deleted is a failed delete of the re-run, as Hudi records it
        const ctl = await (await openTable(base)).timeline();
        const done = ctl.find(T).find((i) => i.action === 'clean')!;
        const m = decodeCleanMetadata(await ctl.read(done), { path: 'clean' });
        const failed = Object.values(m.partitionMetadata).flatMap((p) => p.failedDeleteFiles).sort();
        expect(failed).toEqual(goneAtCrash.map((f) => f.slice(f.lastIndexOf('/') + 1)).sort());
        expect(m.totalFilesDeleted).toBe(prediction.files.size - goneAtCrash.length);
        expect(await snapshotAsOf(base)).toEqual(before);
        expect(existsSync(join(base, '.hoodie/.heartbeat', T))).toBe(false);
        expect(existsSync(join(base, '.hoodie/.aux/lock'))).toBe(false);
        if (c.mdt) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
      }, 60_000);
    }
  }
});

const sha1 = (p: string) => createHash('sha1').update(readFileSync(p)).digest('hex');

describe('a writer committing while the clean runs', () => {
  for (const [type, version] of [
    ['COPY_ON_WRITE', 8],
    ['MERGE_ON_READ', 6],
  ] as const) {
    it(`${type} v${version}: no file of the new commit is touched`, async () => {
      const g = await generated(type, version);
      const cfg: OracleConfig = { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 };
      const prediction = predictClean(g.base, cfg);
      expect(prediction.files.size).toBeGreaterThan(2);
      const dir = mkdtempSync(join(tmpdir(), 'tblcli-clean-pause-'));
      const paused = join(dir, 'paused');
      const resume = join(dir, 'resume');
      const running = runChild(g.base, { ...cfg, pauseAt: 'file-deleted', pauseAfterFiles: 1, pausedFile: paused, resumeFile: resume, heartbeatExpiryMs: 30_000 });
      for (let n = 0; n < 600 && !existsSync(paused); n++) await sleep(25);
      expect(existsSync(paused)).toBe(true);
      // the writer: real clock, table lock; new versions of every file group
      const w = await g.liveUpdate();
      const written = new Map(w.files.map((f) => [f, sha1(join(g.base, f))]));
      writeFileSync(resume, '');
      const k = await running;
      expect(k.code, k.stderr).toBe(0);
      expect(JSON.parse(k.stdout).cleans.map((x: { status: string }) => x.status)).toEqual(['completed']);
      for (const [f, h] of written) expect(sha1(join(g.base, f)), f).toBe(h);
      // the clean deleted exactly its plan, made before the commit
      for (const f of prediction.files) expect(existsSync(join(g.base, f)), f).toBe(false);
      const tl = await (await openTable(g.base)).timeline();
      expect(tl.isCompleted(w.instant)).toBe(true);
      // the new commit is what a reader sees
      const rows = await snapshotAsOf(g.base);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.amount === 1000)).toBe(true);
    }, 60_000);
  }
});
