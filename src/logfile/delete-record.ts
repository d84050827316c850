// DELETE block content (format-data.md §3.4): int32 version | int32 length | data.
// Version 3 data is an Avro datum of org.apache.hudi.avro.model.HoodieDeleteRecordList (decoded by the
// metadata codecs, the same ones the log writer encodes with); versions 1 (Hudi ≤ 0.10, HoodieKey[])
// and 2 (0.11–0.13, DeleteRecord[]) are Kryo, read by the metadata codecs' small Kryo reader.
import { TblError } from '../errors/index.ts';
import { decodeDeleteRecordList, decodeKryoDeleteRecords, type DeleteRecord as DecodedDeleteRecord, type OrderingValue } from '../metadata/index.ts';

/** Java class of an ordering value; the EVENT_TIME delete rule compares values only within one class. */
export type OrderingClass =
  | 'Boolean'
  | 'Integer'
  | 'Long'
  | 'Float'
  | 'Double'
  | 'Bytes'
  | 'String'
  | 'Date'
  | 'Decimal'
  | 'TimeMicros'
  | 'TimestampMicros';

export interface DeleteRecord {
  recordKey: string | null;
  partitionPath: string | null;
  /** null when absent; 0 (Integer) is the "natural order" default of SQL deletes */
  orderingVal: unknown;
  orderingClass?: OrderingClass;
}

const CLASS_OF: Record<OrderingValue['type'], OrderingClass> = {
  boolean: 'Boolean',
  int: 'Integer',
  long: 'Long',
  float: 'Float',
  double: 'Double',
  bytes: 'Bytes',
  string: 'String',
  date: 'Date',
  decimal: 'Decimal',
  timeMicros: 'TimeMicros',
  timestampMicros: 'TimestampMicros',
};

/** decimal(30,15): unscaled big-endian two's complement bytes, as a JS number (merge compares numbers). */
function decimalValue(bytes: Uint8Array): number {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes.length > 0 && (bytes[0]! & 0x80) !== 0) v -= 1n << BigInt(bytes.length * 8);
  return Number(v) / 1e15;
}

/** Delete records with each ordering value's Java class (the Avro and Kryo codecs: src/metadata). */
function withOrderingClasses(records: DecodedDeleteRecord[]): DeleteRecord[] {
  return records.map((r) => {
    const rec: DeleteRecord = { recordKey: r.recordKey, partitionPath: r.partitionPath, orderingVal: null };
    if (r.orderingVal) {
      rec.orderingClass = CLASS_OF[r.orderingVal.type];
      rec.orderingVal = r.orderingVal.type === 'decimal' ? decimalValue(r.orderingVal.value as Uint8Array) : r.orderingVal.value;
    }
    return rec;
  });
}

/** Content of a DELETE block: int32 version, int32 length, data. */
export function decodeDeleteBlockContent(content: Uint8Array, path?: string): DeleteRecord[] {
  if (content.length < 8) throw new TblError('logfile', `delete block content too short (${content.length} bytes)`, { path });
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const version = dv.getInt32(0);
  if (version < 1) throw new TblError('logfile', `delete block content version ${version} is not a version (1, 2 or 3)`, { path });
  if (version > 3) throw new TblError('unsupported', `delete block content version ${version} is newer than 3`, { path });
  const len = dv.getInt32(4);
  if (len < 0 || 8 + len > content.length) {
    throw new TblError('logfile', `delete block data length ${len} exceeds the content (${content.length - 8} bytes)`, { path });
  }
  const data = content.subarray(8, 8 + len);
  const ctx = { path: path ?? '<delete block>' };
  return withOrderingClasses(version === 3 ? decodeDeleteRecordList(data, ctx) : decodeKryoDeleteRecords(data, version as 1 | 2, ctx));
}
