// One file group's packed merge on two threads (two-stage.ts): the bundled worker scans and merges,
// the main thread encodes and assembles. The new base file must be byte-identical to the one-thread
// merge's (in-process and in a worker) on every slice shape — bench-like, with deletes, null meta
// fields, parquet log blocks, base row groups larger than the output's — and the cases the packed path
// does not take, or an input error, must end as the one-thread merge ends.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { TblError } from '../../src/errors/index.ts';
import { encodeAvroDataBlock, encodeDeleteBlock, encodeLogBlock } from '../../src/logfile/index.ts';
import { mergeConfigFromProperties } from '../../src/merge/index.ts';
import { avroToParquetSchema, hoodieMetaValues, withHoodieMetaFields, writeHoodieParquet, type AvroRecordSchema, type ParquetCodec } from '../../src/parquet/write.ts';
import { mergeToParquet, type MergeJob, type MergeOutput } from '../../src/services/rewrite/merge-op.ts';
import { mergeJob } from '../../src/services/rewrite/worker-run.ts';
import { fileGroupThreadsFor } from '../../src/services/compaction/execute.ts';
import { ThreadBudget } from '../../src/services/rewrite/worker-run.ts';
import { runCompaction, scheduleCompaction } from '../../src/services/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable } from '../../src/table/index.ts';
import { bundleForTest } from '../support/bundle.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';

let url: URL;

beforeAll(async () => {
  url = (await bundleForTest('src/services/rewrite/worker.ts', 'compaction-worker.mjs', { packages: 'external' })).url;
});

const TABLE: AvroRecordSchema = {
  type: 'record',
  name: 'r',
  namespace: 'hoodie.t',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'status', type: ['null', 'string'], default: null },
    { name: 'n', type: ['null', 'int'], default: null },
  ],
};
const FULL = withHoodieMetaFields(TABLE);
const BASE_T = '20250101000000000';
const T1 = '20250102000000000';
const T2 = '20250103000000000';
const T3 = '20250104000000000';
const INSTANT = '20250105000000000';
const key = (i: number) => `key-${String(i).padStart(6, '0')}`;

interface Shape {
  rows: number;
  baseGroupRows: number;
  rowGroupSize: number;
  /** a delete block, base rows with null meta fields, log records without a seqno, a parquet log block */
  tricky?: boolean;
  /** the base file's ts column DELTA_BINARY_PACKED (the packed reader does not take it); 'hidden': its footer says PLAIN (found only when a page is read) */
  deltaTs?: boolean | 'hidden';
  codec?: ParquetCodec;
}

function baseRow(i: number, tricky: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = hoodieMetaValues({ instant: BASE_T, seq: i, recordKey: key(i), partitionPath: '', fileName: 'base.parquet' });
  if (tricky && i % 97 === 5) meta._hoodie_commit_seqno = null;
  if (tricky && i % 131 === 7) meta._hoodie_commit_time = null;
  return { ...meta, id: key(i), ts: 1000n, amount: i / 7, status: i % 4 ? 'new' : null, n: i % 5 ? i : null };
}

function logRow(instant: string, i: number, seq: number, ts: number): Record<string, unknown> {
  return { _hoodie_commit_time: instant, _hoodie_commit_seqno: `${instant}_0_${seq}`, _hoodie_record_key: key(i), _hoodie_partition_path: '', _hoodie_file_name: 'log', id: key(i), ts, amount: seq, status: 'upd', n: i % 3 ? null : -i };
}

