// The memory-heavy part of clustering one group: every slice merged (base + logs, the same merge
// compaction runs: columnar-merge.ts on the packed path, slice-merge.ts on the row path), the group's
// records ordered (sort-order.ts), and new base files written in that order, split as Spark's bulk
// insert splits them: numOutputFileGroups range partitions of equal record counts, each rolling over
// to a next file (`<uuid>-1`, …) when the estimated size passes target.file.max.bytes (rows per file
// from the input bytes per record). Files are encoded by the same writers compaction uses (packed:
// write-packed.ts; rows: write-incremental.ts): bloom filter, min/max key footer, Avro schema.
// Everything it takes is structured-cloneable, so a worker thread runs it the same way (worker.ts).
import { formatBaseFileName, formatWriteToken } from '../../fs-view/index.ts';
import type { MergeConfig, MergeStats, Row } from '../../merge/index.ts';
import { PackedUnsupported, type PackedColumn } from '../../parquet/packed.ts';
import { openHoodieParquetWriter } from '../../parquet/write-incremental.ts';
import { openHoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import { prepareHoodieSchema, type AvroRecordSchema, type ParquetCodec } from '../../parquet/write.ts';
import type { Storage } from '../../storage/index.ts';
import { mergeInto, prepareColumnar, type ColumnarInput, type GroupWriter } from './columnar-merge.ts';
import { isCommittedBy, type CommittedInstants, type MergeJob } from './merge-op.ts';
import { mergeSliceStreaming } from './slice-merge.ts';
import { GatherScratch, HeldRows, rankHeld } from './held-columns.ts';
import { permutationOfRanks, sortColumnsOf, sortPermutation, type Layout, type SortColumn, type SortValue } from './sort-order.ts';

export interface ClusterSlice {
  fileId: string;
  baseFile?: { path: string; size: number };
  logFiles: { path: string; size: number }[];
}

export interface ClusterJob {
  partition: string;
  instant: string;
  slices: ClusterSlice[];
  writerSchema: AvroRecordSchema;
  config: MergeConfig;
  committed: CommittedInstants;
  codec?: ParquetCodec;
  gzipLevel?: number;
  rowGroupSize: number;
  sortColumns: string[];
  layout: Layout;
  /** one fresh file id prefix (a UUID) per output file group of the plan's group */
  fileIdPrefixes: string[];
  /** the Spark task number of the first output (write tokens `<task>-0-0`) */
  firstTask: number;
  targetFileMaxBytes: number;
  /** also return each file's record keys (for the record index) */
  withKeys?: boolean;
  /** 'rows' forces the row path; default: packed when every slice allows it */
  mergePath?: 'auto' | 'rows';
}

export interface ClusterFile {
  fileId: string;
  fileName: string;
  bytes: Uint8Array;
  rowCount: number;
  keys?: string[];
}

export interface ClusterOutput {
  files: ClusterFile[];
  stats: MergeStats;
  path: 'packed' | 'rows';
  records: number;
  inputBytes: number;
  scanMs: number;
}

/** Output rows per packed chunk while merging (the writer's row groups are cut from the sorted order). */
const CHUNK_ROWS = 65_536;

function emptyStats(): MergeStats {
  return { totalLogFilesCompacted: 0, totalLogSizeCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0, totalRollbackBlocks: 0, totalLogRecords: 0, totalUpdatedRecordsCompacted: 0, totalDeletedRecords: 0, totalSkippedBlocks: 0, baseRecords: 0 };
}

function addStats(into: MergeStats, s: MergeStats): void {
  for (const k of Object.keys(into) as (keyof MergeStats)[]) into[k] += s[k];
}

export function inputBytesOf(job: ClusterJob): number {
  return job.slices.reduce((n, s) => n + (s.baseFile?.size ?? 0) + s.logFiles.reduce((m, l) => m + l.size, 0), 0);
}

/**
 * The output files of `records` sorted records: [first row, end row, file id, file name] per file.
 * numOutputFileGroups range partitions of equal counts (empty ones write nothing), each rolled over
 * every `rowsPerFile` rows.
 */
export function outputLayout(job: ClusterJob, records: number, inputBytes: number): { from: number; to: number; fileId: string; fileName: string }[] {
  const n = job.fileIdPrefixes.length;
  const perRow = records > 0 ? inputBytes / records : 0;
  const rowsPerFile = perRow > 0 ? Math.max(1, Math.floor(job.targetFileMaxBytes / perRow)) : Number.MAX_SAFE_INTEGER;
  const out: { from: number; to: number; fileId: string; fileName: string }[] = [];
  for (let k = 0; k < n; k++) {
    const from = Math.floor((k * records) / n);
    const to = Math.floor(((k + 1) * records) / n);
    for (let a = from, j = 0; a < to; a += rowsPerFile, j++) {
      const fileId = `${job.fileIdPrefixes[k]}-${j}`;
      const fileName = formatBaseFileName({ fileId, writeToken: formatWriteToken(job.firstTask + k, 0, 0), instant: job.instant, ext: 'parquet' });
      out.push({ from: a, to: Math.min(to, a + rowsPerFile), fileId, fileName });
    }
  }
  return out;
}

function mergeJobOf(job: ClusterJob, s: ClusterSlice, index: number): MergeJob {
  return {
    partition: job.partition,
    fileId: s.fileId,
    baseFile: s.baseFile,
    logFiles: s.logFiles,
    instant: job.instant,
    index,
    fileName: '',
    writerSchema: job.writerSchema,
    config: job.config,
    committed: job.committed,
    codec: job.codec,
    gzipLevel: job.gzipLevel,
    rowGroupSize: CHUNK_ROWS,
    mergePath: job.mergePath,
  };
}

const text = new TextDecoder();

/** The packed path: every slice merged into packed chunks; undefined when a slice needs the row path. */
async function clusterPacked(storage: Storage, job: ClusterJob, sortCols: SortColumn[]): Promise<ClusterOutput | undefined> {
  const started = Date.now();
  const jFile = job.writerSchema.fields.findIndex((f) => f.name === '_hoodie_file_name');
  // sorting by the file name (a constant of each new file, never held) is the row path's
  if (sortCols.some((c) => c.index === jFile)) return undefined;
  const opts = { config: job.config, isValidInstant: isCommittedBy(job.committed), exact: true };
  const inputs: ColumnarInput[] = [];
  for (const [i, s] of job.slices.entries()) {
    const input = await prepareColumnar(storage, mergeJobOf(job, s, i), opts);
    if (!input) return undefined;
    inputs.push(input);
  }
  const elements = prepareHoodieSchema(job.writerSchema).parquetSchema.slice(1);
  const jKey = job.writerSchema.fields.findIndex((f) => f.name === '_hoodie_record_key');
  // the file name is a constant of each new file: never held
  const held = new HeldRows(elements.map((e, j) => (j === jFile ? undefined : e.type)));
  // the merge's chunks are copied into the held columns, its buffers reused for the next chunk
  let spare: PackedColumn[] | undefined;
  const collector: GroupWriter = {
    groupRows: CHUNK_ROWS,
    elements,
    pendingPeak: 0,
    get rowCount() {
      return held.rows;
    },
    writeGroup(columns) {
      held.append(columns);
      spare = columns;
      return Promise.resolve();
    },
    recycle: () => {
      const c = spare;
      spare = undefined;
      c?.forEach((x) => x.reset());
      return c;
    },
  };
  const stats = emptyStats();
  for (const [i, s] of job.slices.entries()) {
    await mergeInto(collector, mergeJobOf(job, s, i), inputs[i]!);
    addStats(stats, inputs[i]!.stats);
  }
  inputs.length = 0;
  spare = undefined;
  const records = held.rows;
  const sortHeld = sortCols.map((c) => held.columns[c.index]!);
  const perm =
    job.layout === 'linear' || sortCols.length === 1
      ? permutationOfRanks(records, sortCols.map((c, k) => rankHeld(sortHeld[k]!, c)))
      : (() => {
          const values = sortCols.map((c, k) => sortHeld[k]!.values(c));
          return sortPermutation(records, sortCols, job.layout, (c, i) => values[c]![i]);
        })();
  // where each output row comes from
  const src = held.locate(perm);
  const scanMs = Date.now() - started;
  const inputBytes = inputBytesOf(job);
  const layout = outputLayout(job, records, inputBytes);
  const writers = layout.map((f) => {
    const constants = job.writerSchema.fields.map((x) => (x.name === '_hoodie_file_name' ? new TextEncoder().encode(f.fileName) : undefined));
    return openHoodiePackedColumnWriter({ schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize, constants }, f.to - f.from);
  });
  const keys: (string[] | undefined)[] = layout.map(() => undefined);
  // one field of the output at a time (the fields before it are encoded, those after it still held);
  // its compression overlaps the next field's gather
  let compressing: Promise<void> = Promise.resolve();
  const scratch = new GatherScratch(held.maxFieldBytes());
  for (let j = 0; j < elements.length; j++) {
    const h = held.columns[j];
    if (!h) continue;
    const done: Promise<void>[] = [];
    for (const [k, f] of layout.entries()) {
      const col = h.gather(src.chunk, src.row, f.from, f.to, layout.length === 1, scratch);
      if (job.withKeys && j === jKey) keys[k] = Array.from({ length: col.length }, (_, i) => text.decode(col.data.subarray(col.start(i), col.end(i))));
      done.push(writers[k]!.writeColumn(j, col));
    }
    h.release();
    for (const d of done) d.catch(() => undefined);
    await compressing;
    compressing = Promise.all(done).then(() => undefined);
  }
  await compressing;
  const files: ClusterFile[] = [];
  for (const [k, f] of layout.entries()) {
    const file = await writers[k]!.finish();
    files.push({ fileId: f.fileId, fileName: f.fileName, bytes: file.bytes, rowCount: file.rowCount, keys: keys[k] ?? (job.withKeys ? [] : undefined) });
  }
  return { files, stats, path: 'packed', records, inputBytes, scanMs };
}

/** The row path: merged rows (Avro values, exact) sorted and written by the row writer. */
async function clusterRows(storage: Storage, job: ClusterJob, sortCols: SortColumn[]): Promise<ClusterOutput> {
  const started = Date.now();
  const opts = { config: job.config, isValidInstant: isCommittedBy(job.committed), exact: true };
  const rows: Row[] = [];
  const stats = emptyStats();
  for (const [si, s] of job.slices.entries()) {
    let n = 0;
    const slice = { partition: job.partition, fileId: s.fileId, baseFile: s.baseFile ? { ...s.baseFile, ext: 'parquet' } : undefined, logFiles: s.logFiles };
    const st = await mergeSliceStreaming(storage, slice, opts, (row, key) => {
      // meta fields as compaction keeps them (the file name is set per output file)
      row._hoodie_commit_time ??= job.instant;
      row._hoodie_commit_seqno ??= `${job.instant}_${si}_${n}`;
      row._hoodie_record_key ??= key;
      row._hoodie_partition_path ??= job.partition;
      n++;
      rows.push(row);
    });
    addStats(stats, st);
  }
  const perm = sortPermutation(rows.length, sortCols, job.layout, (c, i) => rows[i]![sortCols[c]!.name] as SortValue);
  const scanMs = Date.now() - started;
  const files: ClusterFile[] = [];
  const inputBytes = inputBytesOf(job);
  for (const f of outputLayout(job, rows.length, inputBytes)) {
    const writer = openHoodieParquetWriter({ schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize });
    const keys: string[] | undefined = job.withKeys ? [] : undefined;
    for (let x = f.from; x < f.to; x++) {
      const row = rows[perm[x]!]!;
      row._hoodie_file_name = f.fileName;
      keys?.push(String(row._hoodie_record_key));
      writer.writeRow(row);
    }
    const file = writer.finish();
    files.push({ fileId: f.fileId, fileName: f.fileName, bytes: file.bytes, rowCount: file.rowCount, keys });
  }
  return { files, stats, path: 'rows', records: rows.length, inputBytes, scanMs };
}

/** Clusters one group into its new base files (bytes in memory; the caller writes them, markers first). */
export async function clusterGroup(storage: Storage, job: ClusterJob): Promise<ClusterOutput> {
  const sortCols = sortColumnsOf(job.writerSchema, job.sortColumns);
  if (job.mergePath !== 'rows') {
    const packed = await clusterPacked(storage, job, sortCols).catch((e: unknown) => {
      if (e instanceof PackedUnsupported) return undefined;
      throw e;
    });
    if (packed) return packed;
  }
  return clusterRows(storage, job, sortCols);
}
