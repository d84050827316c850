// Acceptance of issue 16 on fresh copies of the real Hudi tables (hudi-rs fixtures: COW and MOR,
// table versions 6, 8 and 9, with and without a metadata table; the Trino v6 MOR table with its
// metadata table): for each policy the clean deletes exactly what the independent oracle predicts
// from the reference, every retained snapshot reads the same afterwards (time travel through our
// reader), and `metadata validate-files` stays clean. MOR tables are also cleaned after one more
// compaction (tblcli's own), which gives their file groups another slice.
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { parseInstantTime } from '../../src/util/index.ts';
import { catalog, HAVE_FIXTURES, tableFresh, type CatalogTable } from '../support/fixtures.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { runJson } from '../support/run-cli.ts';
import { checkClean, retainedInstants } from './support/clean-check.ts';
import { addDeleteCommit } from './support/writes.ts';
import type { OracleConfig } from './support/clean-oracle.ts';

function fixtures(): CatalogTable[] {
  if (!HAVE_FIXTURES) return [];
  return catalog().tables.filter((t) => (t.num_completed_instants as number) > 0);
}

const lance = (t: CatalogTable) => String(t.base_file_format ?? '').toUpperCase() === 'LANCE';

/** The policies, with parameters that make something eligible on these small tables. */
async function configsFor(base: string): Promise<OracleConfig[]> {
  const t = await openTable(base);
  const commits = await retainedInstants(base, undefined);
  const mid = commits[Math.floor(commits.length / 2)];
  const hours: OracleConfig[] = mid ? [{ policy: 'KEEP_LATEST_BY_HOURS', hoursRetained: 1, now: new Date(parseInstantTime(mid, t.config.timezone)!.getTime() + 3_600_000) }] : [];
  return [
    { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 1 },
    { policy: 'KEEP_LATEST_COMMITS', commitsRetained: 3 },
    { policy: 'KEEP_LATEST_FILE_VERSIONS', fileVersionsRetained: 1 },
    ...hours,
  ];
}

function fresh(src: string): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-clean-fx-')), src.split('/').pop()!);
  cpSync(src, dest, { recursive: true, preserveTimestamps: true });
  return dest;
}

async function compacted(base: string): Promise<string> {
  const s = await scheduleCompaction(await openTable(base), { clockSkewMs: 1, strategy: 'all' });
  if (s.instant) await runCompaction(await openTable(base), { clockSkewMs: 1, instant: s.instant, fileGroupWorkers: 'never' });
  return base;
}

describe.skipIf(!HAVE_FIXTURES)('clean of the hudi-rs tables = the oracle; snapshots and the MDT intact', () => {
  // files deleted per policy over all tables (the tests of one file run in order)
  const byPolicy = new Map<string, number>();
  const count = (policy: string, n: number) => byPolicy.set(policy, (byPolicy.get(policy) ?? 0) + n);

  it.each(fixtures().map((t) => [t.id, t] as const))('%s', async (id, t) => {
    const src = tableFresh(id);
    for (const cfg of await configsFor(src)) {
      const { prediction } = await checkClean(fresh(src), cfg, { snapshots: !lance(t), maxInstants: 2 });
      count(cfg.policy, prediction.files.size);
    }
    if (t.table_type === 'MERGE_ON_READ' && !lance(t)) {
      const more = await compacted(fresh(src));
      for (const cfg of [{ policy: 'KEEP_LATEST_COMMITS' as const, commitsRetained: 1 }, { policy: 'KEEP_LATEST_FILE_VERSIONS' as const, fileVersionsRetained: 1 }]) {
        const { prediction } = await checkClean(fresh(more), cfg, { maxInstants: 2 });
        count(`${cfg.policy} after compaction`, prediction.files.size);
      }
    }
  });

  it('the fixtures gave every policy something to delete', () => {
    for (const p of ['KEEP_LATEST_COMMITS', 'KEEP_LATEST_FILE_VERSIONS', 'KEEP_LATEST_BY_HOURS', 'KEEP_LATEST_COMMITS after compaction']) expect(byPolicy.get(p), p).toBeGreaterThan(0);
  });
});

describe.skipIf(!HAVE_FIXTURES)('LAZY failed writes on a table with a metadata table', () => {
  it('v9 MOR with an MDT: the failed write is rolled back (its file gone) before the clean, the MDT stays in step', async () => {
    const base = tableFresh('sample_table/mor/avro/v9_txns_simple_meta');
    const failed = await addDeleteCommit(base, { pending: true });
    expect(existsSync(join(base, failed.file))).toBe(true);
    const r = await runJson<{ rolledBack: string[] }>(['cleans', 'run', '--path', base, '--commits-retained', '1', '--hoodieConfigs', 'hoodie.clean.failed.writes.policy=LAZY']);
    expect(r.rolledBack).toEqual([failed.instant]);
    expect(existsSync(join(base, failed.file))).toBe(false);
    const tl = await (await openTable(base)).timeline();
    expect(tl.find(failed.instant).filter((i) => i.action !== 'rollback')).toEqual([]);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});

describe.skipIf(!HAVE_TRINO_V6)('clean of the Trino table version 6 with a metadata table (Hudi 0.15)', () => {
  it('hudi_multi_fg_pt_v6_mor, after one more compaction', async () => {
    const base = await compacted(fresh(trinoV6Table()));
    for (const cfg of await configsFor(base)) await checkClean(fresh(base), cfg, { maxInstants: 2 });
  });
});
