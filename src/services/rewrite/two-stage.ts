// One file group's packed merge on two threads (issue 6): the worker scans the logs and merges, this
// thread reads and decodes the base row groups and encodes, compresses and assembles the new file.
// Decoded base row groups and merged row groups cross as columns in shared memory (PackedColumn with
// `shared`), read where they are: each side writes a column set again only once the other is done
// with it. The merged groups go to the same packed writer the one-thread merge uses, so the bytes are
// the same (same groups, same order, same writer). Split by stage rather than by row group: shards
// would each scan the logs and hold the whole log map, which on two cores costs more CPU and memory
// than the work they would share (GZIP already runs on libuv's pool).
import { TblError } from '../../errors/index.ts';
import type { MergeStats } from '../../merge/index.ts';
import { columnOfWire, PackedColumn, PackedUnsupported, wireColumn, type WireColumn } from '../../parquet/packed.ts';
import { readParquetMetadataFrom } from '../../parquet/read.ts';
import { DEFAULT_ROW_GROUP_ROWS } from '../../parquet/write-incremental.ts';
import { openHoodiePackedWriter, type BloomSeed, type HoodiePackedWriter, type VerbatimChunk } from '../../parquet/write-packed.ts';
import { prepareHoodieSchema } from '../../parquet/write.ts';
import { asyncBufferOf, type Storage } from '../../storage/index.ts';
import { baseGroupReader, columnarPlan, mergeInto, packedWriterOptions, prepareColumnar, type BaseGroup, type BaseSource, type GroupWriter } from './columnar-merge.ts';
import { isCommittedBy, mergeToParquet, type MergeJob, type MergeOutput } from './merge-op.ts';

/** A verbatim chunk of base row group `ref`, which this thread holds (the column is the one at its position). */
type VerbatimRef = { ref: number };

/** Worker → this thread. */
export type StageMessage =
  /** the packed path runs: open the writer with this seed */
  | { start: { bloomSeed?: BloomSeed } }
  | { group: { seq: number; set: number; columns: WireColumn[]; verbatim?: (VerbatimChunk | VerbatimRef | undefined)[] } }
  /** the worker is done with base row group `consumed` (its column set can be written again) */
  | { consumed: number }
  /** the worker has read the base footer, took the packed path and scans the logs */
  | { scanning: true }
  | { finish: { stats: MergeStats; pendingPeak: number } };

/** This thread → worker: a decoded base row group; a merged group's column set encoded (free again), or the group compressed and appended. */
export type StageReply = { base: { g: number; columns: (WireColumn | null)[] } } | { encoded: number } | { appended: number };

// ---- worker side ----

/**
 * The packed merge's writer in the worker: each group's columns (shared) are posted to the encoding
 * thread as they are; the promise settles when that thread has compressed and appended it (the
 * merge's backpressure is unchanged). A column set is handed back by recycle() only once the encoding
 * thread has encoded it; until then the merge fills another.
 */
function remoteWriter(job: MergeJob, rowGroupSize: number, constants: (Uint8Array | undefined)[], refs: WeakMap<VerbatimChunk, number>, post: (m: StageMessage, transfer: ArrayBuffer[]) => void): GroupWriter & { onReply(r: StageReply): void } {
  const elements = prepareHoodieSchema(job.writerSchema).parquetSchema.slice(1);
  const waiting = new Map<number, () => void>();
  // column sets: those posted and not yet encoded are busy (at most the pending groups + 1)
  const sets: PackedColumn[][] = [];
  const busy: boolean[] = [];
  let seq = 0;
  let rowCount = 0;
  let pending = 0;
  let pendingPeak = 0;
  return {
    groupRows: rowGroupSize,
    elements,
    sharedColumns: true,
    get rowCount() {
      return rowCount;
    },
    get pendingPeak() {
      return pendingPeak;
    },
    writeGroup(columns, verbatim) {
      const n = columns.find((_, j) => !constants[j])?.length ?? 0;
      if (n === 0) return Promise.resolve();
      let k = sets.indexOf(columns);
      if (k < 0) k = sets.push(columns) - 1;
      busy[k] = true;
      // chunks of a base row group the encoding thread holds go by reference
      const v = verbatim?.map((c) => (c ? (refs.has(c) ? { ref: refs.get(c)! } : { ...c, bytes: c.bytes.slice() }) : undefined));
      const transfer = (v ?? []).flatMap((c) => (c && 'bytes' in c ? [c.bytes.buffer as ArrayBuffer] : []));
      const s = seq++;
      post({ group: { seq: s, set: k, columns: columns.map(wireColumn), verbatim: v } }, transfer);
      rowCount += n;
      pendingPeak = Math.max(pendingPeak, ++pending);
      return new Promise<void>((resolve) => waiting.set(s, resolve));
    },
    recycle() {
      const k = busy.indexOf(false);
      if (k < 0) return undefined;
      busy[k] = true;
      const c = sets[k]!;
      c.forEach((x) => x.reset());
      return c;
    },
    onReply(r) {
      if ('encoded' in r) busy[r.encoded] = false;
      else if ('appended' in r) {
        pending--;
        waiting.get(r.appended)?.();
        waiting.delete(r.appended);
      }
    },
  };
}

