// Merged record scan of one file slice (format-data.md §4–5): the log blocks of valid instants, in file
// order, through Java's V1 block stack (rollback command blocks drop earlier blocks of their target
// instant and pending corrupt blocks), merged with pre-combine semantics; then the base file rows merged
// with the log map by the table's final-merge rule. Output: rows keyed by record key, plus compaction stats.
import { TblError } from '../errors/index.ts';
import type { Storage } from '../storage/index.ts';
import { COMMAND_ROLLBACK, iterateLogBlocks, isDataBlock, type LogBlock, type LogRecord, type ReadLogOptions } from '../logfile/index.ts';
import { readParquetRows } from '../parquet/read.ts';
import type { MergeConfig } from './config.ts';
import { NATURAL, compareOrdering, isNatural, javaClassOf, sameClasses, type Ordering } from './ordering.ts';

export type Row = Record<string, unknown>;

export interface SliceFiles {
  partition: string;
  fileId: string;
  baseFile?: { path: string; size?: number; ext: string };
  logFiles: { path: string; size?: number }[];
}

export interface MergeStats {
  totalLogFilesCompacted: number;
  totalLogSizeCompacted: number;
  totalLogBlocks: number;
  totalCorruptLogBlock: number;
  totalRollbackBlocks: number;
  /** records in data blocks + keys in delete blocks that were applied */
  totalLogRecords: number;
  /** base records replaced by a log record */
  totalUpdatedRecordsCompacted: number;
  /** base records removed by a delete */
  totalDeletedRecords: number;
  /** data/delete blocks skipped because their instant is not committed or after maxInstant */
  totalSkippedBlocks: number;
  baseRecords: number;
}

export interface MergeOptions {
  config: MergeConfig;
  /** instants whose blocks count (completed, ≤ as-of); typically FileSystemView.isCommitted */
  isValidInstant: (instant: string) => boolean;
  decodeHFile?: ReadLogOptions['decodeHFile'];
  /** ignore the base file (read the logs only, `show logfile records --merge`) */
  logsOnly?: boolean;
  /**
   * rows with the values compaction writes back: decimals as unscaled bigints, dates as days,
   * timestamps as stored, longs beyond 2^53 as bigints (default: decimals as numbers, parquet
   * timestamps and dates as Date, for display)
   */
  exact?: boolean;
}

export interface MergedSlice {
  /** merged rows: base order, then inserts in the order they were first seen */
  rows: Row[];
  keys: string[];
  stats: MergeStats;
  /** per skipped/dropped block, why (rollback, uncommitted, corrupt, unsupported) */
  notes: { path: string; offset: number; note: string }[];
}

interface Entry {
  key: string;
  row?: Row; // undefined = delete
  ordering: Ordering;
  partition?: string | null;
}

export function emptyStats(): MergeStats {
  return {
    totalLogFilesCompacted: 0,
    totalLogSizeCompacted: 0,
    totalLogBlocks: 0,
    totalCorruptLogBlock: 0,
    totalRollbackBlocks: 0,
    totalLogRecords: 0,
    totalUpdatedRecordsCompacted: 0,
    totalDeletedRecords: 0,
    totalSkippedBlocks: 0,
    baseRecords: 0,
  };
}

export function schemaTypes(schemaJson: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!schemaJson) return out;
  try {
    const s = JSON.parse(schemaJson) as { fields?: { name: string; type: unknown }[] };
    for (const f of s.fields ?? []) {
      let t = f.type;
      if (Array.isArray(t)) t = t.find((x) => x !== 'null');
      if (t && typeof t === 'object' && 'logicalType' in (t as object)) t = undefined;
      else if (t && typeof t === 'object') t = (t as { type?: unknown }).type;
      if (typeof t === 'string') out.set(f.name, t);
    }
  } catch {
    // the block decoder already reported a bad schema
  }
  return out;
}

export function recordKeyOf(row: Row, config: MergeConfig): string {
  const meta = row._hoodie_record_key;
  if (config.populateMetaFields && meta !== undefined && meta !== null) return String(meta);
  const fields = config.recordKeyFields;
  if (fields.length === 0) throw new TblError('config', 'record key fields are not configured and meta fields are absent', { key: 'hoodie.table.recordkey.fields' });
  if (fields.length === 1) return String(row[fields[0]!]);
  return fields.map((f) => `${f}:${String(row[f])}`).join(',');
}

export function orderingOf(row: Row, config: MergeConfig, types?: Map<string, string>): Ordering {
  if (config.orderingFields.length === 0) return NATURAL;
  const values = config.orderingFields.map((f) => {
    const v = row[f];
    return v === undefined ? null : v;
  });
  return { values, classes: config.orderingFields.map((f, i) => javaClassOf(values[i], types?.get(f))) };
}