/** A file slice like the bench's: a base file of `rows` rows in groups of `baseGroupRows`, logs of updates and inserts. */
function slice(s: Shape): MergeJob {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-two-stage-slice-'));
  const tricky = s.tricky ?? false;
  const rows = Array.from({ length: s.rows }, (_, i) => baseRow(i, tricky));
  const basePath = join(dir, 'base.parquet');
  if (s.deltaTs) {
    const f = writeHoodieParquet({ schema: FULL, rows, codec: 'GZIP', rowGroupSize: s.baseGroupRows, recordKeyField: 'id' });
    const md = parquetMetadata(f.bytes.buffer.slice(f.bytes.byteOffset, f.bytes.byteOffset + f.bytes.byteLength) as ArrayBuffer);
    const ab = parquetWriteBuffer({
      schema: avroToParquetSchema(FULL) as never,
      columnData: FULL.fields.map((fl) => ({ name: fl.name, data: rows.map((r) => r[fl.name] ?? null), ...(fl.name === 'ts' ? { encoding: 'DELTA_BINARY_PACKED' } : {}) })) as never,
      rowGroupSize: s.baseGroupRows,
      kvMetadata: md.key_value_metadata as never,
    });
    writeFileSync(basePath, s.deltaTs === 'hidden' ? withPlainFooter(new Uint8Array(ab)) : new Uint8Array(ab));
  } else {
    writeFileSync(basePath, writeHoodieParquet({ schema: FULL, rows, codec: 'GZIP', rowGroupSize: s.baseGroupRows, recordKeyField: 'id' }).bytes);
  }
  const blocks: Uint8Array[] = [];
  // updates spread over every base row group, and inserts
  const l1 = [];
  for (let i = 0; i < s.rows; i += 7) l1.push(logRow(T1, i, l1.length, 2000));
  for (let i = s.rows; i < s.rows + 300; i++) l1.push({ ...logRow(T1, i, l1.length, 5), _hoodie_commit_seqno: tricky && i % 2 ? null : `${T1}_0_${i}` });
  blocks.push(encodeAvroDataBlock({ instantTime: T1, schema: JSON.stringify(FULL), records: l1 }));
  if (tricky) {
    const deletes = Array.from({ length: 60 }, (_, k) => ({ recordKey: key(k * 37 + 3), partitionPath: '', orderingVal: { type: 'long' as const, value: 9000 } }));
    blocks.push(encodeDeleteBlock({ instantTime: T2, schema: JSON.stringify(FULL), deletes }));
    // a parquet data block: its records take the row path (appendRow)
    const l3 = [];
    for (let i = 5; i < s.rows + 400; i += 13) l3.push({ ...logRow(T3, i, l3.length, 3000), _hoodie_commit_seqno: i % 2 ? null : `${T3}_0_${i}` });
    blocks.push(encodeLogBlock({ type: 'PARQUET_DATA_BLOCK', header: [['INSTANT_TIME', T3], ['SCHEMA', JSON.stringify(FULL)]], content: writeHoodieParquet({ schema: FULL, rows: l3 }).bytes }));
  }
  const logFiles = blocks.map((b, n) => {
    const p = join(dir, `.fg_${BASE_T}.log.${n + 1}_0-1-0`);
    writeFileSync(p, b);
    return { path: p, size: b.length };
  });
  return {
    partition: '',
    fileId: 'fg',
    baseFile: { path: basePath, size: readFileSync(basePath).length },
    logFiles,
    instant: INSTANT,
    index: 0,
    fileName: `fg_0-0-0_${INSTANT}.parquet`,
    writerSchema: FULL,
    config: mergeConfigFromProperties({ 'hoodie.table.recordkey.fields': 'id', 'hoodie.table.precombine.field': 'ts' }),
    committed: { completed: [BASE_T, T1, T2, T3] },
    codec: s.codec,
    rowGroupSize: s.rowGroupSize,
  };
}

/** The file with a footer claiming only PLAIN/RLE encodings for every chunk. */
function withPlainFooter(b: Uint8Array): Uint8Array {
  const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
  for (const rg of md.row_groups) for (const c of rg.columns) c.meta_data!.encodings = ['PLAIN', 'RLE'];
  const w = new ByteWriter();
  writeMetadata(w, md as never);
  const footer = w.getBytes();
  const body = b.subarray(0, b.length - 8 - md.metadata_length);
  const out = new Uint8Array(body.length + footer.length + 8);
  out.set(body);
  out.set(footer, body.length);
  new DataView(out.buffer).setUint32(body.length + footer.length, footer.length, true);
  out.set([0x50, 0x41, 0x52, 0x31], out.length - 4);
  return out;
}

const storage = new LocalStorage();
const twoStage = (job: MergeJob) => mergeJob(storage, job, { mode: 'always', url, threads: 2 });
const oneWorker = (job: MergeJob) => mergeJob(storage, job, { mode: 'always', url, threads: 1 });

function expectSame(a: MergeOutput, b: MergeOutput): void {
  expect(Buffer.compare(a.bytes, b.bytes)).toBe(0);
  expect(a.rowCount).toBe(b.rowCount);
  expect(a.stats).toEqual(b.stats);
  expect(a.path).toBe(b.path);
}

