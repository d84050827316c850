import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { mdtFixtures, scanMdtCached, type MdtFixture } from '../support/mdt-scan.ts';
import {
  columnStatsKey,
  decodeMetadataRecord,
  encodeMetadataRecord,
  twosComplementToBigInt,
  type BloomFilterRecord,
  type ColumnStats,
  type ColumnStatsRecord,
  type MetadataRecord,
  type StatValue,
} from '../../src/mdt/index.ts';
import {
  bloomFilterRecordFromFooter,
  columnStatsFromFooter,
  columnStatsIndexDefinition,
  columnStatsRecordsFromFooter,
  indexedColumnsFromRecords,
  statsEncodingFor,
  type StatsEncoding,
} from '../../src/mdt/column-stats.ts';
import { HoodieBloomFilter, describeParquet, readParquetRows } from '../../src/parquet/index.ts';
import { parquetMetadata } from 'hyparquet';
import { LocalStorage } from '../../src/storage/index.ts';

const fixtures = await mdtFixtures();

interface BaseFile {
  partition: string;
  name: string;
  path: string;
}

function baseFiles(base: string): BaseFile[] {
  const out: BaseFile[] = [];
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      if (n === '.hoodie') continue;
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.parquet')) out.push({ partition: relative(base, dir), name: n, path: p });
    }
  };
  walk(base);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The footer alone: metadata + length + magic, as a writer has it after closing the file. */
function footerOf(path: string): Uint8Array {
  const b = readFileSync(path);
  const len = b.readUInt32LE(b.length - 8);
  return new Uint8Array(b.subarray(b.length - 8 - len));
}

interface StatsSetup {
  columns: string[];
  encoding: StatsEncoding;
}

async function statsSetup(f: MdtFixture, stored: ColumnStats[]): Promise<StatsSetup> {
  const defs = join(f.base, '.hoodie', '.index_defs', 'index.json');
  if (f.tableVersion >= 8) {
    const d = columnStatsIndexDefinition(readFileSync(defs, 'utf8'))!;
    return { columns: d.columns, encoding: statsEncodingFor(d.version) };
  }
  // v6: no definitions file; the indexed columns are those the existing records name
  expect(existsSync(defs)).toBe(false);
  const file = baseFiles(f.base)[0]!;
  const schema = describeParquet(parquetMetadata(footerOf(file.path))).columns;
  const columns = indexedColumnsFromRecords(stored.map((s) => s.columnName!), schema);
  // the Trino table's hoodie.metadata.index.column.stats.column.list, in schema order
  expect(columns).toEqual(['_hoodie_commit_time', '_hoodie_record_key', '_hoodie_partition_path', 'id', 'name', 'price', 'ts', 'country']);
  return { columns, encoding: 'legacy' };
}

const withColumnStats = fixtures.filter((f) => existsSync(join(f.base, '.hoodie', 'metadata', 'column_stats')));