export function isDeleteRow(row: Row, config: MergeConfig): boolean {
  if (row._hoodie_is_deleted === true) return true;
  if (config.deleteField && config.deleteMarker !== undefined) {
    const v = row[config.deleteField];
    if (v !== null && v !== undefined && String(v) === config.deleteMarker) return true;
  }
  return false;
}

/** Delta merge: does `incoming` (newer) replace `existing`? (a missing row = a delete) */
function deltaKeepsNew(existing: Entry, incoming: Entry, config: MergeConfig): boolean {
  return deltaReplaces(existing.row === undefined, existing.ordering, incoming.row === undefined, incoming.ordering, config);
}

/** The delta-merge rule on what it needs: delete flags and orderings of the existing and the newer record. */
export function deltaReplaces(existingDeleted: boolean, existing: Ordering, incomingDeleted: boolean, incoming: Ordering, config: MergeConfig): boolean {
  if (config.deltaMerge === 'commit') return true;
  if (incomingDeleted) {
    // deltaMergeDeleteRecord / processNextDeletedRecord
    if (existingDeleted && isNatural(existing)) return false;
    if (isNatural(incoming)) return true;
    if (sameClasses(incoming, existing) && compareOrdering(existing, incoming) > 0) return false;
    return true;
  }
  if (existingDeleted) {
    if (config.naturalOrderAfterDelete || isNatural(existing)) return true;
  }
  return compareOrdering(incoming, existing) >= 0;
}

/** Final merge: does the log entry replace the base row? */
function finalKeepsLog(base: Entry, log: Entry, config: MergeConfig): boolean {
  return logReplacesBase(base.ordering, log.row === undefined, log.ordering, config);
}

/** The final-merge rule on what it needs: the base row's ordering, the log record's delete flag and ordering. */
export function logReplacesBase(base: Ordering, logDeleted: boolean, log: Ordering, config: MergeConfig): boolean {
  if (config.finalMerge === 'commit') return true;
  if (logDeleted) {
    if (isNatural(log)) return true;
    return !(sameClasses(log, base) && compareOrdering(base, log) > 0);
  }
  return !(compareOrdering(base, log) > 0);
}

export interface LogScan {
  entries: Map<string, Entry>;
  stats: MergeStats;
  notes: MergedSlice['notes'];
}

export interface StackedBlock<T> {
  path: string;
  block: LogBlock;
  /** what `prepare` made of a valid data or delete block */
  data?: T;
}

/**
 * The blocks of a slice's log files (oldest first) that count, after Java's V1 block stack: rollback
 * command blocks drop earlier blocks of their target instant and pending corrupt blocks. `prepare`
 * runs on each valid data/delete block as it is read, so its records can be reduced before the next
 * block is decoded. With `readContent`, the reader gives headers only and `readContent` reads and
 * decodes each data/delete block's content instead (as decodeBlockContent does); what it throws makes
 * the block corrupt with the reader's reason.
 */
export async function collectLogBlocks<T>(
  storage: Storage,
  logFiles: SliceFiles['logFiles'],
  opts: MergeOptions,
  stats: MergeStats,
  notes: MergedSlice['notes'],
  prepare?: (path: string, block: LogBlock) => Promise<T>,
  readContent?: (path: string, block: LogBlock) => Promise<void>,
): Promise<StackedBlock<T>[]> {
  const stack: StackedBlock<T>[] = [];
  for (const lf of logFiles) {
    stats.totalLogFilesCompacted += 1;
    const size = lf.size ?? (await storage.stat(lf.path)).size;
    stats.totalLogSizeCompacted += size;
    for await (const block of iterateLogBlocks(storage, lf.path, { withRecords: !readContent, size, decodeHFile: opts.decodeHFile, exactValues: opts.exact })) {
      if (readContent && !block.corrupt && block.type !== 'COMMAND_BLOCK') {
        try {
          await readContent(lf.path, block);
        } catch (e) {
          // the reader's decodeContent failure, worded as it words it
          block.corrupt = { reason: `cannot decode ${block.type} content: ${(e as Error).message}` };
          delete block.records;
          delete block.deletes;
        }
      }
      stats.totalLogBlocks += 1;
      if (block.corrupt) {
        stats.totalCorruptLogBlock += 1;
        stack.push({ path: lf.path, block });
        continue;
      }
      if (block.type === 'COMMAND_BLOCK') {
        if (block.header.COMMAND_BLOCK_TYPE !== COMMAND_ROLLBACK) {
          notes.push({ path: lf.path, offset: block.offset, note: `unknown command block type ${block.header.COMMAND_BLOCK_TYPE}` });
          continue;
        }
        stats.totalRollbackBlocks += 1;
        const target = block.header.TARGET_INSTANT_TIME;
        let removed = 0;
        for (let i = stack.length - 1; i >= 0; i--) {
          const b = stack[i]!.block;
          if (b.corrupt || b.header.INSTANT_TIME === target) {
            notes.push({ path: stack[i]!.path, offset: b.offset, note: b.corrupt ? `corrupt block dropped by rollback of ${target}` : `rolled back by ${block.header.INSTANT_TIME}` });
            stack.splice(i, 1);
            removed++;
          }
        }
        if (removed === 0) notes.push({ path: lf.path, offset: block.offset, note: `invalid or extra rollback command block (target ${target})` });
        continue;
      }
      if (block.type === 'CDC_DATA_BLOCK') continue;
      const instant = block.header.INSTANT_TIME ?? '';
      if (!opts.isValidInstant(instant)) {
        stats.totalSkippedBlocks += 1;
        notes.push({ path: lf.path, offset: block.offset, note: `instant ${instant} is not committed (or after the as-of instant)` });
        continue;
      }
      if (block.unsupported) {
        throw new TblError('unsupported', `${lf.path}: block at offset ${block.offset}: ${block.unsupported}`, { path: lf.path, instant });
      }
      stack.push({ path: lf.path, block, data: prepare ? await prepare(lf.path, block) : undefined });
    }
  }
  return stack;
}

