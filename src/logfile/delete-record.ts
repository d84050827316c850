// DELETE block content (format-data.md §3.4): int32 version | int32 length | data.
// Version 3 data is an Avro datum of org.apache.hudi.avro.model.HoodieDeleteRecordList, whose orderingVal is
// a union of one-field wrapper records; the branch index alone identifies the type, so it is decoded by hand
// (avsc cannot unwrap a union of several records). Versions 1–2 are Kryo and not supported.
import { TblError } from '../errors/index.ts';

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

const WRAPPER_BRANCHES: (OrderingClass | null)[] = [
  null,
  'Boolean',
  'Integer',
  'Long',
  'Float',
  'Double',
  'Bytes',
  'String',
  'Date',
  'Decimal',
  'TimeMicros',
  'TimestampMicros',
];

/** Minimal Avro binary decoder (zig-zag varints, little-endian floats). */
export class AvroBinaryReader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new RangeError(`avro datum truncated at byte ${this.pos} (need ${n})`);
  }
  long(): number | bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      this.need(1);
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new RangeError(`avro varint too long at byte ${this.pos}`);
    }
    const v = (result >> 1n) ^ -(result & 1n);
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  int(): number {
    const v = this.long();
    if (typeof v === 'bigint' || v > 2147483647 || v < -2147483648) throw new RangeError(`avro int out of range at byte ${this.pos}`);
    return v;
  }
  boolean(): boolean {
    this.need(1);
    return this.buf[this.pos++] !== 0;
  }
  float(): number {
    this.need(4);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  double(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  bytes(): Uint8Array {
    const n = this.int();
    if (n < 0) throw new RangeError(`negative avro length at byte ${this.pos}`);
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  string(): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes());
  }
  /** Reads array/map block headers; calls item() count times per block. */
  blocks(item: () => void): void {
    for (;;) {
      let n = this.int();
      if (n === 0) return;
      if (n < 0) {
        n = -n;
        this.long(); // block byte size
      }
      for (let i = 0; i < n; i++) item();
    }
  }
}

function bytesToBigInt(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  if (b.length > 0 && (b[0]! & 0x80) !== 0) v -= 1n << BigInt(8 * b.length);
  return v;
}

function nullableString(r: AvroBinaryReader): string | null {
  const branch = r.int();
  if (branch === 0) return null;
  if (branch === 1) return r.string();
  throw new RangeError(`bad union branch ${branch} for a nullable string`);
}

function orderingValue(r: AvroBinaryReader): { v: unknown; cls?: OrderingClass } {
  const branch = r.int();
  if (branch === 0) return { v: null };
  const cls = WRAPPER_BRANCHES[branch];
  if (!cls) throw new RangeError(`unsupported orderingVal union branch ${branch} (ArrayWrapper or newer schema)`);
  switch (cls) {
    case 'Boolean':
      return { v: r.boolean(), cls };
    case 'Integer':
    case 'Date':
      return { v: r.int(), cls };
    case 'Long':
    case 'TimeMicros':
    case 'TimestampMicros':
      return { v: r.long(), cls };
    case 'Float':
      return { v: r.float(), cls };
    case 'Double':
      return { v: r.double(), cls };
    case 'Bytes':
      return { v: r.bytes(), cls };
    case 'String':
      return { v: r.string(), cls };
    case 'Decimal': {
      // decimal(30,15) unscaled big-endian two's complement
      const unscaled = bytesToBigInt(r.bytes());
      return { v: Number(unscaled) / 1e15, cls };
    }
  }
}

/** Decodes the Avro HoodieDeleteRecordList datum (delete block content version 3). */
export function decodeDeleteRecordList(data: Uint8Array): DeleteRecord[] {
  const r = new AvroBinaryReader(data);
  const out: DeleteRecord[] = [];
  r.blocks(() => {
    const recordKey = nullableString(r);
    const partitionPath = nullableString(r);
    const o = orderingValue(r);
    const rec: DeleteRecord = { recordKey, partitionPath, orderingVal: o.v };
    if (o.cls) rec.orderingClass = o.cls;
    out.push(rec);
  });
  return out;
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
  return decodeDeleteRecordList(content.subarray(8, 8 + len));
}
