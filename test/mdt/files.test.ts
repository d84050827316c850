import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, allTableIds, catalogTable, table } from '../support/fixtures.ts';
import { combineFiles, metadataTableStats, readMetadataTableFiles } from '../../src/mdt/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';

interface CatFile { partition: string; name: string; bytes: number; instant?: string; base_instant?: string }

const mdtTables = HAVE_FIXTURES ? allTableIds().filter((id) => catalogTable(id).metadata_table_exists === true) : [];

describe.skipIf(!HAVE_FIXTURES)('readMetadataTableFiles over every fixture table with a metadata table', () => {
  it('there are metadata-table fixtures to check', () => {
    expect(mdtTables.length).toBeGreaterThan(10);
  });
  for (const id of mdtTables) {
    it(`${id}: partitions and file sizes equal the committed data files`, async () => {
      const t = catalogTable(id);
      const completed = new Set((t.instants as { ts: string; state: string }[]).filter((i) => i.state === 'COMPLETED').map((i) => i.ts));
      const expected = new Map<string, Map<string, number>>();
      for (const f of [...(t.base_files as CatFile[]), ...(t.log_files as CatFile[])]) {
        const inst = f.instant ?? f.base_instant;
        if (inst && !completed.has(inst)) continue;
        if (!expected.has(f.partition)) expected.set(f.partition, new Map());
        expected.get(f.partition)!.set(f.name, f.bytes);
      }
      const got = await readMetadataTableFiles(new LocalStorage(), table(id));
      expect(got.partitions).toEqual([...(t.partitions as string[])].sort());
      expect(got.skippedBlocks).toEqual([]);
      for (const p of got.partitions) {
        expect(Object.fromEntries(got.files.get(p)!), `partition ${p}`).toEqual(Object.fromEntries(expected.get(p) ?? new Map()));
      }
    });
  }
});

describe('combineFiles (HoodieMetadataPayload.combineFileSystemMetadata)', () => {
  const m = (o: Record<string, [number, boolean]>) => new Map(Object.entries(o).map(([k, [size, isDeleted]]) => [k, { size, isDeleted }]));
  it('max size wins, a tombstone removes, an orphan tombstone is kept, a repeated tombstone removes', () => {
    const out = combineFiles(m({ a: [100, false], b: [50, false], d: [0, true] }), m({ a: [20, false], b: [0, true], c: [0, true], d: [0, true] }));
    expect(Object.fromEntries(out)).toEqual({ a: { size: 100, isDeleted: false }, c: { size: 0, isDeleted: true } });
  });
});

describe.skipIf(!HAVE_FIXTURES)('metadata table errors and stats', () => {
  it('a table without a metadata table → not-found naming the path', async () => {
    const p = table('sample_table/cow/v6_nonpartitioned');
    await expect(readMetadataTableFiles(new LocalStorage(), p)).rejects.toMatchObject({ kind: 'not-found', message: expect.stringContaining('.hoodie/metadata') });
  });
  it('metadataTableStats: files partition counts match the latest files slice; partitionCount = data partitions', async () => {
    const id = 'sample_table/cow/v9_txns_simple_meta';
    const s = await metadataTableStats(new LocalStorage(), table(id));
    const files = s.partitions.find((p) => p.partition === 'files')!;
    expect(files).toMatchObject({ baseFileCount: 1, fileGroupCount: 1, logFileCount: 6 });
    expect(s.partitionCount).toBe(3);
    expect(s.partitions.map((p) => p.partition).sort()).toEqual(
      [...(catalogTable(id).metadata_table as { partitions: string[] }).partitions].sort(),
    );
    expect(s.entries).toContainEqual(['files.baseFileCount', '1']);
  });
});
