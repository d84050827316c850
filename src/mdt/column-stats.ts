// Per-file column-stats and bloom-filter records of a parquet base file, from its footer alone
// (format-mdt-write.md §3.1): what Hudi's ParquetUtils.readColumnStatsFromMetadata reads (parquet-mr
// statistics per row group, merged) wrapped as Hudi does it — "legacy" for column-stats index V1
// (0.14/0.15/1.0: DecimalWrapper at scale 15, DateWrapper, raw longs for timestamps, no valueType)
// and "typed" for V2 (1.1: org.apache.hudi.stats.ValueType, decimals as unscaled bytes, valueType set).
import { parquetMetadata } from 'hyparquet';
import type { FileMetaData, SchemaElement } from 'hyparquet';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { TblError } from '../errors/index.ts';
import { HoodieBloomFilter } from '../parquet/bloom.ts';
import {
  VALUE_TYPE,
  bloomFilterRecord,
  columnStatsRecord,
  compareStatValues,
  twosComplementToBigInt,
  type ColumnStats,
  type MetadataRecord,
  type StatValue,
  type ValueTypeInfo,
} from './records.ts';

/** legacy: column-stats index version V1 (table versions 6 and 8); typed: V2 (1.1, table version 9). */
export type StatsEncoding = 'legacy' | 'typed';

export interface UnsupportedColumn {
  column: string;
  reason: string;
}

export interface FileColumnStats {
  /** one entry per indexed column present in the file, in the order of `columns` */
  stats: ColumnStats[];
  /**
   * Indexed columns Hudi cannot wrap (INT96, UUID, fixed bytes in legacy mode, …). Java fails the
   * whole file's column stats on these (it then writes none for the file).
   */
  unsupported: UnsupportedColumn[];
}

/** `.hoodie/.index_defs/index.json` → the column_stats definition's source fields and version. */
export function columnStatsIndexDefinition(indexJson: string | object): { columns: string[]; version: string | undefined } | undefined {
  let o: unknown;
  try {
    o = typeof indexJson === 'string' ? JSON.parse(indexJson) : indexJson;
  } catch (e) {
    throw new TblError('metadata', `index definitions: invalid JSON (${(e as Error).message})`, { cause: e });
  }
  const def = (o as { indexDefinitions?: Record<string, { indexType?: string; sourceFields?: unknown; version?: unknown }> })?.indexDefinitions?.column_stats;
  if (!def) return undefined;
  return {
    columns: Array.isArray(def.sourceFields) ? def.sourceFields.map(String) : [],
    version: typeof def.version === 'string' ? def.version : undefined,
  };
}

/** V2 definitions (1.1) carry valueType; anything older (no version, V1) is the legacy encoding. */
export function statsEncodingFor(indexVersion: string | undefined): StatsEncoding {
  return indexVersion !== undefined && /^V\d+$/.test(indexVersion) && Number(indexVersion.slice(1)) >= 2 ? 'typed' : 'legacy';
}

/**
 * v6 tables record no column list: the indexed columns are those named by existing column_stats
 * records. Returns them in schema order (top-level field of a nested name), unknown names last.
 */
