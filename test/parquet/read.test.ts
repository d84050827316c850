import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { readParquetInfo, readParquetRows } from '../../src/parquet/index.ts';
import { HAVE_FIXTURES, catalogTable, table } from '../support/fixtures.ts';

const storage = new LocalStorage();
const ID = 'sample_table/cow/v6_nonpartitioned';

describe.skipIf(!HAVE_FIXTURES)('parquet read adapter', () => {
  it('footer: row count, key/value metadata and columns match catalog.json', async () => {
    const t = catalogTable(ID);
    for (const b of t.base_files as { partition: string; name: string; parquet: { num_rows: number; kv_keys: string[]; hoodie_min_record_key?: string } }[]) {
      const info = await readParquetInfo(storage, join(table(ID), b.partition, b.name));
      expect(info.numRows).toBe(b.parquet.num_rows);
      expect(Object.keys(info.keyValue).sort()).toEqual([...b.parquet.kv_keys].sort());
      expect(info.keyValue.hoodie_min_record_key).toBe(b.parquet.hoodie_min_record_key);
      expect(info.columns.slice(0, 5)).toEqual(['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path', '_hoodie_file_name']);
      expect(info.columns).toHaveLength(21);
    }
  });

  it('rows of the latest base file (GZIP) = the 4 asserted rows; column selection works', async () => {
    const path = join(table(ID), 'a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet');
    const rows = await readParquetRows(storage, path);
    expect(rows.map((r) => [r.id, r.name, r.isActive]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([[1, 'Alice', false], [2, 'Bob', false], [3, 'Carol', true], [4, 'Diana', true]]);
    const sel = await readParquetRows(storage, path, { columns: ['name'] });
    expect(sel.map((r) => Object.keys(r))).toEqual([['name'], ['name'], ['name'], ['name']]);
    expect(sel.map((r) => r.name).sort()).toEqual(['Alice', 'Bob', 'Carol', 'Diana']);
  });

  it('a file that is not parquet → TblError kind parquet naming the path', async () => {
    const path = join(table(ID), '.hoodie_partition_metadata');
    await expect(readParquetInfo(storage, path)).rejects.toMatchObject({ kind: 'parquet', path });
  });
});

describe('parquet read adapter: Avro bytes', () => {
  it('a `bytes` column comes back as the bytes written (not UTF-8 decoded), a string column as strings; the row writer writes them back unchanged', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { writeHoodieParquet, withHoodieMetaFields } = await import('../../src/parquet/write.ts');
    const schema = withHoodieMetaFields({
      type: 'record',
      name: 'r',
      fields: [
        { name: 's', type: 'string' },
        { name: 'b', type: ['null', 'bytes'], default: null },
      ],
    });
    const raw = [new Uint8Array([0xff, 0xfe, 0x01]), new Uint8Array([0xc3]), null];
    const rows = raw.map((b, i) => ({ _hoodie_record_key: `k${i}`, s: `é${i}`, b }));
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-read-'));
    const p1 = join(dir, 'a.parquet');
    writeFileSync(p1, writeHoodieParquet({ schema, rows }).bytes);
    const back = await readParquetRows(storage, p1);
    expect(back.map((r) => r.s)).toEqual(['é0', 'é1', 'é2']);
    expect(back.map((r) => r.b)).toEqual(raw);
    // a rewrite of what was read (what compaction's row path does) keeps the bytes
    const p2 = join(dir, 'b.parquet');
    writeFileSync(p2, writeHoodieParquet({ schema, rows: back }).bytes);
    expect((await readParquetRows(storage, p2)).map((r) => r.b)).toEqual(raw);
  });
});
