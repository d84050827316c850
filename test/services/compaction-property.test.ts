// Issue 13 §2, generative: random Avro schemas (nested records, maps and arrays of records and of
// primitives, nullable at every level, decimals of bytes and fixed up to precision 38, timestamps,
// dates, longs past 2^53) and random file slices (a base file in parquet-avro's legacy 2-level list
// layout, its 3-level layout or ours, or none; log files of Avro data blocks with updates and inserts,
// parquet data blocks, DELETE blocks with and without ordering values, rollback command blocks,
// blocks of an uncommitted instant) under four merge rules. Every case is compacted through the row
// path and the packed path (where the slice allows it), and the new base file, read by DuckDB and by
// our reader, must hold exactly the rows computed here from the generated operations; the merged
// snapshot scan of the slice (src/merge) must give the same rows. Bounded for CI: a fixed seed and
// TBLCLI_PROPERTY_RUNS runs (default 40); TBLCLI_PROPERTY_SEED picks another seed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeAvroDataBlock, encodeDeleteBlock, encodeLogBlock, encodeRollbackBlock } from '../../src/logfile/index.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../../src/merge/index.ts';
import { readParquetRows } from '../../src/parquet/read.ts';
import { withHoodieMetaFields, writeHoodieParquet, type AvroField, type AvroRecordSchema, type AvroType } from '../../src/parquet/write.ts';
import { mergeToParquet, type MergeJob } from '../../src/services/rewrite/merge-op.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { canon } from '../support/avro-canon.ts';
import { writeAvroParquet, type ListLayout } from '../support/parquet-avro-layout.ts';

const RUNS = Number(process.env.TBLCLI_PROPERTY_RUNS ?? 40);
const SEED = Number(process.env.TBLCLI_PROPERTY_SEED ?? 0x13_02);

type Row = Record<string, unknown>;

// ---- schemas ----

const decimalArb = fc.integer({ min: 1, max: 38 }).chain((precision) =>
  fc.tuple(fc.integer({ min: 0, max: precision }), fc.boolean()).map(([scale, fixed]): AvroType =>
    fixed
      ? { type: 'fixed', name: 'fx', size: Math.ceil((precision * Math.log2(10) + 1) / 8), logicalType: 'decimal', precision, scale }
      : { type: 'bytes', logicalType: 'decimal', precision, scale },
  ),
);

const primitiveArb: fc.Arbitrary<AvroType> = fc.oneof(
  fc.constantFrom<AvroType>('boolean', 'int', 'long', 'float', 'double', 'string', 'bytes'),
  fc.constantFrom<AvroType>({ type: 'long', logicalType: 'timestamp-micros' }, { type: 'long', logicalType: 'timestamp-millis' }, { type: 'int', logicalType: 'date' }),
  decimalArb,
);

function nullable(a: fc.Arbitrary<AvroType>): fc.Arbitrary<AvroType> {
  return fc.tuple(a, fc.boolean()).map(([t, n]) => (n ? ['null', t] : t));
}

function fieldsArb(depth: number, min: number, max: number): fc.Arbitrary<AvroField[]> {
  return fc.array(typeArb(depth), { minLength: min, maxLength: max }).map((ts) => ts.map((type, i) => ({ name: `f${i}`, type, default: Array.isArray(type) ? null : undefined })));
}

function typeArb(depth: number): fc.Arbitrary<AvroType> {
  if (depth >= 3) return nullable(primitiveArb);
  return nullable(
    fc.oneof(
      { weight: 3, arbitrary: primitiveArb },
      { weight: 1, arbitrary: fieldsArb(depth + 1, 1, 3).map((fields): AvroType => ({ type: 'record', name: 'r', fields })) },
      { weight: 1, arbitrary: typeArb(depth + 1).map((items): AvroType => ({ type: 'array', items })) },
      { weight: 1, arbitrary: typeArb(depth + 1).map((values): AvroType => ({ type: 'map', values })) },
    ),
  );
}