export function indexedColumnsFromRecords(names: Iterable<string>, schemaFields: readonly string[]): string[] {
  const pos = new Map(schemaFields.map((f, i) => [f, i]));
  const rank = (n: string) => pos.get(n) ?? pos.get(n.split('.')[0]!) ?? Number.MAX_SAFE_INTEGER;
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

// ---- footer parsing ----

type Raw = Record<string, unknown>;

interface ChunkStats {
  min: Uint8Array | undefined;
  max: Uint8Array | undefined;
  nullCount: number | undefined;
}

function thriftMetadata(footer: Uint8Array, path: string): Raw {
  const view = new DataView(footer.buffer, footer.byteOffset, footer.byteLength);
  if (footer.length < 12 || view.getUint32(footer.length - 4, true) !== 0x31524150) {
    throw new TblError('parquet', `${path}: not a parquet footer (no PAR1 magic)`, { path });
  }
  const len = view.getUint32(footer.length - 8, true);
  if (len > footer.length - 8) throw new TblError('parquet', `${path}: footer of ${len} bytes is not in the ${footer.length} bytes given`, { path });
  return deserializeTCompactProtocol({ view, offset: footer.length - 8 - len }) as Raw;
}

const text = new TextDecoder();

/** parquet-mr SortOrder of a column (for the deprecated min/max fields). */
function signedOrder(e: SchemaElement): boolean {
  const lt = e.logical_type?.type;
  const ct = e.converted_type;
  if (e.type === 'BYTE_ARRAY' || e.type === 'FIXED_LEN_BYTE_ARRAY') return lt === 'DECIMAL' || ct === 'DECIMAL';
  if (e.type === 'INT96') return false;
  if (ct?.startsWith('UINT_') || (lt === 'INTEGER' && e.logical_type && !(e.logical_type as { isSigned?: boolean }).isSigned)) return false;
  return true;
}

/** ParquetMetadataConverter.fromParquetStatistics: which min/max bytes parquet-mr trusts. */
function chunkStats(raw: Raw | undefined, e: SchemaElement, typeDefinedOrder: boolean): ChunkStats {
  if (!raw) return { min: undefined, max: undefined, nullCount: undefined };
  const nc = raw.field_3 as bigint | undefined;
  const out: ChunkStats = { min: undefined, max: undefined, nullCount: nc === undefined ? undefined : Number(nc) };
  const minV = raw.field_6 as Uint8Array | undefined;
  const maxV = raw.field_5 as Uint8Array | undefined;
  const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (minV && maxV) {
    if (typeDefinedOrder || same(minV, maxV)) {
      out.min = minV;
      out.max = maxV;
    }
  } else {
    const min = raw.field_2 as Uint8Array | undefined;
    const max = raw.field_1 as Uint8Array | undefined;
    if (min && max && (signedOrder(e) || same(min, max))) {
      out.min = min;
      out.max = max;
    }
  }
  return out;
}

// ---- value conversion ----

function isDecimal(e: SchemaElement): boolean {
  return e.logical_type?.type === 'DECIMAL' || e.converted_type === 'DECIMAL';
}
function decimalScale(e: SchemaElement): number {
  const lt = e.logical_type as { type: string; scale?: number } | undefined;
  return (lt?.type === 'DECIMAL' ? lt.scale : undefined) ?? e.scale ?? 0;
}
function decimalPrecision(e: SchemaElement): number {
  const lt = e.logical_type as { type: string; precision?: number } | undefined;
  return (lt?.type === 'DECIMAL' ? lt.precision : undefined) ?? e.precision ?? 0;
}

/** BigInteger.toByteArray: the shortest big-endian two's complement. */
export function bigIntToTwosComplement(v: bigint): Uint8Array {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    bytes.unshift(Number(BigInt.asUintN(8, x)));
    const rest = x >> 8n;
    const signBit = (bytes[0]! & 0x80) !== 0;
    if ((rest === 0n && !signBit) || (rest === -1n && signBit)) break;
    x = rest;
  }
  return Uint8Array.from(bytes);
}

/** The plain-encoded statistic as the Java value parquet-mr's genericGetMin returns. */
type Primitive = { kind: 'boolean'; v: boolean } | { kind: 'int'; v: number } | { kind: 'long'; v: bigint } | { kind: 'float' | 'double'; v: number } | { kind: 'binary'; v: Uint8Array };