describe('two-stage packed merge (worker merges, main thread encodes)', () => {
  const shapes: [string, Shape][] = [
    ['bench-like: base groups = output groups, updates and inserts, no deletes', { rows: 10_000, baseGroupRows: 2000, rowGroupSize: 2000 }],
    ['deletes, null meta fields, seqno defaults, a parquet log block, base groups larger than the output groups', { rows: 5000, baseGroupRows: 2500, rowGroupSize: 700, tricky: true }],
    ['SNAPPY, output groups spanning base groups', { rows: 6000, baseGroupRows: 1000, rowGroupSize: 1500, tricky: true, codec: 'SNAPPY' }],
  ];
  for (const [name, shape] of shapes) {
    it(`${name}: the same bytes, rows and stats as the one-thread merge`, async () => {
      const job = slice(shape);
      const two = await twoStage(job);
      expect(two.path).toBe('packed');
      expect(two.threads).toBe(2);
      const ref = await mergeToParquet(storage, job);
      expectSame(two, ref);
      const one = await oneWorker(job);
      expect(one.threads).toBeUndefined();
      expectSame(two, one);
    });
  }

  it('the row path asked for, or a base file the packed reader does not take: merged whole in the worker, as one thread merges it', async () => {
    const job = slice({ rows: 3000, baseGroupRows: 1000, rowGroupSize: 1000, tricky: true });
    const rows = await twoStage({ ...job, mergePath: 'rows' });
    expect(rows.path).toBe('rows');
    expect(rows.threads).toBeUndefined();
    expectSame(rows, await mergeToParquet(storage, { ...job, mergePath: 'rows' }));

    const delta = slice({ rows: 3000, baseGroupRows: 1000, rowGroupSize: 1000, deltaTs: true });
    const out = await twoStage(delta);
    expect(out.path).toBe('rows');
    expectSame(out, await mergeToParquet(storage, delta));
  });

  it('a base page the packed reader does not take, found when the main thread decodes it: the one-thread worker merges it (row path)', async () => {
    const job = slice({ rows: 3000, baseGroupRows: 1000, rowGroupSize: 1000, deltaTs: 'hidden' });
    const ref = await mergeToParquet(storage, job);
    // the footer let the packed path start; the page sent it to the row path
    expect(ref.path).toBe('rows');
    const out = await twoStage(job);
    expect(out.threads).toBeUndefined();
    expectSame(out, ref);
  });

  it('a file group without a base file: one thread', async () => {
    const job = { ...slice({ rows: 2000, baseGroupRows: 1000, rowGroupSize: 1000 }), baseFile: undefined };
    const out = await twoStage(job);
    expect(out.threads).toBeUndefined();
    expectSame(out, await mergeToParquet(storage, job));
  });

  it('a corrupt base page in a later row group: the one-line TblError of the one-thread merge, naming the base file', async () => {
    const job = slice({ rows: 6000, baseGroupRows: 2000, rowGroupSize: 2000 });
    const path = job.baseFile!.path;
    const b = readFileSync(path);
    const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    // groups 0 and 1 are encoded on the main thread before the worker reads group 2
    const c = md.row_groups[2]!.columns.find((x) => x.meta_data!.path_in_schema[0] === 'amount')!.meta_data!;
    const begin = Number(c.dictionary_page_offset || c.data_page_offset);
    for (let i = 0; i < Number(c.total_compressed_size); i++) b[begin + i] = (i * 37 + 11) & 0xff;
    writeFileSync(path, b);
    const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
    const e = (await failure(twoStage(job))) as TblError;
    const ref = (await failure(mergeToParquet(storage, job))) as TblError;
    expect(e).toBeInstanceOf(TblError);
    expect(ref).toBeInstanceOf(TblError);
    expect({ kind: e.kind, path: e.path, message: e.message }).toEqual({ kind: ref.kind, path: ref.path, message: ref.message });
    expect(e.path).toBe(path);
    expect(e.message).not.toContain('\n');
  });
});

describe('when a file group takes two threads', () => {
  it('only while fewer groups run than there are cores, and one group at a time encodes on the main thread', () => {
    expect(fileGroupThreadsFor(1, false, 2)).toBe(2);
    expect(fileGroupThreadsFor(2, false, 2)).toBe(1);
    expect(fileGroupThreadsFor(1, false, 1)).toBe(1);
    expect(fileGroupThreadsFor(2, false, 4)).toBe(2);
    expect(fileGroupThreadsFor(2, true, 4)).toBe(1);
  });

  it('ThreadBudget keeps that rule over a run: the second thread is given back, a fixed count still counts as running', () => {
    const b = new ThreadBudget(2);
    const first = b.claim();
    expect(first).toBe(2);
    expect(b.claim()).toBe(1); // two running, and the first encodes here
    b.release(1);
    b.release(first);
    expect(b.claim(1)).toBe(1);
    expect(b.claim()).toBe(1); // two running on two cores
    b.release(1);
    b.release(1);
    expect(b.claim()).toBe(2); // alone again, nobody encoding here
  });
});

describe.skipIf(!HAVE_FIXTURES)('compaction run with fileGroupThreads 2', () => {
  const ID = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
  it(`${ID}: the same files, bytes and stats as in-process`, async () => {
    const a = tableFresh(ID);
    await scheduleCompaction(await openTable(a), { clockSkewMs: 1, strategy: 'all' });
    const b = mkdtempSync(join(tmpdir(), 'tblcli-two-stage-copy-'));
    cpSync(a, b, { recursive: true });
    const merged: string[] = [];
    const w = await runCompaction(await openTable(a), { clockSkewMs: 1, fileGroupWorkers: 'always', workerUrl: url, fileGroupThreads: 2, parallelism: 1, onProgress: (e) => merged.push(`${e.merge}/${e.threads}`) });
    const p = await runCompaction(await openTable(b), { clockSkewMs: 1, fileGroupWorkers: 'never' });
    expect(w.status).toBe('completed');
    // packed file groups took two threads, the others (no base file, row path) one
    expect(merged).toContain('packed/2');
    for (const m of merged) expect(['packed/2', 'rows/1']).toContain(m);
    const strip = (r: typeof w) => r.writeStats.map((s) => ({ ...s, runtimeStats: null, totalLogReadTimeMs: 0 }));
    expect(strip(w)).toEqual(strip(p));
    for (const s of w.writeStats) expect(Buffer.compare(readFileSync(join(a, s.path!)), readFileSync(join(b, s.path!)))).toBe(0);
  });
});
