import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStorage } from '../../src/storage/index.ts';
import { readLogFile } from '../../src/logfile/index.ts';
import { HAVE_FIXTURES, coreTestData } from '../support/fixtures.ts';

const storage = new LocalStorage();
function logIn(dir: string): string {
  const d = coreTestData(`log_files/${dir}`);
  const name = readdirSync(d).find((n) => n.startsWith('.') && n.includes('.log.'));
  if (!name) throw new Error(`no log file in ${d}`);
  return join(d, name);
}

describe.skipIf(!HAVE_FIXTURES)('readLogFile on core-test-data', () => {
  it('avro data block → header, 1 record with meta fields', async () => {
    const r = await readLogFile(storage, logIn('valid_log_avro_data'), { withRecords: true });
    expect(r.blocks).toHaveLength(1);
    const b = r.blocks[0]!;
    expect(b).toMatchObject({ offset: 0, size: 1172, blockLength: 1158, version: 1, type: 'AVRO_DATA_BLOCK', contentLength: 240, contentVersion: 3, recordCount: 1 });
    expect(b.header.INSTANT_TIME).toBe('20250316025828811');
    expect(b.footer).toEqual({});
    expect(b.records).toHaveLength(1);
    const rec = b.records![0]!;
    expect(rec._hoodie_commit_seqno).toBe('20250316025828811_0_2');
    expect(rec._hoodie_record_key).toBe('334e26e9-8355-45cc-97c6-c31daf0df330');
    expect(rec._hoodie_file_name).toBe('ff32ab89-5ad0-4968-83b4-89a34c95d32f-0');
    expect(rec.rider).toBe('rider-A');
    expect(rec.fare).toBe(29.1); // bytes 9a99999999193d40 = 0x403D19999999999A (the doc's '19.1' note is a typo)
  });

  it('delete block → 3 keys with IntWrapper(0) ordering', async () => {
    const r = await readLogFile(storage, logIn('valid_log_delete'), { withRecords: true });
    expect(r.blocks).toHaveLength(1);
    const b = r.blocks[0]!;
    expect(b).toMatchObject({ type: 'DELETE_BLOCK', blockLength: 1084, contentLength: 190, contentVersion: 3, recordCount: 3 });
    expect(b.header.INSTANT_TIME).toBe('20250618054714114');
    expect(b.deletes!.map((d) => d.recordKey)).toEqual([
      'e96c4396-3fad-413a-a942-4cb36106d721',
      '9909a8b1-2d15-4d3d-8ec9-efc48c536a00',
      '334e26e9-8355-45cc-97c6-c31daf0df330',
    ]);
    expect(b.deletes![0]).toMatchObject({ partitionPath: 'city=san_francisco', orderingVal: 0, orderingClass: 'Integer' });
  });

  it('parquet data block → rows from the embedded parquet file', async () => {
    const r = await readLogFile(storage, logIn('valid_log_parquet_data'), { withRecords: true });
    expect(r.blocks).toHaveLength(1);
    const b = r.blocks[0]!;
    expect(b).toMatchObject({ type: 'PARQUET_DATA_BLOCK', blockLength: 5297, contentLength: 4373 });
    expect(b.header.INSTANT_TIME).toBe('20250113230424191');
    expect(b.records!.length).toBeGreaterThan(0);
    expect(Object.keys(b.records![0]!).slice(0, 5)).toEqual([
      '_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path', '_hoodie_file_name',
    ]);
    expect(b.records!.every((x) => x._hoodie_commit_time === '20250113230424191')).toBe(true);
  });

  it('rollback command block → target instant in the header, no content', async () => {
    const r = await readLogFile(storage, logIn('valid_log_rollback'));
    expect(r.blocks).toEqual([
      expect.objectContaining({
        type: 'COMMAND_BLOCK', size: 105, blockLength: 91, contentLength: 0,
        header: { INSTANT_TIME: '20250126040936578', COMMAND_BLOCK_TYPE: '0', TARGET_INSTANT_TIME: '20250126040826878' },
      }),
    ]);
  });

  it('headers-only read does not decode records but still reports the record count', async () => {
    const r = await readLogFile(storage, logIn('valid_log_avro_data'));
    expect(r.blocks[0]!.records).toBeUndefined();
    expect(r.blocks[0]!.recordCount).toBe(1);
  });
});
