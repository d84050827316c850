// HoodieMetadataRecord as tblcli writes it into metadata-table log blocks (format-mdt-write.md §2):
// a typed model of the record kinds, encode/decode against the writer schema copied from the MDT
// (v6, v8 and v9 schemas differ in fields and wrapper branches; a value the schema cannot carry is an
// error, never dropped), the value's `key` blanked and the five meta fields null, and the merge rules
// Hudi applies between two records of one key (HoodieMetadataPayload.preCombine).
import { TblError } from '../errors/index.ts';
import { decodeAvroBinary, encodeAvroBinary, parseAvroSchema, recordField, branchName, type AvroNode } from '../metadata/index.ts';
import { javaStringHashCode, parseInstantTime } from '../util/index.ts';
import type { FileInfo } from './files.ts';
import { ALL_PARTITIONS_KEY, bloomFilterKey, columnStatsKey, filesKey, partitionIdentifier, partitionStatsKey } from './keys.ts';

/** HoodieMetadataRecord.type (MetadataPartitionType record types). */
export const RECORD_TYPE = {
  PARTITION_LIST: 1,
  FILE_LIST: 2,
  COLUMN_STATS: 3,
  BLOOM_FILTER: 4,
  RECORD_INDEX: 5,
  PARTITION_STATS: 6,
  SECONDARY_INDEX: 7,
} as const;

/** A min/max value: the union branch (wrapper record) and its `value`. */
export type StatValue =
  | { type: 'boolean'; value: boolean }
  | { type: 'int' | 'float' | 'double' | 'date' | 'localDate'; value: number }
  | { type: 'long' | 'timeMicros' | 'timestampMicros'; value: bigint }
  | { type: 'string'; value: string }
  /** bytes: BytesWrapper; decimal: DecimalWrapper, the unscaled two's-complement value at scale 15 */
  | { type: 'bytes' | 'decimal'; value: Uint8Array }
  /** ArrayWrapper (1.1+) */
  | { type: 'array'; value: (StatValue | null)[] | null };

export type StatValueType = StatValue['type'];

const WRAPPERS: Record<StatValueType, string> = {
  boolean: 'BooleanWrapper',
  int: 'IntWrapper',
  long: 'LongWrapper',
  float: 'FloatWrapper',
  double: 'DoubleWrapper',
  bytes: 'BytesWrapper',
  string: 'StringWrapper',
  date: 'DateWrapper',
  decimal: 'DecimalWrapper',
  timeMicros: 'TimeMicrosWrapper',
  timestampMicros: 'TimestampMicrosWrapper',
  localDate: 'LocalDateWrapper',
  array: 'ArrayWrapper',
};
const WRAPPER_TYPES = new Map(Object.entries(WRAPPERS).map(([t, w]) => [w, t as StatValueType]));

/** HoodieValueTypeInfo (1.1+): org.apache.hudi.stats.ValueType ordinal, decimal "precision,scale". */
export interface ValueTypeInfo {
  typeOrdinal: number;
  additionalInfo: string | null;
}

/** HoodieMetadataColumnStats (column_stats and partition_stats). */
export interface ColumnStats {
  /** the bare file name (column_stats) or the data partition path (partition_stats) */
  fileName: string | null;
  columnName: string | null;
  minValue: StatValue | null;
  maxValue: StatValue | null;
  valueCount: number | null;
  nullCount: number | null;
  totalSize: number | null;
  totalUncompressedSize: number | null;
  isDeleted: boolean;
  /** 1.0+; false for per-file stats */
  isTightBound: boolean;
  /** 1.1+ (column-stats index version V2) */
  valueType: ValueTypeInfo | null;
}

/** HoodieMetadataBloomFilter */
export interface BloomFilterMetadata {
  /** bloom type code, e.g. DYNAMIC_V0 ("" for a delete) */
  type: string;
  /** instant that produced the record */
  timestamp: string;
  /** UTF-8 of BloomFilter.serializeToString() (empty for a delete) */
  bloomFilter: Uint8Array;
  isDeleted: boolean;
}

/** HoodieRecordIndexInfo */
export interface RecordIndexInfo {
  partitionName: string | null;
  fileIdHighBits: bigint | null;
  fileIdLowBits: bigint | null;
  fileIndex: number | null;
  fileId: string | null;
  /** epoch millis of the instant */
  instantTime: number | null;
  fileIdEncoding: number;
  /** 1.0+ */
  position: bigint | null;
}

