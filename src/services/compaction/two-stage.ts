// One file group's packed merge on two threads (issue 6): the worker scans the logs and merges, this
// thread encodes, compresses and assembles the file. Each merged row group's packed columns are copied
// into a shared-memory slot and posted here; this thread hands them to the same packed writer the
// one-thread merge uses, so the bytes are the same (same groups, same order, same writer). Split by
// stage rather than by row group: shards would each scan the logs and hold the whole log map, which
// on two cores costs more CPU and memory than the encoding they would share (GZIP already runs on
// libuv's pool).
import type { MergeStats } from '../../merge/index.ts';
import { PackedColumn, PackedUnsupported } from '../../parquet/packed.ts';
import { DEFAULT_ROW_GROUP_ROWS } from '../../parquet/write-incremental.ts';
import { openHoodiePackedWriter, type BloomSeed, type HoodiePackedWriter, type VerbatimChunk } from '../../parquet/write-packed.ts';
import { prepareHoodieSchema } from '../../parquet/write.ts';
import type { Storage } from '../../storage/index.ts';
import { mergeInto, packedWriterOptions, prepareColumnar, type GroupWriter } from './columnar-merge.ts';
import { isCommittedBy, mergeToParquet, type MergeJob, type MergeOutput } from './merge-op.ts';

/** Where a column's bytes are in a slot (a SharedArrayBuffer both threads see). */
export interface SlotColumn {
  type: PackedColumn['type'];
  length: number;
  size: number;
  nullCount: number;
  data: number;
  /** -1 for fixed-width types (no offsets) */
  offsets: number;
  nulls: number;
}

/**
 * Copies the columns into `slot` (grown into a new buffer when too small): a memcpy of the used bytes
 * each, instead of moving the buffers to the other thread — moved buffers come back as new memory
 * (page faults, GC pressure from external allocations), which cost more than copying.
 */
function copyToSlot(columns: PackedColumn[], slot: SharedArrayBuffer | undefined): { sab: SharedArrayBuffer; layout: SlotColumn[] } {
  let need = 0;
  const layout = columns.map((c) => {
    const data = need;
    need += c.size;
    need = (need + 3) & ~3;
    const offsets = c.width ? -1 : need;
    if (!c.width) need += 4 * (c.length + 1);
    const nulls = need;
    need += c.length;
    need = (need + 3) & ~3;
    return { type: c.type, length: c.length, size: c.size, nullCount: c.nullCount, data, offsets, nulls };
  });
  const sab = slot && slot.byteLength >= need ? slot : new SharedArrayBuffer(Math.ceil(need * 1.25));
  const bytes = new Uint8Array(sab);
  for (const [j, c] of columns.entries()) {
    const l = layout[j]!;
    bytes.set(c.data.subarray(0, c.size), l.data);
    if (l.offsets >= 0) new Int32Array(sab, l.offsets, c.length + 1).set(c.offsets.subarray(0, c.length + 1));
    bytes.set(c.nulls.subarray(0, c.length), l.nulls);
  }
  return { sab, layout };
}

/** The columns as views of the slot (valid until the slot is given back). */
function columnsOfSlot(sab: SharedArrayBuffer, layout: SlotColumn[]): PackedColumn[] {
  return layout.map((l) => {
    const c = new PackedColumn(l.type, 0);
    Object.assign(c, {
      data: new Uint8Array(sab, l.data, l.size),
      offsets: l.offsets >= 0 ? new Int32Array(sab, l.offsets, l.length + 1) : new Int32Array(0),
      nulls: new Uint8Array(sab, l.nulls, l.length),
      length: l.length,
      size: l.size,
      nullCount: l.nullCount,
    });
    return c;
  });
}

/** Worker → this thread. */
export type StageMessage =
  /** the packed path runs: open the writer with this seed */
  | { start: { bloomSeed?: BloomSeed } }
  | { group: { seq: number; slot: number; sab: SharedArrayBuffer; layout: SlotColumn[]; verbatim?: (VerbatimChunk | undefined)[] } }
  | { finish: { stats: MergeStats; pendingPeak: number } };

/** This thread → worker: the group was encoded (its slot is free again), or compressed and appended. */
export type StageReply = { encoded: number } | { appended: number };

// ---- worker side ----

/**
 * The packed merge's writer in the worker: each group is copied into a free slot and posted to the
 * encoding thread; the promise settles when that thread has compressed and appended it (the merge's
 * backpressure is unchanged). The columns are the worker's again at once, as with the packed writer.
 */
