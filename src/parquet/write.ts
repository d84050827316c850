// Writes Hudi base parquet files: parquet-avro's physical schema for an Avro record schema
// (AvroSchemaConverter, 3-level lists), Hudi meta columns first, and the footer keys Hudi's
// HoodieAvroWriteSupport adds (avro schema, bloom filter, min/max record key).
// Used by the demo table and by compaction (merged rows of a file slice).
import { gzipSync } from 'node:zlib';
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import type { CompressionCodec, KeyValue, SchemaElement } from 'hyparquet';
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { HoodieBloomFilter, type BloomFilterOptions } from './bloom.ts';
import { signedBytesToBigInt } from './avro-values.ts';

// ---- Avro schema model (plain JSON as in .avsc / parquet.avro.schema) ----

export type AvroPrimitive = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';
export interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
  default?: unknown;
  [k: string]: unknown;
}
export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  doc?: string;
  fields: AvroField[];
  [k: string]: unknown;
}
export type AvroType =
  | AvroPrimitive
  | string
  | AvroType[]
  | AvroRecordSchema
  | { type: 'array'; items: AvroType; [k: string]: unknown }
  | { type: 'map'; values: AvroType; [k: string]: unknown }
  | { type: 'enum'; name: string; symbols: string[]; [k: string]: unknown }
  | { type: 'fixed'; name: string; size: number; [k: string]: unknown }
  | { type: AvroPrimitive; logicalType?: string; precision?: number; scale?: number; [k: string]: unknown };

/** HoodieRecord.HOODIE_META_COLUMNS, in file order. */
export const HOODIE_META_FIELDS = [
  '_hoodie_commit_time',
  '_hoodie_commit_seqno',
  '_hoodie_record_key',
  '_hoodie_partition_path',
  '_hoodie_file_name',
] as const;

/** Footer keys (HoodieBloomFilterWriteSupport / parquet-avro). */
export const FOOTER_AVRO_SCHEMA = 'parquet.avro.schema';
export const FOOTER_BLOOM_FILTER = 'org.apache.hudi.bloomfilter';
export const FOOTER_BLOOM_TYPE_CODE = 'hoodie_bloom_filter_type_code';
export const FOOTER_MIN_RECORD_KEY = 'hoodie_min_record_key';
export const FOOTER_MAX_RECORD_KEY = 'hoodie_max_record_key';

/**
 * The writer schema Hudi uses: the five meta fields (`["null","string"]`, doc "", default null)
 * in front of the table schema's fields (HoodieAvroUtils.addMetadataFields). Idempotent.
 */
export function withHoodieMetaFields(schema: AvroRecordSchema): AvroRecordSchema {
  const meta: AvroField[] = HOODIE_META_FIELDS.map((name) => ({ name, type: ['null', 'string'], doc: '', default: null }));
  return { ...schema, fields: [...meta, ...withoutHoodieMetaFields(schema).fields] };
}

/** The schema without the Hudi meta fields (the table schema a commit's metadata records). */
export function withoutHoodieMetaFields(schema: AvroRecordSchema): AvroRecordSchema {
  return { ...schema, fields: schema.fields.filter((f) => !(HOODIE_META_FIELDS as readonly string[]).includes(f.name)) };
}

function fullName(s: { name: string; namespace?: string }): string {
  return s.namespace && !s.name.includes('.') ? `${s.namespace}.${s.name}` : s.name;
}

// ---- Avro → parquet schema (parquet-avro AvroSchemaConverter, old list structure off) ----

interface Named {
  [fullName: string]: AvroType;
}

function resolveNamed(t: AvroType, named: Named): AvroType {
  if (typeof t === 'string' && !isPrimitive(t)) {
    const r = named[t];
    if (!r) throw new TblError('parquet', `Avro schema references unknown type ${t}`);
    return r;
  }
  return t;
}

function isPrimitive(t: string): t is AvroPrimitive {
  return ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'].includes(t);
}

function registerNamed(t: AvroType, named: Named, ns?: string): void {
  if (Array.isArray(t)) return t.forEach((x) => registerNamed(x, named, ns));
  if (typeof t !== 'object') return;
  if (t.type === 'record' || t.type === 'enum' || t.type === 'fixed') {
    const n = t as { name: string; namespace?: string };
    const space = n.namespace ?? ns;
    named[fullName({ name: n.name, namespace: space })] = t;
    named[n.name] ??= t;
    if (t.type === 'record') for (const f of (t as AvroRecordSchema).fields) registerNamed(f.type, named, space);
  } else if (t.type === 'array') registerNamed((t as { items: AvroType }).items, named, ns);
  else if (t.type === 'map') registerNamed((t as { values: AvroType }).values, named, ns);
}

