// Clustering a group whose slices are base files only (no log files: an append-only writer's small
// files, the usual case): the merged rows are the base rows as they are, so no merge runs. Each base
// file is read once into memory; the sort fields are decoded first and ranked for the order, every
// other field is decoded for all rows only when it is written (cluster-write.ts) — one field of the
// group decoded at a time instead of every field of every row, well inside 2 × input + 300 MB. The
// values and files are those of the held path (mergeInto copying base rows), which takes over when a
// base file's meta fields have nulls (the merge fills those in) or its columns need the row path.
import type { AsyncBuffer } from 'hyparquet';
import { TblError } from '../../errors/index.ts';
import { chunkSpan, PackedColumn, readPackedChunkBytes } from '../../parquet/packed.ts';
import { compressors, readParquetMetadataFrom, type ParquetFileInfo } from '../../parquet/read.ts';
import { prepareHoodieSchema } from '../../parquet/write.ts';
import type { Storage } from '../../storage/index.ts';
import { emptyStats, inputBytesOf, mergeJobOf, type ClusterJob, type ClusterOutput } from './cluster-job.ts';
import { sortedOrder, writeSorted, type ColumnSink } from './cluster-write.ts';
import { columnarPlan, inputError } from './columnar-merge.ts';
import { HeldColumn } from './held-columns.ts';
import type { SortColumn } from './sort-order.ts';

/** Meta fields the merge fills in where a base row has null (a base file written without them). */
const DEFAULTED = new Set(['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path']);

interface BaseInput {
  path: string;
  /** the whole file (let go once the last field is decoded) */
  bytes: Uint8Array;
  info: ParquetFileInfo;
  plan: NonNullable<ReturnType<typeof columnarPlan>>;
  /** column chunk index of each top-level field name */
  chunkIndex: Map<string, number>;
}

function memoryFile(bytes: Uint8Array): AsyncBuffer {
  return { byteLength: bytes.length, slice: (s, e) => bytes.buffer.slice(bytes.byteOffset + s, bytes.byteOffset + (e ?? bytes.length)) as ArrayBuffer };
}

/** The group clustered from its base files, or undefined when it needs the merge (logs, nulls in meta fields, the row path's columns). */
export async function clusterBaseFiles(storage: Storage, job: ClusterJob, sortCols: SortColumn[], sink?: ColumnSink): Promise<ClusterOutput | undefined> {
  if (job.slices.length === 0 || job.slices.some((s) => !s.baseFile || s.logFiles.length > 0)) return undefined;
  const started = Date.now();
  const fields = job.writerSchema.fields;
  const jFile = fields.findIndex((f) => f.name === '_hoodie_file_name');
  if (sortCols.some((c) => c.index === jFile)) return undefined;
  const inputs: BaseInput[] = [];
  for (const [i, s] of job.slices.entries()) {
    const { path, size } = s.baseFile!;
    const bytes = await storage.readRange(path, 0, size);
    const info = await readParquetMetadataFrom(memoryFile(bytes), path);
    const plan = columnarPlan(mergeJobOf(job, s, i), info.metadata);
    if (!plan) return undefined;
    const chunkIndex = new Map(info.metadata.schema.slice(1).map((e, k) => [e.name, k]));
    for (const f of plan) {
      if (!f.inBase || !DEFAULTED.has(f.name)) continue;
      // nulls are known absent only from the statistics
      const k = chunkIndex.get(f.name)!;
      if (info.metadata.row_groups.some((rg) => rg.columns[k]?.meta_data?.statistics?.null_count !== 0n)) return undefined;
    }
    inputs.push({ path, bytes, info, plan, chunkIndex });
  }
  const elements = prepareHoodieSchema(job.writerSchema).parquetSchema.slice(1);
  const records = inputs.reduce((n, b) => n + b.info.metadata.row_groups.reduce((m, rg) => m + Number(rg.num_rows), 0), 0);

  /** Field j of every row (chunk = one base row group), as the merge would copy it. */
  const decode = (j: number): HeldColumn | undefined => {
    if (j === jFile) return undefined;
    const type = elements[j]!.type!;
    const held = new HeldColumn(type);
    const col = new PackedColumn(type, 1024);
    for (const b of inputs) {
      const f = b.plan[j]!;
      for (const [g, rg] of b.info.metadata.row_groups.entries()) {
        const n = Number(rg.num_rows);
        col.reset();
        if (!f.inBase) for (let i = 0; i < n; i++) col.appendNull();
        else {
          const chunk = rg.columns[b.chunkIndex.get(f.name)!]!;
          const { begin, end } = chunkSpan(chunk);
          try {
            readPackedChunkBytes(b.bytes.subarray(begin, end), chunk, f.element, compressors, col);
          } catch (e) {
            throw inputError(e, 'parquet', b.path, `cannot read parquet rows (column ${f.name}, row group ${g}) of`);
          }
          if (col.length !== n) throw new TblError('parquet', `column ${f.name} of ${b.path} has ${col.length} values in a row group of ${n} rows`, { path: b.path });
        }
        held.append(col);
      }
    }
    return held;
  };

  const sortFields = new Map<number, HeldColumn>();
  for (const c of sortCols) if (!sortFields.has(c.index)) sortFields.set(c.index, decode(c.index)!);
  const perm = sortedOrder(job, sortCols, records, (c) => sortFields.get(c.index)!);
  const scanMs = Date.now() - started;
  // the input files are let go once the last field still to decode is: the output's compressed
  // chunks pile up towards the end of the write, where the run peaks
  let lastDecoded = -1;
  for (let j = 0; j < fields.length; j++) if (j !== jFile && !sortFields.has(j)) lastDecoded = j;
  const letGo = () => {
    for (const b of inputs) b.bytes = new Uint8Array(0);
  };
  if (lastDecoded < 0) letGo();
  const files = await writeSorted(job, records, perm, (j) => {
    const h = sortFields.get(j) ?? decode(j);
    sortFields.delete(j);
    if (j === lastDecoded) letGo();
    return h;
  }, sink);
  const stats = emptyStats();
  stats.baseRecords = records;
  return { files, stats, path: 'packed', records, inputBytes: inputBytesOf(job), scanMs };
}