function primitive(e: SchemaElement, b: Uint8Array, isMin: boolean): Primitive {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const need = (n: number) => {
    if (b.length !== n) throw new TblError('parquet', `statistics value of ${e.name} has ${b.length} bytes, expected ${n}`);
  };
  switch (e.type) {
    case 'BOOLEAN':
      need(1);
      return { kind: 'boolean', v: b[0] !== 0 };
    case 'INT32':
      need(4);
      return { kind: 'int', v: dv.getInt32(0, true) };
    case 'INT64':
      need(8);
      return { kind: 'long', v: dv.getBigInt64(0, true) };
    case 'FLOAT':
    case 'DOUBLE': {
      need(e.type === 'FLOAT' ? 4 : 8);
      let v = e.type === 'FLOAT' ? dv.getFloat32(0, true) : dv.getFloat64(0, true);
      // parquet-mr (PARQUET-1222): a zero min reads as -0.0, a zero max as +0.0
      if (v === 0) v = isMin ? -0 : 0;
      return { kind: e.type === 'FLOAT' ? 'float' : 'double', v };
    }
    default:
      return { kind: 'binary', v: b };
  }
}

function unscaled(p: Primitive): bigint {
  if (p.kind === 'int') return BigInt(p.v);
  if (p.kind === 'long') return p.v;
  if (p.kind === 'binary') return twosComplementToBigInt(p.v);
  throw new TblError('parquet', `decimal statistics of physical kind ${p.kind}`);
}

interface Converter {
  valueType: ValueTypeInfo | null;
  convert(p: Primitive): StatValue;
}

const MAX_DECIMAL_UNSCALED = 10n ** 30n; // DecimalWrapper is decimal(30,15)

/** ParquetUtils.convertToNativeJavaType + HoodieAvroUtils.wrapValueIntoAvro (column-stats index V1). */
function legacyConverter(e: SchemaElement): Converter | string {
  const lt = e.logical_type?.type;
  const ct = e.converted_type;
  if (isDecimal(e)) {
    const scale = decimalScale(e);
    return {
      valueType: null,
      convert: (p) => {
        // tryUpcastDecimal to decimal(30,15): setScale(15, UNNECESSARY), then the precision check
        let u = unscaled(p);
        if (scale <= 15) u *= 10n ** BigInt(15 - scale);
        else {
          const f = 10n ** BigInt(scale - 15);
          if (u % f !== 0n) throw new TblError('unsupported', `decimal statistics of ${e.name} (scale ${scale}) cannot be encoded at scale 15 without rounding`);
          u /= f;
        }
        if ((u < 0n ? -u : u) >= MAX_DECIMAL_UNSCALED) throw new TblError('unsupported', `decimal statistics of ${e.name} exceed precision 30`);
        return { type: 'decimal', value: bigIntToTwosComplement(u) };
      },
    };
  }
  if (lt === 'DATE' || ct === 'DATE') return { valueType: null, convert: (p) => ({ type: 'date', value: (p as { v: number }).v }) };
  if (lt === 'STRING' || ct === 'UTF8') return { valueType: null, convert: (p) => ({ type: 'string', value: text.decode((p as { v: Uint8Array }).v) }) };
  switch (e.type) {
    case 'BYTE_ARRAY':
      return { valueType: null, convert: (p) => ({ type: 'bytes', value: (p as { v: Uint8Array }).v }) };
    case 'BOOLEAN':
      return { valueType: null, convert: (p) => ({ type: 'boolean', value: (p as { v: boolean }).v }) };
    case 'INT32':
      return { valueType: null, convert: (p) => ({ type: 'int', value: (p as { v: number }).v }) };
    case 'INT64':
      return { valueType: null, convert: (p) => ({ type: 'long', value: (p as { v: bigint }).v }) };
    case 'FLOAT':
      return { valueType: null, convert: (p) => ({ type: 'float', value: (p as { v: number }).v }) };
    case 'DOUBLE':
      return { valueType: null, convert: (p) => ({ type: 'double', value: (p as { v: number }).v }) };
    default:
      // a Binary reaches wrapValueIntoAvro unconverted: UnsupportedOperationException in Java
      return `${e.type} values cannot be wrapped by the column-stats index V1`;
  }
}