function remoteWriter(job: MergeJob, rowGroupSize: number, constants: (Uint8Array | undefined)[], post: (m: StageMessage, transfer: ArrayBuffer[]) => void): GroupWriter & { onReply(r: StageReply): void } {
  const elements = prepareHoodieSchema(job.writerSchema).parquetSchema.slice(1);
  const waiting = new Map<number, () => void>();
  // slots: groups posted and not yet encoded hold theirs (at most the pending groups + 1)
  const slots: SharedArrayBuffer[] = [];
  const busy: boolean[] = [];
  let done: PackedColumn[] | undefined;
  let seq = 0;
  let rowCount = 0;
  let pending = 0;
  let pendingPeak = 0;
  return {
    groupRows: rowGroupSize,
    elements,
    get rowCount() {
      return rowCount;
    },
    get pendingPeak() {
      return pendingPeak;
    },
    writeGroup(columns, verbatim) {
      const n = columns.find((_, j) => !constants[j])?.length ?? 0;
      if (n === 0) return Promise.resolve();
      let k = busy.indexOf(false);
      if (k < 0) k = busy.push(false) - 1;
      const { sab, layout } = copyToSlot(columns, slots[k]);
      slots[k] = sab;
      busy[k] = true;
      // verbatim chunks are views of the base row group's read: only their bytes go
      const v = verbatim?.map((c) => (c ? { ...c, bytes: c.bytes.slice() } : undefined));
      const transfer = (v ?? []).flatMap((c) => (c ? [c.bytes.buffer as ArrayBuffer] : []));
      const s = seq++;
      post({ group: { seq: s, slot: k, sab, layout, verbatim: v } }, transfer);
      rowCount += n;
      done = columns;
      pendingPeak = Math.max(pendingPeak, ++pending);
      return new Promise<void>((resolve) => waiting.set(s, resolve));
    },
    recycle() {
      const c = done;
      done = undefined;
      c?.forEach((x) => x.reset());
      return c;
    },
    onReply(r) {
      if ('encoded' in r) busy[r.encoded] = false;
      else {
        pending--;
        waiting.get(r.appended)?.();
        waiting.delete(r.appended);
      }
    },
  };
}

/**
 * The worker's half: scan and merge, groups posted to the encoding thread; a file the packed path does
 * not take is merged whole here (row path) and returned as the one-thread worker returns it.
 */
export async function runMergeStage(
  storage: Storage,
  job: MergeJob,
  post: (m: StageMessage | { ok: MergeOutput }, transfer: ArrayBuffer[]) => void,
  onReply: (f: (r: StageReply) => void) => void,
): Promise<void> {
  const started = Date.now();
  try {
    const input = job.mergePath === 'rows' ? undefined : await prepareColumnar(storage, job, { config: job.config, isValidInstant: isCommittedBy(job.committed) });
    if (input) {
      post({ start: { bloomSeed: input.writerOpts.bloomSeed } }, []);
      const writer = remoteWriter(job, input.writerOpts.rowGroupSize ?? DEFAULT_ROW_GROUP_ROWS, input.writerOpts.constants ?? [], post);
      onReply((r) => writer.onReply(r));
      await mergeInto(writer, job, input);
      return post({ finish: { stats: input.stats, pendingPeak: writer.pendingPeak } }, []);
    }
  } catch (e) {
    // a page layout the packed reader does not take: the encoding thread drops what it has
    if (!(e instanceof PackedUnsupported)) throw e;
  }
  const out = await mergeToParquet(storage, { ...job, mergePath: 'rows' });
  const bytes = out.bytes.byteOffset === 0 && out.bytes.byteLength === out.bytes.buffer.byteLength ? out.bytes : new Uint8Array(out.bytes);
  post({ ok: { ...out, bytes, scanMs: Date.now() - started } }, [bytes.buffer as ArrayBuffer]);
}

// ---- this thread ----

/**
 * This thread's half: takes the worker's StageMessages, answers through `reply`; `done` gets the
 * merged file once the worker finished, `fail` the first error of this side (the writer's, as the
 * one-thread merge reports it).
 */
export function encodingStage(job: MergeJob, reply: (r: StageReply, transfer: ArrayBuffer[]) => void, done: (out: MergeOutput) => void, fail: (e: unknown) => void): (m: StageMessage) => void {
  const started = Date.now();
  let writer: HoodiePackedWriter | undefined;
  return (m) => {
    try {
      if ('start' in m) writer = openHoodiePackedWriter(packedWriterOptions(job, m.start.bloomSeed));
      else if ('group' in m) {
        const { seq, slot, sab, layout, verbatim } = m.group;
        const appended = writer!.writeGroup(columnsOfSlot(sab, layout), verbatim);
        // encoded now: the writer keeps copies of what it needs, the slot is the worker's again
        reply({ encoded: slot }, []);
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
