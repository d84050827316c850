// The memory-heavy part of compacting one file group: merge the slice and encode the new base file
// in memory. Runs in-process or inside a worker thread (worker.ts); everything it takes is
// structured-cloneable, so the worker gets the same inputs and produces the same bytes.
import type { MergeConfig, MergeStats } from '../../merge/index.ts';
import type { AvroRecordSchema, ParquetCodec } from '../../parquet/write.ts';
import { openHoodieParquetWriter } from '../../parquet/write-incremental.ts';
import type { Storage } from '../../storage/index.ts';
import { mergeSliceStreaming } from './slice-merge.ts';

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

export interface MergeJob {
  partition: string;
  fileId: string;
  baseFile?: { path: string; size: number };
  logFiles: { path: string; size: number }[];
  instant: string;
  index: number;
  fileName: string;
  writerSchema: AvroRecordSchema;
  microsFields: string[];
  config: MergeConfig;
  committed: CommittedInstants;
  codec?: ParquetCodec;
  rowGroupSize: number;
}

export interface MergeOutput {
  bytes: Uint8Array;
  rowCount: number;
  stats: MergeStats;
  scanMs: number;
}

export async function mergeToParquet(storage: Storage, job: MergeJob): Promise<MergeOutput> {
  const { instant, index, partition, fileName } = job;
  const started = Date.now();
  // rows go to the writer as they are merged: only the open row group (as column values) and the
  // compressed file so far are held; base rows are fixed up in place (fresh objects from the reader),
  // log rows are used once
  const writer = openHoodieParquetWriter({ schema: job.writerSchema, codec: job.codec, rowGroupSize: job.rowGroupSize });
  const baseFile = job.baseFile ? { ...job.baseFile, ext: 'parquet' } : undefined;
  const slice = { partition, fileId: job.fileId, baseFile, logFiles: job.logFiles };
  const stats = await mergeSliceStreaming(storage, slice, { config: job.config, isValidInstant: isCommittedBy(job.committed) }, (out, key) => {
    const n = writer.rowCount;
    // compaction preserves commit time and seqno; the file name always points at the new file
    out._hoodie_commit_time ??= instant;
    out._hoodie_commit_seqno ??= `${instant}_${index}_${n}`;
    out._hoodie_record_key ??= key;
    out._hoodie_partition_path ??= partition;
    out._hoodie_file_name = fileName;
    for (const f of job.microsFields) {
      const v = out[f];
      // log rows from parquet data blocks still come back as Date (ms); the column holds micros
      if (v instanceof Date) out[f] = BigInt(v.getTime()) * 1000n;
    }
    writer.writeRow(out);
  });
  const file = writer.finish();
  // log scan, base read, merge and encoding of full row groups overlap in that loop
  return { bytes: file.bytes, rowCount: file.rowCount, stats, scanMs: Date.now() - started };
}