/** org.apache.hudi.stats.ValueType.fromParquetPrimitiveType and its wrapping (column-stats index V2). */
function typedConverter(e: SchemaElement): Converter | string {
  const lt = e.logical_type as { type: string; unit?: string; isAdjustedToUTC?: boolean } | undefined;
  const ct = e.converted_type;
  const vt = (ordinal: number, additionalInfo: string | null = null): ValueTypeInfo => ({ typeOrdinal: ordinal, additionalInfo });
  const int = (ordinal: number): Converter => ({ valueType: vt(ordinal), convert: (p) => ({ type: 'int', value: (p as { v: number }).v }) });
  const long = (ordinal: number): Converter => ({ valueType: vt(ordinal), convert: (p) => ({ type: 'long', value: (p as { v: bigint }).v }) });
  // parquet-mr derives the annotation from the converted type when the logical type is absent
  const annotation =
    lt?.type ??
    ({ UTF8: 'STRING', DECIMAL: 'DECIMAL', DATE: 'DATE', TIME_MILLIS: 'TIME', TIME_MICROS: 'TIME', TIMESTAMP_MILLIS: 'TIMESTAMP', TIMESTAMP_MICROS: 'TIMESTAMP', ENUM: 'ENUM', JSON: 'JSON', BSON: 'BSON' } as Record<string, string>)[ct ?? ''] ??
    (ct?.startsWith('INT_') || ct?.startsWith('UINT_') ? 'INTEGER' : undefined);
  const unit = lt?.unit ?? (ct?.endsWith('_MILLIS') ? 'MILLIS' : ct?.endsWith('_MICROS') ? 'MICROS' : undefined);
  const utc = lt?.isAdjustedToUTC ?? true;
  switch (annotation) {
    case undefined:
      break;
    case 'STRING':
      return { valueType: vt(VALUE_TYPE.STRING), convert: (p) => ({ type: 'string', value: text.decode((p as { v: Uint8Array }).v) }) };
    case 'DECIMAL': {
      const precision = decimalPrecision(e);
      const scale = decimalScale(e);
      // castToDecimal then fromDecimal: BigDecimal.unscaledValue().toByteArray()
      return { valueType: vt(VALUE_TYPE.DECIMAL, `${precision},${scale}`), convert: (p) => ({ type: 'bytes', value: bigIntToTwosComplement(unscaled(p)) }) };
    }
    case 'DATE':
      return int(VALUE_TYPE.DATE);
    case 'TIME':
      if (unit === 'MILLIS') return int(VALUE_TYPE.TIME_MILLIS);
      if (unit === 'MICROS') return long(VALUE_TYPE.TIME_MICROS);
      return `unsupported time unit ${String(unit)}`;
    case 'TIMESTAMP':
      if (unit === 'MILLIS') return long(utc ? VALUE_TYPE.TIMESTAMP_MILLIS : VALUE_TYPE.LOCAL_TIMESTAMP_MILLIS);
      if (unit === 'MICROS') return long(utc ? VALUE_TYPE.TIMESTAMP_MICROS : VALUE_TYPE.LOCAL_TIMESTAMP_MICROS);
      if (unit === 'NANOS') return long(utc ? VALUE_TYPE.TIMESTAMP_NANOS : VALUE_TYPE.LOCAL_TIMESTAMP_NANOS);
      return `unsupported timestamp unit ${String(unit)}`;
    default:
      // INTEGER(8/16), ENUM, JSON, BSON, UUID (castToUUID gets a Binary): IllegalArgument/UnsupportedOperation in Java
      return `logical type ${annotation} is not supported by the column-stats index V2`;
  }
  switch (e.type) {
    case 'INT64':
      return long(VALUE_TYPE.LONG);
    case 'INT32':
      return int(VALUE_TYPE.INT);
    case 'BOOLEAN':
      return { valueType: vt(VALUE_TYPE.BOOLEAN), convert: (p) => ({ type: 'boolean', value: (p as { v: boolean }).v }) };
    case 'FLOAT':
      return { valueType: vt(VALUE_TYPE.FLOAT), convert: (p) => ({ type: 'float', value: (p as { v: number }).v }) };
    case 'DOUBLE':
      return { valueType: vt(VALUE_TYPE.DOUBLE), convert: (p) => ({ type: 'double', value: (p as { v: number }).v }) };
    case 'BYTE_ARRAY':
      return { valueType: vt(VALUE_TYPE.BYTES), convert: (p) => ({ type: 'bytes', value: (p as { v: Uint8Array }).v }) };
    case 'FIXED_LEN_BYTE_ARRAY':
      return { valueType: vt(VALUE_TYPE.FIXED), convert: (p) => ({ type: 'bytes', value: (p as { v: Uint8Array }).v }) };
    default:
      return `Unsupported primitive type: ${e.type}`;
  }
}

