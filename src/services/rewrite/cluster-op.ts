// The memory-heavy part of clustering one group: every slice merged (base + logs, the same merge
// compaction runs: columnar-merge.ts on the packed path, slice-merge.ts on the row path), the group's
// records ordered (sort-order.ts), and new base files written in that order, split as Spark's bulk
// insert splits them: numOutputFileGroups range partitions of equal record counts, each rolling over
// to a next file (`<uuid>-1`, …) when the estimated size passes target.file.max.bytes (rows per file
// from the input bytes per record). Files are encoded by the same writers compaction uses (packed:
// write-packed.ts; rows: write-incremental.ts): bloom filter, min/max key footer, Avro schema.
// Everything it takes is structured-cloneable, so a worker thread runs it the same way (worker.ts).
import type { Row } from '../../merge/index.ts';
import { PackedUnsupported, type PackedColumn } from '../../parquet/packed.ts';
import { openHoodieParquetWriter } from '../../parquet/write-incremental.ts';
import { prepareHoodieSchema } from '../../parquet/write.ts';
import type { Storage } from '../../storage/index.ts';
import { clusterBaseFiles } from './cluster-base.ts';
import { addStats, CHUNK_ROWS, emptyStats, inputBytesOf, mergeJobOf, outputLayout, type ClusterFile, type ClusterJob, type ClusterOutput } from './cluster-job.ts';
import { sortedOrder, writeSorted, type ColumnSink } from './cluster-write.ts';
import { mergeInto, prepareColumnar, type ColumnarInput, type GroupWriter } from './columnar-merge.ts';
import { HeldRows } from './held-columns.ts';
import { isCommittedBy } from './merge-op.ts';
import { mergeSliceStreaming } from './slice-merge.ts';
import { sortColumnsOf, sortPermutation, type SortColumn, type SortValue } from './sort-order.ts';

export { inputBytesOf, outputLayout, type ClusterFile, type ClusterJob, type ClusterOutput, type ClusterSlice } from './cluster-job.ts';

/** The packed path: every slice merged into packed chunks; undefined when a slice needs the row path. */
async function clusterPacked(storage: Storage, job: ClusterJob, sortCols: SortColumn[], sink?: ColumnSink): Promise<ClusterOutput | undefined> {
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
  const perm = sortedOrder(job, sortCols, records, (c) => held.columns[c.index]!);
  const scanMs = Date.now() - started;
  const files = await writeSorted(job, records, perm, (j) => held.columns[j], sink);
  return { files, stats, path: 'packed', records, inputBytes: inputBytesOf(job), scanMs };
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
    files.push({ fileId: f.fileId, fileName: f.fileName, parts: [file.bytes], size: file.size, rowCount: file.rowCount, keys });
  }
  return { files, stats, path: 'rows', records: rows.length, inputBytes, scanMs };
}

/**
 * Clusters one group into its new base files (bytes in memory; the caller writes them, markers
 * first); `sink`: where the packed paths encode (default: here); `order`: the base files' order,
 * computed by the encoding thread (cluster-base.ts baseOrder).
 */
export async function clusterGroup(storage: Storage, job: ClusterJob, sink?: ColumnSink, order?: Promise<Int32Array | undefined>): Promise<ClusterOutput> {
  const sortCols = sortColumnsOf(job.writerSchema, job.sortColumns);
  if (job.mergePath !== 'rows') {
    const packed = await (async () => (await clusterBaseFiles(storage, job, sortCols, sink, order)) ?? (await clusterPacked(storage, job, sortCols, sink)))().catch((e: unknown) => {
      if (e instanceof PackedUnsupported) return undefined;
      throw e;
    });
    if (packed) return packed;
  }
  return clusterRows(storage, job, sortCols);
}
