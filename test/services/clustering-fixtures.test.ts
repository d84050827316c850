// `clustering schedule` + `clustering run` on fresh copies of real tables (COW and MOR, v6 and v8/9,
// with and without a metadata table): the snapshot is unchanged (our merged reader; DuckDB over the
// latest base files), every input file group is replaced and hidden, the new files are sorted by the
// sort columns, `metadata validate-files` is clean and the record index points at the new groups.
import { describe, expect, it } from 'vitest';
import { runClustering, scheduleClustering } from '../../src/services/index.ts';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';
import { captureBefore, checkAfter } from './support/clustering-check.ts';

const OPTS = { clockSkewMs: 1 };

const CASES: [string, string[]][] = [
  ['sample_table/cow/v9_txns_simple_meta', ['txn_type', 'txn_ts']],
  ['sample_table/mor/avro/v9_txns_simple_meta', ['account_id']],
  ['sample_table/cow/v6_simplekeygen_nonhivestyle', []],
  ['sample_table/mor/parquet/v6_simplekeygen_nonhivestyle', []],
];

describe.skipIf(!HAVE_FIXTURES)('clustering on real tables', () => {
  it.each(CASES)('%s', async (id, sortColumns) => {
    const base = tableFresh(id);
    const before = await captureBefore(base);
    const s = await scheduleClustering(await openTable(base), { ...OPTS, sortColumns });
    expect(s.instant, s.reason).toBeDefined();
    const r = await runClustering(await openTable(base), OPTS);
    await checkAfter(base, before, s, r, sortColumns);
    if ((await openTable(base)).config.metadataPartitions.length > 0) expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});
