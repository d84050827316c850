import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { LocalStorage } from '../../src/storage/index.ts';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { HoodieBloomFilter, bloomBitSize, bloomNumHashes, murmurHash } from '../../src/parquet/bloom.ts';
import {
  avroToParquetSchema,
  withHoodieMetaFields,
  writeHoodieParquet,
  writeHoodieBaseFile,
  type AvroRecordSchema,
} from '../../src/parquet/write.ts';

function ab(b: Uint8Array): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}
function kvOf(md: ReturnType<typeof parquetMetadata>): Map<string, string> {
  return new Map((md.key_value_metadata ?? []).map((k) => [k.key, k.value ?? '']));
}
async function readRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  return parquetReadObjects({ file: ab(bytes), compressors });
}
// the comparable part of a schema element
function shape(e: Record<string, unknown>) {
  const { name, type, repetition_type, converted_type, logical_type, num_children, scale, precision, type_length } = e;
  return { name, type, repetition_type, converted_type, logical_type, num_children, scale, precision, type_length };
}

const REAL_V6_BASE = 'city=san_francisco/d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0_0-13-60_20250331030642808.parquet';

describe('murmurHash (Hudi port of MurmurHash2)', () => {
  it('sign-extends tail bytes like Java', () => {
    // same input with a high tail byte must differ from its unsigned interpretation
    const a = murmurHash(new Uint8Array([0x61, 0x62, 0x63, 0xff]), 0);
    const b = murmurHash(new Uint8Array([0x61, 0x62, 0x63, 0xff, 0x80]), 0);
    expect(Number.isInteger(a) && a >= -(2 ** 31) && a < 2 ** 31).toBe(true);
    expect(a).not.toBe(b);
  });
  it('sizes the default filter as BloomFilterUtils (2 587 966 bits, 30 hashes)', () => {
    const bits = bloomBitSize(60000, 0.000000001);
    expect(bits).toBe(2587966);
    expect(bloomNumHashes(bits, 60000)).toBe(30);
  });
});

describe.skipIf(!HAVE_FIXTURES)('HoodieBloomFilter against a real Hudi file', () => {
  // describe bodies run even when skipped: touch the fixture only when it exists
  const file = HAVE_FIXTURES ? join(table('quickstart_trips_table/mor/avro/v6_trips_8i1u'), REAL_V6_BASE) : '';
  const bytes = HAVE_FIXTURES ? new Uint8Array(readFileSync(file)) : new Uint8Array();
  const md = HAVE_FIXTURES ? parquetMetadata(ab(bytes)) : (undefined as unknown as ReturnType<typeof parquetMetadata>);
  const kv = HAVE_FIXTURES ? kvOf(md) : new Map<string, string>();

  it('deserializes the footer filter and contains every record key of the file', async () => {
    const f = HoodieBloomFilter.deserialize(kv.get('org.apache.hudi.bloomfilter')!, kv.get('hoodie_bloom_filter_type_code'));
    expect(f.type).toBe('DYNAMIC_V0');
    expect(f.nbHash).toBe(30);
    expect(f.vectorSize).toBe(2587966);
    const rows = await readRows(bytes);
    expect(rows.length).toBe(4);
    expect(f.currentNbRecord).toBe(4);
    for (const r of rows) expect(f.mightContain(r._hoodie_record_key as string)).toBe(true);
    expect(f.mightContain('not-a-key-in-this-file')).toBe(false);
  });

  it('adding the same keys to a fresh default filter reproduces the footer string bit for bit', async () => {
    const rows = await readRows(bytes);
    const f = HoodieBloomFilter.create();
    for (const r of rows) f.add(r._hoodie_record_key as string);
    expect(f.serialize()).toBe(kv.get('org.apache.hudi.bloomfilter'));
  });
});

