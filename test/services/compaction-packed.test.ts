// The packed merge (columnar-merge.ts: packed columns, no row objects) against the row path it
// replaces (slice-merge.ts + the row writer), on slices built to hit the tricky cases: deletes with and
// without ordering values, precombine ties and older log records, inserts only in the logs, nulls in
// nullable columns and in meta columns of the base file (defaults), a base row without a meta record
// key, NaN/-0 doubles, booleans, timestamp-micros written by a parquet data block (read back exact),
// misaligned base/output row groups, both merge rules and codecs. Same rows in the same order, same
// row-group sizes, same Hudi footer keys (bloom filter bytes, min/max key, Avro schema), same stats;
// DuckDB reads the packed file back. A base file the packed reader cannot take falls back to rows.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata, readOffsetIndex } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it, vi } from 'vitest';
import { encodeAvroDataBlock, encodeDeleteBlock, encodeLogBlock } from '../../src/logfile/index.ts';
import { mergeConfigFromProperties } from '../../src/merge/index.ts';
import { readParquetRows } from '../../src/parquet/read.ts';
import { HoodieBloomFilter } from '../../src/parquet/bloom.ts';
import { avroToParquetSchema, hoodieMetaValues, withHoodieMetaFields, writeHoodieParquet, type AvroRecordSchema } from '../../src/parquet/write.ts';
import { mergeToParquet, type MergeJob, type MergeOutput } from '../../src/services/rewrite/merge-op.ts';
import { MAX_PENDING_GROUPS } from '../../src/services/rewrite/columnar-merge.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, tableFresh } from '../support/fixtures.ts';

const TABLE: AvroRecordSchema = {
  type: 'record',
  name: 'packed_test',
  namespace: 'hoodie.test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'status', type: ['null', 'string'], default: null },
    { name: 'flag', type: 'boolean' },
    { name: 'n', type: ['null', 'int'], default: null },
    { name: 'f', type: 'float' },
    { name: 'at', type: ['null', { type: 'long', logicalType: 'timestamp-micros' }], default: null },
    { name: 'blob', type: ['null', 'bytes'], default: null },
  ],
};
const FULL = withHoodieMetaFields(TABLE);
const BASE_T = '20250101000000000';
const T1 = '20250102000000000';
const T2 = '20250103000000000';
const T3 = '20250104000000000';
const INSTANT = '20250105000000000';
const key = (i: number) => `k${String(i).padStart(5, '0')}${i % 7 === 0 ? 'é' : ''}`;

/** Avro `bytes` that are not UTF-8 (FF FE, a lone continuation byte), null for some rows. */
function blob(i: number, v: number): Uint8Array | null {
  return i % 9 === 4 ? null : new Uint8Array([0xff, 0xfe, i & 0xff, 0x80 | v, (i >> 8) & 0xff]);
}

function baseRow(i: number, nullKey = true): Record<string, unknown> {
  const meta: Record<string, unknown> = hoodieMetaValues({ instant: BASE_T, seq: i, recordKey: key(i), partitionPath: 'p=1', fileName: 'base.parquet' });
  // meta nulls the compaction fills in (defaults), and one row only keyed by its id field
  if (i % 97 === 5) meta._hoodie_commit_seqno = null;
  if (i % 131 === 7) meta._hoodie_commit_time = null;
  if (i % 151 === 9) meta._hoodie_partition_path = null;
  if (i === 42 && nullKey) meta._hoodie_record_key = null;
  return {
    ...meta,
    id: key(i),
    ts: BigInt(1000 + (i % 3)),
    amount: i % 50 === 0 ? Number.NaN : i % 51 === 0 ? -0 : i / 3,
    status: i % 4 === 0 ? null : ['new', 'old', 'ünï'][i % 3],
    flag: i % 3 === 0,
    n: i % 5 === 0 ? null : i - 1000,
    f: i / 8,
    at: i % 6 === 0 ? null : BigInt(1_700_000_000_000_000 + i * 1001),
    blob: blob(i, 0),
  };
}

function logRow(instant: string, i: number, ts: number, seq: number): Record<string, unknown> {
  return {
    _hoodie_commit_time: instant,
    _hoodie_commit_seqno: `${instant}_0_${seq}`,
    _hoodie_record_key: key(i),
    _hoodie_partition_path: 'p=1',
    _hoodie_file_name: 'log',
    id: key(i),
    ts,
    amount: i * 1.5,
    status: i % 2 ? null : 'upd',
    flag: i % 2 === 1,
    n: i % 3 ? i - 1300 : null,
    f: i / 16,
    at: 1_700_000_000_000_000 + i * 7,
    blob: blob(i, 1) && Buffer.from(blob(i, 1)!), // avsc takes bytes as a Buffer
  };
}

