// The memory-heavy part of compacting one file group: merge the slice and encode the new base file
// in memory. Runs in-process or inside a worker thread (worker.ts); everything it takes is
// structured-cloneable, so the worker gets the same inputs and produces the same bytes.
import type { MergeConfig, MergeStats, SliceFiles } from '../../merge/index.ts';
import type { AvroRecordSchema, ParquetCodec } from '../../parquet/write.ts';
import { openHoodieParquetWriter } from '../../parquet/write-incremental.ts';
import type { Storage } from '../../storage/index.ts';
import { mergeSliceStreaming } from './slice-merge.ts';
import { mergeColumnar } from './columnar-merge.ts';
import { PackedUnsupported } from '../../parquet/packed.ts';

/** The view's isCommitted rule as data (fs-view assembleView, no as-of bound). */
export interface CommittedInstants {
  completed: string[];
  /** instants older than this count as committed (archived) */
  first?: string;
}

export function isCommittedBy(c: CommittedInstants): (t: string) => boolean {
  const done = new Set(c.completed);
  return (t) => done.has(t) || (c.first !== undefined && t < c.first);
}

/** What every rewrite job (compaction's file group, clustering's group) is written with. */
export interface RewriteJobBase {
  partition: string;
  instant: string;
  writerSchema: AvroRecordSchema;
  config: MergeConfig;
  committed: CommittedInstants;
  codec?: ParquetCodec;
  /** zlib level of GZIP pages (default 6, as Hudi's GzipCodec) */
  gzipLevel?: number;
  rowGroupSize: number;
  /** 'rows' forces the row path (the reference the packed path is tested against); default: packed when it can */
  mergePath?: 'auto' | 'rows';
}

export interface MergeJob extends RewriteJobBase {
  fileId: string;
  baseFile?: { path: string; size: number };
  logFiles: { path: string; size: number }[];
  index: number;
  fileName: string;
}

export interface MergeOutput {
  bytes: Uint8Array;
  rowCount: number;
  stats: MergeStats;
  scanMs: number;
  /** which path merged it: 'packed' (columnar-merge.ts) or 'rows' (slice-merge.ts) */
  path: 'packed' | 'rows';
  /** packed path: the most output row groups compressing at once (bounded by MAX_PENDING_GROUPS + 1) */
  pendingPeak?: number;
  /** 2: merged in a worker and encoded on the main thread (two-stage.ts); else one thread did both */
  threads?: 2;
}

/**
 * The meta fields of a merged row as compaction writes them (in place): commit time and seqno kept,
 * defaults for rows without them; the file name always points at the new file. `n` = the row's
 * position in the new file.
 */
export function fixUpMergedRow(out: Record<string, unknown>, key: string, n: number, job: MergeJob): void {
  const { instant, index } = job;
  out._hoodie_commit_time ??= instant;
  out._hoodie_commit_seqno ??= `${instant}_${index}_${n}`;
  out._hoodie_record_key ??= key;
  out._hoodie_partition_path ??= job.partition;
  out._hoodie_file_name = job.fileName;
}

export async function mergeToParquet(storage: Storage, job: MergeJob): Promise<MergeOutput> {
  const started = Date.now();
  // exact: log records hold the values written back (decimals to the last digit, raw timestamps)
  const opts = { config: job.config, isValidInstant: isCommittedBy(job.committed), exact: true };
  // the packed path when the base file and schema allow it (the same rows and values, no row objects)
  const columnar = job.mergePath === 'rows' ? undefined : await mergeColumnar(storage, job, opts).catch((e: unknown) => {
    // a page layout the packed reader does not take (checked up front where the footer tells)
    if (e instanceof PackedUnsupported) return undefined;
    throw e;
  });
  if (columnar) return { ...columnar, scanMs: Date.now() - started, path: 'packed' };
  // rows go to the writer as they are merged: only the open row group (as column values) and the
  // compressed file so far are held; base rows are fixed up in place (fresh objects from the reader),
  // log rows are used once
  const writer = openHoodieParquetWriter({ schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize });
  const stats = await mergeSliceStreaming(storage, sliceOf(job), opts, (out, key) => {
    fixUpMergedRow(out, key, writer.rowCount, job);
    writer.writeRow(out);
  });
  const file = writer.finish();
  // log scan, base read, merge and encoding of full row groups overlap in that loop
  return { bytes: file.bytes, rowCount: file.rowCount, stats, scanMs: Date.now() - started, path: 'rows' };
}

function sliceOf(job: MergeJob): SliceFiles {
  const baseFile = job.baseFile ? { ...job.baseFile, ext: 'parquet' } : undefined;
  return { partition: job.partition, fileId: job.fileId, baseFile, logFiles: job.logFiles };
}