describe.skipIf(withColumnStats.length === 0)('column-stats records from base-file footers equal the stored ones', () => {
  const summary: Record<string, { files: number; records: number }> = {};
  for (const f of withColumnStats) {
    it(`${f.id}`, async () => {
      const scan = await scanMdtCached(f.base);
      const stored = new Map<string, MetadataRecord[]>();
      for (const r of scan.records.filter((x) => x.partition === 'column_stats')) {
        const rec = decodeMetadataRecord(r.key, r.value, r.schema, r.path);
        stored.set(rec.key, [...(stored.get(rec.key) ?? []), rec]);
      }
      const all = [...stored.values()].flat().map((r) => (r as ColumnStatsRecord).columnStats);
      const setup = await statsSetup(f, all);
      let files = 0;
      let records = 0;
      for (const bf of baseFiles(f.base)) {
        const ours = columnStatsRecordsFromFooter(bf.partition, bf.name, footerOf(bf.path), setup.columns, setup.encoding, bf.path);
        const theirs = setup.columns.map((c) => stored.get(columnStatsKey(c, bf.partition, bf.name)));
        if (theirs.every((t) => t === undefined)) {
          // Hudi indexed nothing for this file: a DELETE that emptied it (no row groups); neither do we
          expect(ours, bf.path).toEqual([]);
          expect(Number(parquetMetadata(footerOf(bf.path)).num_rows), bf.path).toBe(0);
          continue;
        }
        files++;
        // every indexed column Hudi recorded for this file, and no other
        expect(ours.map((r) => r.key).sort(), bf.path).toEqual(theirs.filter((t) => t).map((t) => t![0]!.key).sort());
        for (const rec of ours) {
          for (const s of stored.get(rec.key)!) {
            const { meta: _meta, ...plain } = s;
            expect(rec, `${bf.path} ${(rec as ColumnStatsRecord).columnStats.columnName}`).toEqual(plain);
            records++;
          }
        }
      }
      summary[f.id] = { files, records };
      const hasParquet = baseFiles(f.base).length > 0;
      if (hasParquet) expect(files, 'base files compared').toBeGreaterThan(0);
    });
  }

  it('covers legacy (v6, v8) and typed (v9) encodings with decimals, dates, timestamps, booleans and doubles', () => {
    expect(Object.values(summary).reduce((n, s) => n + s.files, 0)).toBeGreaterThan(40);
    expect(summary['trino/hudi_multi_fg_pt_v6_mor']?.files ?? (fixtures.some((f) => f.tableVersion === 6) ? 0 : 1)).toBeGreaterThan(0);
    expect(summary['quickstart_trips_table/mor/avro/v8_trips_8i3u1d']?.files).toBeGreaterThan(0);
    expect(summary['sample_table/mor/avro/v9_txns_simple_meta']?.files).toBeGreaterThan(0);
  });
});

/** DuckDB's rendering of one of our min/max values, for the cross-check. */
function render(v: StatValue, logical: string | undefined, scale: number): string {
  switch (v.type) {
    case 'bytes':
      if (logical === 'DECIMAL') {
        const u = twosComplementToBigInt(v.value);
        const neg = u < 0n;
        const digits = (neg ? -u : u).toString().padStart(scale + 1, '0');
        return `${neg ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
      }
      return Buffer.from(v.value).toString('latin1');
    case 'date':
    case 'int':
      if (logical === 'DATE') return new Date(Number(v.value) * 86400000).toISOString().slice(0, 10);
      return String(v.value);
    case 'long':
      return String(v.value);
    case 'boolean':
      return String(v.value);
    case 'double':
    case 'float':
      return String(v.value);
    default:
      return String(v.value);
  }
}

describe.skipIf(!fixtures.some((f) => f.id === 'sample_table/mor/avro/v9_txns_simple_meta'))('cross-check against DuckDB parquet_metadata()', () => {
  it('min/max, null and value counts and sizes of a few files agree with DuckDB', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    let compared = 0;
    try {
      for (const id of ['sample_table/mor/avro/v9_txns_simple_meta', 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d', 'trino/hudi_multi_fg_pt_v6_mor']) {
        const f = fixtures.find((x) => x.id === id);
        if (!f) continue;
        for (const bf of baseFiles(f.base).slice(0, 3)) {
          const meta = parquetMetadata(footerOf(bf.path));
          const leaves = meta.schema.filter((e) => e.type !== undefined);
          const cols = leaves.map((e) => e.name);
          const ours = new Map(columnStatsFromFooter(footerOf(bf.path), bf.name, cols, 'typed').stats.map((s) => [s.columnName!, s]));
          const reader = await con.runAndReadAll(
            `select path_in_schema, stats_min_value, stats_max_value, stats_null_count, num_values, total_compressed_size, total_uncompressed_size
             from parquet_metadata('${bf.path.replaceAll("'", "''")}') order by row_group_id, column_id`,
          );
          for (const row of reader.getRowObjectsJS()) {
            const name = String(row.path_in_schema);
            const s = ours.get(name);
            if (!s) continue; // a type the typed encoding does not index
            const e = leaves.find((x) => x.name === name)!;
            expect([s.nullCount, s.valueCount, s.totalSize, s.totalUncompressedSize], `${bf.path} ${name}`).toEqual([
              Number(row.stats_null_count), Number(row.num_values), Number(row.total_compressed_size), Number(row.total_uncompressed_size),
            ]);
            const logical = e.logical_type?.type ?? (e.converted_type === 'DECIMAL' ? 'DECIMAL' : e.converted_type === 'DATE' ? 'DATE' : undefined);
            const scale = (e.logical_type as { scale?: number } | undefined)?.scale ?? e.scale ?? 0;
            if (s.minValue === null) expect(row.stats_min_value).toBeNull();
            else {
              const [mn, mx] = [render(s.minValue, logical, scale), render(s.maxValue!, logical, scale)];
              if (s.minValue.type === 'double' || s.minValue.type === 'float') {
                expect(Number(mn)).toBe(Number(row.stats_min_value));
                expect(Number(mx)).toBe(Number(row.stats_max_value));
              } else if (e.logical_type?.type === 'TIMESTAMP') {
                // DuckDB renders timestamps as "2024-01-20 16:00:00+00"; compare the instants in micros
                const micros = (t: unknown) => BigInt(Date.parse(String(t).replace(' ', 'T').replace(/\+00$/, 'Z'))) * 1000n;
                expect([BigInt(mn), BigInt(mx)], `${bf.path} ${name}`).toEqual([micros(row.stats_min_value), micros(row.stats_max_value)]);
              } else {
                expect([mn, mx], `${bf.path} ${name}`).toEqual([String(row.stats_min_value), String(row.stats_max_value)]);
              }
            }
            compared++;
          }
        }
      }
    } finally {
      con.closeSync();
      db.closeSync();
    }
    expect(compared).toBeGreaterThan(50);
  });
});

