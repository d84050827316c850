// The incremental form of writeHoodieParquet: rows arrive in batches, each full row group is encoded
// and compressed as soon as it is complete, so only one row group of values is held at a time (plus
// the compressed file so far, which Storage.writeNew then makes visible atomically). For the same rows
// and options the bytes equal writeHoodieParquet's: same row-group boundaries, same footer keys.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { concatBytes } from '../util/byte-spans.ts';
import type { Storage } from '../storage/index.ts';
import {
  fieldConverter,
  hoodieFooterKv,
  hoodieWriterOptions,
  prepareHoodieSchema,
  RecordKeyTracker,
  writeFailed,
  type AvroRecordSchema,
  type HoodieParquetFile,
  type HoodieParquetWriteOptions,
} from './write.ts';

export type HoodieParquetWriterOptions = Omit<HoodieParquetWriteOptions, 'rows'>;

export interface HoodieParquetWriter {
  /** Adds rows (Avro JS values, as writeHoodieParquet takes them); the row objects are not kept. */
  write(rows: Iterable<Record<string, unknown>>): void;
  /** Adds one row. */
  writeRow(row: Record<string, unknown>): void;
  /** Rows written so far. */
  readonly rowCount: number;
  /** Compressed bytes produced so far (complete row groups only). */
  readonly bytesWritten: number;
  /** Writes the last row group, the indexes and the footer. The writer cannot be used afterwards. */
  finish(): HoodieParquetFile & { size: number };
}

/** Collects the file in chunks: one chunk per row group, so the buffer never doubles the whole file. */
export class ChunkWriter extends ByteWriter {
  readonly chunks: Uint8Array[] = [];
  flush(): void {
    if (this.index === 0) return;
    this.chunks.push(new Uint8Array(this.buffer.slice(0, this.index)));
    this.index = 0;
  }
  /** The file's chunks in order (the writer is empty after). */
  parts(): Uint8Array[] {
    this.flush();
    const out = [...this.chunks];
    this.chunks.length = 0;
    return out;
  }
  concat(): Uint8Array {
    this.flush();
    if (this.chunks.length === 1) return this.chunks[0]!;
    const out = concatBytes(this.chunks, this.offset);
    this.chunks.length = 0;
    return out;
  }
}

/** Default rows per row group for the incremental writer, as writeHoodieParquet (1,000,000). */
export const DEFAULT_ROW_GROUP_ROWS = 1_000_000;

export function openHoodieParquetWriter(opts: HoodieParquetWriterOptions): HoodieParquetWriter {
  const { schema } = opts;
  const p = prepareHoodieSchema(schema, opts.recordKeyField);
  const keys = new RecordKeyTracker(p.keyField, opts.bloomFilter);
  const groupRows = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_ROWS;
  const pageSize = opts.pageSize ?? 1048576;
  const fields = schema.fields;
  const names = fields.map((f) => f.name);
  const converters = fields.map((f) => fieldConverter(p, f));
  const sink = new ChunkWriter();
  let pq: ParquetWriter;
  try {
    pq = new ParquetWriter({ writer: sink, ...hoodieWriterOptions(p, opts) });
  } catch (e) {
    throw writeFailed(schema, e);
  }
  let columns: unknown[][] = fields.map(() => []);
  let pending = 0;
  let rowCount = 0;
  let finished = false;

  const flushGroup = (): void => {
    if (pending === 0) return;
    const columnData = fields.map((f, j) => ({ name: f.name, data: columns[j]! }));
    columns = fields.map(() => []);
    pending = 0;
    try {
      // exactly one row group per call: the buffered rows never exceed groupRows
      void pq.write({ columnData, rowGroupSize: groupRows, pageSize });
    } catch (e) {
      throw writeFailed(schema, e);
    }
  };

  const writeRow = (r: Record<string, unknown>): void => {
    if (finished) throw writeFailed(schema, new Error('write after finish'));
    keys.add(r, rowCount);
    for (let j = 0; j < converters.length; j++) columns[j]!.push(converters[j]!(r[names[j]!]));
    rowCount++;
    if (++pending === groupRows) flushGroup();
  };

  return {
    write(rows) {
      for (const r of rows) writeRow(r);
    },
    writeRow,
    get rowCount() {
      return rowCount;
    },
    get bytesWritten() {
      return sink.offset;
    },
    finish() {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      flushGroup();
      return closeHoodieFile(pq, sink, schema, keys, rowCount, opts.recordKeyFooter !== false);
    },
  };
}

/**
 * Writes the footer (with the Hudi keys: the bloom filter and min/max keys are known only now;
 * ParquetWriter reads kvMetadata in finish()) and returns the whole file. Both incremental writers end here.
 */
export function closeHoodieFile(pq: ParquetWriter, sink: ChunkWriter, schema: AvroRecordSchema, keys: RecordKeyTracker, rowCount: number, recordKeyFooter = true): HoodieParquetFile & { size: number } {
  closeFooter(pq, schema, keys, recordKeyFooter);
  const bytes = sink.concat();
  return { bytes, size: bytes.length, rowCount, minRecordKey: keys.minKey, maxRecordKey: keys.maxKey, bloomFilter: keys.bloom };
}

/** A written file as its parts in order (row groups, footer), never joined in memory: Storage.writeNew takes them as they are. */
export type HoodieParquetParts = Omit<HoodieParquetFile, 'bytes'> & { parts: Uint8Array[]; size: number };

/** closeHoodieFile, the file returned in its parts (a clustering output's 36 MB are not copied once more to join them). */
export function closeHoodieFileParts(pq: ParquetWriter, sink: ChunkWriter, schema: AvroRecordSchema, keys: RecordKeyTracker, rowCount: number, recordKeyFooter = true): HoodieParquetParts {
  closeFooter(pq, schema, keys, recordKeyFooter);
  // (the writer's offset counts every byte of the file)
  const size = sink.offset;
  return { parts: sink.parts(), size, rowCount, minRecordKey: keys.minKey, maxRecordKey: keys.maxKey, bloomFilter: keys.bloom };
}

function closeFooter(pq: ParquetWriter, schema: AvroRecordSchema, keys: RecordKeyTracker, recordKeyFooter: boolean): void {
  pq.kvMetadata = hoodieFooterKv(schema, keys, recordKeyFooter);
  try {
    void pq.finish();
  } catch (e) {
    throw writeFailed(schema, e);
  }
}

/** finish() + Storage.writeNew: create-only and atomic, like writeHoodieBaseFile. */
export async function finishHoodieBaseFile(storage: Storage, path: string, w: HoodieParquetWriter): Promise<HoodieParquetFile & { path: string; size: number }> {
  const file = w.finish();
  await storage.writeNew(path, file.bytes);
  return { ...file, path };
}