/** Strips a ["null", T] union; returns T and whether it was nullable. Other unions are unsupported. */
function unwrapNullable(t: AvroType, where: string): { type: AvroType; optional: boolean } {
  if (!Array.isArray(t)) return { type: t, optional: false };
  const nonNull = t.filter((x) => x !== 'null');
  if (nonNull.length !== 1) throw new TblError('unsupported', `Avro union ${JSON.stringify(t)} at ${where} is not supported by the parquet writer (only [null, T])`);
  return { type: nonNull[0]!, optional: nonNull.length !== t.length };
}

function avroTypeName(t: AvroType): string {
  return typeof t === 'string' ? t : Array.isArray(t) ? 'union' : String((t as { type: unknown }).type);
}

function primitiveElement(name: string, t: AvroType, rep: SchemaElement['repetition_type'], where: string): SchemaElement {
  const base = typeof t === 'string' ? t : avroTypeName(t);
  const lt = typeof t === 'object' && !Array.isArray(t) ? (t as { logicalType?: string }).logicalType : undefined;
  const obj = typeof t === 'object' && !Array.isArray(t) ? (t as Record<string, unknown>) : {};
  if (lt === 'decimal' && (base === 'bytes' || base === 'fixed')) {
    const precision = Number(obj.precision);
    const scale = Number(obj.scale ?? 0);
    return {
      name, repetition_type: rep,
      type: base === 'bytes' ? 'BYTE_ARRAY' : 'FIXED_LEN_BYTE_ARRAY',
      ...(base === 'fixed' ? { type_length: Number(obj.size) } : {}),
      converted_type: 'DECIMAL', precision, scale,
      logical_type: { type: 'DECIMAL', precision, scale },
    };
  }
  switch (base) {
    case 'boolean':
      return { name, repetition_type: rep, type: 'BOOLEAN' };
    case 'int':
      if (lt === 'date') return { name, repetition_type: rep, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
      if (lt === 'time-millis') return { name, repetition_type: rep, type: 'INT32', converted_type: 'TIME_MILLIS', logical_type: { type: 'TIME', isAdjustedToUTC: true, unit: 'MILLIS' } };
      return { name, repetition_type: rep, type: 'INT32' };
    case 'long':
      if (lt === 'timestamp-millis') return { name, repetition_type: rep, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } };
      if (lt === 'timestamp-micros') return { name, repetition_type: rep, type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
      if (lt === 'local-timestamp-millis') return { name, repetition_type: rep, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' } };
      if (lt === 'local-timestamp-micros') return { name, repetition_type: rep, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } };
      if (lt === 'time-micros') return { name, repetition_type: rep, type: 'INT64', converted_type: 'TIME_MICROS', logical_type: { type: 'TIME', isAdjustedToUTC: true, unit: 'MICROS' } };
      return { name, repetition_type: rep, type: 'INT64' };
    case 'float':
      return { name, repetition_type: rep, type: 'FLOAT' };
    case 'double':
      return { name, repetition_type: rep, type: 'DOUBLE' };
    case 'bytes':
      return { name, repetition_type: rep, type: 'BYTE_ARRAY' };
    case 'string':
      return { name, repetition_type: rep, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    case 'enum':
      return { name, repetition_type: rep, type: 'BYTE_ARRAY', converted_type: 'ENUM', logical_type: { type: 'ENUM' } };
    case 'fixed':
      return { name, repetition_type: rep, type: 'FIXED_LEN_BYTE_ARRAY', type_length: Number(obj.size) };
    default:
      throw new TblError('unsupported', `Avro type ${base} at ${where} cannot be written to parquet`);
  }
}

function convertField(name: string, fieldType: AvroType, named: Named, where: string, forceRequired = false): SchemaElement[] {
  const { type: raw, optional } = unwrapNullable(fieldType, where);
  const t = resolveNamed(raw, named);
  const rep: SchemaElement['repetition_type'] = optional && !forceRequired ? 'OPTIONAL' : 'REQUIRED';
  if (typeof t === 'object' && !Array.isArray(t)) {
    if (t.type === 'record') {
      const rec = t as AvroRecordSchema;
      const children = rec.fields.flatMap((f) => convertField(f.name, f.type, named, `${where}.${f.name}`));
      return [{ name, repetition_type: rep, num_children: rec.fields.length }, ...children];
    }
    if (t.type === 'array') {
      const items = (t as { items: AvroType }).items;
      return [
        { name, repetition_type: rep, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...convertField('element', items, named, `${where}[]`),
      ];
    }
    if (t.type === 'map') {
      const values = (t as { values: AvroType }).values;
      return [
        { name, repetition_type: rep, num_children: 1, converted_type: 'MAP', logical_type: { type: 'MAP' } },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2, converted_type: 'MAP_KEY_VALUE' },
        { name: 'key', repetition_type: 'REQUIRED', type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
        ...convertField('value', values, named, `${where}{}`),
      ];
    }
  }
  return [primitiveElement(name, t, rep, where)];
}

/** parquet-avro's MessageType for an Avro record schema, flattened as parquet SchemaElements. */
export function avroToParquetSchema(schema: AvroRecordSchema): SchemaElement[] {
  if (schema.type !== 'record') throw new TblError('parquet', `top-level Avro schema must be a record, got ${avroTypeName(schema)}`);
  const named: Named = {};
  registerNamed(schema, named);
  const root: SchemaElement = { name: fullName(schema), num_children: schema.fields.length };
  return [root, ...schema.fields.flatMap((f) => convertField(f.name, f.type, named, f.name))];
}

// ---- values: Avro JS values (as avsc decodes them) → hyparquet-writer values ----

function toBigInt(v: unknown, where: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (v instanceof Date) return BigInt(v.getTime());
  throw new TblError('parquet', `expected a long at ${where}, got ${String(v)}`);
}

function convertValue(v: unknown, fieldType: AvroType, named: Named, where: string): unknown {
  if (v === null || v === undefined) return null;
  const { type: raw } = unwrapNullable(fieldType, where);
  const t = resolveNamed(raw, named);
  const base = typeof t === 'string' ? t : (t as { type: string }).type;
  const lt = typeof t === 'object' ? (t as { logicalType?: string }).logicalType : undefined;
  if (lt === 'decimal') {
    if (v instanceof Uint8Array) return signedBytesToBigInt(v);
    // hyparquet's default reads hand decimals back as numbers: the unscaled value (exact up to 15 digits)
    if (typeof v === 'number') return BigInt(Math.round(v * 10 ** ((t as { scale?: number }).scale ?? 0)));
    return v;
  }
  switch (base) {
    case 'long':
      // hyparquet's default parsers read TIMESTAMP/TIME columns as Date (ms)
      if (v instanceof Date && lt !== undefined && /micros$/.test(lt)) return BigInt(v.getTime()) * 1000n;
      return toBigInt(v, where);
    case 'int':
      if (lt === 'date' && v instanceof Date) return Math.floor(v.getTime() / 86400000);
      return v;
    case 'enum':
      return v instanceof Uint8Array ? v : new TextEncoder().encode(String(v));
    case 'record': {
      const rec = t as AvroRecordSchema;
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const f of rec.fields) out[f.name] = convertValue(o[f.name], f.type, named, `${where}.${f.name}`);
      return out;
    }
    case 'array':
      // a legacy two-level list (Spark's `repeated group array`) reads back as { array: [...] }
      if (!Array.isArray(v) && v !== null && typeof v === 'object') {
        const inner = Object.values(v as object);
        if (inner.length === 1 && Array.isArray(inner[0])) v = inner[0];
      }
      return (v as unknown[]).map((x) => convertValue(x, (t as { items: AvroType }).items, named, `${where}[]`));
    case 'map': {
      const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
      return entries.map(([key, value]) => ({ key, value: convertValue(value, (t as { values: AvroType }).values, named, `${where}{}`) }));
    }
    default:
      return v;
  }
}

// ---- the writer ----

export type ParquetCodec = 'GZIP' | 'SNAPPY' | 'UNCOMPRESSED';

export interface HoodieParquetWriteOptions {
  /** Avro writer schema including the meta fields (see withHoodieMetaFields). */
  schema: AvroRecordSchema;
  /** Records keyed by Avro field name, values as avsc decodes them (long: number or bigint). */
  rows: readonly Record<string, unknown>[];
  /** hoodie.parquet.compression.codec; default GZIP as Hudi. */
  codec?: ParquetCodec;
  /** zlib level of GZIP pages, 1 (fastest) to 9; default 6, zlib's default, which Hadoop's GzipCodec (Hudi) uses */
  gzipLevel?: number;
  /** Rows per row group (hyparquet-writer sizes row groups by rows, not bytes); default 1,000,000. */
  rowGroupSize?: number;
  /** Target page size in bytes (hoodie.parquet.page.size, default 1 MiB). */
  pageSize?: number;
  /** Hudi bloom filter settings; `false` = hoodie.parquet.bloom.filter.enabled=false. */
  bloomFilter?: BloomFilterOptions | false;
  /** Field holding the record key; default `_hoodie_record_key`. */
  recordKeyField?: string;
  /** false: no hoodie_min/max_record_key footer (Hudi writes them only with the bloom filter support on) */
  recordKeyFooter?: boolean;
  /** false: no column statistics (default true) */
  statistics?: boolean;
  createdBy?: string;
}

export interface HoodieParquetFile {
  bytes: Uint8Array;
  rowCount: number;
  minRecordKey?: string;
  maxRecordKey?: string;
  bloomFilter?: HoodieBloomFilter;
}

export const DEFAULT_CREATED_BY = 'tblcli (hyparquet-writer 0.17)';

export const DEFAULT_GZIP_LEVEL = 6;

export function gzipLevelOf(level: number | undefined): number {
  const l = level ?? DEFAULT_GZIP_LEVEL;
  if (!Number.isInteger(l) || l < 1 || l > 9) throw new TblError('usage', `GZIP level must be an integer from 1 to 9, got ${level}`);
  return l;
}

const compressorsByLevel = new Map<number, { GZIP: (input: Uint8Array) => Uint8Array }>();
function compressorsFor(level: number | undefined) {
  const l = gzipLevelOf(level);
  let c = compressorsByLevel.get(l);
  if (!c) compressorsByLevel.set(l, (c = { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input, { level: l })) }));
  return c;
}

