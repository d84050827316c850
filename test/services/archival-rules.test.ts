// The archival decision (src/services/archival/rules.ts via `triggerArchival --dry-run`) against an
// independent statement of Hudi's rules (support/archival-oracle.ts) on generated timelines: COW and MOR,
// table versions 6/8/9, cleans, rollbacks, compactions, clusterings, a savepoint, a pending instant, a
// metadata table with and without a compaction, and many keep/retain settings.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCleanerPlan } from '../../src/metadata/index.ts';
import { triggerArchival } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { readFileSync, readdirSync } from 'node:fs';
import { mdtOracleInput, oracleArchive, readTimelineDir, type OracleInput } from './support/archival-oracle.ts';
import { writeArchivalTable, type ArchivalTableOptions } from './support/archival-table.ts';

/** xorshift32, so every run checks the same variants */
function rng(seed: number): (n: number) => number {
  let x = seed || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

function timelineDir(base: string, version: number): string {
  return version >= 8 ? join(base, '.hoodie', 'timeline') : join(base, '.hoodie');
}

function mdtTimelineDir(base: string, version: number): string {
  return version >= 8 ? join(base, '.hoodie/metadata/.hoodie/timeline') : join(base, '.hoodie/metadata/.hoodie');
}

function oracleFacts(base: string, version: number, mdt: boolean): Pick<OracleInput, 'cleanPlanEctr' | 'cleanPlanSavepoints' | 'mdtCompaction'> {
  const dir = timelineDir(base, version);
  const layout = version >= 8 ? 2 : 1;
  const all = readTimelineDir(dir, layout);
  const clean = all.filter((i) => i.completed && i.action === 'clean').at(-1);
  const out: ReturnType<typeof oracleFacts> = {};
  if (clean) {
    const plan = decodeCleanerPlan(readFileSync(join(dir, `${clean.t}.clean.requested`)), { path: 'plan' });
    out.cleanPlanEctr = plan.earliestInstantToRetain?.timestamp || undefined;
    out.cleanPlanSavepoints = (plan.extraMetadata?.savepointed_timestamps ?? '').split(',');
  }
  if (mdt) {
    out.mdtCompaction = readTimelineDir(mdtTimelineDir(base, version), layout).filter((i) => i.completed && i.action === 'commit').at(-1)?.t ?? null;
  }
  return out;
}

interface Variant {
  name: string;
  table: ArchivalTableOptions;
  min: number;
  max: number;
  retained: number;
}

function variants(): Variant[] {
  const out: Variant[] = [];
  const combos = [
    ['MERGE_ON_READ', 6],
    ['COPY_ON_WRITE', 6],
    ['MERGE_ON_READ', 8],
    ['COPY_ON_WRITE', 9],
  ] as const;
  for (const [type, version] of combos) {
    for (let s = 1; s <= 5; s++) {
      const r = rng(version * 1000 + s * 17 + (type === 'MERGE_ON_READ' ? 7 : 3));
      const commits = 40 + r(100);
      const retained = 1 + r(10);
      const min = retained + 1 + r(15);
      const max = min + 1 + r(15);
      const mdt = s === 4 ? { mdtCompactionAfter: 10 + r(commits - 10) } : s === 5 ? { mdtCompactionAfter: 0 } : {};
      out.push({
        name: `${type} v${version} #${s}`,
        min,
        max,
        retained,
        table: {
          tableType: type,
          version,
          commits,
          cleanEvery: 3 + r(10),
          rollbackEvery: 5 + r(20),
          compactEvery: 3 + r(12),
          clusterAfter: [r(commits), r(commits), r(commits)],
          savepointAt: r(3) === 0 ? 0 : 1 + r(commits),
          pendingAfter: r(3) === 0 ? 0 : 1 + r(commits),
          ...mdt,
        },
      });
    }
  }
  return out;
}

/** Tables built so that one bound decides where archiving stops (min 2, max 3: the count limit never does). */
function bindingVariants(): (Variant & { binding: string; mdtBinding?: string })[] {
  const small = { min: 2, max: 3, retained: 1 };
  const mk = (name: string, binding: string, table: ArchivalTableOptions): Variant & { binding: string } => ({ name: `${name} (${binding} bound decides)`, binding, ...small, table: { commits: 80, ...table } });
  return [
    mk('MOR v6', 'compaction', { tableType: 'MERGE_ON_READ', version: 6, compactEvery: 30 }),
    mk('MOR v8', 'compaction', { tableType: 'MERGE_ON_READ', version: 8, compactEvery: 30 }),
    mk('MOR v6', 'pending', { tableType: 'MERGE_ON_READ', version: 6, compactEvery: 10, pendingAfter: 30 }),
    mk('MOR v9', 'pending', { tableType: 'MERGE_ON_READ', version: 9, compactEvery: 10, pendingAfter: 30 }),
    // a pending clustering also caps the cleaner's earliest commit to retain, which raises minCommits to reach it
    mk('COW v9 pending clustering', 'none', { tableType: 'COPY_ON_WRITE', version: 9, pendingAfter: 30 }),
    mk('COW v6', 'savepoint', { tableType: 'COPY_ON_WRITE', version: 6, savepointAt: 25, cleanEvery: 5, rollbackEvery: 7 }),
    mk('MOR v9', 'savepoint', { tableType: 'MERGE_ON_READ', version: 9, savepointAt: 25, cleanEvery: 5, rollbackEvery: 7, compactEvery: 9 }),
    mk('COW v6', 'clustering', { tableType: 'COPY_ON_WRITE', version: 6, clusterAfter: [75], cleanEvery: 20 }),
    mk('COW v8', 'clustering', { tableType: 'COPY_ON_WRITE', version: 8, clusterAfter: [75], cleanEvery: 20 }),
    // 1.x only: a deleted savepoint the last clean still lists holds back replacecommits after it
    mk('COW v8 deleted savepoint', 'clustering', { tableType: 'COPY_ON_WRITE', version: 8, savepointAt: 20, savepointDeletedAfter: 30, clusterAfter: [40], cleanEvery: 10 }),
    mk('COW v6 deleted savepoint', 'none', { tableType: 'COPY_ON_WRITE', version: 6, savepointAt: 20, savepointDeletedAfter: 30, clusterAfter: [40], cleanEvery: 10 }),
    mk('MOR v6', 'metadata-table', { tableType: 'MERGE_ON_READ', version: 6, compactEvery: 40, mdtCompactionAfter: 30 }),
    mk('COW v8', 'metadata-table', { tableType: 'COPY_ON_WRITE', version: 8, mdtCompactionAfter: 30 }),
    // the metadata table's own archival: the data timeline's first commit, or the MDT's compaction bound decides
    { ...mk('MOR v8 + MDT', 'metadata-table', { tableType: 'MERGE_ON_READ', version: 8, compactEvery: 40, mdtCompactionAfter: 60 }), mdtBinding: 'data-table' },
    { ...mk('MOR v6 + MDT, pending early', 'pending', { tableType: 'MERGE_ON_READ', version: 6, compactEvery: 10, pendingAfter: 20, mdtCompactionAfter: 60 }), mdtBinding: 'data-table' },
    // MDT compaction every 30 delta commits: the 25 since its last compaction stay (more than its min of 21);
    // 1.x keeps the data commit the MDT compaction ran during, so the data timeline bounds the MDT first
    ...([[6, 'compaction'], [9, 'data-table']] as const).map(([version, mdtBinding]) => ({ ...mk(`COW v${version} + MDT compacted every 30`, 'metadata-table', { tableType: 'COPY_ON_WRITE', version, mdtCompactionAfter: 55, extraProps: ['hoodie.metadata.compact.max.delta.commits=30'] }), mdtBinding })),
    mk('COW v6 MDT without compaction', 'nothing', { tableType: 'COPY_ON_WRITE', version: 6, cleanEvery: 5, mdtCompactionAfter: 0 }),
    mk('MOR v8 MDT without compaction', 'nothing', { tableType: 'MERGE_ON_READ', version: 8, cleanEvery: 5, mdtCompactionAfter: 0 }),
  ];
}

describe('archival rules match an independent statement of Hudi\'s', () => {
  for (const v of [...variants(), ...bindingVariants()]) {
    it(v.name, async () => {
      const base = mkdtempSync(join(tmpdir(), 'tblcli-arch-rules-'));
      await writeArchivalTable(base, v.table);
      const layout = v.table.version >= 8 ? 2 : 1;
      const all = readTimelineDir(timelineDir(base, v.table.version), layout);
      const expected = oracleArchive(all, {
        version: v.table.version,
        mor: v.table.tableType === 'MERGE_ON_READ',
        min: v.min,
        max: v.max,
        retained: v.retained,
        ...oracleFacts(base, v.table.version, v.table.mdtCompactionAfter !== undefined),
      });
      const opts = { minCommits: v.min, maxCommits: v.max, commitsRetained: v.retained, clockSkewMs: 1 };
      const dry = await triggerArchival(await openTable(base), { ...opts, dryRun: true });
      const got = new Set(dry.decision.toArchive.map((i) => `${i.requestedTime}|${i.action}`));
      expect([...got].sort()).toEqual([...expected].sort());
      // every instant that stays says why
      for (const x of dry.decision.verdicts) expect(x.reason.length).toBeGreaterThan(0);
      expect(dry.decision.verdicts.filter((x) => x.archive).length).toBe(expected.size);
      if ('binding' in v) {
        const firstKept = dry.decision.verdicts.find((x) => !x.archive && x.instant.state === 'COMPLETED' && ['commit', 'deltacommit', 'replacecommit'].includes(x.instant.action))!;
        const binding = (v as { binding: string }).binding;
        if (binding === 'nothing') {
          expect(expected.size).toBe(0);
          expect(firstKept.reason).toMatch(/no compaction yet/);
        } else if (binding === 'none') {
          expect(firstKept.reason).toMatch(/minCommits/);
        } else {
          const b = dry.decision.bounds.find((x) => x.kind === binding)!;
          expect(b, JSON.stringify(dry.decision.bounds)).toBeDefined();
          expect(firstKept.reason).toContain(`at or after ${b.instant}`);
          expect(expected.size).toBeGreaterThan(0);
        }
      }
      // the metadata table's own timeline: its rules, bounded by the data timeline as it is after the run
      const hasMdt = v.table.mdtCompactionAfter !== undefined;
      const mdtAll = hasMdt ? readTimelineDir(mdtTimelineDir(base, v.table.version), layout) : [];
      const deltaMax = Number(/max\.delta\.commits=(\d+)/.exec((v.table.extraProps ?? []).join())?.[1] ?? 10);
      const mdtExpected = oracleArchive(mdtAll, mdtOracleInput({ version: v.table.version, min: v.min, max: v.max, retained: v.retained }, all.filter((i) => !expected.has(`${i.t}|${i.action}`)), deltaMax));
      if (hasMdt) {
        const got = new Set(dry.metadataTable!.decision.toArchive.map((i) => `${i.requestedTime}|${i.action}`));
        expect([...got].sort()).toEqual([...mdtExpected].sort());
        for (const x of dry.metadataTable!.decision.verdicts) expect(x.reason.length).toBeGreaterThan(0);
        const mdtBinding = (v as { mdtBinding?: string }).mdtBinding;
        if (mdtBinding) {
          const m = dry.metadataTable!.decision;
          const b = m.bounds.find((x) => x.kind === mdtBinding)!;
          expect(b, JSON.stringify(m.bounds)).toBeDefined();
          const firstKept = m.verdicts.find((x) => !x.archive && x.instant.state === 'COMPLETED' && ['commit', 'deltacommit'].includes(x.instant.action))!;
          expect(firstKept.reason).toContain(`at or after ${b.instant}`);
          expect(mdtExpected.size).toBeGreaterThan(0);
        }
      } else expect(dry.metadataTable).toBeUndefined();

      // the real run archives exactly that and leaves the rest
      const r = await triggerArchival(await openTable(base), opts);
      expect(r.decision.toArchive.length).toBe(expected.size);
      const left = new Set(readTimelineDir(timelineDir(base, v.table.version), layout).map((i) => `${i.t}|${i.action}`));
      for (const i of all) expect(left.has(`${i.t}|${i.action}`)).toBe(!expected.has(`${i.t}|${i.action}`));
      if (hasMdt) {
        expect(r.metadataTable!.decision.toArchive.length).toBe(mdtExpected.size);
        const mdtLeft = new Set(readTimelineDir(mdtTimelineDir(base, v.table.version), layout).map((i) => `${i.t}|${i.action}`));
        for (const i of mdtAll) expect(mdtLeft.has(`${i.t}|${i.action}`), `MDT ${i.t}|${i.action}`).toBe(!mdtExpected.has(`${i.t}|${i.action}`));
      }
      if (expected.size > 0) expect(readdirSync(timelineDir(base, v.table.version)).length).toBeGreaterThan(0);
    }, 60_000);
  }
});
