// Decoding of block contents (format-data.md §3): Avro/CDC data, parquet data, delete records.
import avro from 'avsc';
import { TblError } from '../errors/index.ts';
import { bytesAsyncBuffer, readParquetRowsFrom, type ParquetRow } from '../parquet/read.ts';
import { signedBytesToBigInt } from '../parquet/avro-values.ts';
import { decodeDeleteBlockContent } from './delete-record.ts';
import { MAX_CONTENT_VERSION } from './format.ts';
import type { LogBlock, ReadLogOptions } from './reader.ts';

export type LogRecord = Record<string, unknown>;

// Avro decimals come back as numbers (like hyparquet does for parquet decimals), so base rows and
// log records compare and print alike; with `exact` (compaction: what is written back) as the unscaled
// bigint, which keeps every digit. Either form (or a number, or the raw two's-complement bytes) encodes.
class DecimalType extends avro.types.LogicalType {
  private readonly scale: number;
  /** byte size of a `fixed` decimal (0: `bytes`) */
  private readonly size: number;
  protected readonly exact: boolean = false;
  constructor(schema: avro.Schema, opts?: unknown) {
    super(schema, opts);
    const s = schema as { scale?: number; type?: unknown; size?: number };
    this.scale = Number(s.scale ?? 0);
    this.size = s.type === 'fixed' ? Number(s.size) : 0;
  }
  protected override _fromValue(buf: Buffer): number | bigint {
    const v = signedBytesToBigInt(buf);
    return this.exact ? v : Number(v) / 10 ** this.scale;
  }
  protected override _toValue(n: unknown): Buffer | undefined {
    if (n instanceof Uint8Array) return Buffer.from(n);
    // anything else is not a decimal (a union's null branch must not match here)
    if (typeof n !== 'bigint' && (typeof n !== 'number' || !Number.isFinite(n))) return undefined;
    let v = typeof n === 'bigint' ? n : BigInt(Math.round(n * 10 ** this.scale));
    const out: number[] = [];
    const neg = v < 0n;
    do {
      out.unshift(Number(v & 0xffn));
      v >>= 8n;
    } while (v !== 0n && v !== -1n);
    if (neg !== ((out[0]! & 0x80) !== 0)) out.unshift(neg ? 0xff : 0);
    // a fixed decimal takes exactly its size (sign-extended)
    while (this.size > out.length) out.unshift(neg ? 0xff : 0);
    return Buffer.from(out);
  }
  protected override _resolve(type: avro.Type): ((x: unknown) => unknown) | undefined {
    return avro.Type.isType(type, 'logical:decimal') ? (x) => x : undefined;
  }
}