const N = 2500;

interface SliceCase {
  tsEncoding?: 'DELTA_BINARY_PACKED';
  /** a delete block, and a base row without a meta record key (default true) */
  deletesAndNullKey?: boolean;
  /** rows per base row group (default 1000) */
  baseGroupRows?: number;
}

async function buildSlice(dir: string, baseCodec: 'GZIP' | 'SNAPPY', { tsEncoding, deletesAndNullKey = true, baseGroupRows = 1000 }: SliceCase = {}): Promise<Omit<MergeJob, 'config' | 'codec'>> {
  const storage = new LocalStorage();
  const basePath = join(dir, 'base.parquet');
  const rows = Array.from({ length: N }, (_, i) => baseRow(i, deletesAndNullKey));
  if (tsEncoding) {
    // a base file with an encoding the packed reader does not take
    const f = writeHoodieParquet({ schema: FULL, rows, codec: baseCodec, rowGroupSize: 1000, recordKeyField: 'id' });
    const md = parquetMetadata(f.bytes.buffer.slice(f.bytes.byteOffset, f.bytes.byteOffset + f.bytes.byteLength) as ArrayBuffer);
    const ab = parquetWriteBuffer({
      schema: avroToParquetSchema(FULL) as never,
      columnData: FULL.fields.map((fl) => ({
        name: fl.name,
        data: rows.map((r) => (fl.name === 'amount' || fl.name === 'f' ? r[fl.name] : r[fl.name] ?? null)),
        ...(fl.name === 'ts' ? { encoding: tsEncoding } : {}),
      })) as never,
      rowGroupSize: 1000,
      kvMetadata: md.key_value_metadata as never,
    });
    writeFileSync(basePath, new Uint8Array(ab));
  } else {
    writeFileSync(basePath, writeHoodieParquet({ schema: FULL, rows, codec: baseCodec, rowGroupSize: baseGroupRows, recordKeyField: 'id' }).bytes);
  }
  // log 1 (Avro): newer, tied and older updates, and inserts only in the logs
  const l1 = [];
  for (let i = 0; i < N; i += 3) l1.push(logRow(T1, i, i % 2 ? 1000 + (i % 3) : 2000, l1.length)); // ties on odd keys
  for (let i = 1; i < N; i += 11) l1.push(logRow(T1, i, -10 - i * 100_000_000_000, l1.length)); // older than the base (negative longs)
  for (let i = N; i < N + 300; i++) l1.push({ ...logRow(T1, i, 5, l1.length), _hoodie_commit_seqno: i % 2 ? null : `${T1}_0_${i}`, _hoodie_partition_path: null });
  const log1 = encodeAvroDataBlock({ instantTime: T1, schema: JSON.stringify(FULL), records: l1 });
  // log 2: deletes with a high, a low and no ordering value, one of an insert
  const deletes = [
    ...Array.from({ length: 40 }, (_, k) => ({ recordKey: key(k * 17 + 2), partitionPath: 'p=1', orderingVal: { type: 'long' as const, value: 5000 } })),
    ...Array.from({ length: 40 }, (_, k) => ({ recordKey: key(k * 19 + 4), partitionPath: 'p=1', orderingVal: { type: 'long' as const, value: 1 } })),
    ...Array.from({ length: 20 }, (_, k) => ({ recordKey: key(k * 23 + 8), partitionPath: 'p=1', orderingVal: null })),
    { recordKey: key(N + 10), partitionPath: 'p=1', orderingVal: null },
  ];
  const log2 = encodeDeleteBlock({ instantTime: T2, schema: JSON.stringify(FULL), deletes });
  // log 3 (parquet data block): updates and inserts; its timestamp-micros column must keep its micros
  const l3 = [];
  for (let i = 5; i < N + 400; i += 13) l3.push({ ...logRow(T3, i, 3000, l3.length), at: BigInt(1_800_000_000_000_000 + i * 1000) });
  const pq = writeHoodieParquet({ schema: FULL, rows: l3 });
  const log3 = encodeLogBlock({ type: 'PARQUET_DATA_BLOCK', header: [['INSTANT_TIME', T3], ['SCHEMA', JSON.stringify(FULL)]], content: pq.bytes });
  const logFiles = [];
  for (const [n, b] of (deletesAndNullKey ? [log1, log2, log3] : [log1, log3]).entries()) {
    const p = join(dir, `.fg_${BASE_T}.log.${n + 1}_0-1-0`);
    writeFileSync(p, b);
    logFiles.push({ path: p, size: b.length });
  }
  void storage;
  return {
    partition: 'p=1',
    fileId: 'fg',
    baseFile: { path: basePath, size: readFileSync(basePath).length },
    logFiles,
    instant: INSTANT,
    index: 3,
    fileName: `fg_3-0-0_${INSTANT}.parquet`,
    writerSchema: FULL,
    committed: { completed: [BASE_T, T1, T2, T3] },
    rowGroupSize: 700,
  };
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

async function contentOf(dir: string, name: string, out: MergeOutput) {
  const p = join(dir, name);
  writeFileSync(p, out.bytes);
  const md = parquetMetadata(out.bytes.buffer.slice(out.bytes.byteOffset, out.bytes.byteOffset + out.bytes.byteLength) as ArrayBuffer);
  const rows = await readParquetRows(new LocalStorage(), p, { rawTimestamps: true });
  return {
    // raw bytes spelled out as hex (Avro `bytes` must come back as written, not UTF-8 decoded)
    rows: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' && Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : v instanceof Uint8Array ? `0x${hex(v)}` : v]))),
    groups: md.row_groups.map((g) => Number(g.num_rows)),
    // column statistics as a reader sees them (NaN/-0 spelled out: toEqual treats -0 and 0 alike)
    columnStats: md.row_groups.map((g) => g.columns.map((c) => JSON.stringify(c.meta_data?.statistics, (_, v) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v)))),
    kv: md.key_value_metadata,
    schema: md.schema.map((e) => ({ ...e })),
    rowCount: out.rowCount,
    stats: out.stats,
  };
}

