// Clustering a group whose slices are base files only (no log files: an append-only writer's small
// files, the usual case): the merged rows are the base rows as they are, so no merge runs. Each base
// file is read once into memory; the sort fields are decoded first and ranked for the order, every
// other field is decoded for all rows only when it is written (cluster-write.ts) — one field of the
// group decoded at a time instead of every field of every row, well inside 2 × input + 300 MB. The
// values and files are those of the held path (mergeInto copying base rows), which takes over when a
// base file's meta fields have nulls (the merge fills those in) or its columns need the row path.
// On two threads the encoding thread computes the order (baseOrder) while the worker starts up,
// and hands the files over once it has decoded the sort fields.
import { setImmediate as immediate } from 'node:timers/promises';
import type { AsyncBuffer } from 'hyparquet';
import { TblError } from '../../errors/index.ts';
import { chunkSpan, PackedColumn, readPackedChunkBytes, readPackedChunkIds } from '../../parquet/packed.ts';
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

/** A group's base files, read and checked: the base path can cluster it. */
interface BaseGroup {
  inputs: BaseInput[];
  records: number;
  /** the file name field (a constant of each output file, never decoded) */
  jFile: number;
  elements: ReturnType<typeof prepareHoodieSchema>['parquetSchema'];
}

function memoryFile(bytes: Uint8Array): AsyncBuffer {
  return { byteLength: bytes.length, slice: (s, e) => bytes.buffer.slice(bytes.byteOffset + s, bytes.byteOffset + (e ?? bytes.length)) as ArrayBuffer };
}

/** Every slice of the group is a base file alone: the base path may take it (openBaseGroup decides). */
export function baseFilesOnly(job: ClusterJob): boolean {
  return job.slices.length > 0 && job.slices.every((s) => s.baseFile && s.logFiles.length === 0);
}

/** The group's base files read, or undefined when it needs the merge (logs, nulls in meta fields, the row path's columns). */
async function openBaseGroup(storage: Storage, job: ClusterJob, sortCols: SortColumn[]): Promise<BaseGroup | undefined> {
  if (!baseFilesOnly(job)) return undefined;
  const jFile = job.writerSchema.fields.findIndex((f) => f.name === '_hoodie_file_name');
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
  return { inputs, records, jFile, elements };
}

/** Field j of every row (chunk = one base row group), as the merge would copy it; undefined: the file name. */
function decodeField(g: BaseGroup, j: number): HeldColumn | undefined {
  if (j === g.jFile) return undefined;
  const type = g.elements[j]!.type!;
  const held = new HeldColumn(type);
  const col = new PackedColumn(type, 1024);
  for (const b of g.inputs) {
    const f = b.plan[j]!;
    for (const [k, rg] of b.info.metadata.row_groups.entries()) {
      const n = Number(rg.num_rows);
      col.reset();
      if (!f.inBase) for (let i = 0; i < n; i++) col.appendNull();
      else {
        const chunk = rg.columns[b.chunkIndex.get(f.name)!]!;
        const { begin, end } = chunkSpan(chunk);
        const bytes = b.bytes.subarray(begin, end);
        let coded: ReturnType<typeof readPackedChunkIds>;
        try {
          // a dictionary-encoded chunk of a field held as a dictionary: its indexes, no values decoded
          coded = held.isDictionary ? readPackedChunkIds(bytes, chunk, f.element, compressors) : undefined;
          if (!coded) readPackedChunkBytes(bytes, chunk, f.element, compressors, col);
        } catch (e) {
          throw inputError(e, 'parquet', b.path, `cannot read parquet rows (column ${f.name}, row group ${k}) of`);
        }
        const got = coded ? coded.ids.length : col.length;
        if (got !== n) throw new TblError('parquet', `column ${f.name} of ${b.path} has ${got} values in a row group of ${n} rows`, { path: b.path });
        if (coded) {
          held.appendIds(coded.dict, coded.ids);
          continue;
        }
      }
      held.append(col);
    }
  }
  return held;
}

function decodeSortFields(g: BaseGroup, sortCols: SortColumn[]): Map<number, HeldColumn> {
  const fields = new Map<number, HeldColumn>();
  for (const c of sortCols) if (!fields.has(c.index)) fields.set(c.index, decodeField(g, c.index)!);
  return fields;
}

/**
 * The order clusterBaseFiles computes for the group (undefined: it takes the merge), computed by the
 * thread that encodes while the worker starts; `handOver` gets each base file's bytes once the sort
 * fields are decoded (the worker reads them from there). Its errors are the worker's to raise
 * (cluster-stage.ts orderAhead ends them in undefined).
 */
export async function baseOrder(storage: Storage, job: ClusterJob, sortCols: SortColumn[], handOver: (path: string, bytes: Uint8Array) => void): Promise<Int32Array | undefined> {
  const g = await openBaseGroup(storage, job, sortCols);
  if (!g) return undefined;
  const fields = decodeSortFields(g, sortCols);
  for (const b of g.inputs) handOver(b.path, b.bytes);
  g.inputs = [];
  // the files are sent before the sort holds this thread: the worker decodes meanwhile
  await immediate();
  return sortedOrder(job, sortCols, g.records, (c) => fields.get(c.index)!);
}

/**
 * The group clustered from its base files, or undefined when it needs the merge (logs, nulls in
 * meta fields, the row path's columns); `given`: the order, computed by the encoding thread
 * (baseOrder; undefined: computed here).
 */
export async function clusterBaseFiles(storage: Storage, job: ClusterJob, sortCols: SortColumn[], sink?: ColumnSink, given?: Promise<Int32Array | undefined>): Promise<ClusterOutput | undefined> {
  const started = Date.now();
  const g = await openBaseGroup(storage, job, sortCols);
  if (!g) return undefined;
  const { records, jFile } = g;
  const fields = job.writerSchema.fields;
  // decoded ahead: the sort fields (for the order) or, with the order given, the first fields
  // written while it is computed — as many as there are sort fields, so as much is held
  const ahead = new Map<number, HeldColumn>();
  let perm: Int32Array | undefined;
  if (given) {
    let settled = false;
    const seen = () => {
      settled = true;
    };
    given.then(seen, seen);
    const most = new Set(sortCols.map((c) => c.index)).size;
    for (let j = 0; j < fields.length && ahead.size < most && !settled; j++) {
      if (j === jFile) continue;
      ahead.set(j, decodeField(g, j)!);
      await immediate();
    }
    const p = await given;
    if (p?.length === records) perm = p;
  }
  const orderGiven = perm !== undefined;
  if (!perm) {
    for (const [j, h] of decodeSortFields(g, sortCols)) ahead.set(j, h);
    perm = sortedOrder(job, sortCols, records, (c) => ahead.get(c.index)!);
  }
  const scanMs = Date.now() - started;
  // the input files are let go once the last field still to decode is: the output's compressed
  // chunks pile up towards the end of the write, where the run peaks
  let lastDecoded = -1;
  for (let j = 0; j < fields.length; j++) if (j !== jFile && !ahead.has(j)) lastDecoded = j;
  const letGo = () => {
    for (const b of g.inputs) b.bytes = new Uint8Array(0);
  };
  if (lastDecoded < 0) letGo();
  const files = await writeSorted(job, records, perm, (j) => {
    const h = ahead.get(j) ?? decodeField(g, j);
    ahead.delete(j);
    if (j === lastDecoded) letGo();
    return h;
  }, sink);
  const stats = emptyStats();
  stats.baseRecords = records;
  return { files, stats, path: 'packed', records, inputBytes: inputBytesOf(job), scanMs, orderGiven };
}