// ---- pieces shared with the incremental writer (write-incremental.ts) ----

export interface PreparedHoodieSchema {
  schema: AvroRecordSchema;
  named: Named;
  parquetSchema: SchemaElement[];
  keyField: string;
}

export function prepareHoodieSchema(schema: AvroRecordSchema, recordKeyField?: string): PreparedHoodieSchema {
  const named: Named = {};
  registerNamed(schema, named);
  const parquetSchema = avroToParquetSchema(schema);
  const keyField = recordKeyField ?? '_hoodie_record_key';
  if (!schema.fields.some((f) => f.name === keyField)) {
    throw new TblError('parquet', `schema ${fullName(schema)} has no record key field ${keyField}`);
  }
  return { schema, named, parquetSchema, keyField };
}

/** The value of top-level field `f` as hyparquet-writer takes it. */
export function convertFieldValue(p: PreparedHoodieSchema, f: AvroField, v: unknown): unknown {
  return convertValue(v, f.type, p.named, f.name);
}

/**
 * convertFieldValue for one field with the type resolved once: the common plain types skip the
 * per-value union/name resolution (the incremental writer calls this per value of every row).
 */
export function fieldConverter(p: PreparedHoodieSchema, f: AvroField): (v: unknown) => unknown {
  const { type: raw } = unwrapNullable(f.type, f.name);
  const t = resolveNamed(raw, p.named);
  const base = typeof t === 'string' ? t : (t as { type: string }).type;
  const lt = typeof t === 'object' ? (t as { logicalType?: string }).logicalType : undefined;
  if (lt === undefined && ['string', 'double', 'float', 'boolean', 'int', 'bytes'].includes(base)) return (v) => (v === undefined ? null : v);
  if (lt === undefined && base === 'long') return (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v : toBigInt(v, f.name));
  return (v) => convertValue(v, f.type, p.named, f.name);
}

