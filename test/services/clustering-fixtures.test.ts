// `clustering schedule` + `clustering run` on fresh copies of real tables (COW and MOR, v6 and v8/9,
// with and without a metadata table): the snapshot is unchanged (our merged reader; DuckDB over the
// latest base files), every input file group is replaced and hidden, the new files are sorted by the
// sort columns, `metadata validate-files` is clean and the record index points at the new groups.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCommitMetadata, decodeRequestedReplaceMetadata } from '../../src/metadata/index.ts';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';
import { captureBefore, checkAfter } from './support/clustering-check.ts';

const OPTS = { clockSkewMs: 1 };

const CASES: [string, string[], string][] = [
  ['sample_table/cow/v9_txns_simple_meta', ['txn_type', 'txn_ts'], 'linear'],
  ['sample_table/mor/avro/v9_txns_simple_meta', ['account_id'], 'linear'],
  ['sample_table/cow/v9_txns_complex_meta', ['merchant_name', 'txn_ts'], 'z-order'],
  ['sample_table/mor/avro/v9_txns_complex_meta', ['currency', 'amount', 'txn_date'], 'hilbert'],
  ['sample_table/cow/v9_txns_nonpart_nometa', ['txn_ts'], 'linear'],
  ['sample_table/mor/avro/v9_txns_simple_nometa', [], 'linear'],
  ['sample_table/mor/avro/v9_nonpartitioned_rollback', [], 'linear'],
  ['sample_table/mor/avro/v9_timebasedkeygen_nonhivestyle', [], 'linear'],
  ['quickstart_trips_table/mor/avro/v8_trips_8i3u1d', ['rider', 'fare'], 'z-order'],
  ['sample_table/cow/v8_simplekeygen_nonhivestyle', ['name'], 'linear'],
  ['sample_table/cow/v8_complexkeygen_hivestyle', [], 'linear'],
  ['sample_table/cow/v6_simplekeygen_nonhivestyle', [], 'linear'],
  ['sample_table/cow/v6_complexkeygen_hivestyle', [], 'linear'],
  ['sample_table/cow/v6_nonpartitioned', [], 'linear'],
  ['sample_table/mor/parquet/v6_simplekeygen_nonhivestyle', [], 'linear'],
  ['sample_table/mor/parquet/v6_nonpartitioned_rollback', [], 'linear'],
  ['sample_table/mor/parquet/v6_complexkeygen_hivestyle', [], 'linear'],
  ['quickstart_trips_table/mor/avro/v6_trips_8i3d', ['city'], 'hilbert'],
];

describe.skipIf(!HAVE_FIXTURES)('clustering on real tables', () => {
  it.each(CASES)('%s (sort %j, %s)', async (id, sortColumns, layout) => {
    const base = tableFresh(id);
    const before = await captureBefore(base);
    const s = await scheduleClustering(await openTable(base), { ...OPTS, sortColumns, layout });
    expect(s.instant, s.reason).toBeDefined();
    const r = await runClustering(await openTable(base), OPTS);
    await checkAfter(base, before, s, r, sortColumns, layout);
    if ((await openTable(base)).config.metadataPartitions.length > 0) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});

describe.skipIf(!HAVE_TRINO_V6)('clustering on the Trino table version 6 (Hudi 0.15, with a metadata table)', () => {
  it('hudi_multi_fg_pt_v6_mor', async () => {
    const base = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
    cpSync(trinoV6Table(), base, { recursive: true });
    const before = await captureBefore(base);
    const s = await scheduleClustering(await openTable(base), { ...OPTS, sortColumns: ['id'] });
    expect(s.instant, s.reason).toBeDefined();
    const r = await runClustering(await openTable(base), OPTS);
    await checkAfter(base, before, s, r, ['id']);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});

/** The shape of a decoded value: keys and value types, recursively (arrays by their first element). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? [] : [shape(v[0])];
  if (v instanceof Uint8Array) return 'bytes';
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, shape(x)]));
  return v === null ? null : typeof v;
}

describe.skipIf(!HAVE_FIXTURES)("plan and replacecommit as Hudi writes them (v9_txns_simple_meta's own clustering)", () => {
  it('same shapes and constant values', async () => {
    const base = tableFresh('sample_table/cow/v9_txns_simple_meta');
    const table = await openTable(base);
    const tl = await table.timeline();
    const hudi = tl.find('20260307162454799')[0]!;
    const hudiPlan = decodeRequestedReplaceMetadata(await tl.read(hudi, 'REQUESTED'), { path: hudi.files.REQUESTED!.path });
    const hudiCommit = decodeCommitMetadata(await tl.read(hudi, 'COMPLETED'), { path: hudi.files.COMPLETED!.path });
    const s = await scheduleClustering(table, OPTS);
    const ours = (await openTable(base)).timeline();
    const mine = (await ours).find(s.instant!)[0]!;
    const ourPlan = decodeRequestedReplaceMetadata(await (await ours).read(mine, 'REQUESTED'), { path: mine.files.REQUESTED!.path });
    expect(shape(ourPlan)).toEqual(shape(hudiPlan));
    expect({ ...ourPlan, clusteringPlan: null }).toEqual({ ...hudiPlan, clusteringPlan: null });
    const { inputGroups: _a, ...ourRest } = ourPlan.clusteringPlan!;
    const { inputGroups: _b, ...hudiRest } = hudiPlan.clusteringPlan!;
    expect(ourRest).toEqual(hudiRest);
    expect(Object.keys(ourPlan.clusteringPlan!.inputGroups![0]!.metrics!).sort()).toEqual(Object.keys(hudiPlan.clusteringPlan!.inputGroups![0]!.metrics!).sort());
    // the same partitions and small files grouped the same way (the table's files are smaller than every limit)
    const groups = (p: typeof ourPlan) => p.clusteringPlan!.inputGroups!.map((g) => g.slices!.map((x) => x.partitionPath).join(',')).sort();
    expect(groups(ourPlan).length).toBeGreaterThan(0);
    const r = await runClustering(await openTable(base), OPTS);
    const tl2 = await (await openTable(base)).timeline();
    const done = tl2.find(r.instant!)[0]!;
    const ourCommit = decodeCommitMetadata(await tl2.read(done, 'COMPLETED'), { path: done.files.COMPLETED!.path });
    expect(shape({ ...ourCommit, extraMetadata: {} })).toEqual(shape({ ...hudiCommit, extraMetadata: {} }));
    expect(Object.keys(ourCommit.extraMetadata)).toEqual(Object.keys(hudiCommit.extraMetadata));
    expect(JSON.parse(ourCommit.extraMetadata.schema!)).toEqual(JSON.parse(hudiCommit.extraMetadata.schema!));
    const pick = (w: (typeof ourCommit.partitionToWriteStats)[string][number]) => ({ prevCommit: w.prevCommit, inserts: w.numInserts === w.numWrites, updates: w.numUpdateWrites, deletes: w.numDeletes, prevBaseFile: w.prevBaseFile, logs: w.totalLogRecords });
    expect(Object.values(ourCommit.partitionToWriteStats).flat().map(pick)).toEqual(Object.values(hudiCommit.partitionToWriteStats).flat().map(pick).slice(0, Object.values(ourCommit.partitionToWriteStats).flat().length));
    expect([ourCommit.operationType, ourCommit.compacted]).toEqual([hudiCommit.operationType, hudiCommit.compacted]);
  });
});