/** The merged log map of a slice's log files (oldest first). */
export async function scanLogRecords(storage: Storage, logFiles: SliceFiles['logFiles'], opts: MergeOptions): Promise<LogScan> {
  const stats = emptyStats();
  const notes: MergedSlice['notes'] = [];
  const stack = await collectLogBlocks<never>(storage, logFiles, opts, stats, notes);

  const entries = new Map<string, Entry>();
  const put = (e: Entry) => {
    const cur = entries.get(e.key);
    // Map.set keeps a key's first-seen position, so inserts come out in arrival order
    if (!cur || deltaKeepsNew(cur, e, opts.config)) entries.set(e.key, e);
  };
  for (const { path, block } of stack) {
    if (block.corrupt) {
      notes.push({ path, offset: block.offset, note: `corrupt block ignored: ${block.corrupt.reason}` });
      continue;
    }
    if (block.type === 'DELETE_BLOCK') {
      for (const d of block.deletes ?? []) {
        stats.totalLogRecords += 1;
        if (d.recordKey === null) continue;
        const ordering: Ordering = d.orderingVal === null ? NATURAL : { values: [d.orderingVal], classes: [d.orderingClass] };
        put({ key: d.recordKey, ordering, partition: d.partitionPath });
      }
      continue;
    }
    if (isDataBlock(block.type)) {
      const types = schemaTypes(block.header.SCHEMA);
      for (const rec of block.records ?? []) {
        stats.totalLogRecords += 1;
        const row = rec as Row;
        const key = recordKeyOf(row, opts.config);
        const ordering = orderingOf(row, opts.config, types);
        put(isDeleteRow(row, opts.config) ? { key, ordering } : { key, row, ordering });
      }
    }
  }
  return { entries, stats, notes };
}

/** Base rows + logs of one file slice → merged rows. */
export async function mergeFileSlice(storage: Storage, slice: SliceFiles, opts: MergeOptions): Promise<MergedSlice> {
  const { entries, stats, notes } = await scanLogRecords(storage, slice.logFiles, opts);
  const rows: Row[] = [];
  const keys: string[] = [];
  const seen = new Set<string>();
  if (slice.baseFile && !opts.logsOnly) {
    if (slice.baseFile.ext !== 'parquet') {
      throw new TblError('unsupported', `${slice.baseFile.ext.toUpperCase()} base files are not supported: ${slice.baseFile.path}`, { path: slice.baseFile.path });
    }
    const baseRows = await readParquetRows(storage, slice.baseFile.path, { size: slice.baseFile.size, values: opts.exact ? 'exact' : 'avro' });
    stats.baseRecords = baseRows.length;
    for (const row of baseRows) {
      const key = recordKeyOf(row, opts.config);
      seen.add(key);
      const log = entries.get(key);
      if (!log) {
        rows.push(row);
        keys.push(key);
        continue;
      }
      const base: Entry = { key, row, ordering: orderingOf(row, opts.config) };
      if (!finalKeepsLog(base, log, opts.config)) {
        rows.push(row);
        keys.push(key);
      } else if (log.row) {
        stats.totalUpdatedRecordsCompacted += 1;
        rows.push(log.row);
        keys.push(key);
      } else stats.totalDeletedRecords += 1;
    }
  }
  for (const [key, e] of entries) {
    if (seen.has(key) || !e.row) continue;
    rows.push(e.row);
    keys.push(key);
  }
  return { rows, keys, stats, notes };
}