/** Bloom filter and min/max record key, fed in row order. */
export class RecordKeyTracker {
  /** (replaced once by a filter built in two threads: PackedWriterOptions.bloomShared) */
  bloom: HoodieBloomFilter | undefined;
  minKey: string | undefined;
  maxKey: string | undefined;
  constructor(
    private readonly keyField: string,
    bloomFilter: BloomFilterOptions | false | undefined,
    /** a filter that already holds the first keys (HoodieBloomFilter.resume) */
    seed?: HoodieBloomFilter,
  ) {
    this.bloom = bloomFilter === false ? undefined : seed ?? HoodieBloomFilter.create(bloomFilter ?? {});
  }
  add(r: Record<string, unknown>, i: number): void {
    this.addKey(r[this.keyField], i);
  }
  /** A row's key; `utf8` (its UTF-8 bytes, when the caller has them) saves encoding it for the bloom filter. */
  addKey(k: unknown, i: number, utf8?: Uint8Array): void {
    if (typeof k !== 'string' || k === '') throw new TblError('parquet', `row ${i} has no record key in ${this.keyField}`);
    if (utf8) this.bloom?.addBytes(utf8);
    else this.bloom?.add(k);
    // Java String.compareTo == UTF-16 code unit order == JS string comparison
    if (this.minKey === undefined || k < this.minKey) this.minKey = k;
    if (this.maxKey === undefined || k > this.maxKey) this.maxKey = k;
  }
}

