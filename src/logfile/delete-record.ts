// DELETE block content (format-data.md §3.4): int32 version | int32 length | data.
// Version 3 data is an Avro datum of org.apache.hudi.avro.model.HoodieDeleteRecordList (decoded by the
// metadata codecs, the same ones the log writer encodes with). Versions 1–2 are Kryo and not supported.
import { TblError } from '../errors/index.ts';
import { decodeDeleteRecordList, type OrderingValue } from '../metadata/index.ts';

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

/** The records of a version-3 delete block, with each ordering value's Java class (one Avro codec: src/metadata). */
function deleteRecordsOf(data: Uint8Array, path: string): DeleteRecord[] {
  return decodeDeleteRecordList(data, { path }).map((r) => {
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
  if (version < 3) {
    throw new TblError(
      'unsupported',
      `delete block content version ${version} is Kryo-encoded (written by Hudi <= 0.10) and cannot be decoded`,
      { path, hint: 'compact the file group with Hudi (Java) once, or read it with a 0.10 reader' },
    );
  }
  if (version > 3) throw new TblError('unsupported', `delete block content version ${version} is newer than 3`, { path });
  const len = dv.getInt32(4);
  if (len < 0 || 8 + len > content.length) {
    throw new TblError('logfile', `delete block data length ${len} exceeds the content (${content.length - 8} bytes)`, { path });
  }
  return deleteRecordsOf(content.subarray(8, 8 + len), path ?? '<delete block>');
}