/** The five `_hoodie_*` fields of the writer schema; null in log blocks, compaction fills the file name. */
export interface MetaFields {
  commitTime: string | null;
  commitSeqno: string | null;
  recordKey: string | null;
  partitionPath: string | null;
  fileName: string | null;
}

interface RecordBase {
  /** the HFile row key (the value's own `key` field is stored blank) */
  key: string;
  /** only when a stored record carries non-null meta fields */
  meta?: MetaFields;
}

/** type 1 (partition list, key __all_partitions__) or 2 (a partition's files) */
export type FilesListRecord = RecordBase & { type: 1 | 2; files: Map<string, FileInfo> };
/** type 3 (column_stats) or 6 (partition_stats) */
export type ColumnStatsRecord = RecordBase & { type: 3 | 6; columnStats: ColumnStats };
export type BloomFilterRecord = RecordBase & { type: 4; bloomFilter: BloomFilterMetadata };
export type RecordIndexRecord = RecordBase & { type: 5; recordIndex: RecordIndexInfo };
export type SecondaryIndexRecord = RecordBase & { type: 7; secondaryIndex: { isDeleted: boolean } };

export type MetadataRecord = FilesListRecord | ColumnStatsRecord | BloomFilterRecord | RecordIndexRecord | SecondaryIndexRecord;

/** A key delete (an entry of a DELETE_BLOCK): a whole-partition delete in `files`, a record-index delete. */
export interface MetadataDelete {
  key: string;
  deleted: true;
}

export type MetadataUpsert = MetadataRecord | MetadataDelete;

export function isDelete(r: MetadataUpsert): r is MetadataDelete {
  return (r as MetadataDelete).deleted === true;
}

// ---- writer schemas ----

/** What a writer schema can carry (v6 = 0.14/0.15, v8 = 1.0, v9 = 1.1, §2.1). */
export interface SchemaFeatures {
  metaFields: boolean;
  isTightBound: boolean;
  valueType: boolean;
  position: boolean;
  secondaryIndex: boolean;
  /** wrapper branches of minValue (BooleanWrapper, …, LocalDateWrapper, ArrayWrapper) */
  wrappers: Set<string>;
}

export interface MdtWriterSchema {
  text: string;
  root: AvroNode;
  features: SchemaFeatures;
}

const schemas = new Map<string, MdtWriterSchema>();

function nonNull(n: AvroNode | undefined): AvroNode | undefined {
  if (n?.kind !== 'union') return n;
  return n.branches.find((b) => b.kind !== 'null');
}

/** Parses (once) the HoodieMetadataRecord writer schema of an MDT HFile / log block. */
export function mdtWriterSchema(text: string): MdtWriterSchema {
  let s = schemas.get(text);
  if (s) return s;
  const root = parseAvroSchema(text);
  if (root.kind !== 'record' || !root.name.endsWith('HoodieMetadataRecord') || !recordField(root, 'type') || !recordField(root, 'filesystemMetadata')) {
    throw new TblError('metadata', `not a HoodieMetadataRecord writer schema (${root.kind === 'record' ? root.name : root.kind})`);
  }
  const cs = nonNull(recordField(root, 'ColumnStatsMetadata')?.type);
  const ri = nonNull(recordField(root, 'recordIndexMetadata')?.type);
  const min = recordField(cs ?? { kind: 'null' }, 'minValue')?.type;
  const features: SchemaFeatures = {
    metaFields: recordField(root, '_hoodie_commit_time') !== undefined,
    isTightBound: cs !== undefined && recordField(cs, 'isTightBound') !== undefined,
    valueType: cs !== undefined && recordField(cs, 'valueType') !== undefined,
    position: ri !== undefined && recordField(ri, 'position') !== undefined,
    secondaryIndex: recordField(root, 'SecondaryIndexMetadata') !== undefined,
    wrappers: new Set(min?.kind === 'union' ? min.branches.filter((b) => b.kind !== 'null').map(branchName) : []),
  };
  s = { text, root, features };
  if (schemas.size > 32) schemas.clear();
  schemas.set(text, s);
  return s;
}

function schemaOf(s: MdtWriterSchema | string): MdtWriterSchema {
  return typeof s === 'string' ? mdtWriterSchema(s) : s;
}

// ---- model → Avro value ----

function wrap(v: StatValue | null): unknown {
  if (v === null) return null;
  if (v.type === 'array') return { ArrayWrapper: { wrappedValues: v.value === null ? null : v.value.map(wrap) } };
  return { [WRAPPERS[v.type]]: { value: v.value } };
}

