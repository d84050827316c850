// Compaction reads base files with raw INT64 timestamps: microseconds survive the rewrite.
import { describe, expect, it } from 'vitest';
import { bytesAsyncBuffer, readParquetRowsFrom } from '../../src/parquet/read.ts';
import { withHoodieMetaFields, writeHoodieParquet, type AvroRecordSchema } from '../../src/parquet/write.ts';

const schema: AvroRecordSchema = {
  type: 'record',
  name: 'r',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'ms', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }], default: null },
  ],
} as AvroRecordSchema;

describe('readParquetRows rawTimestamps', () => {
  const meta = { _hoodie_commit_time: '1', _hoodie_commit_seqno: '1_0_0', _hoodie_partition_path: '', _hoodie_file_name: 'f' };
  const file = writeHoodieParquet({
    schema: withHoodieMetaFields(schema),
    rows: [{ ...meta, _hoodie_record_key: 'a', id: 'a', ts: 1_700_000_000_123_456n, ms: 1_700_000_000_123n }],
  });
  it('keeps micros and millis as stored bigint', async () => {
    const [row] = await readParquetRowsFrom(bytesAsyncBuffer(file.bytes), 'mem', { rawTimestamps: true });
    expect(row!.ts).toBe(1_700_000_000_123_456n);
    expect(row!.ms).toBe(1_700_000_000_123n);
  });
  it('default stays Date (other callers unchanged)', async () => {
    const [row] = await readParquetRowsFrom(bytesAsyncBuffer(file.bytes), 'mem');
    expect(row!.ts).toBeInstanceOf(Date);
    expect((row!.ts as Date).getTime()).toBe(1_700_000_000_123);
  });
  it('a rewrite of raw rows is lossless', async () => {
    const [row] = await readParquetRowsFrom(bytesAsyncBuffer(file.bytes), 'mem', { rawTimestamps: true });
    const again = writeHoodieParquet({ schema: withHoodieMetaFields(schema), rows: [row!] });
    const [back] = await readParquetRowsFrom(bytesAsyncBuffer(again.bytes), 'mem', { rawTimestamps: true });
    expect(back!.ts).toBe(1_700_000_000_123_456n);
  });
});