class ExactDecimalType extends DecimalType {
  protected override readonly exact = true;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Bytes [start, end) of a zigzag varint as a 64-bit long (what Java reads): a number while exact, else a bigint. */
function longOfVarint(b: Uint8Array, start: number, end: number): number | bigint {
  let u = 0n;
  for (let i = end - 1; i >= start; i--) u = (u << 7n) | BigInt(b[i]! & 0x7f);
  u &= (1n << 64n) - 1n;
  const v = BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

/**
 * avsc's long reader made exact: avsc sums the varint in floats (off by one from 2^52 on) and throws
 * "potential precision loss" past 2^53, which made a block holding such a value unreadable. Up to 7
 * bytes (49 bits) the float sums are exact; longer varints are summed as bigints.
 */
function readLongExact(tap: { buf: Buffer; pos: number }): number | bigint {
  const b = tap.buf;
  const start = tap.pos;
  let pos = start;
  let x = b[pos++]!;
  if (x < 0x80) {
    tap.pos = pos;
    return (x >> 1) ^ -(x & 1);
  }
  let f = x & 0x7f;
  let mul = 128;
  do {
    x = b[pos++]!;
    f += (x & 0x7f) * mul;
    mul *= 128;
  } while (x & 0x80 && pos - start < 7);
  if (x & 0x80) {
    while (b[pos++]! & 0x80);
    tap.pos = pos;
    return longOfVarint(b, start, Math.min(pos, b.length));
  }
  tap.pos = pos;
  return f % 2 ? -(f + 1) / 2 : f / 2;
}

/** Avro longs: numbers while they are exact, bigints beyond 2^53 (readLongExact); either encodes. */
const BigLongType = avro.types.LongType.__with({
  fromBuffer: (b: Buffer) => {
    const v = b.readBigInt64LE();
    return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
  },
  toBuffer: (v: number | bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v));
    return b;
  },
  fromJSON: (v: unknown) => v,
  toJSON: (v: unknown) => (typeof v === 'bigint' ? Number(v) : v),
  isValid: (v: unknown) => (typeof v === 'bigint' ? v >= -(1n << 63n) && v < 1n << 63n : typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 63),
  compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
});
type Tap = { writeLong(n: number): void };
const FLOAT_EXACT = 2 ** 52;
// the same type reading and writing straight from and to the tap (avsc's frozen type packs every value
// through a fresh 8-byte buffer: three times the decode time of a record of longs, and on the write
// side an allocation and a bigint per long); bigints and unsafe numbers keep the exact path
const bigWrite = (BigLongType as unknown as { _write(tap: Tap, v: unknown): void })._write;
const LongType = Object.create(BigLongType, {
  _read: { value: readLongExact },
  _write: {
    value(this: unknown, tap: Tap, v: unknown) {
      // avsc's writeLong doubles the value in floats: exact while |v| <= 2^52
      if (typeof v === 'number' && Number.isInteger(v) && v >= -FLOAT_EXACT && v <= FLOAT_EXACT) tap.writeLong(v);
      else bigWrite.call(this, tap, v);
    },
  },
}) as avro.Type;

const typeCache = new Map<string, avro.Type>();

/**
 * avsc Type for a writer schema JSON (cached; unions unwrapped when unambiguous). `exact`: decimals
 * as unscaled bigints (compaction), else as numbers.
 */
export function avroTypeFor(schemaJson: string, exact = false): avro.Type {
  const id = exact ? `\u0000${schemaJson}` : schemaJson;
  let t = typeCache.get(id);
  if (t) return t;
  const schema = JSON.parse(schemaJson) as avro.Schema;
  // (avsc adds the schema's named types to the registry: a fresh one per attempt)
  // (the registry covers "long"; the hook the object form {"type": "long", "logicalType": …} of a
  // logical type avsc does not know, e.g. timestamp-millis, which avsc would build as its own long)
  const opts = () => ({
    logicalTypes: { decimal: exact ? ExactDecimalType : DecimalType },
    registry: { long: LongType } as unknown as Record<string, avro.Type>,
    typeHook: (s: avro.Schema) => (typeof s === 'object' && !Array.isArray(s) && (s as { type?: unknown }).type === 'long' && (s as { logicalType?: unknown }).logicalType !== undefined ? LongType : undefined),
  });
  try {
    t = avro.Type.forSchema(schema, { wrapUnions: false, ...opts() });
  } catch {
    // a union of several records cannot be unwrapped; keep avsc's wrapped form for those
    t = avro.Type.forSchema(schema, { wrapUnions: 'auto', ...opts() });
  }
  if (typeCache.size > 256) typeCache.clear();
  typeCache.set(id, t);
  return t;
}

function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Buffer.isBuffer(v)) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = plain(x);
  return out;
}

export interface AvroContentHeader {
  contentVersion: number;
  recordCount: number;
}

/** int32 version | int32 count (version >= 2; HoodieAvroDataBlockVersion.hasRecordCount). */
export function readAvroContentHeader(content: Uint8Array): AvroContentHeader {
  if (content.length < 4) throw new Error(`avro block content too short (${content.length} bytes)`);
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  const contentVersion = dv.getInt32(0);
  if (contentVersion < 1 || contentVersion > MAX_CONTENT_VERSION) {
    throw new Error(`unsupported avro data block content version ${contentVersion}`);
  }
  if (contentVersion < 2) return { contentVersion, recordCount: 0 };
  if (content.length < 8) throw new Error('avro block content too short for the record count');
  return { contentVersion, recordCount: dv.getInt32(4) };
}