/** Unique names for named types (records r0.., fixed fx0..), default-less fields cleaned. */
function named(t: AvroType, n: { k: number }): AvroType {
  if (Array.isArray(t)) return t.map((x) => named(x, n));
  if (typeof t !== 'object') return t;
  const o = t as Record<string, unknown>;
  if (o.type === 'record') {
    return { ...o, name: `r${n.k++}`, fields: (o.fields as AvroField[]).map((f) => ({ name: f.name, type: named(f.type, n), ...(f.default === null ? { default: null } : {}) })) } as AvroType;
  }
  if (o.type === 'fixed') return { ...o, name: `fx${n.k++}` } as AvroType;
  if (o.type === 'array') return { ...o, items: named(o.items as AvroType, n) } as AvroType;
  if (o.type === 'map') return { ...o, values: named(o.values as AvroType, n) } as AvroType;
  return t;
}

/** Flat fields of the kinds the packed merge takes (columnar-merge.ts), so that path is exercised too. */
const flatFieldsArb: fc.Arbitrary<AvroField[]> = fc
  .array(nullable(fc.constantFrom<AvroType>('boolean', 'int', 'long', 'float', 'double', 'string', 'bytes', { type: 'long', logicalType: 'timestamp-micros' })), { minLength: 1, maxLength: 4 })
  .map((ts) => ts.map((type, i) => ({ name: `f${i}`, type, default: Array.isArray(type) ? null : undefined })));

const schemaArb: fc.Arbitrary<AvroRecordSchema> = fc.oneof({ weight: 3, arbitrary: fieldsArb(0, 1, 4) }, { weight: 1, arbitrary: flatFieldsArb }).map((fields) => {
  const n = { k: 0 };
  const table: AvroRecordSchema = {
    type: 'record',
    name: 'prop_record',
    namespace: 'hoodie.prop',
    fields: [{ name: 'id', type: 'string' }, { name: 'ts', type: 'long' }, ...(named({ type: 'record', name: 'x', fields } as AvroType, n) as AvroRecordSchema).fields],
  };
  return withHoodieMetaFields(table);
});

// ---- values (as avsc takes and gives them: longs numbers or bigints, decimals unscaled bigints) ----

const longArb = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n).map((v) => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v)));

function valueArb(t: AvroType): fc.Arbitrary<unknown> {
  if (Array.isArray(t)) return fc.option(valueArb(t.find((x) => x !== 'null')!), { freq: 4, nil: null });
  const o = (typeof t === 'string' ? { type: t } : t) as Record<string, unknown>;
  if (o.logicalType === 'decimal') {
    const max = 10n ** BigInt(o.precision as number) - 1n;
    return fc.oneof(fc.bigInt(-max, max), fc.constantFrom(0n, max, -max));
  }
  if (o.logicalType === 'timestamp-micros') return fc.bigInt(-(2n ** 52n), 2n ** 52n).map(Number);
  if (o.logicalType === 'timestamp-millis') return fc.integer({ min: -(2 ** 42), max: 2 ** 42 });
  if (o.logicalType === 'date') return fc.integer({ min: -(2 ** 20), max: 2 ** 20 });
  switch (o.type) {
    case 'boolean':
      return fc.boolean();
    case 'int':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'long':
      return longArb;
    case 'float':
      return fc.float();
    case 'double':
      return fc.double();
    case 'string':
      return fc.string({ unit: 'binary', maxLength: 5 });
    case 'bytes':
      return fc.uint8Array({ maxLength: 5 }).map((b) => Buffer.from(b));
    case 'record':
      return fc.record(Object.fromEntries((o.fields as AvroField[]).map((f) => [f.name, valueArb(f.type)])));
    case 'array':
      return fc.array(valueArb(o.items as AvroType), { maxLength: 3 });
    case 'map':
      return fc
        .uniqueArray(fc.tuple(fc.string({ unit: 'grapheme-ascii', maxLength: 2 }), valueArb(o.values as AvroType)), { selector: (e) => e[0], maxLength: 3 })
        .map((es) => Object.fromEntries(es));
    default:
      throw new Error(`valueArb: ${String(o.type)}`);
  }
}