/**
 * Column stats of one parquet file from its footer (the last bytes of the file, at least the
 * metadata and the 8-byte tail; the whole file works too). `columns` are the indexed column names
 * (dotted paths for nested leaves); columns absent from the file get no entry, as in Hudi.
 */
export function columnStatsFromFooter(
  footer: Uint8Array,
  fileName: string,
  columns: readonly string[],
  encoding: StatsEncoding,
  path = fileName,
): FileColumnStats {
  let meta: FileMetaData;
  let raw: Raw;
  try {
    meta = parquetMetadata(footer);
    raw = thriftMetadata(footer, path);
  } catch (e) {
    if (e instanceof TblError) throw e;
    throw new TblError('parquet', `cannot read parquet footer of ${path}: ${(e as Error).message}`, { path, cause: e });
  }
  const leaves = meta.schema.filter((e) => e.type !== undefined);
  const orders = (raw.field_7 as Raw[] | undefined) ?? [];
  const rawGroups = (raw.field_4 as Raw[] | undefined) ?? [];
  const wanted = new Set(columns);
  const perColumn = new Map<string, ColumnStats>();
  const unsupported = new Map<string, string>();
  const converters = new Map<number, Converter | string>();
  meta.row_groups.forEach((rg, g) => {
    const rawCols = (rawGroups[g]?.field_1 as Raw[] | undefined) ?? [];
    rg.columns.forEach((chunk, i) => {
      const md = chunk.meta_data;
      if (!md) return;
      const name = md.path_in_schema.join('.');
      if (!wanted.has(name) || unsupported.has(name)) return;
      const e = leaves[i]!;
      let conv = converters.get(i);
      if (!conv) {
        conv = encoding === 'typed' ? typedConverter(e) : legacyConverter(e);
        converters.set(i, conv);
      }
      if (typeof conv === 'string') {
        unsupported.set(name, conv);
        return;
      }
      const rawStats = ((rawCols[i]?.field_3 as Raw | undefined)?.field_12 as Raw | undefined) ?? undefined;
      const s = chunkStats(rawStats, e, orders[i]?.field_1 !== undefined);
      const valueCount = Number(md.num_values);
      let min: StatValue | null = null;
      let max: StatValue | null = null;
      try {
        if (s.min && s.max) {
          const pmin = primitive(e, s.min, true);
          const pmax = primitive(e, s.max, false);
          // FloatStatistics/DoubleStatistics drop min/max when either is NaN
          if (!((pmin.kind === 'float' || pmin.kind === 'double') && (Number.isNaN(pmin.v) || Number.isNaN((pmax as { v: number }).v)))) {
            min = conv.convert(pmin);
            max = conv.convert(pmax);
          }
        }
      } catch (err) {
        if (err instanceof TblError && err.kind === 'unsupported') {
          unsupported.set(name, err.message);
          return;
        }
        throw err;
      }
      // Statistics.isEmpty (no min/max, no null count): Hudi takes every value as null
      const hasValues = min !== null;
      const nullCount = !hasValues && s.nullCount === undefined ? valueCount : (s.nullCount ?? -1);
      const cs: ColumnStats = {
        fileName,
        columnName: name,
        minValue: min,
        maxValue: max,
        valueCount,
        nullCount,
        totalSize: Number(md.total_compressed_size),
        totalUncompressedSize: Number(md.total_uncompressed_size),
        isDeleted: false,
        isTightBound: false,
        valueType: conv.valueType,
      };
      const prev = perColumn.get(name);
      perColumn.set(name, prev ? mergeRowGroups(prev, cs) : cs);
    });
  });
  const stats: ColumnStats[] = [];
  for (const c of columns) {
    const s = perColumn.get(c);
    if (s && !unsupported.has(c)) stats.push(s);
  }
  return { stats, unsupported: [...unsupported].map(([column, reason]) => ({ column, reason })) };
}

