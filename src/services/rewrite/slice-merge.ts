// The merge of one file slice for compaction: the compact merged log map (scanLogMap: orderings, delete
// flags and Avro bytes, records decoded only when emitted) in memory, the base
// file read one row group at a time with the values written back (Avro shapes whatever the list layout,
// exact decimals, raw timestamps: no Date round trip loses microseconds; read.ts `values: 'exact'`),
// each output row passed to `emit` in the order mergeFileSlice produces (base order, then log inserts).
// Base rows are handed on as read, never copied, so no row is held twice.
import { javaClassOf, logReplacesBase, NATURAL, recordKeyOf, scanLogMap, type MergeConfig, type MergeStats, type Ordering, type Row, type SliceFiles } from '../../merge/index.ts';
import { readParquetMetadataFrom, readParquetRowsFrom } from '../../parquet/read.ts';
import { asyncBufferOf, type Storage } from '../../storage/index.ts';
import { TblError } from '../../errors/index.ts';

/** A base row's ordering (the values as the parquet reader gives them). */
export function baseOrderingOf(row: Row, config: MergeConfig): Ordering {
  if (config.orderingFields.length === 0) return NATURAL;
  const values = config.orderingFields.map((f) => (row[f] === undefined ? null : row[f]));
  return { values, classes: values.map((v) => javaClassOf(v)) };
}

export interface SliceMergeOptions {
  config: MergeConfig;
  isValidInstant: (t: string) => boolean;
  /** log records with the values written back (MergeOptions.exact); compaction always sets it */
  exact?: boolean;
}

/** Streams the merged rows of a slice to `emit(row, key)`; returns the compaction stats. */
export async function mergeSliceStreaming(storage: Storage, slice: SliceFiles, opts: SliceMergeOptions, emit: (row: Row, key: string) => void | Promise<void>): Promise<MergeStats> {
  const { index, stats } = await scanLogMap(storage, slice.logFiles, opts);
  if (slice.baseFile) {
    const { path } = slice.baseFile;
    if (slice.baseFile.ext !== 'parquet') {
      throw new TblError('unsupported', `${slice.baseFile.ext.toUpperCase()} base files are not supported: ${path}`, { path });
    }
    const size = slice.baseFile.size ?? (await storage.stat(path)).size;
    const file = asyncBufferOf(storage, path, size);
    const info = await readParquetMetadataFrom(file, path);
    let start = 0;
    for (const rg of info.metadata.row_groups) {
      const end = start + Number(rg.num_rows);
      const rows = await readParquetRowsFrom(file, path, { metadata: info.metadata, rowStart: start, rowEnd: end, values: 'exact' });
      start = end;
      stats.baseRecords += rows.length;
      for (let n = 0; n < rows.length; n++) {
        const row = rows[n]!;
        const key = recordKeyOf(row, opts.config);
        const id = index.findKey(key);
        if (id < 0) {
          await emit(row, key);
          continue;
        }
        index.matched[id] = 1;
        const deleted = index.deleted(id);
        if (!logReplacesBase(baseOrderingOf(row, opts.config), deleted, index.ordering(id), opts.config)) await emit(row, key);
        else if (!deleted) {
          stats.totalUpdatedRecordsCompacted += 1;
          await emit(index.record(id)!, key);
        } else stats.totalDeletedRecords += 1;
      }
    }
  }
  for (let id = 0; id < index.size; id++) {
    if (index.matched[id] || index.deleted(id)) continue;
    await emit(index.record(id)!, index.key(id));
  }
  return stats;
}
