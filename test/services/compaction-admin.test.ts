// `compaction unscheduleFileId` rewrites a pending plan: in one step (Storage.replace), before an
// inflight compaction is reverted to requested, so a failure at any step leaves the compaction with
// a plan — the old one (nothing changed) or the new one — never without one. On v6 the log-file
// renames come first: a run stopped after them is finished by the next.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCompactionPlan } from '../../src/metadata/index.ts';
import { unscheduleCompactionFileId } from '../../src/services/remediation/index.ts';
import type { Storage } from '../../src/storage/index.ts';
import { openTable, openTableAt } from '../../src/table/index.ts';
import { transitionToInflight } from '../../src/timeline/writer.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runJson } from '../support/run-cli.ts';
import { comparable, snapshotRows } from './support/snapshot.ts';
import { addDeleteCommit } from './support/writes.ts';

const MOR9 = 'sample_table/mor/avro/v9_txns_simple_meta';
const NOW = { get now() { return new Date(); } };

/** The storage with an error thrown instead of calling one of `methods` on paths `match` matches. */
function failing(s: Storage, methods: ('delete' | 'replace')[], match: RegExp): Storage {
  return new Proxy(s, {
    get(t, k) {
      const v = Reflect.get(t, k, t) as unknown;
      if (!methods.includes(k as 'delete') || typeof v !== 'function') return v;
      return (path: string, ...rest: unknown[]) => {
        if (match.test(path)) return Promise.reject(new Error(`injected: ${String(k)} ${path}`));
        return (v as (...a: unknown[]) => unknown).call(t, path, ...rest);
      };
    },
  });
}

async function inflightCompaction(): Promise<{ base: string; instant: string; fileIds: string[] }> {
  const base = tableFresh(MOR9);
  // log files in two file groups: two operations in the plan
  await addDeleteCommit(base, { count: 1, fileGroup: 0 });
  await addDeleteCommit(base, { count: 1, fileGroup: 1 });
  const s = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
  const t = await openTable(base);
  await transitionToInflight(t.timelineSource, s.instant, 'compaction');
  const plan = await runJson<{ fileId: string }[]>(['compaction', 'show', '--instant', s.instant, '--path', base], NOW);
  return { base, instant: s.instant, fileIds: plan.map((o) => o.fileId) };
}

async function planOf(base: string, instant: string): Promise<{ state: string; fileIds: (string | null)[] }> {
  const t = await openTable(base);
  const i = (await t.timeline()).find(instant).find((x) => x.action === 'compaction')!;
  const plan = decodeCompactionPlan(await (await t.timeline()).read(i, 'REQUESTED'), { path: i.files.REQUESTED!.path });
  return { state: i.state, fileIds: (plan.operations ?? []).map((o) => o.fileId) };
}

const timelineFiles = (base: string) => readdirSync(join(base, '.hoodie', 'timeline')).filter((n) => n.startsWith('.tblcli-tmp-'));

describe.skipIf(!HAVE_FIXTURES)('compaction unscheduleFileId: the plan rewrite', () => {
  it('fails reverting the inflight compaction → it stays inflight, with the new plan (not without a plan)', async () => {
    const { base, instant, fileIds } = await inflightCompaction();
    expect(fileIds.length).toBeGreaterThan(1);
    const t = await openTable(base);
    const broken = await openTableAt(failing(t.storage, ['delete'], new RegExp(`${instant}\\.compaction\\.inflight$`)), base);
    await expect(unscheduleCompactionFileId(broken, fileIds[0]!, undefined, { clockSkewMs: 1 })).rejects.toThrow(/injected: delete/);
    expect(await planOf(base, instant)).toEqual({ state: 'INFLIGHT', fileIds: fileIds.slice(1) });
    expect(timelineFiles(base)).toEqual([]);
  });

  it('fails replacing the plan → the table is byte-identical (the compaction still inflight, its plan whole)', async () => {
    const { base, instant, fileIds } = await inflightCompaction();
    const d0 = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const t = await openTable(base);
    const broken = await openTableAt(failing(t.storage, ['replace'], /\.compaction\.requested$/), base);
    await expect(unscheduleCompactionFileId(broken, fileIds[0]!, undefined, { clockSkewMs: 1 })).rejects.toThrow(/injected: replace/);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(d0);
    expect(await planOf(base, instant)).toEqual({ state: 'INFLIGHT', fileIds });
  });

  it('succeeds → requested, the file group out of the plan, no temp file left', async () => {
    const { base, instant, fileIds } = await inflightCompaction();
    const r = await unscheduleCompactionFileId(await openTable(base), fileIds[0]!, undefined, { clockSkewMs: 1 });
    expect(r.planRemoved).toBe(false);
    expect(await planOf(base, instant)).toEqual({ state: 'REQUESTED', fileIds: fileIds.slice(1) });
    expect(timelineFiles(base)).toEqual([]);
  });
});

describe.skipIf(!HAVE_FIXTURES)('compaction unscheduleFileId on v6: stopped between the log-file renames and the plan', () => {
  it('the rerun finishes it: nothing left to rename, the plan removed, the snapshot unchanged', async () => {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    const s = await runJson<{ instant: string; operations: number }>(['compaction', 'schedule', '--path', base, '--strategy', 'all'], NOW);
    expect(s.operations).toBe(1);
    const w = await addDeleteCommit(base, { count: 1, slice: 'pending-compaction' });
    const before = comparable(await snapshotRows(base));
    expect(existsSync(join(base, w.file))).toBe(true);
    const t = await openTable(base);
    // the plan's one step (replaced, or removed when it held only this file group) fails
    const broken = await openTableAt(failing(t.storage, ['replace', 'delete'], /\.compaction\.requested$/), base);
    await expect(unscheduleCompactionFileId(broken, w.fileId, undefined, { clockSkewMs: 1 })).rejects.toThrow(/injected: (replace|delete)/);
    // stopped after its rename: the log file is on the slice before the compaction's
    expect(existsSync(join(base, w.file))).toBe(false);
    const r = await unscheduleCompactionFileId(await openTable(base), w.fileId, undefined, { clockSkewMs: 1 });
    // the log file was renamed back by the first run
    expect(r.renames).toEqual([]);
    expect(r.planRemoved).toBe(true);
    const left = (await (await openTable(base)).timeline()).find(s.instant).filter((i) => i.action === 'compaction');
    // the plan's only operation: the compaction is gone
    expect(left).toEqual([]);
    expect(comparable(await snapshotRows(base))).toEqual(before);
  });
});