/** parquet-avro's 2-level lists have required elements: drop null items (as a writer of that layout must). */
function withoutNullItems(v: unknown, t: AvroType): unknown {
  if (v === null || v === undefined) return v;
  if (Array.isArray(t)) return withoutNullItems(v, t.find((x) => x !== 'null')!);
  const o = (typeof t === 'string' ? { type: t } : t) as Record<string, unknown>;
  if (o.type === 'record') return Object.fromEntries((o.fields as AvroField[]).map((f) => [f.name, withoutNullItems((v as Row)[f.name], f.type)]));
  if (o.type === 'array') return (v as unknown[]).filter((x) => x !== null).map((x) => withoutNullItems(x, o.items as AvroType));
  if (o.type === 'map') return Object.fromEntries(Object.entries(v as Row).map(([k, x]) => [k, withoutNullItems(x, o.values as AvroType)]));
  return v;
}

// ---- slices ----

const T0 = '20250101000000000';
const POOL = ['20250102000000000', '20250103000000000', '20250104000000000', '20250105000000000', '20250106000000000'];
/** the last instant of the pool never completed: its blocks do not count */
const COMMITTED = [T0, ...POOL.slice(0, 4)];
const INSTANT = '20250201000000000';

/** Merge rules: table properties, and the semantics this test applies for them. */
const RULES = [
  { props: { 'hoodie.table.version': '9', 'hoodie.table.ordering.fields': 'ts', 'hoodie.record.merge.mode': 'EVENT_TIME_ORDERING' }, delta: 'event', final: 'event', naturalAfterDelete: false },
  { props: { 'hoodie.table.version': '9', 'hoodie.table.ordering.fields': 'ts', 'hoodie.record.merge.mode': 'COMMIT_TIME_ORDERING' }, delta: 'commit', final: 'commit', naturalAfterDelete: false },
  { props: { 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.compaction.payload.class': 'org.apache.hudi.common.model.DefaultHoodieRecordPayload' }, delta: 'event', final: 'event', naturalAfterDelete: true },
  { props: { 'hoodie.table.version': '6', 'hoodie.table.precombine.field': 'ts', 'hoodie.compaction.payload.class': 'org.apache.hudi.common.model.OverwriteWithLatestAvroPayload' }, delta: 'event', final: 'commit', naturalAfterDelete: true },
] as const;

interface DataOp {
  key: number;
  ts: number;
  payload: number;
  nullMetaKey: boolean;
  nullSeq: boolean;
}
type Block =
  | { kind: 'avro' | 'parquet'; instant: number; recs: DataOp[]; layout: ListLayout | 'ours'; newFile: boolean }
  | { kind: 'delete'; instant: number; keys: { key: number; ord: number | null }[]; newFile: boolean }
  | { kind: 'rollback'; instant: number; target: number; newFile: boolean };

const dataOp = fc.record({ key: fc.integer({ min: 0, max: 9 }), ts: fc.integer({ min: 0, max: 4 }), payload: fc.integer({ min: 0, max: 11 }), nullMetaKey: fc.boolean(), nullSeq: fc.boolean() });
const instantArb = fc.integer({ min: 0, max: POOL.length - 1 });
const blockArb: fc.Arbitrary<Block> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('avro' as const), instant: instantArb, recs: fc.array(dataOp, { minLength: 1, maxLength: 4 }), layout: fc.constant('ours' as const), newFile: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('parquet' as const), instant: instantArb, recs: fc.array(dataOp, { minLength: 1, maxLength: 4 }), layout: fc.constantFrom<ListLayout | 'ours'>('2-level', '3-level', 'ours'), newFile: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), instant: instantArb, keys: fc.array(fc.record({ key: fc.integer({ min: 0, max: 9 }), ord: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }) }), { minLength: 1, maxLength: 3 }), newFile: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), instant: instantArb, target: instantArb, newFile: fc.boolean() }) },
);

const caseArb = schemaArb.chain((schema) =>
  fc.record({
    schema: fc.constant(schema),
    base: fc.constantFrom<ListLayout | 'ours' | 'none'>('2-level', '2-level', '3-level', 'ours', 'none'),
    baseTs: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 6 }),
    baseNullSeq: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    baseGroup: fc.integer({ min: 1, max: 4 }),
    outGroup: fc.integer({ min: 1, max: 5 }),
    rule: fc.integer({ min: 0, max: RULES.length - 1 }),
    // payloads: the values of the generated fields, for base rows and log records to pick from
    payloads: fc.array(fc.record(Object.fromEntries(schema.fields.slice(7).map((f) => [f.name, valueArb(f.type)]))), { minLength: 12, maxLength: 12 }),
    blocks: fc.array(blockArb, { minLength: 1, maxLength: 6 }),
  }),
);
type Case = typeof caseArb extends fc.Arbitrary<infer C> ? C : never;