/** Base row groups as the encoding thread decodes them (asked for in order; asking for g gives g - 1 back). */
function remoteBaseSource(post: (m: StageMessage, transfer: ArrayBuffer[]) => void): { source: BaseSource; refs: WeakMap<VerbatimChunk, number>; onBase(b: Extract<StageReply, { base: unknown }>['base']): void } {
  const arrived = new Map<number, Extract<StageReply, { base: unknown }>['base']>();
  const waiting = new Map<number, () => void>();
  const refs = new WeakMap<VerbatimChunk, number>();
  const none = new Uint8Array(0);
  return {
    refs,
    onBase(b) {
      arrived.set(b.g, b);
      waiting.get(b.g)?.();
      waiting.delete(b.g);
    },
    async source(g): Promise<BaseGroup> {
      if (g > 0) post({ consumed: g - 1 }, []);
      if (!arrived.has(g)) await new Promise<void>((resolve) => waiting.set(g, resolve));
      const b = arrived.get(g)!;
      arrived.delete(g);
      return {
        cols: b.columns.map((w) => (w ? columnOfWire(w) : undefined)),
        chunkOf: () => {
          const v = { bytes: none, begin: 0, meta: undefined as never };
          refs.set(v, g);
          return v;
        },
      };
    },
  };
}

/**
 * The worker's half: scan and merge, base row groups from the encoding thread, merged groups posted to
 * it; a file the packed path does not take is merged whole here (row path) and returned as the
 * one-thread worker returns it.
 */
export async function runMergeStage(
  storage: Storage,
  job: MergeJob,
  post: (m: StageMessage | { ok: MergeOutput }, transfer: ArrayBuffer[]) => void,
  onReply: (f: (r: StageReply) => void) => void,
): Promise<void> {
  const started = Date.now();
  const base = remoteBaseSource(post);
  let writer: ReturnType<typeof remoteWriter> | undefined;
  // base row groups come from the start (decoded while the logs are scanned)
  onReply((r) => ('base' in r ? base.onBase(r.base) : writer?.onReply(r)));
  try {
    const input = job.mergePath === 'rows' ? undefined : await prepareColumnar(storage, job, { config: job.config, isValidInstant: isCommittedBy(job.committed), exact: true }, () => post({ scanning: true }, []));
    if (input) {
      post({ start: { bloomSeed: input.writerOpts.bloomSeed } }, []);
      writer = remoteWriter(job, input.writerOpts.rowGroupSize ?? DEFAULT_ROW_GROUP_ROWS, input.writerOpts.constants ?? [], base.refs, post);
      await mergeInto(writer, job, input, base.source);
      return post({ finish: { stats: input.stats, pendingPeak: writer.pendingPeak } }, []);
    }
  } catch (e) {
    if (!(e instanceof PackedUnsupported)) throw e;
  }
  const out = await mergeToParquet(storage, { ...job, mergePath: 'rows' });
  const bytes = out.bytes.byteOffset === 0 && out.bytes.byteLength === out.bytes.buffer.byteLength ? out.bytes : new Uint8Array(out.bytes);
  post({ ok: { ...out, bytes, scanMs: Date.now() - started } }, [bytes.buffer as ArrayBuffer]);
}

// ---- this thread ----

/**
 * Reads and decodes the base row groups in order into two shared column sets, each written again once
 * the worker has given it back; verbatim chunks of a row group stay here until the worker is done with
 * it. A base file the packed path does not take sends nothing (the worker merges it whole).
 */