function long(n: number | bigint | null): bigint | null {
  return n === null ? null : BigInt(n);
}

function columnStatsValue(c: ColumnStats): Record<string, unknown> {
  return {
    fileName: c.fileName,
    columnName: c.columnName,
    minValue: wrap(c.minValue),
    maxValue: wrap(c.maxValue),
    valueCount: long(c.valueCount),
    nullCount: long(c.nullCount),
    totalSize: long(c.totalSize),
    totalUncompressedSize: long(c.totalUncompressedSize),
    isDeleted: c.isDeleted,
    // fields newer schemas added are left out at their default, so an older schema still takes the record
    isTightBound: c.isTightBound ? true : undefined,
    valueType: c.valueType ?? undefined,
  };
}

function avroValueOf(r: MetadataRecord): Record<string, unknown> {
  const m = r.meta;
  return {
    _hoodie_commit_time: m?.commitTime ?? undefined,
    _hoodie_commit_seqno: m?.commitSeqno ?? undefined,
    _hoodie_record_key: m?.recordKey ?? undefined,
    _hoodie_partition_path: m?.partitionPath ?? undefined,
    _hoodie_file_name: m?.fileName ?? undefined,
    // HoodieAvroHFileWriter / HFileUtils truncate the key: the HFile row is the key
    key: '',
    type: r.type,
    filesystemMetadata:
      r.type === 1 || r.type === 2 ? new Map([...r.files].map(([k, f]) => [k, { size: BigInt(f.size), isDeleted: f.isDeleted }])) : null,
    BloomFilterMetadata: r.type === 4 ? { ...r.bloomFilter } : null,
    ColumnStatsMetadata: r.type === 3 || r.type === 6 ? columnStatsValue(r.columnStats) : null,
    recordIndexMetadata:
      r.type === 5
        ? {
            partitionName: r.recordIndex.partitionName,
            fileIdHighBits: r.recordIndex.fileIdHighBits,
            fileIdLowBits: r.recordIndex.fileIdLowBits,
            fileIndex: r.recordIndex.fileIndex,
            fileId: r.recordIndex.fileId,
            instantTime: long(r.recordIndex.instantTime),
            fileIdEncoding: r.recordIndex.fileIdEncoding,
            position: r.recordIndex.position ?? undefined,
          }
        : null,
    SecondaryIndexMetadata: r.type === 7 ? { ...r.secondaryIndex } : undefined,
  };
}

/** The value bytes of an MDT HFile cell: Avro binary of the record under `schema`, key blanked. */
export function encodeMetadataRecord(r: MetadataRecord, schema: MdtWriterSchema | string): Uint8Array {
  const s = schemaOf(schema);
  try {
    return encodeAvroBinary(s.root, avroValueOf(r), 'HoodieMetadataRecord');
  } catch (e) {
    if (e instanceof TblError) throw new TblError('metadata', `metadata record ${JSON.stringify(r.key)} (type ${r.type}): ${e.message}`, { cause: e });
    throw e;
  }
}

// ---- Avro value → model ----

function num(v: unknown, what: string, path: string): number {
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new TblError('metadata', `${path}: ${what} ${v} exceeds 2^53`, { path });
    }
    return Number(v);
  }
  return v as number;
}

function numOrNull(v: unknown, what: string, path: string): number | null {
  return v === null || v === undefined ? null : num(v, what, path);
}

function unwrap(v: unknown, path: string): StatValue | null {
  if (v === null || v === undefined) return null;
  const [name, inner] = Object.entries(v as Record<string, Record<string, unknown>>)[0]!;
  const type = WRAPPER_TYPES.get(name);
  if (!type) throw new TblError('metadata', `${path}: unknown column-stats value wrapper ${name}`, { path });
  if (type === 'array') {
    const vals = inner.wrappedValues as unknown[] | null;
    return { type, value: vals === null ? null : vals.map((x) => unwrap(x, path)) };
  }
  return { type, value: inner.value } as StatValue;
}

function metaOf(v: Record<string, unknown>): MetaFields | undefined {
  const m: MetaFields = {
    commitTime: (v._hoodie_commit_time as string | null | undefined) ?? null,
    commitSeqno: (v._hoodie_commit_seqno as string | null | undefined) ?? null,
    recordKey: (v._hoodie_record_key as string | null | undefined) ?? null,
    partitionPath: (v._hoodie_partition_path as string | null | undefined) ?? null,
    fileName: (v._hoodie_file_name as string | null | undefined) ?? null,
  };
  return Object.values(m).some((x) => x !== null) ? m : undefined;
}