/** HoodieColumnRangeMetadata.merge (row groups of one file, in order). */
function mergeRowGroups(a: ColumnStats, b: ColumnStats): ColumnStats {
  const pick = (x: StatValue | null, y: StatValue | null, sign: 1 | -1) => {
    if (x === null) return y;
    if (y === null) return x;
    return compareStatValues(x, y, a.valueType) * sign < 0 ? x : y;
  };
  return {
    ...a,
    minValue: pick(a.minValue, b.minValue, 1),
    maxValue: pick(a.maxValue, b.maxValue, -1),
    valueCount: a.valueCount! + b.valueCount!,
    nullCount: a.nullCount! + b.nullCount!,
    totalSize: a.totalSize! + b.totalSize!,
    totalUncompressedSize: a.totalUncompressedSize! + b.totalUncompressedSize!,
  };
}

/** The column_stats records (type 3) of a base file; throws when an indexed column cannot be indexed. */
export function columnStatsRecordsFromFooter(
  partition: string,
  fileName: string,
  footer: Uint8Array,
  columns: readonly string[],
  encoding: StatsEncoding,
  path = fileName,
): MetadataRecord[] {
  const r = columnStatsFromFooter(footer, fileName, columns, encoding, path);
  if (r.unsupported.length) {
    const u = r.unsupported[0]!;
    throw new TblError('unsupported', `${path}: column ${u.column} cannot be indexed in column_stats: ${u.reason}`, { path });
  }
  return r.stats.map((s) => columnStatsRecord(partition, s));
}

export const BLOOM_FOOTER_KEY = 'org.apache.hudi.bloomfilter';
const OLD_BLOOM_FOOTER_KEY = 'com.uber.hoodie.bloomfilter';
export const BLOOM_TYPE_CODE_FOOTER_KEY = 'hoodie_bloom_filter_type_code';

/**
 * The bloom_filters record (type 4) of a base file, from the filter in its footer (Hudi reads it with
 * BloomFilterFactory.fromString and stores serializeToString()). `typeCode`: the record's `type`,
 * Hudi's write-config bloom type; defaults to the footer's type code.
 */
export function bloomFilterRecordFromFooter(
  partition: string,
  fileName: string,
  instant: string,
  footer: Uint8Array | Record<string, string>,
  opts: { typeCode?: string; path?: string } = {},
): MetadataRecord {
  const path = opts.path ?? fileName;
  let kv: Record<string, string>;
  if (footer instanceof Uint8Array) {
    kv = {};
    try {
      for (const e of parquetMetadata(footer).key_value_metadata ?? []) kv[e.key] = e.value ?? '';
    } catch (e) {
      throw new TblError('parquet', `cannot read parquet footer of ${path}: ${(e as Error).message}`, { path, cause: e });
    }
  } else kv = footer;
  const serialized = kv[BLOOM_FOOTER_KEY] ?? kv[OLD_BLOOM_FOOTER_KEY];
  if (serialized === undefined) throw new TblError('metadata', `${path}: base file has no bloom filter in its footer (${BLOOM_FOOTER_KEY})`, { path });
  const footerType = kv[BLOOM_TYPE_CODE_FOOTER_KEY];
  let filter: HoodieBloomFilter;
  try {
    filter = HoodieBloomFilter.deserialize(serialized, footerType);
  } catch (e) {
    throw new TblError('metadata', `${path}: bloom filter in the footer cannot be read: ${(e as Error).message}`, { path, cause: e });
  }
  return bloomFilterRecord(partition, fileName, instant, opts.typeCode ?? footerType ?? 'DYNAMIC_V0', filter.serialize());
}
