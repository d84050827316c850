// mergeToParquet without row objects, for the common case (issue 6 throughput): the base file is read
// one row group at a time into packed columns (packed.ts: every value a byte span, strings never
// decoded), each base row's record-key bytes are looked up in the log map (its keys are bytes) to decide
// whether a log record replaces or deletes it (only those rows' ordering values are decoded), and the
// new row groups are built by copying runs of base values and appending the log records — straight
// from their Avro bytes when the block schema is flat (avro-packed.ts). The packed writer encodes the
// pages; the file name is a constant column; the base footer's bloom filter seeds the new one when
// every base key stays. Rows, their order, meta fields, row-group boundaries, statistics and footer
// keys are those of the row path (mergeSliceStreaming + the row writer), which stays the reference
// and the fallback for anything this path does not take (nested or evolved columns, decimals, dates
// as keys/ordering, encodings other than PLAIN/dictionary, no base file).
import { parquetSchema, type AsyncBuffer, type ColumnChunk, type FileMetaData, type RowGroup, type SchemaElement } from 'hyparquet';
import { javaClassOf, logReplacesBase, NATURAL, recordKeyOf, scanLogMap, type LogIndex, type MergeOptions, type MergeStats, type Ordering, type Row } from '../../merge/index.ts';
import { compressors, readParquetMetadataFrom, type ParquetFileInfo } from '../../parquet/read.ts';
import { chunkSpan, PackedColumn, PackedUnsupported, packedReadable, readPackedChunkBytes } from '../../parquet/packed.ts';
import { avroToParquetSchema, fieldConverter, FOOTER_BLOOM_FILTER, FOOTER_BLOOM_TYPE_CODE, prepareHoodieSchema } from '../../parquet/write.ts';
import { openHoodiePackedWriter, verbatimFits, type BloomSeed, type HoodiePackedWriter, type PackedWriterOptions, type VerbatimChunk } from '../../parquet/write-packed.ts';
import { HoodieBloomFilter } from '../../parquet/bloom.ts';
import { TblError } from '../../errors/index.ts';
import { asyncBufferOf, type Storage } from '../../storage/index.ts';
import { fixUpMergedRow, type MergeJob } from './merge-op.ts';
import { appendAvroRecord, avroPackedPlan, SKIP, type AvroPackedPlan } from './avro-packed.ts';