/** Decodes an MDT HFile cell value written with `schema`; `key` is the cell's row key. */
export function decodeMetadataRecord(key: string, value: Uint8Array, schema: MdtWriterSchema | string, path = '<metadata record>'): MetadataRecord {
  const s = schemaOf(schema);
  const v = decodeAvroBinary(s.root, value, path) as Record<string, unknown>;
  const type = v.type as number;
  const where = `${path}: record ${JSON.stringify(key)} (type ${type})`;
  const payloads: [string, boolean][] = [
    ['filesystemMetadata', type === 1 || type === 2],
    ['BloomFilterMetadata', type === 4],
    ['ColumnStatsMetadata', type === 3 || type === 6],
    ['recordIndexMetadata', type === 5],
    ['SecondaryIndexMetadata', type === 7],
  ];
  for (const [field, expected] of payloads) {
    const present = v[field] !== null && v[field] !== undefined;
    if (present !== expected) {
      throw new TblError('metadata', `${where}: ${present ? 'unexpected' : 'missing'} ${field}`, { path });
    }
  }
  const base: RecordBase = { key };
  const meta = metaOf(v);
  if (meta) base.meta = meta;
  if (typeof v.key === 'string' && v.key !== '' && v.key !== key) {
    throw new TblError('metadata', `${where}: value key ${JSON.stringify(v.key)} differs from the HFile key`, { path });
  }
  switch (type) {
    case 1:
    case 2: {
      const files = new Map<string, FileInfo>();
      for (const [name, fi] of v.filesystemMetadata as Map<string, { size: bigint; isDeleted: boolean }>) {
        files.set(name, { size: num(fi.size, 'file size', path), isDeleted: fi.isDeleted });
      }
      return { ...base, type, files };
    }
    case 3:
    case 6: {
      const c = v.ColumnStatsMetadata as Record<string, unknown>;
      return {
        ...base,
        type,
        columnStats: {
          fileName: c.fileName as string | null,
          columnName: c.columnName as string | null,
          minValue: unwrap(c.minValue, path),
          maxValue: unwrap(c.maxValue, path),
          valueCount: numOrNull(c.valueCount, 'valueCount', path),
          nullCount: numOrNull(c.nullCount, 'nullCount', path),
          totalSize: numOrNull(c.totalSize, 'totalSize', path),
          totalUncompressedSize: numOrNull(c.totalUncompressedSize, 'totalUncompressedSize', path),
          isDeleted: c.isDeleted as boolean,
          isTightBound: (c.isTightBound as boolean | undefined) ?? false,
          valueType: (c.valueType as ValueTypeInfo | null | undefined) ?? null,
        },
      };
    }
    case 4:
      return { ...base, type, bloomFilter: { ...(v.BloomFilterMetadata as BloomFilterMetadata) } };
    case 5: {
      const ri = v.recordIndexMetadata as Record<string, unknown>;
      return {
        ...base,
        type,
        recordIndex: {
          partitionName: ri.partitionName as string | null,
          fileIdHighBits: ri.fileIdHighBits as bigint | null,
          fileIdLowBits: ri.fileIdLowBits as bigint | null,
          fileIndex: ri.fileIndex as number | null,
          fileId: ri.fileId as string | null,
          instantTime: numOrNull(ri.instantTime, 'instantTime', path),
          fileIdEncoding: ri.fileIdEncoding as number,
          position: (ri.position as bigint | null | undefined) ?? null,
        },
      };
    }
    case 7:
      return { ...base, type, secondaryIndex: { ...(v.SecondaryIndexMetadata as { isDeleted: boolean }) } };
    default:
      throw new TblError('metadata', `${where}: unknown metadata record type`, { path });
  }
}

// ---- Java HashMap iteration order of the maps Hudi builds ----

function tableSizeFor(n: number): number {
  let c = 1;
  while (c < n) c *= 2;
  return c;
}

/**
 * Key order of a java.util.HashMap (JDK 8+) after a sequence of put / merge / remove / putAll: a real
 * bucket table (spread String.hashCode masked by the capacity), put appending to its bucket and
 * resizing after, merge prepending and resizing before (HashMap.merge), resizes splitting each
 * bucket in order. Treeified buckets (8+ collisions) are not modelled. Readers ignore map order; this
 * only keeps our records byte-identical to what Hudi writes for the same content.
 */