const RULES = {
  event: { 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.table.recordkey.fields': 'id', 'hoodie.compaction.payload.class': 'org.apache.hudi.common.model.DefaultHoodieRecordPayload' },
  commit: { 'hoodie.table.version': '8', 'hoodie.table.ordering.fields': 'ts', 'hoodie.table.recordkey.fields': 'id', 'hoodie.record.merge.mode': 'COMMIT_TIME_ORDERING' },
};

describe('packed compaction merge equals the row path', () => {
  for (const [rule, props] of Object.entries(RULES)) {
    for (const codec of ['GZIP', 'SNAPPY'] as const) {
      it(`${rule} merge rule, ${codec} output`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
        const slice = await buildSlice(dir, codec === 'GZIP' ? 'SNAPPY' : 'GZIP');
        await same(dir, slice, props, codec);
        expect((await mergeToParquet(new LocalStorage(), { ...slice, config: mergeConfigFromProperties(props), codec, mergePath: 'rows' })).stats.totalDeletedRecords).toBeGreaterThan(0);
      });
    }
  }

  it('no deletes, every meta key set: the base footer bloom filter is resumed, the footer is the one a fresh filter gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const slice = await buildSlice(dir, 'GZIP', { deletesAndNullKey: false });
    const resume = vi.spyOn(HoodieBloomFilter, 'resume');
    try {
      await same(dir, slice, RULES.event, 'GZIP');
      expect(resume.mock.results.some((r) => r.value !== undefined)).toBe(true);
    } finally {
      resume.mockRestore();
    }
  });

  it('a row group that is exactly its base row group writes the unchanged columns as the base chunks (same bytes), the rest encoded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const slice = await buildSlice(dir, 'GZIP', { deletesAndNullKey: false });
    // output row groups of the base's size: groups 0 and 1 line up (no deletes), the last one takes the inserts
    await same(dir, { ...slice, rowGroupSize: 1000 }, RULES.event, 'GZIP');
    const chunkBytes = (file: string, g: number, name: string) => {
      const b = readFileSync(file);
      const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
      const c = md.row_groups[g]!.columns.find((x) => x.meta_data!.path_in_schema[0] === name)!.meta_data!;
      const begin = Number(c.dictionary_page_offset || c.data_page_offset);
      return b.subarray(begin, begin + Number(c.total_compressed_size));
    };
    const base = slice.baseFile!.path;
    const out = join(dir, 'packed.parquet');
    for (const g of [0, 1]) {
      // the key and id columns are unchanged by updates: written as they are
      expect(Buffer.compare(chunkBytes(out, g, 'id'), chunkBytes(base, g, 'id'))).toBe(0);
      expect(Buffer.compare(chunkBytes(out, g, '_hoodie_record_key'), chunkBytes(base, g, '_hoodie_record_key'))).toBe(0);
      // updated columns are encoded again
      expect(Buffer.compare(chunkBytes(out, g, 'ts'), chunkBytes(base, g, 'ts'))).not.toBe(0);
    }
  });

  async function same(dir: string, slice: Awaited<ReturnType<typeof buildSlice>>, props: Record<string, string>, codec: 'GZIP' | 'SNAPPY'): Promise<void> {
    const job: MergeJob = { ...slice, config: mergeConfigFromProperties(props), codec };
    const storage = new LocalStorage();
    const rows = await mergeToParquet(storage, { ...job, mergePath: 'rows' });
    const packed = await mergeToParquet(storage, job);
    expect(rows.path).toBe('rows');
    expect(packed.path).toBe('packed');
    const a = await contentOf(dir, 'rows.parquet', rows);
    const b = await contentOf(dir, 'packed.parquet', packed);
    expect(b.rowCount).toBe(a.rowCount);
    expect(b.stats).toEqual(a.stats);
    expect(b.groups).toEqual(a.groups);
    expect(b.columnStats).toEqual(a.columnStats);
    expect(b.schema).toEqual(a.schema);
    expect(b.kv).toEqual(a.kv);
    expect(b.rows).toEqual(a.rows);
    // the non-UTF-8 `bytes` column holds a base or a log version of each row's bytes, byte for byte
    for (const out of [a, b]) {
      for (const r of out.rows) {
        const i = Number(String(r.id).slice(1, 6));
        const ok = [blob(i, 0), blob(i, 1)].map((x) => (x === null ? null : `0x${hex(x)}`));
        expect(ok).toContain(r.blob);
      }
      expect(out.rows.filter((r) => typeof r.blob === 'string' && r.blob.startsWith('0xfffe')).length).toBeGreaterThan(N / 2);
    }
    // the cases were hit: updates, meta defaults, log-only records, several row groups
    expect(a.stats.totalUpdatedRecordsCompacted).toBeGreaterThan(0);
    expect(a.rows.some((r, n) => r._hoodie_commit_seqno === `${INSTANT}_3_${n}`)).toBe(true);
    expect(a.rows.filter((r) => r._hoodie_commit_time === T3).length).toBeGreaterThan(0);
    expect(a.rows.length).toBeGreaterThan(N);
    expect(a.groups.length).toBeGreaterThanOrEqual(3);
    // an independent reader takes the packed file
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const r = await c.runAndReadAll(
      `SELECT count(*)::BIGINT AS n, count(status)::BIGINT AS s, sum(CASE WHEN flag THEN 1 ELSE 0 END)::BIGINT AS t, count(DISTINCT _hoodie_record_key)::BIGINT AS k FROM read_parquet('${join(dir, 'packed.parquet')}')`,
    );
    const got = r.getRowObjects()[0]!;
    expect(Number(got.n)).toBe(a.rowCount);
    expect(Number(got.k)).toBe(a.rowCount);
    expect(Number(got.s)).toBe(a.rows.filter((x) => x.status !== null).length);
    expect(Number(got.t)).toBe(a.rows.filter((x) => x.flag === true).length);
    c.closeSync();
  }

  it('one base row group spanning many output row groups: the merge waits for compressions at flush points (a bounded number pending, still overlapping), the same file as from a base file of small row groups', async () => {
    const big = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const small = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const one = { ...(await buildSlice(big, 'GZIP', { baseGroupRows: N })), rowGroupSize: 100 };
    const many = { ...(await buildSlice(small, 'GZIP', { baseGroupRows: 100 })), rowGroupSize: 100 };
    await same(big, one, RULES.event, 'GZIP');
    const job = (s: typeof one): MergeJob => ({ ...s, config: mergeConfigFromProperties(RULES.event), codec: 'GZIP' });
    const a = await mergeToParquet(new LocalStorage(), job(one));
    const b = await mergeToParquet(new LocalStorage(), job(many));
    expect(a.path).toBe('packed');
    expect(Buffer.compare(a.bytes, b.bytes)).toBe(0);
    expect(parquetMetadata(a.bytes.buffer.slice(a.bytes.byteOffset, a.bytes.byteOffset + a.bytes.byteLength) as ArrayBuffer).row_groups.length).toBeGreaterThan(25);
    // never more than the bound pending (the merge waits once it is passed), and more than one: compression overlaps the merge
    expect(a.pendingPeak).toBeLessThanOrEqual(MAX_PENDING_GROUPS + 1);
    expect(a.pendingPeak).toBeGreaterThan(1);
  });

  it('chunks copied from the base file keep an offset index: the page locations the row path writes (300k rows, multi-page chunks)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const M = 300_000;
    const basePath = join(dir, 'base.parquet');
    writeFileSync(basePath, writeHoodieParquet({ schema: FULL, rows: Array.from({ length: M }, (_, i) => baseRow(i, false)), rowGroupSize: M, recordKeyField: 'id' }).bytes);
    // updates only (no row leaves), so the output row group is the base row group and unchanged columns are copied
    const l1 = [];
    for (let i = 3; i < M; i += 997) l1.push(logRow(T1, i, 5000, l1.length));
    const logPath = join(dir, `.fg_${BASE_T}.log.1_0-1-0`);
    writeFileSync(logPath, encodeAvroDataBlock({ instantTime: T1, schema: JSON.stringify(FULL), records: l1 }));
    const job: MergeJob = {
      partition: 'p=1',
      fileId: 'fg',
      baseFile: { path: basePath, size: readFileSync(basePath).length },
      logFiles: [{ path: logPath, size: readFileSync(logPath).length }],
      instant: INSTANT,
      index: 3,
      fileName: `fg_3-0-0_${INSTANT}.parquet`,
      writerSchema: FULL,
      committed: { completed: [BASE_T, T1] },
      rowGroupSize: M,
      config: mergeConfigFromProperties(RULES.event),
      codec: 'GZIP',
    };
    const rows = await mergeToParquet(new LocalStorage(), { ...job, mergePath: 'rows' });
    const packed = await mergeToParquet(new LocalStorage(), job);
    expect(packed.path).toBe('packed');
    const base = readFileSync(basePath);
    const chunks = (b: Uint8Array) => {
      const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
      expect(md.row_groups).toHaveLength(1);
      return md.row_groups[0]!.columns.map((c) => {
        const m = c.meta_data!;
        const begin = Number(m.dictionary_page_offset || m.data_page_offset);
        const bytes = Buffer.from(b.subarray(begin, begin + Number(m.total_compressed_size)));
        if (c.offset_index_offset === undefined) return { name: m.path_in_schema[0]!, bytes, pages: undefined };
        const at = Number(c.offset_index_offset);
        const index = readOffsetIndex({ view: new DataView(b.buffer, b.byteOffset + at, Number(c.offset_index_length)), offset: 0 });
        // offsets from the chunk's start: the chunks before it may differ in size between the files
        return { name: m.path_in_schema[0]!, bytes, pages: index.page_locations.map((l) => ({ ...l, offset: Number(l.offset) - begin })) };
      });
    };
    const a = chunks(rows.bytes);
    const p = chunks(packed.bytes);
    const fromBase = chunks(base);
    expect(p.map((c) => [c.name, c.pages])).toEqual(a.map((c) => [c.name, c.pages]));
    // the case was hit: a column copied from the base file, in several pages
    const copied = p.filter((c, j) => c.pages && c.bytes.equals(fromBase[j]!.bytes));
    expect(copied.map((c) => c.name)).toContain('_hoodie_record_key');
    expect(copied.every((c) => c.pages!.length > 1)).toBe(true);
  }, 180_000);

  it('a base file with an encoding the packed reader does not take goes through the row path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-packed-'));
    const slice = await buildSlice(dir, 'GZIP', { tsEncoding: 'DELTA_BINARY_PACKED' });
    const job: MergeJob = { ...slice, config: mergeConfigFromProperties(RULES.event), codec: 'GZIP' };
    const out = await mergeToParquet(new LocalStorage(), job);
    expect(out.path).toBe('rows');
    const ref = await mergeToParquet(new LocalStorage(), { ...job, mergePath: 'rows' });
    expect(Buffer.compare(out.bytes, ref.bytes)).toBe(0);
  });
});