const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * Output row groups compressing (libuv's pool) while the merge goes on: more and the merge waits at its
 * next flush point. A Hudi base row group (~1M rows) spans many output groups; without the wait their
 * pages and compressed outputs would all be held until the base group ends.
 */
export const MAX_PENDING_GROUPS = 2;

interface FieldPlan {
  name: string;
  element: SchemaElement;
  /** the base file has this column (else every base row holds null, as the row path reads it) */
  inBase: boolean;
  convert: (v: unknown) => unknown;
}

/** Converted/logical types whose physical values both paths write unchanged. */
const PLAIN_CONVERTED = new Set([undefined, 'UTF8', 'ENUM', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS', 'DATE']);
const PLAIN_LOGICAL = new Set([undefined, 'STRING', 'ENUM', 'TIMESTAMP', 'DATE']);
const PACKED_TYPES = new Set(['BOOLEAN', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY']);

function sameColumn(w: SchemaElement, b: SchemaElement): boolean {
  if (w.num_children || b.num_children || !PACKED_TYPES.has(w.type!)) return false;
  if (w.type !== b.type || w.type_length !== b.type_length || w.converted_type !== b.converted_type) return false;
  const wl = w.logical_type;
  const bl = b.logical_type;
  if (wl?.type !== bl?.type) return false;
  if (wl?.type === 'TIMESTAMP' && bl?.type === 'TIMESTAMP' && (wl.unit !== bl.unit || wl.isAdjustedToUTC !== bl.isAdjustedToUTC)) return false;
  return PLAIN_CONVERTED.has(w.converted_type) && PLAIN_LOGICAL.has(wl?.type);
}

/** The per-field plan, or undefined when the base file's columns need the row path. */
export function columnarPlan(job: MergeJob, base: FileMetaData): FieldPlan[] | undefined {
  const written = avroToParquetSchema(job.writerSchema).slice(1);
  if (written.length !== job.writerSchema.fields.length) return undefined; // nested fields
  const inBase = new Map<string, { element: SchemaElement; index: number }>();
  const children = parquetSchema(base).children;
  let leaf = 0;
  for (const c of children) {
    // leaf = the column chunk index of a flat top-level column
    if (c.children.length) return undefined;
    inBase.set(c.element.name, { element: c.element, index: leaf++ });
  }
  const p = prepareHoodieSchema(job.writerSchema);
  const plan: FieldPlan[] = [];
  for (const [j, f] of job.writerSchema.fields.entries()) {
    const w = written[j]!;
    const b = inBase.get(f.name);
    if (b ? !sameColumn(w, b.element) : w.repetition_type === 'REQUIRED' || !sameColumn(w, w)) return undefined;
    if (b) for (const rg of base.row_groups) if (!packedReadable(rg.columns[b.index]!, b.element)) return undefined;
    plan.push({ name: f.name, element: b ? { ...w, repetition_type: b.element.repetition_type } : w, inBase: b !== undefined, convert: fieldConverter(p, f) });
  }
  // keys and ordering values are compared as the row reader gives them: no dates (Date there, days here)
  const { config } = job;
  for (const name of [...config.recordKeyFields, ...config.orderingFields, '_hoodie_record_key']) {
    const j = plan.findIndex((f) => f.name === name);
    if (j < 0 || !plan[j]!.inBase || written[j]!.converted_type === 'DATE' || written[j]!.logical_type?.type === 'DATE') return undefined;
  }
  return plan;
}

/** The bytes of these column chunks in one read; each chunk's bytes are a view of it. */
async function readSpan(file: AsyncBuffer, chunks: (ColumnChunk | undefined)[]): Promise<(c: ColumnChunk) => Uint8Array> {
  let from = Infinity;
  let to = 0;
  for (const c of chunks) {
    if (!c?.meta_data) continue;
    const { begin, end } = chunkSpan(c);
    from = Math.min(from, begin);
    to = Math.max(to, end);
  }
  const span = to > from ? new Uint8Array(await file.slice(from, to)) : new Uint8Array(0);
  return (c) => {
    const { begin, end } = chunkSpan(c);
    return span.subarray(begin - from, end - from);
  };
}

function sameBytes(a: PackedColumn, i: number, b: PackedColumn, k: number): boolean {
  const as = a.start(i);
  const bs = b.start(k);
  const n = a.end(i) - as;
  if (n !== b.end(k) - bs || a.nulls[i] || b.nulls[k]) return false;
  for (let x = 0; x < n; x++) if (a.data[as + x] !== b.data[bs + x]) return false;
  return true;
}

/**
 * A failure inside the packed decoders (a plain Error from a corrupt page or record) as the row path
 * reports it: one line, with a kind and the file. TblErrors and the PackedUnsupported fallback signal
 * pass through unchanged.
 */
export function inputError(e: unknown, kind: 'parquet' | 'logfile', path: string, what: string, key?: string): unknown {
  if (e instanceof TblError || e instanceof PackedUnsupported) return e;
  const m = String((e as Error)?.message ?? e).replace(/\s*\n\s*/g, ' ');
  return new TblError(kind, `${what} ${path}: ${m}`, { path, key, cause: e });
}

/**
 * The storage as scanLogMap sees it, remembering which file each read range came from: a log
 * record's Avro bytes are a view of such a range, so a record that fails to decode names its file.
 */
function rememberingReads(storage: Storage, owners: WeakMap<Uint8Array, string>): Storage {
  const readRange = async (path: string, offset: number, length: number): Promise<Uint8Array> => {
    const b = await storage.readRange(path, offset, length);
    owners.set(b, path);
    return b;
  };
  return new Proxy(storage, {
    get(t, k) {
      if (k === 'readRange') return readRange;
      const v = Reflect.get(t, k, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

const scratch = new DataView(new ArrayBuffer(8));
const scratchBytes = new Uint8Array(scratch.buffer);

/** Appends a value as the row writer takes it (after the field converter) to a packed column. */
function appendValue(col: PackedColumn, v: unknown, f: FieldPlan): void {
  if (v === null || v === undefined) return col.appendNull();
  switch (col.type) {
    case 'BYTE_ARRAY':
      if (typeof v === 'string') return col.appendString(v);
      if (v instanceof Uint8Array) return col.appendBytes(v);
      break;
    case 'INT32':
      if (typeof v === 'number' && Number.isInteger(v)) {
        scratch.setInt32(0, v, true);
        return col.appendBytes(scratchBytes, 0, 4);
      }
      break;
    case 'INT64':
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) {
        scratch.setBigInt64(0, BigInt(v), true);
        return col.appendBytes(scratchBytes, 0, 8);
      }
      break;
    case 'FLOAT':
      if (typeof v === 'number') {
        scratch.setFloat32(0, v, true);
        return col.appendBytes(scratchBytes, 0, 4);
      }
      break;
    case 'DOUBLE':
      if (typeof v === 'number') {
        scratch.setFloat64(0, v, true);
        return col.appendBytes(scratchBytes, 0, 8);
      }
      break;
    case 'BOOLEAN':
      if (typeof v === 'boolean') {
        scratchBytes[0] = v ? 1 : 0;
        return col.appendBytes(scratchBytes, 0, 1);
      }
      break;
  }
  throw new TblError('parquet', `field ${f.name}: ${typeof v} value ${String(v)} does not fit its ${col.type} column`);
}

/** Value i of a packed column as the row reader gives it (strings decoded, INT64 as bigint). */
function rowValue(col: PackedColumn | undefined, i: number): unknown {
  if (!col || col.nulls[i]) return null;
  const s = col.start(i);
  const dv = col.view();
  switch (col.type) {
    case 'BYTE_ARRAY':
      return text.decode(col.data.subarray(s, col.end(i)));
    case 'INT32':
      return dv.getInt32(s, true);
    case 'INT64':
      return dv.getBigInt64(s, true);
    case 'FLOAT':
      return dv.getFloat32(s, true);
    case 'DOUBLE':
      return dv.getFloat64(s, true);
    default:
      return col.data[s] === 1;
  }
}

/**
 * The base file's footer bloom filter as the seed of the new file's, when the new file starts with
 * exactly the base file's keys in order: meta keys populated and never null, no delete in the log map
 * (so no base row is dropped; updated rows keep their key), and the footer filter resumes as a fresh
 * filter after that many keys (same type, sizes and counts).
 */
function bloomSeedOf(job: MergeJob, info: ParquetFileInfo, plan: FieldPlan[], index: LogIndex): BloomSeed | undefined {
  if (!job.config.populateMetaFields) return undefined;
  const serialized = info.keyValue[FOOTER_BLOOM_FILTER];
  if (!serialized) return undefined;
  for (let id = 0; id < index.size; id++) if (index.deleted(id)) return undefined;
  const keyChunk = parquetSchema(info.metadata).children.findIndex((c) => c.element.name === '_hoodie_record_key');
  if (keyChunk < 0 || plan.every((f) => f.name !== '_hoodie_record_key')) return undefined;
  for (const rg of info.metadata.row_groups) if (rg.columns[keyChunk]?.meta_data?.statistics?.null_count !== 0n) return undefined;
  const typeCode = info.keyValue[FOOTER_BLOOM_TYPE_CODE];
  if (!HoodieBloomFilter.resume(serialized, typeCode, info.numRows)) return undefined;
  return { serialized, typeCode, rows: info.numRows };
}

/** What a packed merge needs once the base footer is read and the logs are scanned. */
export interface ColumnarInput {
  info: ParquetFileInfo;
  file: AsyncBuffer;
  plan: FieldPlan[];
  index: LogIndex;
  /** the log scan's stats; the merge adds the base/updated/deleted counts */
  stats: MergeStats;
  /** the packed writer's options (the bloom seed is decided from the footer and the log map) */
  writerOpts: PackedWriterOptions;
  logPathOf: (content: Uint8Array) => string;
}

/** The packed writer's options for a job given its bloom seed (a writer on another thread opens the same). */
export function packedWriterOptions(job: MergeJob, bloomSeed: BloomSeed | undefined): PackedWriterOptions {
  // every row of the new file names it: a constant column the merge never fills
  const fileNameBytes = new TextEncoder().encode(job.fileName);
  const constants = job.writerSchema.fields.map((f) => (f.name === '_hoodie_file_name' ? fileNameBytes : undefined));
  return { schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize, bloomSeed, constants };
}

/**
 * Reads the base footer and scans the logs (`scanning` called before the scan); undefined when the
 * base file's columns need the row path.
 */
export async function prepareColumnar(storage: Storage, job: MergeJob, opts: MergeOptions, scanning?: () => void): Promise<ColumnarInput | undefined> {
  if (!job.baseFile) return undefined;
  const { path, size } = job.baseFile;
  const file = asyncBufferOf(storage, path, size);
  const info = await readParquetMetadataFrom(file, path);
  const plan = columnarPlan(job, info.metadata);
  if (!plan) return undefined;
  const owners = new WeakMap<Uint8Array, string>();
  scanning?.();
  const { index, stats } = await scanLogMap(rememberingReads(storage, owners), job.logFiles, opts);
  const logPathOf = (content: Uint8Array) => owners.get(content) ?? job.logFiles.map((l) => l.path).join(', ');
  return { info, file, plan, index, stats, writerOpts: packedWriterOptions(job, bloomSeedOf(job, info, plan, index)), logPathOf };
}

/** A base row group ready to merge: its columns by plan position (undefined: not read) and chunk j as the base file has it. */
export interface BaseGroup {
  cols: (PackedColumn | undefined)[];
  chunkOf(j: number): VerbatimChunk;
}

/** Base row group g, decoded; asked for in file order. */
export type BaseSource = (g: number) => Promise<BaseGroup>;

/** The plan's columns read from the base file: those it has, but the file name (a constant of the new file). */
export function baseColumnsRead(plan: FieldPlan[]): boolean[] {
  return plan.map((f) => f.inBase && f.name !== '_hoodie_file_name');
}

/**
 * Reads and decodes the base row groups in order: one read per row group (its column chunks are
 * adjacent), the next one read while this one merges; group g decoded into column set g % sets (its
 * buffers reused: a group's columns stay valid until `sets` groups later), shared for another thread.
 */
export function baseGroupReader(input: Pick<ColumnarInput, 'plan' | 'info' | 'file'>, path: string, opts: { sets?: number; shared?: boolean } = {}): BaseSource {
  const { plan, info, file } = input;
  const read = baseColumnsRead(plan);
  const chunkIndex = new Map(parquetSchema(info.metadata).children.map((c, i) => [c.element.name, i]));
  const sets = Array.from({ length: opts.sets ?? 1 }, () => plan.map((f, j) => (read[j] ? new PackedColumn(f.element.type!, 1024, 0, opts.shared) : undefined)));
  const chunksOf = (rg: RowGroup) => plan.map((f, j) => (read[j] ? rg.columns[chunkIndex.get(f.name)!]! : undefined));
  const groups = info.metadata.row_groups;
  const prefetch = (g: number) => (g < groups.length ? readSpan(file, chunksOf(groups[g]!)) : undefined);
  let next = prefetch(0);
  return async (g) => {
    const bytes = await next!;
    next = prefetch(g + 1);
    next?.catch(() => undefined);
    const rg = groups[g]!;
    const n = Number(rg.num_rows);
    const chunks = chunksOf(rg);
    const cols = sets[g % sets.length]!;
    for (const [j, f] of plan.entries()) {
      const col = cols[j];
      if (!col) continue;
      col.reset();
      try {
        readPackedChunkBytes(bytes(chunks[j]!), chunks[j]!, f.element, compressors, col);
      } catch (e) {
        throw inputError(e, 'parquet', path, `cannot read parquet rows (column ${f.name}, row group ${g}) of`);
      }
      if (col.length !== n) throw new TblError('parquet', `column ${f.name} of ${path} has ${col.length} values in a row group of ${n} rows`, { path });
    }
    return { cols, chunkOf: (j) => ({ bytes: bytes(chunks[j]!), begin: chunkSpan(chunks[j]!).begin, meta: chunks[j]!.meta_data! }) };
  };
}

export async function mergeColumnar(storage: Storage, job: MergeJob, opts: MergeOptions): Promise<{ bytes: Uint8Array; rowCount: number; stats: MergeStats; pendingPeak: number } | undefined> {
  const input = await prepareColumnar(storage, job, opts);
  if (!input) return undefined;
  const writer = openHoodiePackedWriter(input.writerOpts);
  await mergeInto(writer, job, input);
  const f = await writer.finish();
  return { bytes: f.bytes, rowCount: f.rowCount, stats: input.stats, pendingPeak: writer.pendingPeak };
}

/**
 * Where mergeInto's row groups go: the packed writer, or a writer encoding them on another thread
 * (two-stage.ts), which reads them where they are when they are `sharedColumns`.
 */
export type GroupWriter = Omit<HoodiePackedWriter, 'finish'> & { readonly sharedColumns?: boolean };

/**
 * Merges every base row group and then the log inserts into `writer` (its groups all appended on
 * return); base row groups from `source` (default: read and decoded here).
 */
export async function mergeInto(writer: GroupWriter, job: MergeJob, input: ColumnarInput, source?: BaseSource): Promise<void> {
  const { plan, info, index, stats, logPathOf } = input;
  const seeded = input.writerOpts.bloomSeed !== undefined;
  const { config } = job;
  const { path } = job.baseFile!;
  const J = plan.length;
  // the writer hands back the columns of an encoded group for reuse (no fresh large buffers per group)
  let out = plan.map((f) => new PackedColumn(f.element.type!, writer.groupRows, 0, writer.sharedColumns));
  let outRows = 0;
  // row groups being compressed (libuv's pool) while the next one is merged
  const inFlight: Promise<void>[] = [];
  // the output row group that is exactly a base row group (same rows, in order, none dropped): its
  // columns that no log record changed are written from the base file's chunks as they are
  let verbatim: { chunkOf: (j: number) => VerbatimChunk; candidates: Set<number>; dropped: boolean } | undefined;
  const flush = (): void => {
    if (outRows === 0) return;
    const v = verbatim && !verbatim.dropped && outRows === writer.groupRows && verbatim.candidates.size > 0 ? plan.map((_, j) => (verbatim!.candidates.has(j) ? verbatim!.chunkOf(j) : undefined)) : undefined;
    verbatim = undefined;
    const done = writer.writeGroup(out, v);
    done.catch(() => undefined);
    inFlight.push(done);
    out = writer.recycle() ?? out.map((c) => new PackedColumn(c.type, writer.groupRows, c.size, c.shared));
    outRows = 0;
  };
  const settle = async (keep: number): Promise<void> => {
    while (inFlight.length > keep) await inFlight.shift();
  };
  // the merge loop's flush points: wait (letting compressions finish) only when too many are pending
  const tooMany = (): boolean => inFlight.length > MAX_PENDING_GROUPS;
  const at = (name: string) => plan.findIndex((f) => f.name === name);
  const jCommit = at('_hoodie_commit_time');
  const jSeq = at('_hoodie_commit_seqno');
  const jKey = at('_hoodie_record_key');
  const jPart = at('_hoodie_partition_path');
  const jFile = at('_hoodie_file_name');
  const instantBytes = utf8.encode(job.instant);
  const partitionBytes = utf8.encode(job.partition);
  const written = () => writer.rowCount + outRows;
  const keyFields = [jKey, ...config.recordKeyFields.map(at)];
  const ordering: { values: unknown[]; classes: Ordering['classes'] } = { values: [], classes: [] };
  const orderingFields = config.orderingFields.map(at);

  // a log record through the row path's fix-ups and converters
  const appendRow = (row: Row, key: string): void => {
    fixUpMergedRow(row, key, written(), job);
    for (let j = 0; j < J; j++) if (j !== jFile) appendValue(out[j]!, plan[j]!.convert(row[plan[j]!.name]), plan[j]!);
  };
  const rowDone = (): void => {
    if (++outRows === writer.groupRows) flush();
  };
  // a log record from its Avro bytes when its block schema allows (the same values, no decoded object)
  const names = plan.map((f) => f.name);
  const types = plan.map((f) => f.element.type!);
  const avroPlans = new Map<string, AvroPackedPlan | undefined>();
  let emitting = -1;
  const defaults: (Uint8Array | (() => Uint8Array) | undefined)[] = plan.map(() => undefined);
  if (jCommit >= 0) defaults[jCommit] = instantBytes;
  if (jPart >= 0) defaults[jPart] = partitionBytes;
  if (jSeq >= 0) defaults[jSeq] = () => utf8.encode(`${job.instant}_${job.index}_${written()}`);
  if (jKey >= 0) defaults[jKey] = () => index.keyUtf8(emitting);
  const fixed: (Uint8Array | undefined)[] = plan.map((_, j) => (j === jFile ? SKIP : undefined));
  /** Appends a log record's values (the row is counted by rowDone). */
  const appendLog = (id: number): void => {
    const a = index.avroBytes(id);
    if (a) {
      let p = avroPlans.get(a.schema);
      if (!avroPlans.has(a.schema)) avroPlans.set(a.schema, (p = avroPackedPlan(a.schema, names, types)));
      if (p) {
        emitting = id;
        try {
          appendAvroRecord(p, a.content, a.start, a.end, out, defaults, fixed);
        } catch (e) {
          const key = index.key(id);
          throw inputError(e, 'logfile', logPathOf(a.content), `cannot decode log record ${key} of`, key);
        }
        return;
      }
    }
    appendRow(index.record(id)!, index.key(id));
  };

  const chunkIndex = new Map(parquetSchema(info.metadata).children.map((c, i) => [c.element.name, i]));
  const baseElements = new Map(parquetSchema(info.metadata).children.map((c) => [c.element.name, c.element]));
  const read = baseColumnsRead(plan);
  const chunksOf = (rg: RowGroup) => plan.map((f, j) => (read[j] ? rg.columns[chunkIndex.get(f.name)!]! : undefined));
  const groups = info.metadata.row_groups;
  const baseGroup = source ?? baseGroupReader(input, path);
  for (const [g, rg] of groups.entries()) {
    await settle(1);
    const base = await baseGroup(g);
    const cols = base.cols;
    const n = Number(rg.num_rows);
    const chunks = chunksOf(rg);
    stats.baseRecords += n;
    const metaKeys = cols[jKey]!;
    verbatim = undefined;
    if (outRows === 0 && n === writer.groupRows) {
      const candidates = new Set<number>();
      for (const [j, f] of plan.entries()) {
        const chunk = chunks[j];
        // commit time and seqno change with every update; meta columns with nulls take defaults
        if (!chunk?.meta_data || j === jCommit || j === jSeq || ((j === jKey || j === jPart) && cols[j]!.nullCount > 0)) continue;
        if (verbatimFits(chunk.meta_data, baseElements.get(f.name)!, writer.elements[j]!, job.codec)) candidates.add(j);
      }
      verbatim = { candidates, dropped: false, chunkOf: base.chunkOf };
    }
    // baseOrderingOf(the base row) in one reused object: logReplacesBase only reads it
    const baseOrdering = (i: number): Ordering => {
      if (orderingFields.length === 0) return NATURAL;
      for (let k = 0; k < orderingFields.length; k++) {
        const v = rowValue(cols[orderingFields[k]!], i);
        ordering.values[k] = v;
        ordering.classes[k] = javaClassOf(v);
      }
      return ordering;
    };
    const baseRow = (i: number, js: number[]): Row => {
      const r: Row = {};
      for (const j of js) r[plan[j]!.name] = rowValue(cols[j], i);
      return r;
    };
    // a base row's merge key when its meta key cannot serve (absent, or meta fields not populated)
    const mergeKeyOf = (i: number): string => recordKeyOf(baseRow(i, keyFields), config);

    // copies base rows [from, to) to the output, with the meta defaults the row path applies, until
    // they end or the output group fills (and is flushed): returns where it stopped
    const copySome = (from: number, to: number): number => {
      {
        const take = Math.min(to - from, writer.groupRows - outRows);
        const first = written();
        for (let j = 0; j < J; j++) {
          const src = cols[j];
          const dst = out[j]!;
          if (j === jFile) continue;
          if (!src) {
            for (let i = 0; i < take; i++) dst.appendNull();
          } else if ((j === jCommit || j === jPart || j === jSeq || j === jKey) && src.nullsIn(from, from + take) > 0) {
            for (let i = 0; i < take; i++) {
              const r = from + i;
              if (!src.nulls[r]) dst.appendFrom(src, r);
              else if (j === jCommit) dst.appendBytes(instantBytes);
              else if (j === jPart) dst.appendBytes(partitionBytes);
              else if (j === jSeq) dst.appendBytes(utf8.encode(`${job.instant}_${job.index}_${first + i}`));
              else dst.appendBytes(utf8.encode(mergeKeyOf(r)));
            }
          } else dst.appendRange(src, from, from + take);
        }
        outRows += take;
        if (outRows === writer.groupRows) flush();
        return from + take;
      }
    };

    let run = 0;
    const byMeta = config.populateMetaFields;
    for (let i = 0; i < n; i++) {
      const id = byMeta && !metaKeys.nulls[i] ? index.find(metaKeys.data, metaKeys.view(), metaKeys.start(i), metaKeys.end(i)) : index.findKey(mergeKeyOf(i));
      if (id < 0) continue;
      index.matched[id] = 1;
      const deleted = index.deleted(id);
      if (!logReplacesBase(baseOrdering(i), deleted, index.ordering(id), config)) continue;
      // row i leaves the base run: the run so far goes out, then the log record (or nothing)
      while (run < i) {
        run = copySome(run, i);
        if (tooMany()) await settle(MAX_PENDING_GROUPS);
      }
      run = i + 1;
      if (deleted) {
        stats.totalDeletedRecords += 1;
        if (verbatim) verbatim.dropped = true;
      } else {
        stats.totalUpdatedRecordsCompacted += 1;
        const at = out[jKey]!.length;
        appendLog(id);
        // a seeded bloom filter counts on updated rows keeping the base row's key
        if (seeded && !sameBytes(out[jKey]!, at, metaKeys, i)) throw new TblError('bug', `record ${index.key(id)} was rewritten under another key`, { key: index.key(id) });
        if (verbatim) for (const j of verbatim.candidates) if (!sameBytes(out[j]!, at, cols[j]!, i)) verbatim.candidates.delete(j);
        rowDone();
        if (tooMany()) await settle(MAX_PENDING_GROUPS);
      }
    }
    while (run < n) {
      run = copySome(run, n);
      if (tooMany()) await settle(MAX_PENDING_GROUPS);
    }
  }
  for (let id = 0; id < index.size; id++) {
    if (index.matched[id] || index.deleted(id)) continue;
    appendLog(id);
    rowDone();
    if (tooMany()) await settle(MAX_PENDING_GROUPS);
  }
  flush();
  await settle(0);
}
