// The columnar form of openHoodieParquetWriter: the caller hands over whole row groups as column
// arrays of values hyparquet-writer takes as they are (strings as UTF-8 bytes or strings, longs as
// bigint, ...), plus each row's record key, so no row object is made or taken apart. Same footer keys
// (bloom filter, min/max record key, Avro schema) and the same page/row-group layout for the same
// rows as the row writer.
import { ParquetWriter } from 'hyparquet-writer';
import { ChunkWriter, DEFAULT_ROW_GROUP_ROWS, type HoodieParquetWriterOptions } from './write-incremental.ts';
import { hoodieFooterKv, hoodieWriterOptions, prepareHoodieSchema, RecordKeyTracker, writeFailed, type HoodieParquetFile } from './write.ts';

export interface HoodieColumnWriter {
  /** The writer's rows per row group: writeGroup takes at most this many rows. */
  readonly groupRows: number;
  /**
   * One row group: `columns[j]` holds field j's values (schema field order), `keys[i]` row i's record
   * key (the key field's value) and `keyBytes[i]`, if given, its UTF-8 bytes.
   */
  writeGroup(columns: unknown[][], keys: string[], keyBytes?: (Uint8Array | undefined)[]): void;
  readonly rowCount: number;
  finish(): HoodieParquetFile & { size: number };
}

export function openHoodieColumnWriter(opts: HoodieParquetWriterOptions): HoodieColumnWriter {
  const { schema } = opts;
  const p = prepareHoodieSchema(schema, opts.recordKeyField);
  const keys = new RecordKeyTracker(p.keyField, opts.bloomFilter);
  const groupRows = opts.rowGroupSize ?? DEFAULT_ROW_GROUP_ROWS;
  const pageSize = opts.pageSize ?? 1048576;
  const names = schema.fields.map((f) => f.name);
  const sink = new ChunkWriter();
  let pq: ParquetWriter;
  try {
    pq = new ParquetWriter({ writer: sink, ...hoodieWriterOptions(p, opts) });
  } catch (e) {
    throw writeFailed(schema, e);
  }
  let rowCount = 0;
  let finished = false;
  return {
    groupRows,
    writeGroup(columns, rowKeys, keyBytes) {
      if (finished) throw writeFailed(schema, new Error('write after finish'));
      const n = rowKeys.length;
      if (n === 0) return;
      if (n > groupRows || columns.length !== names.length || columns.some((c) => c.length !== n)) {
        throw writeFailed(schema, new Error(`row group of ${n} rows (at most ${groupRows}) with ${columns.length} columns of lengths ${columns.map((c) => c.length).join(',')}`));
      }
      for (let i = 0; i < n; i++) keys.addKey(rowKeys[i], rowCount + i, keyBytes?.[i]);
      try {
        void pq.write({ columnData: names.map((name, j) => ({ name, data: columns[j]! })), rowGroupSize: groupRows, pageSize });
      } catch (e) {
        throw writeFailed(schema, e);
      }
      rowCount += n;
    },
    get rowCount() {
      return rowCount;
    },
    finish() {
      if (finished) throw writeFailed(schema, new Error('finish called twice'));
      finished = true;
      pq.kvMetadata = hoodieFooterKv(schema, keys);
      try {
        void pq.finish();
      } catch (e) {
        throw writeFailed(schema, e);
      }
      const bytes = sink.concat();
      return { bytes, size: bytes.length, rowCount, minRecordKey: keys.minKey, maxRecordKey: keys.maxKey, bloomFilter: keys.bloom };
    },
  };
}