/** Footer key/values in the order HoodieAvroWriteSupport writes them. */
export function hoodieFooterKv(schema: AvroRecordSchema, keys: RecordKeyTracker, recordKeyFooter = true): KeyValue[] {
  const kv: KeyValue[] = [
    { key: FOOTER_AVRO_SCHEMA, value: JSON.stringify(schema) },
    { key: 'writer.model.name', value: 'avro' },
  ];
  const bloom = keys.bloom;
  if (bloom) {
    if (bloom.type === 'DYNAMIC_V0') kv.push({ key: FOOTER_BLOOM_TYPE_CODE, value: 'DYNAMIC_V0' });
    kv.push({ key: FOOTER_BLOOM_FILTER, value: bloom.serialize() });
  }
  if (recordKeyFooter && keys.minKey !== undefined && keys.maxKey !== undefined) {
    kv.push({ key: FOOTER_MIN_RECORD_KEY, value: keys.minKey }, { key: FOOTER_MAX_RECORD_KEY, value: keys.maxKey });
  }
  return kv;
}

/** ParquetWriter options common to both writers. */
export function hoodieWriterOptions(p: PreparedHoodieSchema, opts: { codec?: ParquetCodec; gzipLevel?: number; createdBy?: string; statistics?: boolean }) {
  return {
    // hyparquet-writer bundles its own hyparquet copy; the SchemaElement shapes are identical
    schema: p.parquetSchema as NonNullable<Parameters<typeof parquetWrite>[0]['schema']>,
    codec: (opts.codec ?? 'GZIP') as CompressionCodec,
    compressors: compressorsFor(opts.gzipLevel),
    statistics: opts.statistics ?? true,
    statisticsTruncateLength: Infinity,
    createdBy: opts.createdBy ?? DEFAULT_CREATED_BY,
  };
}

export function writeFailed(schema: AvroRecordSchema, e: unknown): TblError {
  if (e instanceof TblError) return e;
  return new TblError('parquet', `cannot write parquet for ${fullName(schema)}: ${(e as Error).message}`, { cause: e });
}

/** Writes one Hudi base file in memory. Keys feed the bloom filter and min/max in row order. */
export function writeHoodieParquet(opts: HoodieParquetWriteOptions): HoodieParquetFile {
  const { schema, rows } = opts;
  const p = prepareHoodieSchema(schema, opts.recordKeyField);
  const keys = new RecordKeyTracker(p.keyField, opts.bloomFilter);
  for (const [i, r] of rows.entries()) keys.add(r, i);

  const columnData: ColumnSource[] = schema.fields.map((f) => ({
    name: f.name,
    data: rows.map((r) => convertFieldValue(p, f, r[f.name])),
  }));

  const writer = new ByteWriter();
  try {
    void parquetWrite({
      writer,
      columnData,
      ...hoodieWriterOptions(p, opts),
      rowGroupSize: opts.rowGroupSize ?? 1_000_000,
      pageSize: opts.pageSize ?? 1048576,
      kvMetadata: hoodieFooterKv(schema, keys, opts.recordKeyFooter !== false),
    });
  } catch (e) {
    throw writeFailed(schema, e);
  }
  return { bytes: writer.getBytes(), rowCount: rows.length, minRecordKey: keys.minKey, maxRecordKey: keys.maxKey, bloomFilter: keys.bloom };
}

/**
 * Writes a base file through Storage (create-only, atomic: never overwrites, readers never see a partial
 * file). Returns what a HoodieWriteStat needs: size, row count, min/max record key.
 */
export async function writeHoodieBaseFile(
  storage: Storage,
  path: string,
  opts: HoodieParquetWriteOptions,
): Promise<HoodieParquetFile & { path: string; size: number }> {
  const file = writeHoodieParquet(opts);
  await storage.writeNew(path, file.bytes);
  return { ...file, path, size: file.bytes.length };
}

/** Meta-field values for a record written by `instant` into base file `fileName` (HoodieRecord.generateSequenceId). */
export function hoodieMetaValues(args: {
  instant: string;
  taskPartitionId?: number;
  seq: number;
  recordKey: string;
  partitionPath: string;
  fileName: string;
}): Record<(typeof HOODIE_META_FIELDS)[number], string> {
  return {
    _hoodie_commit_time: args.instant,
    _hoodie_commit_seqno: `${args.instant}_${args.taskPartitionId ?? 0}_${args.seq}`,
    _hoodie_record_key: args.recordKey,
    _hoodie_partition_path: args.partitionPath,
    _hoodie_file_name: args.fileName,
  };
}