/** Avro/CDC data block content: records decoded with the writer schema from the SCHEMA header. */
export function decodeAvroContent(content: Uint8Array, schemaJson: string | undefined, exact = false): LogRecord[] {
  if (schemaJson === undefined) throw new Error('avro data block has no SCHEMA header');
  const type = avroTypeFor(schemaJson, exact);
  const { contentVersion, recordCount } = readAvroContentHeader(content);
  const dv = new DataView(content.buffer, content.byteOffset, content.byteLength);
  let pos = contentVersion >= 2 ? 8 : 4;
  const buf = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const out: LogRecord[] = [];
  for (let i = 0; i < recordCount; i++) {
    if (pos + 4 > content.length) throw new Error(`record ${i}: length field past the end of the content (content offset ${pos})`);
    const len = dv.getInt32(pos);
    pos += 4;
    if (len < 0 || pos + len > content.length) {
      throw new Error(`record ${i}: length ${len} at content offset ${pos - 4} runs past the content (${content.length} bytes)`);
    }
    let res: { value: unknown; offset: number };
    try {
      res = type.decode(buf.subarray(pos, pos + len), 0);
    } catch (e) {
      throw new Error(`record ${i} at content offset ${pos}: ${(e as Error).message}`);
    }
    if (res.offset !== len) {
      throw new Error(`record ${i} at content offset ${pos}: avro datum is ${res.offset < 0 ? 'truncated' : `${res.offset} bytes`}, length field says ${len}`);
    }
    out.push(plain(res.value) as LogRecord);
    pos += len;
  }
  return out;
}

/** One record of Avro/CDC content (its bytes without the length prefix), decoded as decodeAvroContent does. */
export function decodeAvroRecord(bytes: Uint8Array, schemaJson: string, exact = false): LogRecord {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return plain(avroTypeFor(schemaJson, exact).decode(buf, 0).value) as LogRecord;
}

/**
 * Parquet data block content: an embedded parquet file, its rows as Avro records hold them (`exact`:
 * decimals, dates and timestamps as compaction writes them back).
 */
export async function decodeParquetContent(content: Uint8Array, path: string, exact = false): Promise<ParquetRow[]> {
  return readParquetRowsFrom(bytesAsyncBuffer(content), `${path} (parquet data block)`, { values: exact ? 'exact' : 'avro' });
}

/**
 * A data or delete block's records from its content bytes, set on the block as the reader's
 * `withRecords` sets them (for readers that iterate headers only and read the content themselves).
 * Throws what the reader would turn into a corrupt block.
 */
export async function decodeBlockContent(content: Uint8Array, path: string, block: LogBlock, opts: Pick<ReadLogOptions, 'decodeHFile' | 'exactValues'>): Promise<void> {
  if (content.length !== block.contentLength) throw new Error('content truncated');
  switch (block.type) {
    case 'AVRO_DATA_BLOCK':
    case 'CDC_DATA_BLOCK': {
      const h = readAvroContentHeader(content);
      block.contentVersion = h.contentVersion;
      block.recordCount = h.recordCount;
      block.records = decodeAvroContent(content, block.header.SCHEMA, opts.exactValues);
      return;
    }
    case 'PARQUET_DATA_BLOCK':
      block.records = await decodeParquetContent(content, path, opts.exactValues);
      block.recordCount = block.records.length;
      return;
    case 'DELETE_BLOCK': {
      block.contentVersion = content.length >= 4 ? new DataView(content.buffer, content.byteOffset).getInt32(0) : undefined;
      try {
        block.deletes = decodeDeleteBlockContent(content, path);
        block.recordCount = block.deletes.length;
      } catch (e) {
        if (e instanceof TblError && e.kind === 'unsupported') block.unsupported = e.message;
        else throw e;
      }
      return;
    }
    case 'HFILE_DATA_BLOCK':
      if (opts.decodeHFile) {
        block.records = await opts.decodeHFile(content, block.header);
        block.recordCount = block.records.length;
      } else block.unsupported = 'HFILE_DATA_BLOCK records need the HFile reader (metadata table)';
      return;
    default:
      return;
  }
}

export function contentError(path: string, offset: number, message: string, cause?: unknown): TblError {
  return new TblError('logfile', `${path}: block at offset ${offset}: ${message}`, { path, cause });
}