export class JavaHashMapKeys {
  private table: string[][] | undefined;
  private threshold: number;
  private count = 0;
  private readonly hashes = new Map<string, number>();
  constructor(
    initialCapacity?: number,
    private readonly loadFactor = 0.75,
  ) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }
  private hash(k: string): number {
    let h = this.hashes.get(k);
    if (h === undefined) {
      const x = javaStringHashCode(k);
      h = x ^ (x >>> 16);
      this.hashes.set(k, h);
    }
    return h;
  }
  private resize(): void {
    const oldCap = this.table?.length ?? 0;
    let newCap: number;
    let newThr = 0;
    if (oldCap > 0) {
      newCap = oldCap * 2;
      if (oldCap >= 16) newThr = this.threshold * 2;
    } else if (this.threshold > 0) newCap = this.threshold;
    else {
      newCap = 16;
      newThr = 12;
    }
    if (newThr === 0) newThr = Math.trunc(Math.fround(newCap * this.loadFactor));
    const next: string[][] = Array.from({ length: newCap }, () => []);
    for (const bucket of this.table ?? []) for (const k of bucket) next[this.hash(k) & (newCap - 1)]!.push(k);
    this.table = next;
    this.threshold = newThr;
  }
  private bucketOf(key: string): string[] {
    return this.table![this.hash(key) & (this.table!.length - 1)]!;
  }
  /** HashMap.put of a new or existing key. */
  put(key: string): void {
    if (!this.table) this.resize();
    const b = this.bucketOf(key);
    if (b.includes(key)) return;
    b.push(key);
    if (++this.count > this.threshold) this.resize();
  }
  /** HashMap.merge: `remove` when the remapping function returns null. */
  merge(key: string, remove = false): void {
    if (this.count > this.threshold || !this.table) this.resize();
    const b = this.bucketOf(key);
    const at = b.indexOf(key);
    if (at >= 0) {
      if (remove) {
        b.splice(at, 1);
        this.count--;
      }
      return;
    }
    if (remove) return;
    b.unshift(key);
    this.count++;
  }
  /** HashMap.putAll into this map (presizes an empty table like Java). */
  putAll(keys: readonly string[]): void {
    if (keys.length === 0) return;
    if (!this.table) {
      const t = Math.trunc(Math.fround(Math.fround(keys.length / this.loadFactor) + 1));
      if (t > this.threshold) this.threshold = tableSizeFor(t);
    } else if (keys.length > this.threshold) this.resize();
    for (const k of keys) this.put(k);
  }
  remove(key: string): void {
    if (!this.table) return;
    const b = this.bucketOf(key);
    const at = b.indexOf(key);
    if (at >= 0) {
      b.splice(at, 1);
      this.count--;
    }
  }
  keys(): string[] {
    return (this.table ?? []).flat();
  }
}

function ordered(files: Map<string, FileInfo>, order: JavaHashMapKeys): Map<string, FileInfo> {
  return new Map(order.keys().map((k) => [k, files.get(k)!]));
}

// ---- record builders (HoodieMetadataPayload.create*) ----

/** createPartitionListRecord: `__all_partitions__` → {partition id → {0, isDeleted}}. */
export function partitionListRecord(partitions: Iterable<string>, isDeleted = false): MetadataRecord {
  const files = new Map<string, FileInfo>();
  const order = new JavaHashMapKeys();
  for (const p of partitions) {
    const id = partitionIdentifier(p);
    files.set(id, { size: 0, isDeleted });
    order.put(id);
  }
  return { key: ALL_PARTITIONS_KEY, type: 1, files: ordered(files, order) };
}

/**
 * createPartitionFilesRecord: {file name → {size, false}} for added files, {0, true} for deleted ones.
 * Added files must have size > 0 (Hudi's readers reject a live file of size 0).
 */
export function filesRecord(partition: string, added: Iterable<readonly [string, number]>, deleted: Iterable<string> = []): MetadataRecord {
  const files = new Map<string, FileInfo>();
  for (const [name, size] of added) {
    if (!(Number.isSafeInteger(size) && size > 0)) {
      throw new TblError('bug', `files record for ${partition || '.'}: ${name} has size ${size}; a listed file must have size > 0`);
    }
    files.set(name, { size, isDeleted: false });
  }
  for (const name of deleted) files.set(name, { size: 0, isDeleted: true });
  const order = new JavaHashMapKeys(files.size, 1);
  for (const k of files.keys()) order.put(k);
  return { key: filesKey(partition), type: 2, files: ordered(files, order) };
}

