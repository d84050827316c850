// Writer of Hudi log blocks, log format version 1 (format-data.md §2–3; Java HoodieLogFormatWriter.appendBlocks):
// #HUDI# | int64 blockSize | int32 version | int32 type | header | int64 contentLength | content | footer |
// int64 totalBlockLength. Big-endian. Header entry order is free (Java uses a HashMap); callers may pin it
// to reproduce a real file byte for byte.
import { TblError } from '../errors/index.ts';
import { concatBytes } from '../util/byte-spans.ts';
import type { Storage } from '../storage/index.ts';
import { avroTypeFor } from './content.ts';
import {
  BLOCK_TYPES,
  COMMAND_ROLLBACK,
  CURRENT_LOG_FORMAT_VERSION,
  HEADER_KEYS,
  MAGIC,
  type HeaderKey,
  type LogBlockType,
} from './format.ts';
import { encodeDeleteRecordList, type OrderingValue } from '../metadata/index.ts';

/** HoodieLogBlock.version: the content version Hudi 0.11+ writes for Avro and delete blocks. */
export const LOG_BLOCK_CONTENT_VERSION = 3;

/** Header entries in the order they are written. A Record is written in ordinal order. */
export type BlockHeader = [HeaderKey, string][] | Partial<Record<HeaderKey, string>>;

const utf8 = new TextEncoder();

function headerEntries(h: BlockHeader): [HeaderKey, string][] {
  if (Array.isArray(h)) return h;
  return HEADER_KEYS.filter((k) => h[k] !== undefined).map((k) => [k, h[k]!] as [HeaderKey, string]);
}

function encodeMetadataMap(h: BlockHeader): Uint8Array {
  const entries = headerEntries(h).map(([k, v]) => [HEADER_KEYS.indexOf(k), utf8.encode(v)] as const);
  const size = 4 + entries.reduce((n, [, v]) => n + 8 + v.length, 0);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, entries.length);
  let o = 4;
  for (const [k, v] of entries) {
    if (k < 0) throw new TblError('logfile', `unknown log block header key`);
    dv.setInt32(o, k);
    dv.setInt32(o + 4, v.length);
    out.set(v, o + 8);
    o += 8 + v.length;
  }
  return out;
}

/** A header (or footer) as written; encode one once with encodeBlockHeader when many blocks share it. */
export function encodeBlockHeader(h: BlockHeader): Uint8Array {
  return encodeMetadataMap(h);
}

export interface LogBlockSpec {
  type: LogBlockType;
  /** the entries, or their encoding (encodeBlockHeader) */
  header: BlockHeader | Uint8Array;
  content: Uint8Array;
  /** always empty in every Hudi version */
  footer?: BlockHeader;
}

/** One complete block, framing included. */
export function encodeLogBlock(block: LogBlockSpec): Uint8Array {
  const typeOrdinal = BLOCK_TYPES.indexOf(block.type);
  if (typeOrdinal < 0 || block.type === 'CORRUPT_BLOCK') throw new TblError('logfile', `cannot write a ${block.type}`);
  const header = block.header instanceof Uint8Array ? block.header : encodeMetadataMap(block.header);
  const footer = encodeMetadataMap(block.footer ?? []);
  // HoodieLogFormatWriter.getLogBlockLength: version + type + header + contentLength + content + footer + trailer
  const blockSize = 4 + 4 + header.length + 8 + block.content.length + footer.length + 8;
  const total = 6 + 8 + blockSize;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set(MAGIC, 0);
  dv.setBigInt64(6, BigInt(blockSize));
  dv.setInt32(14, CURRENT_LOG_FORMAT_VERSION);
  dv.setInt32(18, typeOrdinal);
  let o = 22;
  out.set(header, o);
  o += header.length;
  dv.setBigInt64(o, BigInt(block.content.length));
  o += 8;
  out.set(block.content, o);
  o += block.content.length;
  out.set(footer, o);
  o += footer.length;
  // totalBlockLength: magic up to, not including, this field
  dv.setBigInt64(o, BigInt(blockSize + 6));
  return out;
}

function schemaString(schema: string | object): string {
  return typeof schema === 'string' ? schema : JSON.stringify(schema);
}

/** Avro data block content: int32 version 3 | int32 count | (int32 length | Avro binary datum)*. */
export function encodeAvroDataContent(schema: string | object, records: readonly Record<string, unknown>[]): Uint8Array {
  const type = avroTypeFor(schemaString(schema));
  // encoded in place (avsc's toBuffer writes every datum over 1 kB twice, then copies it)
  let out = Buffer.allocUnsafeSlow(8 + records.length * 256);
  let o = 8;
  records.forEach((r, i) => {
    for (;;) {
      let end: number;
      try {
        end = type.encode(r, out, o + 4);
      } catch (e) {
        throw new TblError('logfile', `record ${i} does not match the block schema: ${(e as Error).message}`, { cause: e });
      }
      if (end >= 0) {
        out.writeInt32BE(end - o - 4, o);
        o = end;
        return;
      }
      // end is minus the bytes missing
      const grown = Buffer.allocUnsafeSlow(Math.max(out.length * 2, out.length - end + 1024));
      out.copy(grown, 0, 0, o);
      out = grown;
    }
  });
  out.writeInt32BE(LOG_BLOCK_CONTENT_VERSION, 0);
  out.writeInt32BE(records.length, 4);
  return out.subarray(0, o);
}

