// No real fixture table reports a collision; every orphan reported on them is a real one. The orphans
// below were checked by hand: macOS Finder `.DS_Store` files packed into the fixture zips.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, allTableIds, table } from '../support/fixtures.ts';
import { findCollisions, findOrphans } from '../../src/triage/index.ts';
import { scanOf } from './support.ts';

const EXPECTED_ORPHANS: Record<string, string[]> = {
  'quickstart_trips_table/mor/avro/v6_trips_8i3d': ['.DS_Store'],
  'sample_table/cow/v6_complexkeygen_hivestyle': ['.DS_Store', 'byteField=10/.DS_Store'],
  'sample_table/mor/parquet/v6_complexkeygen_hivestyle': ['.DS_Store', 'byteField=10/.DS_Store'],
  'sample_table/mor/parquet/v6_simplekeygen_hivestyle_no_metafields': ['.DS_Store'],
};

describe.skipIf(!HAVE_FIXTURES)('triage on the hudi-rs fixture tables', () => {
  it('reports no collision and only the hand-checked orphans', async () => {
    const ids = allTableIds();
    expect(ids.length).toBeGreaterThan(40);
    // far in the future: every pending instant would count as stuck, every file as old
    const now = new Date('2030-01-01T00:00:00Z');
    let scanned = 0;
    for (const id of ids) {
      const base = table(id);
      const scan = await scanOf(base, now);
      if (!id.endsWith('_empty')) expect(scan.fileCount, id).toBeGreaterThan(0);
      scanned++;
      expect(await findCollisions(scan), id).toEqual([]);
      const orphans = findOrphans(scan);
      expect(orphans.map((o) => o.path), id).toEqual(EXPECTED_ORPHANS[id] ?? []);
      for (const o of orphans) {
        expect(o.kind).toBe('unparseable');
        // really a Finder metadata file: "Bud1" magic at offset 4
        const bytes = readFileSync(join(base, o.path));
        expect(existsSync(join(base, o.path))).toBe(true);
        expect(bytes.subarray(4, 8).toString('latin1')).toBe('Bud1');
      }
    }
    expect(scanned).toBe(ids.length);
  }, 300_000);
});
