// doctor's metadata-table check on a real table with a metadata table: consistent as shipped; after a
// committed base file disappears from storage, the metadata table's `files` partition still lists it.
import { describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { doctor } from '../../src/triage/index.ts';
import { scanOf, viewOf } from './support.ts';

const ID = 'sample_table/cow/v9_txns_simple_meta';

describe.skipIf(!HAVE_FIXTURES)('doctor: metadata-table consistency', () => {
  it('consistent fixture → ok; a deleted committed base file → error naming it', async () => {
    const dir = tableFresh(ID);
    const now = new Date('2030-01-01T00:00:00Z');
    const scan = await scanOf(dir, now);
    const check = (await doctor(scan)).checks.find((c) => c.check === 'metadata-table')!;
    expect(check).toMatchObject({ severity: 'ok', details: [] });
    expect(check.summary).toMatch(/^metadata table files partition matches the listing \(\d+ partitions\)$/);

    const slice = (await viewOf(dir)).latestFileSlices().find((s) => s.baseFile && s.partition !== '')!;
    const rel = `${slice.partition}/${slice.baseFile!.name}`;
    rmSync(join(dir, rel));
    const after = (await doctor(await scanOf(dir, now))).checks.find((c) => c.check === 'metadata-table')!;
    expect(after.severity).toBe('error');
    expect(after.details).toEqual([`listed in the metadata table, missing on storage: ${rel}`]);
    expect(after.summary).toBe('1 file(s) in the metadata table but not on storage, 0 committed file(s) not in the metadata table');
    expect(after.nextStep).toContain('rebuild the metadata table');
  });
});