describe('HoodieBloomFilter', () => {
  it('DYNAMIC_V0 grows rows up to maxEntries then round-robins, and round-trips', () => {
    const f = HoodieBloomFilter.create({ numEntries: 10, maxEntries: 30, fpp: 0.01 });
    const keys = Array.from({ length: 55 }, (_, i) => `key-${i}`);
    keys.forEach((k) => f.add(k));
    expect(f.rows.length).toBe(3);
    const back = HoodieBloomFilter.deserialize(f.serialize(), 'DYNAMIC_V0');
    expect(back.rows.length).toBe(3);
    expect(back.nr).toBe(10);
    for (const k of keys) expect(back.mightContain(k)).toBe(true);
    expect(back.serialize()).toBe(f.serialize());
  });
  it('SIMPLE has a 13-byte header then the bits; absent type code means SIMPLE', () => {
    const f = HoodieBloomFilter.create({ type: 'SIMPLE', numEntries: 100, fpp: 0.001 });
    f.add('a');
    f.add('b');
    const raw = f.toBytes();
    expect(raw.length).toBe(13 + Math.ceil(f.vectorSize / 8));
    expect([...raw.subarray(0, 4)]).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(raw[8]).toBe(1); // MURMUR_HASH
    const back = HoodieBloomFilter.deserialize(f.serialize(), undefined);
    expect(back.type).toBe('SIMPLE');
    expect(back.mightContain('a') && back.mightContain('b')).toBe(true);
    expect(back.mightContain('c')).toBe(false);
  });
  it('rejects truncated and unknown filters', () => {
    const s = HoodieBloomFilter.create({ numEntries: 10, fpp: 0.1 }).serialize();
    expect(() => HoodieBloomFilter.deserialize(s.slice(0, 12), 'DYNAMIC_V0')).toThrow(/truncated/);
    expect(() => HoodieBloomFilter.deserialize(s, 'DYNAMIC_V9')).toThrow(/unknown bloom filter type/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('writeHoodieParquet vs a real Hudi base file', () => {
  // describe bodies run even when skipped: touch the fixture only when it exists
  const file = HAVE_FIXTURES ? join(table('quickstart_trips_table/mor/avro/v6_trips_8i1u'), REAL_V6_BASE) : '';
  const realBytes = HAVE_FIXTURES ? new Uint8Array(readFileSync(file)) : new Uint8Array();
  const realMd = HAVE_FIXTURES ? parquetMetadata(ab(realBytes)) : (undefined as unknown as ReturnType<typeof parquetMetadata>);
  const realKv = HAVE_FIXTURES ? kvOf(realMd) : new Map<string, string>();
  const avro = (HAVE_FIXTURES ? JSON.parse(realKv.get('parquet.avro.schema')!) : {}) as AvroRecordSchema;

  it('produces the same physical schema as parquet-avro for the same Avro schema', () => {
    expect(avroToParquetSchema(avro).map((e) => shape(e as never))).toEqual(realMd.schema.map((e) => shape(e as never)));
  });

  it('rewriting the real rows gives the same rows, footer keys, min/max and bloom filter', async () => {
    const rows = await readRows(realBytes);
    const out = writeHoodieParquet({ schema: avro, rows });
    const md = parquetMetadata(ab(out.bytes));
    expect(md.schema.map((e) => shape(e as never))).toEqual(realMd.schema.map((e) => shape(e as never)));
    expect(md.row_groups[0]!.columns.every((c) => c.meta_data?.codec === 'GZIP')).toBe(true);
    const kv = kvOf(md);
    expect([...kv.keys()]).toEqual([...realKv.keys()]);
    for (const k of ['parquet.avro.schema', 'writer.model.name', 'hoodie_bloom_filter_type_code', 'org.apache.hudi.bloomfilter', 'hoodie_min_record_key', 'hoodie_max_record_key']) {
      expect(kv.get(k), k).toBe(realKv.get(k));
    }
    expect(await readRows(out.bytes)).toEqual(rows);
  });
});

describe('writeHoodieParquet', () => {
  const schema = withHoodieMetaFields({
    type: 'record',
    name: 'demo_record',
    namespace: 'hoodie.demo',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'n', type: ['null', 'int'], default: null },
      { name: 'amount', type: ['double', 'null'] },
      { name: 'ts', type: { type: 'long', logicalType: 'timestamp-micros' } },
      { name: 'day', type: ['null', { type: 'int', logicalType: 'date' }], default: null },
      { name: 'price', type: ['null', { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 }], default: null },
      { name: 'tags', type: ['null', { type: 'array', items: 'string' }], default: null },
      { name: 'attrs', type: ['null', { type: 'map', values: ['null', 'long'] }], default: null },
      { name: 'addr', type: ['null', { type: 'record', name: 'Addr', fields: [{ name: 'city', type: 'string' }, { name: 'zip', type: ['null', 'int'] }] }], default: null },
      { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B'] } },
    ],
  });
  const rows = [0, 1, 2, 3, 4].map((i) => ({
    _hoodie_commit_time: '20240101000000000',
    _hoodie_commit_seqno: `20240101000000000_0_${i}`,
    _hoodie_record_key: `k${4 - i}`,
    _hoodie_partition_path: 'p',
    _hoodie_file_name: 'f-0_0-0-0_20240101000000000.parquet',
    id: `k${4 - i}`,
    n: i % 2 ? null : i,
    amount: i * 1.5,
    ts: 1700000000000000 + i,
    day: i === 0 ? null : 19000 + i,
    price: new Uint8Array([0x01, i]), // 256 + i, scale 2
    tags: i === 1 ? null : ['x', `t${i}`],
    attrs: i === 2 ? null : { a: i, b: null },
    addr: i === 3 ? null : { city: `c${i}`, zip: i },
    kind: i % 2 ? 'B' : 'A',
  }));

  it('maps Avro nullability and logical types like parquet-avro', () => {
    const s = avroToParquetSchema(schema);
    const by = new Map(s.map((e) => [e.name, e]));
    expect(s[0]!.name).toBe('hoodie.demo.demo_record');
    expect(by.get('_hoodie_commit_time')).toMatchObject({ type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' });
    expect(by.get('id')).toMatchObject({ type: 'BYTE_ARRAY', repetition_type: 'REQUIRED', converted_type: 'UTF8' });
    expect(by.get('n')).toMatchObject({ type: 'INT32', repetition_type: 'OPTIONAL' });
    expect(by.get('amount')).toMatchObject({ type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    expect(by.get('ts')).toMatchObject({ type: 'INT64', repetition_type: 'REQUIRED', converted_type: 'TIMESTAMP_MICROS' });
    expect(by.get('day')).toMatchObject({ type: 'INT32', converted_type: 'DATE' });
    expect(by.get('price')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'DECIMAL', precision: 10, scale: 2 });
    expect(by.get('tags')).toMatchObject({ converted_type: 'LIST', num_children: 1 });
    expect(by.get('list')).toMatchObject({ repetition_type: 'REPEATED' });
    expect(by.get('element')).toMatchObject({ repetition_type: 'REQUIRED', converted_type: 'UTF8' });
    expect(by.get('key_value')).toMatchObject({ repetition_type: 'REPEATED', converted_type: 'MAP_KEY_VALUE' });
    expect(by.get('kind')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'ENUM' });
  });

  for (const codec of ['GZIP', 'SNAPPY', 'UNCOMPRESSED'] as const) {
    it(`${codec}: hyparquet reads back every value; footer min/max keys`, async () => {
      const out = writeHoodieParquet({ schema, rows, codec, rowGroupSize: 2 });
      const md = parquetMetadata(ab(out.bytes));
      expect(md.row_groups.length).toBe(3);
      expect(md.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec))).toEqual(Array(md.row_groups.length * md.row_groups[0]!.columns.length).fill(codec));
      const kv = kvOf(md);
      expect(kv.get('hoodie_min_record_key')).toBe('k0');
      expect(kv.get('hoodie_max_record_key')).toBe('k4');
      expect(JSON.parse(kv.get('parquet.avro.schema')!)).toEqual(schema);
      const back = await readRows(out.bytes);
      expect(back.map((r) => r._hoodie_record_key)).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);
      expect(back[0]).toMatchObject({ n: 0, amount: 0, ts: new Date(1700000000000), kind: 'A', tags: ['x', 't0'], attrs: { a: 0n, b: null }, addr: { city: 'c0', zip: 0 } });
      expect(back[1]).toMatchObject({ n: null, tags: null, kind: 'B' });
      expect(back[2]!.attrs).toBeNull();
      expect(back[3]!.addr).toBeNull();
      expect(back[4]!.price).toBe(2.6); // unscaled 260, scale 2
      const bloom = HoodieBloomFilter.deserialize(kv.get('org.apache.hudi.bloomfilter')!, kv.get('hoodie_bloom_filter_type_code'));
      for (const r of rows) expect(bloom.mightContain(r._hoodie_record_key)).toBe(true);
    });
  }

  it('rows read back by hyparquet (Dates, bigints, decoded decimals) can be written again unchanged (compaction path)', async () => {
    const first = await readRows(writeHoodieParquet({ schema, rows }).bytes);
    const second = await readRows(writeHoodieParquet({ schema, rows: first }).bytes);
    expect(second).toEqual(first);
    expect(second[0]!.ts).toEqual(new Date(1700000000000));
  });

  it('fails with a parquet error naming the row without a record key', () => {
    expect(() => writeHoodieParquet({ schema, rows: [{ ...rows[0]!, _hoodie_record_key: '' }] })).toThrow(/row 0 has no record key/);
  });
  it('rejects a required value that is missing', () => {
    expect(() => writeHoodieParquet({ schema, rows: [{ ...rows[0]!, id: null }] })).toThrow(/cannot write parquet/);
  });
  it('writeHoodieBaseFile writes through Storage and never overwrites', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-pqw-'));
    const storage = new LocalStorage();
    const path = join(dir, 'f-0_0-1-2_20240101000000000.parquet');
    const out = await writeHoodieBaseFile(storage, path, { schema, rows });
    expect(out.size).toBe(readFileSync(path).length);
    expect(out.rowCount).toBe(5);
    expect(Number(parquetMetadata(ab(new Uint8Array(readFileSync(path)))).num_rows)).toBe(5);
    await expect(writeHoodieBaseFile(storage, path, { schema, rows })).rejects.toThrow();
  });
  it('bloomFilter:false writes no filter keys', () => {
    const md = parquetMetadata(ab(writeHoodieParquet({ schema, rows, bloomFilter: false }).bytes));
    const kv = kvOf(md);
    expect(kv.has('org.apache.hudi.bloomfilter')).toBe(false);
    expect(kv.has('hoodie_min_record_key')).toBe(true);
  });
});
