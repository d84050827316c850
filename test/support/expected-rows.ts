// Row helpers and the upstream (hudi-rs, FIXTURES.md) values shared by the snapshot checks of the
// merge and compaction tests.
import { expect } from 'vitest';
import type { Row } from '../../src/merge/index.ts';

export const byRider = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.rider as string, Number(r.fare)]));
export const idNameActive = (rows: Row[]) => rows.map((r) => [Number(r.id), r.name, r.isActive] as const).sort((a, b) => a[0] - b[0]);
export const txnIds = (rows: Row[]) => rows.map((r) => String(r.txn_id)).sort();
export const ABCD = [[1, 'Alice', false], [2, 'Bob', false], [3, 'Carol', true], [4, 'Diana', true]];
export const PARTITIONED_TXNS = ['TXN-001', 'TXN-003', 'TXN-007', 'TXN-008', 'TXN-011', 'TXN-012', 'TXN-013', 'TXN-014', 'TXN-015', 'TXN-016', 'TXN-017', 'TXN-018'];
export const NONPART_TXNS = ['TXN-001', 'TXN-003', 'TXN-004', 'TXN-006', 'TXN-007', 'TXN-008', 'TXN-009', 'TXN-010', 'TXN-011', 'TXN-012', 'TXN-013', 'TXN-014', 'TXN-015', 'TXN-016'];

export function checkTxns(rows: Row[], ids: string[]) {
  expect(txnIds(rows)).toEqual(ids);
  expect(rows.find((r) => r.txn_id === 'TXN-001')!.txn_type).toBe('reversal');
  expect(rows.filter((r) => r.txn_id === 'TXN-007' && Number(r.fee_amount) === 75)).toHaveLength(1);
}