export interface AvroDataBlockOptions {
  instantTime: string;
  /** writer schema (the table schema with the meta fields) */
  schema: string | object;
  records: readonly Record<string, unknown>[];
  /** header order; default INSTANT_TIME, SCHEMA (as the real valid_log_avro_data file) */
  headerOrder?: HeaderKey[];
}

export function encodeAvroDataBlock(o: AvroDataBlockOptions): Uint8Array {
  const values: Partial<Record<HeaderKey, string>> = { INSTANT_TIME: o.instantTime, SCHEMA: schemaString(o.schema) };
  return encodeLogBlock({
    type: 'AVRO_DATA_BLOCK',
    header: orderHeader(values, o.headerOrder ?? ['INSTANT_TIME', 'SCHEMA']),
    content: encodeAvroDataContent(o.schema, o.records),
  });
}

function orderHeader(values: Partial<Record<HeaderKey, string>>, order: HeaderKey[]): [HeaderKey, string][] {
  const keys = Object.keys(values) as HeaderKey[];
  if (order.length !== keys.length || !keys.every((k) => order.includes(k))) {
    throw new TblError('logfile', `header order ${order.join(',')} must list exactly ${keys.join(',')}`);
  }
  return order.map((k) => [k, values[k]!]);
}

// ---- delete blocks: HoodieDeleteRecordList (Java schema; orderingVal = union of wrapper records) ----

export interface DeleteRecordSpec {
  recordKey: string;
  partitionPath: string;
  /** default: int 0 (IntWrapper), the "natural order" value SQL DELETEs carry; null = no ordering value */
  orderingVal?: OrderingValue | null;
}

/** Delete block content: int32 version 3 | int32 length | HoodieDeleteRecordList datum. */
export function encodeDeleteContent(records: readonly DeleteRecordSpec[]): Uint8Array {
  const data = encodeDeleteRecordList(
    records.map((r) => ({ recordKey: r.recordKey, partitionPath: r.partitionPath, orderingVal: r.orderingVal === undefined ? { type: 'int', value: 0 } : r.orderingVal })),
  );
  const out = new Uint8Array(8 + data.length);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, LOG_BLOCK_CONTENT_VERSION);
  dv.setInt32(4, data.length);
  out.set(data, 8);
  return out;
}

export interface DeleteBlockOptions {
  instantTime: string;
  /** the table schema (Hudi puts the table schema, not the delete-record schema, in SCHEMA) */
  schema: string | object;
  deletes: readonly DeleteRecordSpec[];
  /** default SCHEMA, INSTANT_TIME (as the real valid_log_delete file) */
  headerOrder?: HeaderKey[];
}

export function encodeDeleteBlock(o: DeleteBlockOptions): Uint8Array {
  const values: Partial<Record<HeaderKey, string>> = { INSTANT_TIME: o.instantTime, SCHEMA: schemaString(o.schema) };
  return encodeLogBlock({
    type: 'DELETE_BLOCK',
    header: orderHeader(values, o.headerOrder ?? ['SCHEMA', 'INSTANT_TIME']),
    content: encodeDeleteContent(o.deletes),
  });
}

export interface RollbackBlockOptions {
  /** the rollback instant */
  instantTime: string;
  /** the failed instant whose blocks are void */
  targetInstantTime: string;
  /** default INSTANT_TIME, COMMAND_BLOCK_TYPE, TARGET_INSTANT_TIME (as the real valid_log_rollback file) */
  headerOrder?: HeaderKey[];
}

/** COMMAND block with ROLLBACK_BLOCK type: empty content (0.x log-block rollback). */
export function encodeRollbackBlock(o: RollbackBlockOptions): Uint8Array {
  const values: Partial<Record<HeaderKey, string>> = {
    INSTANT_TIME: o.instantTime,
    TARGET_INSTANT_TIME: o.targetInstantTime,
    COMMAND_BLOCK_TYPE: COMMAND_ROLLBACK,
  };
  return encodeLogBlock({
    type: 'COMMAND_BLOCK',
    header: orderHeader(values, o.headerOrder ?? ['INSTANT_TIME', 'COMMAND_BLOCK_TYPE', 'TARGET_INSTANT_TIME']),
    content: new Uint8Array(0),
  });
}

/** Creates a new log file holding `blocks` (1.x writers always create new files). Fails if it exists. */
export async function writeLogFile(storage: Storage, path: string, blocks: readonly Uint8Array[]): Promise<number> {
  const bytes = concatBytes(blocks);
  await storage.writeNew(path, bytes);
  return bytes.length;
}

/** Appends blocks to a log file (0.x on HDFS appends to the slice's latest log file). Returns bytes appended. */
export async function appendLogBlocks(storage: Storage, path: string, blocks: readonly Uint8Array[]): Promise<number> {
  const bytes = concatBytes(blocks);
  await storage.append(path, bytes);
  return bytes.length;
}
