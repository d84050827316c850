// Parquet read adapter over hyparquet (+ hyparquet-compressors for GZIP, Hudi's default, ZSTD, ...).
// Reads go through Storage range reads, so a footer costs two small requests over WebHDFS.
import { parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, ParquetParsers, SchemaTree } from 'hyparquet';
import { compressors as jsCompressors } from 'hyparquet-compressors';
import { gunzipSync } from 'node:zlib';
import { TblError } from '../errors/index.ts';
import { asyncBufferOf, type Storage } from '../storage/index.ts';
import { avroRowConverter, plainAssemblyMetadata, type AvroValueMode } from './avro-values.ts';

export type ParquetRow = Record<string, unknown>;

export interface ParquetFileInfo {
  numRows: number;
  numRowGroups: number;
  createdBy?: string;
  /** footer key/value metadata (parquet.avro.schema, hoodie_min_record_key, org.apache.hudi.bloomfilter, ...) */
  keyValue: Record<string, string>;
  /** top-level column names in file order */
  columns: string[];
  metadata: FileMetaData;
}

export interface ReadRowsOptions {
  columns?: string[];
  rowStart?: number;
  rowEnd?: number;
  /**
   * INT64 TIMESTAMP columns as the raw bigint (micros/millis/nanos as stored) instead of a JS Date,
   * which keeps only milliseconds; what a rewrite (compaction) needs. Default false.
   */
  rawTimestamps?: boolean;
  /**
   * Values as Avro records hold them, whatever the file's list layout (avro-values.ts): 'avro' with
   * hyparquet's scalars, 'exact' with decimals as unscaled bigints, dates as days and timestamps raw
   * (what a rewrite needs). Default: hyparquet's own values.
   */
  values?: AvroValueMode;
}

/**
 * hyparquet-compressors' codecs with GZIP (Hudi's default) inflated by node's zlib, several times
 * faster than the JavaScript inflater; anything zlib refuses goes to the JavaScript one, which
 * then reports the error.
 */
export const compressors: typeof jsCompressors = {
  ...jsCompressors,
  GZIP: (input: Uint8Array, length: number) => {
    try {
      // one output chunk of the known page size (zlib otherwise loops in 16 KiB steps)
      const out = gunzipSync(input, { maxOutputLength: Math.max(length, 1), chunkSize: Math.max(1024, length) });
      if (out.length === length) return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    } catch {
      // fall through
    }
    return jsCompressors.GZIP!(input, length);
  },
};

const RAW_TIMESTAMPS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
} as unknown as ParquetParsers;

const EXACT = { ...RAW_TIMESTAMPS, dateFromDays: (v: number) => v } as unknown as ParquetParsers;

/** An AsyncBuffer over bytes already in memory (parquet data blocks inside log files). */
export function bytesAsyncBuffer(bytes: Uint8Array): AsyncBuffer {
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return { byteLength: ab.byteLength, slice: (s: number, e?: number) => ab.slice(s, e) };
}

function wrap(e: unknown, path: string, what: string): TblError {
  if (e instanceof TblError) return e;
  return new TblError('parquet', `${what} ${path}: ${(e as Error)?.message ?? String(e)}`, { path, cause: e });
}

export function describeParquet(metadata: FileMetaData): ParquetFileInfo {
  const keyValue: Record<string, string> = {};
  for (const kv of metadata.key_value_metadata ?? []) keyValue[kv.key] = kv.value ?? '';
  const tree: SchemaTree = parquetSchema(metadata);
  return {
    numRows: Number(metadata.num_rows),
    numRowGroups: metadata.row_groups.length,
    createdBy: metadata.created_by,
    keyValue,
    columns: tree.children.map((c) => c.element.name),
    metadata,
  };
}

export async function readParquetMetadataFrom(file: AsyncBuffer, path: string): Promise<ParquetFileInfo> {
  try {
    return describeParquet(await parquetMetadataAsync(file));
  } catch (e) {
    throw wrap(e, path, 'cannot read parquet footer of');
  }
}

export async function readParquetRowsFrom(
  file: AsyncBuffer,
  path: string,
  opts: ReadRowsOptions & { metadata?: FileMetaData } = {},
): Promise<ParquetRow[]> {
  try {
    let metadata = opts.metadata;
    let convert: ((row: ParquetRow) => void) | undefined;
    if (opts.values) {
      metadata ??= await parquetMetadataAsync(file);
      convert = avroRowConverter(metadata, opts.values);
      metadata = plainAssemblyMetadata(metadata);
    }
    const parsers = opts.values === 'exact' ? EXACT : opts.rawTimestamps ? RAW_TIMESTAMPS : undefined;
    const rows = (await parquetReadObjects({
      file,
      metadata,
      columns: opts.columns,
      rowStart: opts.rowStart,
      rowEnd: opts.rowEnd,
      // BYTE_ARRAY without a UTF8/STRING annotation (Avro `bytes`) stays Uint8Array: decoding it as
      // UTF-8 replaces invalid sequences, which a rewrite (compaction) would then write back
      utf8: false,
      compressors,
      ...(parsers ? { parsers } : {}),
    })) as ParquetRow[];
    if (convert) for (const r of rows) convert(r);
    return rows;
  } catch (e) {
    throw wrap(e, path, 'cannot read parquet rows of');
  }
}

async function openFile(storage: Storage, path: string, size?: number): Promise<AsyncBuffer> {
  const len = size ?? (await storage.stat(path)).size;
  return asyncBufferOf(storage, path, len);
}

/** Footer of a parquet file (key/value metadata, schema, row count). */
export async function readParquetInfo(storage: Storage, path: string, size?: number): Promise<ParquetFileInfo> {
  return readParquetMetadataFrom(await openFile(storage, path, size), path);
}

/** Rows as objects keyed by top-level column name. INT64 columns come back as bigint. */
export async function readParquetRows(
  storage: Storage,
  path: string,
  opts: ReadRowsOptions & { size?: number } = {},
): Promise<ParquetRow[]> {
  const file = await openFile(storage, path, opts.size);
  const info = await readParquetMetadataFrom(file, path);
  return readParquetRowsFrom(file, path, { ...opts, metadata: info.metadata });
}