const keyOf = (k: number) => `k${k}`;

function baseRowsOf(c: Case, fileName: string): Row[] {
  if (c.base === 'none') return [];
  return c.baseTs.map((ts, i) => ({
    _hoodie_commit_time: T0,
    _hoodie_commit_seqno: c.baseNullSeq[i] ? null : `${T0}_0_${i}`,
    _hoodie_record_key: keyOf(i),
    _hoodie_partition_path: '',
    _hoodie_file_name: fileName,
    id: keyOf(i),
    ts,
    ...c.payloads[(i * 5) % c.payloads.length],
  }));
}

function logRow(op: DataOp, instant: string, seq: number, c: Case): Row {
  return {
    _hoodie_commit_time: instant,
    _hoodie_commit_seqno: op.nullSeq ? null : `${instant}_1_${seq}`,
    _hoodie_record_key: op.nullMetaKey ? null : keyOf(op.key),
    _hoodie_partition_path: op.nullSeq ? null : '',
    _hoodie_file_name: 'log-file',
    id: keyOf(op.key),
    ts: op.ts,
    ...c.payloads[op.payload],
  };
}

function layoutRows(rows: Row[], schema: AvroRecordSchema, layout: ListLayout | 'ours'): Row[] {
  return layout === '2-level' ? rows.map((r) => withoutNullItems(r, schema) as Row) : rows;
}

function parquetOf(rows: Row[], schema: AvroRecordSchema, layout: ListLayout | 'ours', rowGroupSize: number): Uint8Array {
  if (layout === 'ours') return writeHoodieParquet({ schema, rows, rowGroupSize, recordKeyField: 'id' }).bytes;
  return writeAvroParquet({ schema, rows, listLayout: layout, rowGroupSize });
}

interface Entry {
  deleted: boolean;
  /** data: ts; delete: its ordering value (null: none, the natural order) */
  ord: number | null;
  row?: Row;
}

/** The rows the merge must give (base order, then log inserts in first-seen order), computed from the operations. */
function expectedRows(c: Case, base: Row[], blocks: { block: Block; rows: Row[] }[]): Row[] {
  const rule = RULES[c.rule]!;
  // the block stack: a rollback drops the earlier blocks of its target; blocks of uncommitted instants never count
  const stack: { block: Block; rows: Row[] }[] = [];
  for (const b of blocks) {
    if (b.block.kind === 'rollback') {
      const target = POOL[b.block.target];
      for (let i = stack.length - 1; i >= 0; i--) if (POOL[stack[i]!.block.instant] === target) stack.splice(i, 1);
      continue;
    }
    if (!COMMITTED.includes(POOL[b.block.instant]!)) continue;
    stack.push(b);
  }
  const entries = new Map<string, Entry>();
  const keepsIncoming = (e: Entry, i: Entry): boolean => {
    if (rule.delta === 'commit') return true;
    if (i.deleted) {
      if (e.deleted && e.ord === null) return false;
      if (i.ord === null) return true;
      return !(e.ord! > i.ord);
    }
    if (e.deleted && (rule.naturalAfterDelete || e.ord === null)) return true;
    return i.ord! >= e.ord!;
  };
  const put = (key: string, i: Entry) => {
    const e = entries.get(key);
    if (!e || keepsIncoming(e, i)) entries.set(key, i);
  };
  for (const { block, rows } of stack) {
    if (block.kind === 'delete') for (const d of block.keys) put(keyOf(d.key), { deleted: true, ord: d.ord });
    else if (block.kind !== 'rollback') block.recs.forEach((op, j) => put(keyOf(op.key), { deleted: false, ord: op.ts, row: rows[j] }));
  }
  const out: Row[] = [];
  const inBase = new Set<string>();
  for (const b of base) {
    const key = String(b.id);
    inBase.add(key);
    const e = entries.get(key);
    if (!e) {
      out.push(b);
      continue;
    }
    const keepBase = rule.final === 'event' && (e.deleted ? e.ord !== null && (b.ts as number) > e.ord : (b.ts as number) > e.ord!);
    if (keepBase) out.push(b);
    else if (!e.deleted) out.push(e.row!);
  }
  for (const [key, e] of entries) if (!inBase.has(key) && !e.deleted) out.push(e.row!);
  return out;
}

