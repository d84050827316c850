// Bare Avro datums (no container): records inside log blocks (HoodieArchivedMetaEntry in .hoodie/archived,
// HoodieDeleteRecordList in DELETE blocks). The writer schema comes from the block header or is implied.
import type avro from 'avsc';
import { avsc } from './avsc.ts';
import { TblError } from '../errors/index.ts';
import { avroType } from './avro-container.ts';
import { SCHEMAS, type SchemaName } from './schemas.ts';
import type { ArchivedMetaEntry } from './instants.ts';

const writerTypes = new Map<string, avro.Type>();

function writerTypeOf(schema: object | string, path: string): avro.Type {
  const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
  let t = writerTypes.get(text);
  if (!t) {
    try {
      const parsed = typeof schema === 'string' ? (JSON.parse(schema) as object) : schema;
      t = avsc().Type.forSchema(stripDefaults(parsed) as avro.Schema, { wrapUnions: 'auto' });
    } catch (e) {
      throw new TblError('metadata', `${path}: invalid Avro writer schema (${(e as Error).message})`, { path, cause: e });
    }
    if (writerTypes.size > 64) writerTypes.clear();
    writerTypes.set(text, t);
  }
  return t;
}

function stripDefaults(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(stripDefaults);
  if (s !== null && typeof s === 'object') {
    return Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'default').map(([k, v]) => [k, stripDefaults(v)]));
  }
  return s;
}

/**
 * Decodes one Avro binary datum. With `readerName` the value is resolved to our schema of that name;
 * `writerSchema` defaults to our schema (for datums whose schema is implied, like delete-record lists).
 */
export function decodeDatum<T = unknown>(
  bytes: Uint8Array,
  ctx: { path: string; writerSchema?: object | string; readerName?: SchemaName },
): T {
  const path = ctx.path;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = ctx.readerName ? avroType(SCHEMAS[ctx.readerName]) : undefined;
  const writer = ctx.writerSchema !== undefined ? writerTypeOf(ctx.writerSchema, path) : reader;
  if (!writer) throw new TblError('bug', 'decodeDatum needs a writer schema or a reader name');
  let res: { value: unknown; offset: number };
  try {
    res = reader && writer !== reader ? reader.decode(buf, 0, reader.createResolver(writer)) : writer.decode(buf, 0);
  } catch (e) {
    throw new TblError('metadata', `${path}: truncated or corrupt Avro (${(e as Error).message})`, { path, cause: e });
  }
  if (res.offset < 0) throw new TblError('metadata', `${path}: truncated or corrupt Avro (datum runs past its end)`, { path });
  return res.value as T;
}

export function encodeDatum(name: SchemaName, value: unknown): Uint8Array {
  try {
    return new Uint8Array(avroType(SCHEMAS[name]).toBuffer(value));
  } catch (e) {
    throw new TblError('metadata', `cannot encode ${name}: ${(e as Error).message}`, { cause: e });
  }
}

/** One record of a `.hoodie/archived` log block, resolved from the block's SCHEMA header to our schema. */
export function decodeArchivedMetaEntry(bytes: Uint8Array, ctx: { path: string; writerSchema: object | string }): ArchivedMetaEntry {
  return decodeDatum<ArchivedMetaEntry>(bytes, { ...ctx, readerName: 'HoodieArchivedMetaEntry' });
}

export function encodeArchivedMetaEntry(entry: Partial<ArchivedMetaEntry>): Uint8Array {
  return encodeDatum('HoodieArchivedMetaEntry', entry);
}

// ---- HoodieDeleteRecordList (DELETE block version 3 content) ----

export type OrderingValue =
  | { type: 'boolean'; value: boolean }
  | { type: 'int' | 'long' | 'float' | 'double' | 'date' | 'timeMicros' | 'timestampMicros'; value: number }
  | { type: 'bytes' | 'decimal'; value: Uint8Array }
  | { type: 'string'; value: string };

export interface DeleteRecord {
  recordKey: string | null;
  partitionPath: string | null;
  /** null, or the wrapped ordering value; the union branch (Java wrapper type) is kept as `type`. */
  orderingVal: OrderingValue | null;
}

const WRAPPERS: [string, OrderingValue['type']][] = [
  ['BooleanWrapper', 'boolean'], ['IntWrapper', 'int'], ['LongWrapper', 'long'], ['FloatWrapper', 'float'],
  ['DoubleWrapper', 'double'], ['BytesWrapper', 'bytes'], ['StringWrapper', 'string'], ['DateWrapper', 'date'],
  ['DecimalWrapper', 'decimal'], ['TimeMicrosWrapper', 'timeMicros'], ['TimestampMicrosWrapper', 'timestampMicros'],
];
const NS = 'org.apache.hudi.avro.model.';

/** Decodes the Avro datum of a version-3 DELETE block (Java's HoodieDeleteRecordList schema, 12 union branches). */
export function decodeDeleteRecordList(bytes: Uint8Array, ctx: { path: string }): DeleteRecord[] {
  const v = decodeDatum<{ deleteRecordList: { recordKey: string | null; partitionPath: string | null; orderingVal: Record<string, { value: unknown }> | null }[] }>(
    bytes,
    { path: ctx.path, readerName: 'HoodieDeleteRecordList' },
  );
  return v.deleteRecordList.map((r) => {
    let orderingVal: OrderingValue | null = null;
    if (r.orderingVal) {
      const [branch, inner] = Object.entries(r.orderingVal)[0]!;
      const kind = WRAPPERS.find(([n]) => NS + n === branch || n === branch)?.[1];
      if (!kind) throw new TblError('metadata', `${ctx.path}: unknown delete-record ordering value type ${branch}`, { path: ctx.path });
      const value = inner.value instanceof Uint8Array ? new Uint8Array(inner.value) : inner.value;
      orderingVal = { type: kind, value } as OrderingValue;
    }
    return { recordKey: r.recordKey, partitionPath: r.partitionPath, orderingVal };
  });
}

export function encodeDeleteRecordList(records: DeleteRecord[]): Uint8Array {
  return encodeDatum('HoodieDeleteRecordList', {
    deleteRecordList: records.map((r) => {
      let ov: Record<string, { value: unknown }> | null = null;
      if (r.orderingVal) {
        const name = WRAPPERS.find(([, k]) => k === r.orderingVal!.type)?.[0];
        if (!name) throw new TblError('metadata', `unknown ordering value type ${String(r.orderingVal.type)}`);
        const value = r.orderingVal.value instanceof Uint8Array ? Buffer.from(r.orderingVal.value) : r.orderingVal.value;
        ov = { [NS + name]: { value } };
      }
      return { recordKey: r.recordKey, partitionPath: r.partitionPath, orderingVal: ov };
    }),
  });
}
