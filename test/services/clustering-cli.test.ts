// The clustering commands as a user runs them: hudi-cli messages and exit codes (0 done or nothing to
// do, 1 failure, 4 lock held), --dry-run writing nothing, --hoodieConfigs / --propsFilePath, bucket-index
// tables refused with the reason, plans naming files outside the table refused before any write,
// file groups in a pending compaction left out, `show fsview latest` hiding the replaced groups.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRequestedReplaceMetadata } from '../../src/metadata/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli, runJson } from '../support/run-cli.ts';

const COW9 = 'sample_table/cow/v9_txns_simple_nometa';
const MOR6 = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';

describe.skipIf(!HAVE_FIXTURES)('clustering commands', () => {
  it('schedule --dry-run prints the plan and writes nothing; scheduleAndExecute runs it; run finds nothing more', async () => {
    const base = tableFresh(COW9);
    const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const dry = await runJson<{ scheduled: boolean; dryRun: boolean; inputGroups: number; fileGroups: number; plan: { inputGroups: unknown[] } }>(['clustering', 'schedule', '--path', base, '--dry-run', '--sort-columns', 'txn_ts']);
    expect(dry).toMatchObject({ scheduled: false, dryRun: true });
    expect(dry.inputGroups).toBeGreaterThan(0);
    expect(dry.plan.inputGroups).toHaveLength(dry.inputGroups);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
    const r = await runCli(['clustering', 'scheduleAndExecute', '--path', base, '--sort-columns', 'txn_ts', '--verbose']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/Succeeded to schedule clustering for \d{17}/);
    expect(r.stdout + r.stderr).toContain('Succeeded to run clustering for scheduleAndExecute');
    const again = await runCli(['clustering', 'run', '--path', base, '--verbose']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout + again.stderr).toContain('NO PENDING CLUSTERING TO RUN');
    const all = await runJson<{ clusteringInstantTime: string; state: string; inputGroups: number; totalFileIdsToBeClustered: number; strategyParams: string }[]>(['clustering', 'show', 'all', '--path', base]);
    expect(all[0]).toMatchObject({ state: 'COMPLETED', inputGroups: dry.inputGroups, totalFileIdsToBeClustered: dry.fileGroups });
    expect(all[0]!.strategyParams).toContain('hoodie.clustering.plan.strategy.sort.columns=txn_ts');
    // the replaced groups are gone from the latest view; the new ones are there
    const plan = await runJson<{ fileId: string }[]>(['clustering', 'show', '--path', base, '--instant', all[0]!.clusteringInstantTime]);
    const latest = await runJson<{ fileId: string; baseInstant: string }[]>(['show', 'fsview', 'latest', '--path', base, '--partitionPath', 'region=us']);
    const replaced = new Set(plan.map((p) => p.fileId));
    expect(latest.length).toBeGreaterThan(0);
    expect(latest.filter((x) => replaced.has(x.fileId))).toEqual([]);
    expect(latest.some((x) => x.baseInstant === all[0]!.clusteringInstantTime)).toBe(true);
  });

  it('--hoodieConfigs and --propsFilePath set the clustering keys (flags win over both)', async () => {
    const base = tableFresh(COW9);
    const s = await runJson<{ instant: string; inputGroups: number }>(['clustering', 'schedule', '--path', base, '--hoodieConfigs', 'hoodie.clustering.plan.strategy.sort.columns=txn_ts,account_id,hoodie.clustering.plan.strategy.max.num.groups=1']);
    expect(s.inputGroups).toBe(1);
    const shown = await runJson<{ strategyParams: string }[]>(['clustering', 'show', 'all', '--path', base]);
    expect(shown[0]!.strategyParams).toContain('sort.columns=txn_ts,account_id');
    const props = join(base, '..', 'clustering.properties');
    writeFileSync(props, '# clustering\nhoodie.clustering.plan.strategy.small.file.limit=100\nhoodie.clustering.plan.strategy.max.num.groups=5\n');
    const none = await runJson<{ scheduled: boolean; reason: string }>(['clustering', 'schedule', '--path', base, '--propsFilePath', props]);
    expect(none.scheduled).toBe(false);
    expect(none.reason).toContain('small-file limit');
    const flag = await runJson<{ scheduled: boolean }>(['clustering', 'schedule', '--path', base, '--propsFilePath', props, '--small-file-limit', '300MB', '--dry-run']);
    expect(flag).toMatchObject({ scheduled: false });
  });

  it('refuses bucket-index tables with the reason, and leaves them unchanged', async () => {
    const base = tableFresh(COW9);
    const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const simple = await runCli(['clustering', 'schedule', '--path', base, '--hoodieConfigs', 'hoodie.index.type=BUCKET']);
    expect(simple.exitCode).toBe(1);
    expect(simple.stderr).toContain('Clustering is not supported for simple bucket index');
    const consistent = await runCli(['clustering', 'scheduleAndExecute', '--path', base, '--hoodieConfigs', 'hoodie.index.type=BUCKET', '--hoodieConfigs', 'hoodie.index.bucket.engine=CONSISTENT_HASHING']);
    expect(consistent.exitCode).toBe(1);
    expect(consistent.stderr).toContain('consistent-hashing bucket index');
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  });

  it('exits 4 while another process holds the table lock', async () => {
    const base = tableFresh(COW9);
    mkdirSync(join(base, '.hoodie', '.aux'), { recursive: true });
    const lock = join(base, '.hoodie', '.aux', 'lock');
    writeFileSync(lock, 'someone-else');
    utimesSync(lock, new Date(), new Date());
    const r = await runCli(['clustering', 'schedule', '--path', base]);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(readFileSync(lock, 'utf8')).toBe('someone-else');
  });

  it('a plan naming a file outside the table is refused before anything is written', async () => {
    const base = tableFresh(COW9);
    const dry = await runJson<{ plan: { inputGroups: { slices: { dataFilePath: string }[] }[] } }>(['clustering', 'schedule', '--path', base, '--dry-run']);
    const plan = structuredClone(dry.plan) as never as Parameters<typeof encodeRequestedReplaceMetadata>[0]['clusteringPlan'] & object;
    (plan as unknown as { inputGroups: { slices: { dataFilePath: string }[] }[] }).inputGroups[0]!.slices[0]!.dataFilePath = `file:${join(base, '..', '..', 'etc', 'x.parquet')}`;
    const t = '20990101000000000';
    writeFileSync(join(base, '.hoodie', 'timeline', `${t}.clustering.requested`), encodeRequestedReplaceMetadata({ operationType: 'CLUSTER', clusteringPlan: plan, extraMetadata: {}, version: 1 }));
    const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
    const r = await runCli(['clustering', 'run', '--path', base]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(t);
    expect(r.stderr).toMatch(/outside the table|climbs out/);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(digest);
  });

  it('a corrupt or missing input (truncated base file, vanished log file) is refused before anything is written', async () => {
    for (const [id, what] of [[COW9, 'base'], [MOR6, 'log']] as const) {
      const base = tableFresh(id);
      const s = await runJson<{ instant: string }>(['clustering', 'schedule', '--path', base]);
      const all = await runJson<{ dataFilePath: string | null; fileId: string; partitionPath: string; totalDeltaFiles: number }[]>(['clustering', 'show', '--path', base, '--instant', s.instant]);
      const slices = what === 'log' ? all.filter((x) => x.totalDeltaFiles > 0) : all;
      if (what === 'base') {
        const victim = slices[0]!.dataFilePath!.replace(/^file:/, '');
        writeFileSync(victim, readFileSync(victim).subarray(0, 100));
      } else {
        const { readdirSync } = await import('node:fs');
        const dir = join(base, slices[0]!.partitionPath);
        const log = readdirSync(dir).find((n) => n.startsWith(`.${slices[0]!.fileId}_`) && n.includes('.log.'));
        expect(log, 'a log file in the first group').toBeDefined();
        // (a corrupt block is legal: Hudi's scanner skips it; a log file the plan names but storage lacks is not)
        const { rmSync } = await import('node:fs');
        rmSync(join(dir, log!));
      }
      const digest = treeDigest(base, LOCKS_AND_HEARTBEATS);
      const r = await runCli(['clustering', 'run', '--path', base]);
      expect(r.exitCode, `${id}: ${r.stderr}`).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(treeDigest(base, LOCKS_AND_HEARTBEATS), id).toEqual(digest);
    }
  });

  it('file groups in a pending compaction are left out of the plan', async () => {
    const base = tableFresh(MOR6);
    const c = await runJson<{ instant: string }>(['compaction', 'schedule', '--path', base, '--strategy', 'all']);
    expect(c.instant).toMatch(/^\d{17}$/);
    const s = await runJson<{ skipped: { fileId: string; reason: string }[]; fileGroups: number }>(['clustering', 'schedule', '--path', base, '--dry-run']);
    expect(s.skipped.length).toBeGreaterThan(0);
    expect(s.skipped.every((x) => x.reason === `pending compaction ${c.instant}`)).toBe(true);
    const table = await openTable(base);
    expect(table.config.type).toBe('MERGE_ON_READ');
  });
});