/** The meta fields as compaction writes them: kept, defaults where null, the new file's name. */
function fixedUp(rows: Row[], job: MergeJob): Row[] {
  return rows.map((r, n) => ({
    ...r,
    _hoodie_commit_time: r._hoodie_commit_time ?? job.instant,
    _hoodie_commit_seqno: r._hoodie_commit_seqno ?? `${job.instant}_${job.index}_${n}`,
    _hoodie_record_key: r._hoodie_record_key ?? r.id,
    _hoodie_partition_path: r._hoodie_partition_path ?? job.partition,
    _hoodie_file_name: job.fileName,
  }));
}

// ---- the property ----

let duck: Promise<DuckDBConnection> | undefined;
async function duckRows(path: string): Promise<Row[]> {
  duck ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  const r = await (await duck).runAndReadAll(`SELECT * FROM read_parquet('${path.replaceAll("'", "''")}', file_row_number = true) ORDER BY file_row_number`);
  return r.getRowObjects() as Row[];
}

afterAll(async () => {
  if (duck) (await duck).closeSync();
});

const storage = new LocalStorage();
const seen = { cases: 0, packed: 0, legacyBase: 0, nested: 0, parquetBlocks: 0, deletes: 0, rollbacks: 0, outRows: 0 };

/** An array somewhere in `t` whose items are records of one field. */
function oneFieldItems(t: AvroType): boolean {
  if (Array.isArray(t)) return t.some(oneFieldItems);
  if (typeof t !== 'object') return false;
  const o = t as Record<string, unknown>;
  if (o.type === 'record') return (o.fields as AvroField[]).some((f) => oneFieldItems(f.type));
  if (o.type === 'map') return oneFieldItems(o.values as AvroType);
  if (o.type === 'array') {
    const items = o.items as AvroType;
    const rec = (Array.isArray(items) ? items.find((x) => x !== 'null') : items) as { type?: unknown; fields?: AvroField[] };
    return (rec?.type === 'record' && rec.fields!.length === 1) || oneFieldItems(items);
  }
  return false;
}

function isNested(t: AvroType): boolean {
  if (Array.isArray(t)) return t.some(isNested);
  return typeof t === 'object' && ['record', 'array', 'map'].includes(String((t as { type: unknown }).type));
}