/** A per-file column-stats record (type 3) keyed by column, partition and file name. */
export function columnStatsRecord(partition: string, stats: ColumnStats): MetadataRecord {
  if (stats.columnName === null || stats.fileName === null) throw new TblError('bug', 'column stats need a file and a column name');
  return { key: columnStatsKey(stats.columnName, partition, stats.fileName), type: 3, columnStats: stats };
}

/**
 * The delete stub of a file's column (HoodieColumnRangeMetadata.stub: counts -1, no min/max,
 * isDeleted). `valueTypes`: true when the column-stats index is version V2 (1.1, valueType NULL).
 */
export function columnStatsDeleteRecord(partition: string, fileName: string, column: string, valueTypes = false): MetadataRecord {
  return columnStatsRecord(partition, {
    fileName,
    columnName: column,
    minValue: null,
    maxValue: null,
    valueCount: -1,
    nullCount: -1,
    totalSize: -1,
    totalUncompressedSize: -1,
    isDeleted: true,
    isTightBound: false,
    valueType: valueTypes ? { typeOrdinal: VALUE_TYPE.NULL, additionalInfo: null } : null,
  });
}

/** A partition-stats record (type 6): fileName carries the partition path. */
export function partitionStatsRecord(partition: string, stats: ColumnStats): MetadataRecord {
  if (stats.columnName === null) throw new TblError('bug', 'partition stats need a column name');
  return { key: partitionStatsKey(stats.columnName, partition), type: 6, columnStats: { ...stats, fileName: partition } };
}

/** createBloomFilterMetadataRecord: `serialized` is BloomFilter.serializeToString() of the base file's filter. */
export function bloomFilterRecord(partition: string, baseFileName: string, instant: string, typeCode: string, serialized: string): MetadataRecord {
  return {
    key: bloomFilterKey(partition, baseFileName),
    type: 4,
    bloomFilter: { type: typeCode, timestamp: instant, bloomFilter: new TextEncoder().encode(serialized), isDeleted: false },
  };
}

/** The bloom-filter delete of a cleaned base file: {type "", timestamp, empty filter, isDeleted}. */
export function bloomFilterDeleteRecord(partition: string, baseFileName: string, instant: string): MetadataRecord {
  return { key: bloomFilterKey(partition, baseFileName), type: 4, bloomFilter: { type: '', timestamp: instant, bloomFilter: new Uint8Array(0), isDeleted: true } };
}

const UUID_RE = /^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$/;

/** java.util.UUID.fromString → (mostSigBits, leastSigBits) as signed longs. */
function uuidBits(s: string): [bigint, bigint] | undefined {
  if (!UUID_RE.test(s)) return undefined;
  const [a, b, c, d, e] = s.split('-').map((x) => BigInt(`0x${x}`)) as [bigint, bigint, bigint, bigint, bigint];
  const hi = (a << 32n) | (b << 16n) | c;
  const lo = (d << 48n) | e;
  return [BigInt.asIntN(64, hi), BigInt.asIntN(64, lo)];
}

export interface RecordIndexOptions {
  /** hoodie.record.index.fileid.encoding (write config): 0 = UUID bits (default), 1 = raw file id */
  encoding?: 0 | 1;
  /** time zone the instant is parsed in (the table's hoodie.table.timeline.timezone) */
  timeZone?: 'UTC' | 'LOCAL';
}

/** createRecordIndexUpdate: the record key → (data partition, file id, instant as epoch millis). */
export function recordIndexRecord(recordKey: string, partition: string, fileId: string, instant: string, opts: RecordIndexOptions = {}): MetadataRecord {
  const when = parseInstantTime(instant, opts.timeZone ?? 'LOCAL');
  if (!when) throw new TblError('metadata', `record index update for ${recordKey}: cannot parse instant time ${instant}`, { instant });
  const instantTime = when.getTime();
  if ((opts.encoding ?? 0) === 1) {
    return {
      key: recordKey,
      type: 5,
      recordIndex: { partitionName: partition, fileIdHighBits: -1n, fileIdLowBits: -1n, fileIndex: -1, fileId, instantTime, fileIdEncoding: 1, position: null },
    };
  }
  let uuid = fileId;
  let fileIndex = -1; // RECORD_INDEX_MISSING_FILEINDEX_FALLBACK
  if (fileId.length !== 36) {
    const i = fileId.lastIndexOf('-');
    uuid = fileId.slice(0, i);
    fileIndex = i < 0 || !/^[+-]?\d+$/.test(fileId.slice(i + 1)) ? Number.NaN : Number(fileId.slice(i + 1));
  }
  const bits = uuidBits(uuid);
  if (!bits || !Number.isInteger(fileIndex) || fileIndex > 2147483647 || fileIndex < -2147483648) {
    throw new TblError('metadata', `record index update for ${recordKey}: invalid UUID or index: fileID=${fileId}, partition=${partition}, instantTime=${instant}`, { instant });
  }
  return {
    key: recordKey,
    type: 5,
    recordIndex: { partitionName: partition, fileIdHighBits: bits[0], fileIdLowBits: bits[1], fileIndex, fileId: '', instantTime, fileIdEncoding: 0, position: null },
  };
}

