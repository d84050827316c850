// Compaction writes its output through the incremental writer: row groups are cut at rowGroupSize,
// and the table reads the same before and after.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetMetadata } from 'hyparquet';
import { latestTableSchema, openTable } from '../../src/table/index.ts';
import { COMPACTION_ROW_GROUP_ROWS, runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';

const ID = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';

describe.skipIf(!HAVE_FIXTURES)('compaction output row groups', () => {
  it('defaults to 100,000 rows per row group', () => {
    expect(COMPACTION_ROW_GROUP_ROWS).toBe(100_000);
  });

  it(`${ID}: rowGroupSize 2 → files of several row groups of ≤ 2 rows, snapshot unchanged`, async () => {
    const base = tableFresh(ID);
    const before = await snapshotRows(base);
    const s = await scheduleCompaction(await openTable(base), { clockSkewMs: 1, strategy: 'all' });
    expect(s.instant, s.reason).toBeDefined();
    const r = await runCompaction(await openTable(base), { clockSkewMs: 1, rowGroupSize: 2 });
    expect(r.status).toBe('completed');
    let multi = 0;
    for (const st of r.writeStats) {
      const buf = readFileSync(join(base, st.path!));
      const md = parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      const sizes = md.row_groups.map((g) => Number(g.num_rows));
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(st.numWrites);
      expect(sizes.every((n) => n <= 2)).toBe(true);
      expect(sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
      if (sizes.length > 1) multi++;
      expect(st.fileSizeInBytes).toBe(buf.length);
    }
    expect(multi).toBeGreaterThan(0);
    const types = logicalTypes((await latestTableSchema(await openTable(base))).schema);
    expect(comparable(await snapshotRows(base), types)).toEqual(comparable(before, types));
  });
});
