// Merging one metadata-table file slice of any partition the way Hudi's MDT compaction does
// (HoodieCompactor over HoodieMetadataPayload): first the log blocks among themselves, in log order
// (rollback command blocks void their target instant, DELETE_BLOCK keys delete), then the base HFile's
// records with the merged log (HoodieMergeHandle: combineAndGetUpdateValue). Two-stage matters: a
// `files` tombstone that met its entry in the logs is gone before the base is merged.
// What survives: every key not deleted, except column-stats, partition-stats and bloom-filter records
// whose merge ended in a tombstone (their payload is then a deleted record and getInsertValue is empty);
// a tombstone that met nothing is kept, as Hudi keeps it.
import { TblError } from '../errors/index.ts';
import { HFileReader, compareBytes } from '../hfile/index.ts';
import { COMMAND_ROLLBACK, readLogFile, type LogBlock, type LogRecord } from '../logfile/index.ts';
import type { Storage } from '../storage/index.ts';
import { combineRecords, decodeMetadataRecord, isDelete, mdtWriterSchema, type MetadataRecord, type MetadataUpsert } from './records.ts';

export interface SliceFile {
  path: string;
  size?: number;
}

export interface SliceMergeStats {
  /** records of the data blocks read (HoodieMergedLogRecordScanner.getTotalLogRecords) */
  totalLogRecords: number;
  /** keys of the delete blocks read (1.1's file-group reader counts them as log records too) */
  totalLogDeletes: number;
  /** keys the logs touched, deletes included (getNumMergedRecordsInLog) */
  mergedLogKeys: number;
  totalLogBlocks: number;
  totalRollbackBlocks: number;
  totalCorruptLogBlock: number;
  totalLogFilesCompacted: number;
  totalLogSizeCompacted: number;
  baseRecords: number;
  /** base keys the logs changed and that survived */
  updatedBaseRecords: number;
  /** keys only the logs hold, written */
  insertedRecords: number;
  /** keys dropped: deleted, or merged into a tombstone */
  deletedRecords: number;
}

export interface MergedSlice {
  /** surviving records sorted by key bytes */
  records: MetadataRecord[];
  stats: SliceMergeStats;
  /** the writer schema of the newest HFile read (a log block's SCHEMA, else the base file's) */
  newestSchema?: string;
}

interface Entry {
  rec: MetadataUpsert;
  /** the merge produced a deleted payload (isDeletedRecord) */
  dropped: boolean;
}

const utf8 = new TextEncoder();

/** A tombstone that met an older record: HoodieMetadataPayload built with isDeletedRecord = isDeleted. */
function mergedIntoTombstone(r: MetadataRecord): boolean {
  if (r.type === 3 || r.type === 6) return r.columnStats.isDeleted;
  if (r.type === 4) return r.bloomFilter.isDeleted;
  return false;
}

/** HoodieMetadataPayload.preCombine(older) on `newer`. */
function preCombine(older: Entry, newer: Entry): Entry {
  if (isDelete(newer.rec) || newer.dropped) return newer;
  if (isDelete(older.rec) || older.dropped) return newer;
  const rec = combineRecords(older.rec, newer.rec) as MetadataRecord;
  return { rec, dropped: mergedIntoTombstone(rec) };
}

/** The log stage for one key: records after its last delete, newer over older. */
function mergeLog(list: Entry[]): Entry {
  let start = 0;
  for (let i = list.length - 1; i >= 0; i--) {
    if (isDelete(list[i]!.rec)) {
      start = i;
      break;
    }
  }
  let acc = list[start]!;
  for (let i = start + 1; i < list.length; i++) acc = preCombine(acc, list[i]!);
  return acc;
}

async function hfileRecords(reader: HFileReader, schema: string, path: string): Promise<MetadataRecord[]> {
  const s = mdtWriterSchema(schema);
  return (await reader.readAll()).map((r) => decodeMetadataRecord(r.key, r.value, s, path));
}

/**
 * Merges a slice: `base` (an HFile base file, or none) and `logs` in log order. `isValid(instant)`
 * says whether a data block of that instant counts (completed, not an orphan, within the compaction).
 */