/** The file id a record-index entry points to (HoodieTableMetadataUtil.getLocationFromRecordIndexInfo). */
export function recordIndexFileId(ri: RecordIndexInfo): string {
  if (ri.fileIdEncoding === 1) return ri.fileId ?? '';
  const hex = (v: bigint | null) => BigInt.asUintN(64, v ?? 0n).toString(16).padStart(16, '0');
  const h = hex(ri.fileIdHighBits);
  const l = hex(ri.fileIdLowBits);
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${l.slice(0, 4)}-${l.slice(4, 16)}`;
  return ri.fileIndex === -1 || ri.fileIndex === null ? uuid : `${uuid}-${ri.fileIndex}`;
}

// ---- merging (HoodieMetadataPayload.preCombine → MetadataPartitionType.combineMetadataPayloads) ----

/** org.apache.hudi.stats.ValueType ordinals used by HoodieValueTypeInfo (1.1). */
export const VALUE_TYPE = {
  V1: 0,
  NULL: 1,
  BOOLEAN: 2,
  INT: 3,
  LONG: 4,
  FLOAT: 5,
  DOUBLE: 6,
  STRING: 7,
  BYTES: 8,
  FIXED: 9,
  DECIMAL: 10,
  UUID: 11,
  DATE: 12,
  TIME_MILLIS: 13,
  TIME_MICROS: 14,
  TIMESTAMP_MILLIS: 15,
  TIMESTAMP_MICROS: 16,
  TIMESTAMP_NANOS: 17,
  LOCAL_TIMESTAMP_MILLIS: 18,
  LOCAL_TIMESTAMP_MICROS: 19,
  LOCAL_TIMESTAMP_NANOS: 20,
} as const;

/** Signed big-endian two's complement → bigint (BigInteger(byte[])). */
export function twosComplementToBigInt(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return BigInt.asIntN(b.length * 8, v);
}

/** Java's compareTo of the unwrapped values (String: UTF-16 units; ByteBuffer: signed bytes; BigDecimal: numeric). */
export function compareStatValues(a: StatValue, b: StatValue, valueType: ValueTypeInfo | null = null): number {
  if (a.type !== b.type) throw new TblError('metadata', `cannot compare column-stats values of types ${a.type} and ${b.type}`);
  const cmp = <T>(x: T, y: T) => (x < y ? -1 : x > y ? 1 : 0);
  switch (a.type) {
    case 'boolean':
      return cmp(Number(a.value), Number(b.value as boolean));
    case 'string':
      return cmp(a.value, b.value as string);
    case 'float':
    case 'double': {
      // Float/Double.compare: -0.0 < 0.0, NaN above everything
      const x = a.value;
      const y = b.value as number;
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
      if (x === 0 && y === 0) return cmp(Object.is(x, -0) ? 0 : 1, Object.is(y, -0) ? 0 : 1);
      return cmp(x, y);
    }
    case 'decimal':
      return cmp(twosComplementToBigInt(a.value), twosComplementToBigInt(b.value as Uint8Array));
    case 'bytes': {
      const x = a.value;
      const y = b.value as Uint8Array;
      if (valueType?.typeOrdinal === VALUE_TYPE.DECIMAL) return cmp(twosComplementToBigInt(x), twosComplementToBigInt(y));
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const d = ((x[i]! << 24) >> 24) - ((y[i]! << 24) >> 24);
        if (d !== 0) return d < 0 ? -1 : 1;
      }
      return cmp(x.length, y.length);
    }
    case 'array':
      throw new TblError('unsupported', 'merging array-valued column stats is not supported');
    default:
      return cmp(a.value as number | bigint, b.value as number | bigint);
  }
}

/** HoodieTableMetadataUtil.mergeColumnStatsRecords. */
export function mergeColumnStats(older: ColumnStats, newer: ColumnStats): ColumnStats {
  if (older.columnName !== newer.columnName) {
    throw new TblError('metadata', `cannot merge column stats of ${older.columnName} with ${newer.columnName}`);
  }
  if (newer.isDeleted || older.isDeleted) return newer;
  if (newer.isTightBound) return newer;
  const pick = (x: StatValue | null, y: StatValue | null, sign: 1 | -1): StatValue | null => {
    if (x === null) return y;
    if (y === null) return x;
    // Stream.min / max keep the first of equal elements
    return compareStatValues(y, x, newer.valueType) * sign < 0 ? y : x;
  };
  const sum = (x: number | null, y: number | null) => (x ?? 0) + (y ?? 0);
  return {
    fileName: newer.fileName,
    columnName: newer.columnName,
    minValue: pick(older.minValue, newer.minValue, 1),
    maxValue: pick(older.maxValue, newer.maxValue, -1),
    valueCount: sum(older.valueCount, newer.valueCount),
    nullCount: sum(older.nullCount, newer.nullCount),
    totalSize: sum(older.totalSize, newer.totalSize),
    totalUncompressedSize: sum(older.totalUncompressedSize, newer.totalUncompressedSize),
    isDeleted: newer.isDeleted,
    isTightBound: newer.isTightBound,
    valueType: newer.valueType,
  };
}

/**
 * HoodieTableMetadataUtil.combineFileSystemMetadata (1.x): union of the maps; a newer tombstone removes
 * an older entry (two tombstones keep the newer one), a tombstone with nothing to remove is kept,
 * otherwise size = max(old, new). The newer type-2 record must list live files with size > 0.
 */
export function combineFileSystemMetadata(older: Map<string, FileInfo>, newer: Map<string, FileInfo>, newerType: number, key = ''): Map<string, FileInfo> {
  if (newerType === RECORD_TYPE.FILE_LIST) {
    for (const [name, fi] of newer) {
      if (!fi.isDeleted && !(fi.size > 0)) {
        throw new TblError('metadata', `files record ${JSON.stringify(key)}: ${name}: Existing files should have size > 0`);
      }
    }
  }
  const out = new Map(older);
  // new HashMap<>(); putAll(older); newer.forEach(combinedFileInfo::merge)
  const order = new JavaHashMapKeys();
  order.putAll([...older.keys()]);
  for (const [name, fi] of newer) {
    const old = out.get(name);
    if (!old) {
      out.set(name, fi);
      order.merge(name);
    } else if (fi.isDeleted) {
      if (old.isDeleted) {
        out.set(name, fi);
        order.merge(name);
      } else {
        out.delete(name);
        order.merge(name, true);
      }
    } else {
      out.set(name, { size: Math.max(old.size, fi.size), isDeleted: false });
      order.merge(name);
    }
  }
  return ordered(out, order);
}

/**
 * Newer over older for two records of one key (log order, or log over base): a delete wins over
 * anything older and a record after a delete re-creates the key; types 1/2 union their listings,
 * 3/6 merge ranges, 4, 5 and 7 take the newer record.
 */
export function combineRecords(older: MetadataUpsert, newer: MetadataUpsert): MetadataUpsert {
  if (older.key !== newer.key) throw new TblError('bug', `combineRecords: keys differ (${older.key} / ${newer.key})`);
  if (isDelete(newer) || isDelete(older)) return newer;
  if (older.type !== newer.type) throw new TblError('metadata', `Cannot combine ${older.type} with ${newer.type} (record ${JSON.stringify(newer.key)})`);
  switch (newer.type) {
    case 1:
    case 2:
      return { key: newer.key, type: newer.type, files: combineFileSystemMetadata((older as typeof newer).files, newer.files, newer.type, newer.key) };
    case 3:
    case 6:
      return { key: newer.key, type: newer.type, columnStats: mergeColumnStats((older as typeof newer).columnStats, newer.columnStats) };
    default:
      return newer;
  }
}

/** Merges the records of one commit by key (later entries are newer); returns them sorted by key bytes. */
export function dedupeRecords(records: Iterable<MetadataUpsert>): MetadataUpsert[] {
  const byKey = new Map<string, MetadataUpsert>();
  for (const r of records) {
    const prev = byKey.get(r.key);
    byKey.set(r.key, prev ? combineRecords(prev, r) : r);
  }
  const enc = new TextEncoder();
  return [...byKey.values()]
    .map((r) => [enc.encode(r.key), r] as const)
    .sort(([a], [b]) => {
      const n = Math.min(a.length, b.length);
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
      return a.length - b.length;
    })
    .map(([, r]) => r);
}