describe.skipIf(fixtures.length === 0)('bloom-filter records from base-file footers', () => {
  it('no fixture MDT has a bloom_filters partition (so these are built from footers and round-tripped)', () => {
    expect(fixtures.filter((f) => existsSync(join(f.base, '.hoodie', 'metadata', 'bloom_filters')))).toEqual([]);
  });

  it('the record carries the footer filter, round-trips through v6/v8/v9 writer schemas, and the filter finds every key of the file', async () => {
    const schemas = new Map<string, string>();
    for (const f of fixtures) {
      const scan = await scanMdtCached(f.base);
      for (const r of scan.records) {
        const v = r.schema.includes('"valueType"') ? 'v9' : r.schema.includes('"isTightBound"') ? 'v8' : 'v6';
        schemas.set(v, r.schema);
      }
    }
    expect([...schemas.keys()].sort()).toEqual(['v6', 'v8', 'v9']);
    let checked = 0;
    for (const id of ['quickstart_trips_table/mor/avro/v8_trips_8i3u1d', 'sample_table/mor/avro/v9_txns_simple_meta', 'trino/hudi_multi_fg_pt_v6_mor']) {
      const f = fixtures.find((x) => x.id === id);
      if (!f) continue;
      for (const bf of baseFiles(f.base).slice(0, 4)) {
        const footer = footerOf(bf.path);
        const kv = describeParquet(parquetMetadata(footer)).keyValue;
        const instant = bf.name.slice(bf.name.lastIndexOf('_') + 1, bf.name.indexOf('.parquet'));
        const rec = bloomFilterRecordFromFooter(bf.partition, bf.name, instant, footer, { path: bf.path }) as BloomFilterRecord;
        expect(rec.bloomFilter.type).toBe(kv.hoodie_bloom_filter_type_code);
        expect(Buffer.from(rec.bloomFilter.bloomFilter).toString('utf8')).toBe(kv['org.apache.hudi.bloomfilter']);
        for (const s of schemas.values()) {
          const back = decodeMetadataRecord(rec.key, encodeMetadataRecord(rec, s), s) as BloomFilterRecord;
          // (toEqual on a 431 KB Uint8Array is very slow: bytes compared with Buffer.equals)
          expect(Buffer.from(back.bloomFilter.bloomFilter).equals(Buffer.from(rec.bloomFilter.bloomFilter))).toBe(true);
          expect({ ...back, bloomFilter: { ...back.bloomFilter, bloomFilter: null } }).toEqual({ ...rec, bloomFilter: { ...rec.bloomFilter, bloomFilter: null } });
        }
        const filter = HoodieBloomFilter.deserialize(Buffer.from(rec.bloomFilter.bloomFilter).toString('utf8'), rec.bloomFilter.type);
        const rows = await readParquetRows(new LocalStorage(), bf.path, { columns: ['_hoodie_record_key'] });
        for (const row of rows) expect(filter.mightContain(String(row._hoodie_record_key))).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});
