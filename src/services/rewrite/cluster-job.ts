// A clustering group's job as the planner hands it over (structured-cloneable, for a worker thread),
// what clustering it returns, and the layout of its output files.
import { formatBaseFileName, formatWriteToken } from '../../fs-view/index.ts';
import type { MergeStats } from '../../merge/index.ts';
import type { MergeJob, RewriteJobBase } from './merge-op.ts';
import type { Layout } from './sort-order.ts';

export interface ClusterSlice {
  fileId: string;
  baseFile?: { path: string; size: number };
  logFiles: { path: string; size: number }[];
}

export interface ClusterJob extends RewriteJobBase {
  slices: ClusterSlice[];
  sortColumns: string[];
  layout: Layout;
  /** one fresh file id prefix (a UUID) per output file group of the plan's group */
  fileIdPrefixes: string[];
  /** the Spark task number of the first output (write tokens `<task>-0-0`) */
  firstTask: number;
  targetFileMaxBytes: number;
  /** also return each file's record keys (for the record index) */
  withKeys?: boolean;
}

export interface ClusterFile {
  fileId: string;
  fileName: string;
  /** the file's bytes in parts, in order (written as they are: Storage.writeNew) */
  parts: Uint8Array[];
  size: number;
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
  /** the order came from the encoding thread (cluster-base.ts baseOrder) */
  orderGiven?: boolean;
}

/** Output rows per packed chunk while merging (the writer's row groups are cut from the sorted order). */
export const CHUNK_ROWS = 65_536;

export function emptyStats(): MergeStats {
  return { totalLogFilesCompacted: 0, totalLogSizeCompacted: 0, totalLogBlocks: 0, totalCorruptLogBlock: 0, totalRollbackBlocks: 0, totalLogRecords: 0, totalUpdatedRecordsCompacted: 0, totalDeletedRecords: 0, totalSkippedBlocks: 0, baseRecords: 0 };
}

export function addStats(into: MergeStats, s: MergeStats): void {
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

export function mergeJobOf(job: ClusterJob, s: ClusterSlice, index: number): MergeJob {
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