function baseStage(storage: Storage, job: MergeJob, reply: (r: StageReply, transfer: ArrayBuffer[]) => void, fail: (e: unknown) => void) {
  const chunkOfs = new Map<number, (j: number) => VerbatimChunk>();
  const given = new Map<number, () => void>();
  let consumed = -1;
  // both threads decide the packed path from the same footer; should they disagree (the file changed
  // between the two reads) the worker would wait for base row groups forever: fail instead
  let declined = false;
  let packed = false;
  const disagree = (): void => {
    if (declined && packed) fail(new TblError('parquet', `base file ${job.baseFile?.path} changed while it was being compacted`, { path: job.baseFile?.path }));
  };
  let scanStarted!: () => void;
  const workerScanning = new Promise<void>((resolve) => (scanStarted = resolve));
  const run = async (): Promise<void> => {
    if (!job.baseFile || job.mergePath === 'rows') return;
    // not before the worker has read the footer too and scans: this thread's decoding would hold
    // up the worker's footer reads, which go through its event loop (~70 ms on the bench)
    await workerScanning;
    const { path, size } = job.baseFile;
    const file = asyncBufferOf(storage, path, size);
    const info = await readParquetMetadataFrom(file, path);
    const plan = columnarPlan(job, info.metadata);
    if (!plan) {
      declined = true;
      return disagree();
    }
    // group g is decoded into column set g % 2, free once the worker is done with g - 2
    const read = baseGroupReader({ plan, info, file }, path, { sets: 2, shared: true });
    for (let g = 0; g < info.metadata.row_groups.length; g++) {
      if (consumed < g - 2) await new Promise<void>((resolve) => given.set(g - 2, resolve));
      const b = await read(g);
      chunkOfs.set(g, b.chunkOf);
      reply({ base: { g, columns: b.cols.map((c) => (c ? wireColumn(c) : null)) } }, []);
    }
  };
  run().catch((e: unknown) => fail(e));
  return {
    /** the worker has read the footer and scans the logs (its `scanning` message) */
    scanning: () => scanStarted(),
    /** the worker took the packed path (its `start` message) */
    started(): void {
      packed = true;
      disagree();
    },
    chunkOf: (g: number, j: number): VerbatimChunk => chunkOfs.get(g)!(j),
    consumed(g: number): void {
      consumed = g;
      chunkOfs.delete(g);
      given.get(g)?.();
      given.delete(g);
    },
  };
}

/**
 * This thread's half: decodes the base row groups for the worker and takes its StageMessages,
 * answering through `reply`; `done` gets the merged file once the worker finished, `fail` the first
 * error of this side (a base page's or the writer's, as the one-thread merge reports it; with faults on
 * both sides the base page's may come first, since base row groups are decoded ahead of the merge).
 */
export function encodingStage(storage: Storage, job: MergeJob, reply: (r: StageReply, transfer: ArrayBuffer[]) => void, done: (out: MergeOutput) => void, fail: (e: unknown) => void): (m: StageMessage) => void {
  const started = Date.now();
  const base = baseStage(storage, job, reply, fail);
  let writer: HoodiePackedWriter | undefined;
  return (m) => {
    try {
      if ('start' in m) {
        writer = openHoodiePackedWriter(packedWriterOptions(job, m.start.bloomSeed));
        base.started();
      }
      else if ('consumed' in m) base.consumed(m.consumed);
      else if ('scanning' in m) base.scanning();
      else if ('group' in m) {
        const { seq, set, columns, verbatim } = m.group;
        const v = verbatim?.map((c, j) => (c && 'ref' in c ? base.chunkOf(c.ref, j) : c));
        const appended = writer!.writeGroup(columns.map(columnOfWire), v);
        // encoded now: the writer keeps copies of what it needs, the column set is the worker's again
        reply({ encoded: set }, []);
        appended.then(() => reply({ appended: seq }, []), fail);
      } else {
        const { stats, pendingPeak } = m.finish;
        writer!.finish().then((f) => done({ bytes: f.bytes, rowCount: f.rowCount, stats, scanMs: Date.now() - started, path: 'packed', pendingPeak, threads: 2 }), fail);
      }
    } catch (e) {
      fail(e);
    }
  };
}
