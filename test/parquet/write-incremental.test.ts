import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DuckDBInstance } from '@duckdb/node-api';
import { LocalStorage } from '../../src/storage/index.ts';
import { withHoodieMetaFields, writeHoodieParquet, type AvroRecordSchema } from '../../src/parquet/write.ts';
import { finishHoodieBaseFile, openHoodieParquetWriter } from '../../src/parquet/write-incremental.ts';

function ab(b: Uint8Array): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

const schema: AvroRecordSchema = withHoodieMetaFields({
  type: 'record',
  name: 'inc_record',
  namespace: 'hoodie.inc',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'n', type: ['null', 'int'], default: null },
    { name: 'amount', type: 'double' },
    { name: 'cnt', type: ['null', 'long'], default: null },
    { name: 'flag', type: 'boolean' },
    { name: 'ratio', type: ['null', 'float'], default: null },
    { name: 'ts', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'price', type: ['null', { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 }], default: null },
    { name: 'tags', type: ['null', { type: 'array', items: 'string' }], default: null },
    { name: 'addr', type: ['null', { type: 'record', name: 'Addr', fields: [{ name: 'city', type: 'string' }, { name: 'zip', type: ['null', 'int'] }] }], default: null },
  ],
});

// keys not in sorted order, so min/max come from the whole file, not the first/last row
function makeRows(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `key-${String((i * 7919) % count).padStart(6, '0')}`;
    return {
      _hoodie_commit_time: '20240101000000000',
      _hoodie_commit_seqno: `20240101000000000_0_${i}`,
      _hoodie_record_key: key,
      _hoodie_partition_path: 'p',
      _hoodie_file_name: 'f-0_0-0-0_20240101000000000.parquet',
      id: key,
      n: i % 3 ? i : null,
      amount: i / 7,
      cnt: i % 7 === 0 ? null : i % 2 ? i * 1000 : BigInt(i) * 3000000000n,
      flag: i % 2 === 0,
      ratio: i % 9 ? i / 3 : undefined,
      ts: 1700000000000000 + i,
      price: i % 5 ? new Uint8Array([i & 0x7f, i & 0xff]) : null,
      tags: i % 4 ? [`t${i % 10}`, 'x'] : null,
      addr: i % 6 ? { city: `c${i % 13}`, zip: i % 2 ? null : i } : null,
    };
  });
}

function incremental(rows: Record<string, unknown>[], batch: number, opts: Parameters<typeof openHoodieParquetWriter>[0]) {
  const w = openHoodieParquetWriter(opts);
  for (let i = 0; i < rows.length; i += batch) w.write(rows.slice(i, i + batch));
  return w.finish();
}

describe('openHoodieParquetWriter', () => {
  const rows = makeRows(2500);

  for (const codec of ['GZIP', 'SNAPPY', 'UNCOMPRESSED'] as const) {
    for (const batch of [1, 333, 1000, 2500]) {
      it(`${codec}, batches of ${batch}: the same bytes as writeHoodieParquet (3 row groups of ≤1000)`, () => {
        const whole = writeHoodieParquet({ schema, rows, codec, rowGroupSize: 1000 });
        const inc = incremental(rows, batch, { schema, codec, rowGroupSize: 1000 });
        expect(inc.size).toBe(whole.bytes.length);
        expect(Buffer.from(inc.bytes).equals(Buffer.from(whole.bytes))).toBe(true);
        expect(inc.rowCount).toBe(2500);
        expect(inc.minRecordKey).toBe('key-000000');
        expect(inc.maxRecordKey).toBe('key-002499');
        expect(inc.bloomFilter?.serialize()).toBe(whole.bloomFilter?.serialize());
        expect(parquetMetadata(ab(inc.bytes)).row_groups.map((g) => Number(g.num_rows))).toEqual([1000, 1000, 500]);
      });
    }
  }

  it('without a bloom filter and with a different key field: still identical', () => {
    const opts = { schema, rowGroupSize: 700, bloomFilter: false as const, recordKeyField: 'id' };
    const whole = writeHoodieParquet({ ...opts, rows });
    const inc = incremental(rows, 250, opts);
    expect(Buffer.from(inc.bytes).equals(Buffer.from(whole.bytes))).toBe(true);
    expect(inc.bloomFilter).toBeUndefined();
  });

  it('no rows: the same (empty) file as writeHoodieParquet', () => {
    const whole = writeHoodieParquet({ schema, rows: [] });
    const inc = openHoodieParquetWriter({ schema }).finish();
    expect(Buffer.from(inc.bytes).equals(Buffer.from(whole.bytes))).toBe(true);
    expect(inc.rowCount).toBe(0);
    expect(inc.minRecordKey).toBeUndefined();
  });

  it('compresses each row group as soon as it is full (nothing held back but the open group)', () => {
    const w = openHoodieParquetWriter({ schema, rowGroupSize: 1000 });
    w.write(rows.slice(0, 999));
    expect(w.bytesWritten).toBe(4); // only the PAR1 magic
    w.write(rows.slice(999, 1001));
    expect(w.bytesWritten).toBeGreaterThan(1000);
    expect(w.rowCount).toBe(1001);
    w.finish();
    expect(() => w.write(rows.slice(0, 1))).toThrow(/write after finish/);
    expect(() => w.finish()).toThrow(/finish called twice/);
  });

  it('names the row without a record key by its position in the whole file', () => {
    const w = openHoodieParquetWriter({ schema, rowGroupSize: 10 });
    w.write(rows.slice(0, 12));
    expect(() => w.write([{ ...rows[12]!, _hoodie_record_key: null }])).toThrow(/row 12 has no record key/);
  });

  it('rejects a missing required value with a parquet error', () => {
    const w = openHoodieParquetWriter({ schema, rowGroupSize: 2 });
    expect(() => w.write([rows[0]!, { ...rows[1]!, id: null }])).toThrow(/cannot write parquet for hoodie.inc.inc_record/);
  });

  it('finishHoodieBaseFile: written through Storage, create-only; hyparquet and DuckDB read the rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-pqinc-'));
    const storage = new LocalStorage();
    const path = join(dir, 'f-0_0-1-2_20240101000000000.parquet');
    const w = openHoodieParquetWriter({ schema, rowGroupSize: 1000 });
    w.write(rows);
    const out = await finishHoodieBaseFile(storage, path, w);
    expect(out.size).toBe(readFileSync(path).length);
    const back = await parquetReadObjects({ file: ab(new Uint8Array(readFileSync(path))), compressors });
    expect(back.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    const w2 = openHoodieParquetWriter({ schema });
    w2.write(rows.slice(0, 1));
    await expect(finishHoodieBaseFile(storage, path, w2)).rejects.toThrow();

    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const r = await c.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids, sum(n)::BIGINT AS sum_n, count(tags)::INTEGER AS tags,
                count(addr)::INTEGER AS addrs, min(ts)::VARCHAR AS min_ts FROM read_parquet('${path}')`,
      );
      const expected = {
        n: 2500,
        ids: 2500,
        sum_n: BigInt(rows.reduce((s, x) => s + ((x.n as number | null) ?? 0), 0)),
        tags: rows.filter((x) => x.tags).length,
        addrs: rows.filter((x) => x.addr).length,
        min_ts: '2023-11-14 22:13:20+00',
      };
      expect(r.getRowObjects()[0]).toEqual(expected);
    } finally {
      c.closeSync();
    }
  });
});
