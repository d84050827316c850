// Upstream (hudi-rs, FIXTURES.md) expectations for the latest snapshot of each MOR fixture table, the
// same values test/merge/snapshot.test.ts checks.
import { expect } from 'vitest';
import type { Row } from '../../../src/merge/index.ts';
import { ABCD, byRider, checkTxns, idNameActive, NONPART_TXNS, PARTITIONED_TXNS, txnIds } from '../../support/expected-rows.ts';

export const EXPECTED: Record<string, (rows: Row[]) => void | Promise<void>> = {
  'quickstart_trips_table/mor/avro/v6_trips_8i1u': (rows) => {
    expect(rows).toHaveLength(8);
    const d = rows.find((r) => r.rider === 'rider-D')!;
    expect([d.uuid, d.fare]).toEqual(['9909a8b1-2d15-4d3d-8ec9-efc48c536a00', 25.0]);
  },
  'quickstart_trips_table/mor/avro/v6_trips_8i3d': (rows) => {
    const riders = byRider(rows);
    for (const r of ['rider-A', 'rider-C', 'rider-D']) expect(riders).not.toHaveProperty(r);
  },
  'quickstart_trips_table/mor/avro/v8_trips_8i3u1d': (rows) => {
    expect(byRider(rows)).toEqual({ 'rider-A': 0, 'rider-C': 27.7, 'rider-D': 33.9, 'rider-E': 93.5, 'rider-G': 0, 'rider-I': 41.06 });
  },
  'sample_table/mor/parquet/v6_nonpartitioned': (rows) => expect(idNameActive(rows)).toEqual(ABCD),
  'sample_table/mor/parquet/v6_nonpartitioned_rollback': (rows) =>
    expect(idNameActive(rows)).toEqual([[1, 'Alice', true], [2, 'Bob', true], [3, 'Carol', true]]),
  'sample_table/mor/parquet/v6_simplekeygen_nonhivestyle': (rows) => {
    expect(rows).toHaveLength(4);
    expect(idNameActive(rows.filter((r) => r._hoodie_partition_path === '10'))).toEqual([[1, 'Alice', false], [3, 'Carol', true]]);
  },
  'sample_table/mor/parquet/v6_complexkeygen_hivestyle': (rows) => {
    const f = rows.filter((r) => Number(r.byteField) >= 10 && Number(r.byteField) < 20 && Number(r.shortField) !== 100);
    expect(idNameActive(f)).toEqual([[1, 'Alice', false], [3, 'Carol', true]]);
  },
  'sample_table/mor/parquet/v6_simplekeygen_nonhivestyle_overwritetable': (rows) => expect(idNameActive(rows)).toEqual([[4, 'Diana', false]]),
  'sample_table/mor/avro/v9_timebasedkeygen_nonhivestyle': (rows) => expect(rows.length).toBeGreaterThan(0),
};
for (const v of ['simple', 'complex']) {
  for (const m of ['meta', 'nometa']) {
    EXPECTED[`sample_table/mor/avro/v9_txns_${v}_${m}`] = (rows) => {
      checkTxns(rows, PARTITIONED_TXNS);
      const region = (r: string) => txnIds(rows.filter((x) => x.region === r));
      expect(region('eu')).toEqual(['TXN-011', 'TXN-012', 'TXN-018']);
      expect(region('us')).toEqual(['TXN-001', 'TXN-003', 'TXN-013', 'TXN-014', 'TXN-017']);
      expect(region('apac')).toEqual(['TXN-007', 'TXN-008', 'TXN-015', 'TXN-016']);
    };
  }
}
for (const m of ['meta', 'nometa']) {
  EXPECTED[`sample_table/mor/avro/v9_txns_nonpart_${m}`] = (rows) => {
    checkTxns(rows, NONPART_TXNS);
    const merchant = Object.fromEntries(rows.map((r) => [r.txn_id, r.merchant_name]));
    expect([merchant['TXN-001'], merchant['TXN-008'], merchant['TXN-015']]).toEqual(['Amazon', 'Grab', 'Japan Airlines']);
  };
}