function morWithLogs(): string[] {
  if (!HAVE_FIXTURES) return [];
  return allTableIds().filter((id) => {
    const t = catalogTable(id);
    return t.table_type === 'MERGE_ON_READ' && Number(t.num_log_files) > 0 && !String(t.base_file_format).startsWith('LANCE');
  });
}

describe.skipIf(!HAVE_FIXTURES)('packed compaction merge on the fixture tables', () => {
  const paths = new Map<string, string[]>();
  let carried = 0;
  const chunkBytes = (b: Buffer, c: NonNullable<ReturnType<typeof parquetMetadata>['row_groups'][number]['columns'][number]['meta_data']>) => {
    const begin = Number(c.dictionary_page_offset || c.data_page_offset);
    return b.subarray(begin, begin + Number(c.total_compressed_size));
  };
  for (const id of morWithLogs()) {
    // 'base': output row groups as large as the first base file's, so Hudi-written chunks of unchanged columns are carried over
    for (const groups of ['default', 'base'] as const) {
      it(`${id} (${groups} row groups): the same new base files as the row path`, async () => {
        const a = tableFresh(id);
        const mdt = (catalogTable(id).metadata_table_exists as boolean) === true;
        const opts = { clockSkewMs: 1, metadataTable: mdt ? ('disable' as const) : undefined };
        const s = await scheduleCompaction(await openTable(a), { ...opts, strategy: 'all' });
        if (!s.instant) return;
        const op = s.plan!.operations!.find((o) => o.dataFilePath);
        const baseOf = (o: NonNullable<typeof op>) => join(a, o.partitionPath ?? '', o.dataFilePath!);
        const readMd = (f: string) => {
          const b = readFileSync(f);
          return { b, md: parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer) };
        };
        if (groups === 'base' && !op) return;
        const rowGroupSize = groups === 'base' ? Number(readMd(baseOf(op!)).md.row_groups[0]!.num_rows) : undefined;
        const b = mkdtempSync(join(tmpdir(), 'tblcli-packed-fx-'));
        cpSync(a, b, { recursive: true });
        const seen: string[] = [];
        const ra = await runCompaction(await openTable(a), { ...opts, rowGroupSize, mergePath: 'rows' });
        const rb = await runCompaction(await openTable(b), { ...opts, rowGroupSize, onProgress: (e) => seen.push(e.merge) });
        paths.set(id, seen);
        expect(rb.writeStats.map((w) => w.path)).toEqual(ra.writeStats.map((w) => w.path));
        const strip = (r: typeof ra) => r.writeStats.map((w) => ({ ...w, runtimeStats: null, totalLogReadTimeMs: 0, totalWriteBytes: 0, fileSizeInBytes: 0 }));
        expect(strip(rb)).toEqual(strip(ra));
        for (const w of ra.writeStats) {
          const read = async (base: string) => {
            const { md } = readMd(join(base, w.path!));
            const rows = await readParquetRows(new LocalStorage(), join(base, w.path!), { rawTimestamps: true });
            return { rows, kv: md.key_value_metadata, schema: md.schema, groups: md.row_groups.map((g) => Number(g.num_rows)) };
          };
          expect(await read(b)).toEqual(await read(a));
        }
        if (groups === 'base') {
          // count the chunks written as the Hudi file had them (same bytes as a base chunk of the column)
          const out = rb.writeStats.find((w) => w.fileId === op!.fileId)!;
          const o = readMd(join(b, out.path!));
          // an independent reader takes the file with carried-over chunks
          const db = await DuckDBInstance.create(':memory:');
          const c = await db.connect();
          const r = await c.runAndReadAll(`SELECT count(*)::BIGINT AS n, count(DISTINCT _hoodie_record_key)::BIGINT AS k FROM read_parquet('${join(b, out.path!)}')`);
          expect(Number(r.getRowObjects()[0]!.n)).toBe(out.numWrites);
          expect(Number(r.getRowObjects()[0]!.k)).toBe(out.numWrites);
          c.closeSync();
          const base = readMd(baseOf(op!));
          for (const c of o.md.row_groups[0]?.columns ?? []) {
            const bc = base.md.row_groups[0]?.columns.find((x) => x.meta_data!.path_in_schema.join('.') === c.meta_data!.path_in_schema.join('.'));
            if (bc && Buffer.compare(chunkBytes(o.b, c.meta_data!), chunkBytes(base.b, bc.meta_data!)) === 0) carried++;
          }
        }
      });
    }
  }
  it('the packed path took the fixture tables whose base files allow it, and carried Hudi-written chunks over', () => {
    const packed = [...paths].filter(([, p]) => p.includes('packed')).map(([id]) => id);
    expect(packed.length).toBeGreaterThan(0);
    expect(carried).toBeGreaterThan(0);
  });
});