export async function mergeMdtSlice(
  storage: Storage,
  base: SliceFile | undefined,
  logs: readonly SliceFile[],
  isValid: (instant: string) => boolean,
  opts: { keepAlive?: () => Promise<void> } = {},
): Promise<MergedSlice> {
  const stats: SliceMergeStats = {
    totalLogRecords: 0,
    totalLogDeletes: 0,
    mergedLogKeys: 0,
    totalLogBlocks: 0,
    totalRollbackBlocks: 0,
    totalCorruptLogBlock: 0,
    totalLogFilesCompacted: logs.length,
    totalLogSizeCompacted: 0,
    baseRecords: 0,
    updatedBaseRecords: 0,
    insertedRecords: 0,
    deletedRecords: 0,
  };
  let newestSchema: string | undefined;
  const blocks: { path: string; block: LogBlock }[] = [];
  for (const lf of logs) {
    await opts.keepAlive?.();
    const contents = await readLogFile(storage, lf.path, {
      size: lf.size,
      withRecords: true,
      decodeHFile: async (content, header) => {
        if (!header.SCHEMA) throw new TblError('metadata', `${storage.uri(lf.path)}: HFILE_DATA_BLOCK without a SCHEMA header`, { path: storage.uri(lf.path) });
        newestSchema = header.SCHEMA;
        return (await hfileRecords(await HFileReader.fromBytes(content, lf.path), header.SCHEMA, lf.path)) as unknown as LogRecord[];
      },
    });
    stats.totalLogSizeCompacted += contents.size;
    for (const block of contents.blocks) blocks.push({ path: lf.path, block });
  }
  // a rollback command block voids the blocks of its target read before it (BaseHoodieLogRecordReader:
  // "rollback older read log block(s)"); a retry's blocks of the same instant after it count
  const voided = new Set<number>();
  blocks.forEach(({ block }, i) => {
    if (block.type !== 'COMMAND_BLOCK' || block.header.COMMAND_BLOCK_TYPE !== COMMAND_ROLLBACK) return;
    const target = block.header.TARGET_INSTANT_TIME;
    for (let j = 0; j < i; j++) if (blocks[j]!.block.type !== 'COMMAND_BLOCK' && blocks[j]!.block.header.INSTANT_TIME === target) voided.add(j);
  });
  const seq = new Map<string, Entry[]>();
  const apply = (key: string, e: Entry) => {
    const list = seq.get(key);
    if (list) list.push(e);
    else seq.set(key, [e]);
  };
  for (const [n, { path, block }] of blocks.entries()) {
    stats.totalLogBlocks++;
    if (block.type === 'COMMAND_BLOCK') {
      stats.totalRollbackBlocks++;
      continue;
    }
    if (block.type === 'CORRUPT_BLOCK' || block.corrupt) {
      // HoodieLogFileReader skips corrupt blocks; a compaction that silently dropped records would not
      throw new TblError('metadata', `${storage.uri(path)} @${block.offset}: corrupt metadata-table log block (${block.corrupt?.reason ?? 'corrupt'}); not compacting over it`, { path: storage.uri(path) });
    }
    const instant = block.header.INSTANT_TIME;
    if (!instant || !isValid(instant) || voided.has(n)) continue;
    if (block.type === 'HFILE_DATA_BLOCK') {
      for (const r of (block.records ?? []) as unknown as MetadataRecord[]) {
        stats.totalLogRecords++;
        apply(r.key, { rec: r, dropped: false });
      }
    } else if (block.type === 'DELETE_BLOCK') {
      if (block.unsupported) throw new TblError('unsupported', `${storage.uri(path)} @${block.offset}: ${block.unsupported}`, { path: storage.uri(path), instant });
      for (const d of block.deletes ?? []) {
        if (!d.recordKey) continue;
        stats.totalLogDeletes++;
        apply(d.recordKey, { rec: { key: d.recordKey, deleted: true }, dropped: false });
      }
    } else {
      throw new TblError('metadata', `${storage.uri(path)} @${block.offset}: unexpected ${block.type} in a metadata-table log`, { path: storage.uri(path), instant });
    }
  }
  stats.mergedLogKeys = seq.size;
  const log = new Map<string, Entry>();
  for (const [key, list] of seq) log.set(key, mergeLog(list));

  const out = new Map<string, MetadataRecord>();
  if (base) {
    await opts.keepAlive?.();
    const reader = await HFileReader.open(storage, base.path, { size: base.size });
    const schema = reader.avroSchemaJson;
    if (!schema) throw new TblError('metadata', `${storage.uri(base.path)}: HFile has no Avro schema in its file info`, { path: storage.uri(base.path) });
    newestSchema ??= schema;
    for (const r of await hfileRecords(reader, schema, base.path)) {
      stats.baseRecords++;
      const l = log.get(r.key);
      if (!l) {
        out.set(r.key, r);
        continue;
      }
      log.delete(r.key);
      const m = preCombine({ rec: r, dropped: false }, l);
      if (isDelete(m.rec) || m.dropped) stats.deletedRecords++;
      else {
        stats.updatedBaseRecords++;
        out.set(r.key, m.rec);
      }
    }
  }
  for (const [key, e] of log) {
    if (isDelete(e.rec) || e.dropped) stats.deletedRecords++;
    else {
      stats.insertedRecords++;
      out.set(key, e.rec);
    }
  }
  const records = [...out.values()].map((r) => [utf8.encode(r.key), r] as const).sort((a, b) => compareBytes(a[0], b[0])).map(([, r]) => r);
  return { records, stats, newestSchema };
}
