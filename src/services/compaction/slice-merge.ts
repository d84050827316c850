// The merge of one file slice for compaction: the merged log map (scanLogRecords) in memory, the base
// file read one row group at a time with raw INT64 timestamps (no Date round trip loses microseconds),
// each output row passed to `emit` in the order mergeFileSlice produces (base order, then log inserts).
// Base rows are handed on as read, never copied, so no row is held twice.
import { compareOrdering, isNatural, javaClassOf, NATURAL, recordKeyOf, sameClasses, scanLogRecords, type MergeConfig, type MergeStats, type Ordering, type Row, type SliceFiles } from '../../merge/index.ts';
import { readParquetMetadataFrom, readParquetRowsFrom } from '../../parquet/read.ts';
import { asyncBufferOf, type Storage } from '../../storage/index.ts';
import { TblError } from '../../errors/index.ts';

type LogEntry = { row?: Row; ordering: Ordering };

function orderingOf(row: Row, config: MergeConfig): Ordering {
  if (config.orderingFields.length === 0) return NATURAL;
  const values = config.orderingFields.map((f) => (row[f] === undefined ? null : row[f]));
  return { values, classes: values.map((v) => javaClassOf(v)) };
}

// Same rule as merge/scan.ts finalKeepsLog (not exported there): does the log entry replace the base row?
function logWins(base: Ordering, log: LogEntry, config: MergeConfig): boolean {
  if (config.finalMerge === 'commit') return true;
  if (log.row === undefined) {
    if (isNatural(log.ordering)) return true;
    return !(sameClasses(log.ordering, base) && compareOrdering(base, log.ordering) > 0);
  }
  return !(compareOrdering(base, log.ordering) > 0);
}

export interface SliceMergeOptions {
  config: MergeConfig;
  isValidInstant: (t: string) => boolean;
}

/** Streams the merged rows of a slice to `emit(row, key)`; returns the compaction stats. */
export async function mergeSliceStreaming(storage: Storage, slice: SliceFiles, opts: SliceMergeOptions, emit: (row: Row, key: string) => void | Promise<void>): Promise<MergeStats> {
  const { entries, stats } = await scanLogRecords(storage, slice.logFiles, opts);
  const matched = new Set<string>();
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
      const rows = await readParquetRowsFrom(file, path, { metadata: info.metadata, rowStart: start, rowEnd: end, rawTimestamps: true });
      start = end;
      stats.baseRecords += rows.length;
      for (let n = 0; n < rows.length; n++) {
        const row = rows[n]!;
        const key = recordKeyOf(row, opts.config);
        const log = entries.get(key) as LogEntry | undefined;
        if (!log) {
          await emit(row, key);
          continue;
        }
        matched.add(key);
        if (!logWins(orderingOf(row, opts.config), log, opts.config)) await emit(row, key);
        else if (log.row) {
          stats.totalUpdatedRecordsCompacted += 1;
          await emit(log.row, key);
        } else stats.totalDeletedRecords += 1;
      }
    }
  }
  for (const [key, e] of entries) {
    if (matched.has(key) || !e.row) continue;
    await emit(e.row, key);
  }
  return stats;
}