async function check(c: Case): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-prop-'));
  const { schema } = c;
  const json = JSON.stringify(schema);
  const baseName = `fg-0_0-1-0_${T0}.parquet`;
  const base = c.base === 'none' ? [] : layoutRows(baseRowsOf(c, baseName), schema, c.base);
  let baseFile: MergeJob['baseFile'];
  if (c.base !== 'none') {
    const bytes = parquetOf(base, schema, c.base, c.baseGroup);
    const p = join(dir, baseName);
    writeFileSync(p, bytes);
    baseFile = { path: p, size: bytes.length };
    // DuckDB reads the base file as the rows it was written from (the test writer is right); but DuckDB
    // reads a 2-level list of one-field records (`repeated group array { one field }`) as a list of
    // that field's values, against LogicalTypes.md's backward-compatibility rule for a repeated group
    // named `array`: those files are checked by the rows our reader gives
    const asList = { type: 'array', items: schema } as AvroType;
    const rows = c.base === '2-level' && schema.fields.some((f) => oneFieldItems(f.type)) ? await readParquetRows(storage, p, { values: 'exact' }) : await duckRows(p);
    expect(canon(rows, asList), 'base file').toEqual(canon(base, asList));
  }
  // log files: the blocks in order, a new file where the case says so
  const files: Uint8Array[][] = [];
  const blocks: { block: Block; rows: Row[] }[] = [];
  c.blocks.forEach((block, bi) => {
    if (files.length === 0 || block.newFile) files.push([]);
    const instant = POOL[block.instant]!;
    let bytes: Uint8Array;
    let rows: Row[] = [];
    if (block.kind === 'rollback') bytes = encodeRollbackBlock({ instantTime: instant, targetInstantTime: POOL[block.target]! });
    else if (block.kind === 'delete') bytes = encodeDeleteBlock({ instantTime: instant, schema: json, deletes: block.keys.map((d) => ({ recordKey: keyOf(d.key), partitionPath: '', orderingVal: d.ord === null ? null : { type: 'long' as const, value: d.ord } })) });
    else {
      rows = layoutRows(block.recs.map((op, j) => logRow(op, instant, bi * 10 + j, c)), schema, block.layout);
      bytes =
        block.kind === 'avro'
          ? encodeAvroDataBlock({ instantTime: instant, schema: json, records: rows })
          : encodeLogBlock({ type: 'PARQUET_DATA_BLOCK', header: [['INSTANT_TIME', instant], ['SCHEMA', json]], content: parquetOf(rows, schema, block.layout, 2) });
    }
    files.at(-1)!.push(bytes);
    blocks.push({ block, rows });
  });
  const logFiles = files.map((bs, i) => {
    const p = join(dir, `.fg-0_${POOL[0]}.log.${i + 1}_0-1-0`);
    const bytes = Buffer.concat(bs);
    writeFileSync(p, bytes);
    return { path: p, size: bytes.length };
  });
  const rule = RULES[c.rule]!;
  const config = mergeConfigFromProperties({ ...rule.props, 'hoodie.table.recordkey.fields': 'id' });
  const job: MergeJob = {
    partition: '',
    fileId: 'fg-0',
    baseFile,
    logFiles,
    instant: INSTANT,
    index: 2,
    fileName: `fg-0_2-0-0_${INSTANT}.parquet`,
    writerSchema: schema,
    config,
    committed: { completed: COMMITTED },
    codec: 'SNAPPY',
    rowGroupSize: c.outGroup,
  };
  const expected = expectedRows(c, base, blocks);
  const asList = { type: 'array', items: schema } as AvroType;
  const want = canon(fixedUp(expected, job), asList);

  for (const mergePath of ['rows', 'auto'] as const) {
    const out = await mergeToParquet(storage, { ...job, mergePath });
    const p = join(dir, `${mergePath}.parquet`);
    writeFileSync(p, out.bytes);
    expect(out.rowCount).toBe(expected.length);
    expect(canon(await duckRows(p), asList), `${mergePath} path (${out.path}), read by DuckDB`).toEqual(want);
    expect(canon(await readParquetRows(storage, p, { values: 'exact' }), asList), `${mergePath} path, read back by tblcli`).toEqual(want);
    if (out.path === 'packed') seen.packed++;
  }
  // the merged snapshot scan of the slice (src/merge: the reader's merge, not compaction's log map)
  const scan = await mergeFileSlice(storage, { partition: '', fileId: 'fg-0', baseFile: baseFile && { ...baseFile, ext: 'parquet' }, logFiles }, { config, isValidInstant: (t) => COMMITTED.includes(t), exact: true });
  expect(canon(scan.rows, asList), 'merged scan').toEqual(canon(expected, asList));
  seen.cases++;
  seen.outRows += expected.length;
  if (c.base === '2-level') seen.legacyBase++;
  if (schema.fields.some((f) => isNested(f.type))) seen.nested++;
  seen.parquetBlocks += c.blocks.filter((b) => b.kind === 'parquet').length;
  seen.deletes += c.blocks.filter((b) => b.kind === 'delete').length;
  seen.rollbacks += c.blocks.filter((b) => b.kind === 'rollback').length;
}

describe('compaction of random schemas and slices (property)', () => {
  it(`${RUNS} random cases (seed ${SEED}): the new base file, read by DuckDB, holds the merged rows`, async () => {
    await fc.assert(fc.asyncProperty(caseArb, check), { numRuns: RUNS, seed: SEED });
    console.log(`[property] ${JSON.stringify(seen)}`);
    // the generator reaches what the property is about
    expect(seen.cases).toBe(RUNS);
    if (RUNS >= 20) {
      for (const k of ['packed', 'legacyBase', 'nested', 'parquetBlocks', 'deletes', 'rollbacks'] as const) expect(seen[k], k).toBeGreaterThan(0);
    }
  }, 300_000);
});
