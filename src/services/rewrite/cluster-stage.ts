// A clustering group on two threads: the worker reads, sorts (a base-files group: the order comes
// from this thread, orderAhead) and gathers the output a field at a time (cluster-write.ts) into two
// shared buffers by turns; the thread that started it encodes,
// compresses and assembles the files (openHoodiePackedColumnWriter, the same bytes as one thread
// writes), reading each gathered field where it is and handing its buffer back once encoded —
// so the worker gathers the next field while this one is encoded. The worker also builds the bloom
// filters, in the time it waits for a buffer (cluster-write.ts BloomWork). The row path's files, and any
// error, come back as the one-thread worker returns them.
import { HoodieBloomFilter } from '../../parquet/bloom.ts';
import { columnOfWire, type PackedColumn, type WireColumn } from '../../parquet/packed.ts';
import type { GivenBloom, HoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import type { Storage } from '../../storage/index.ts';
import { baseFilesOnly, baseOrder } from './cluster-base.ts';
import type { ClusterJob, ClusterOutput } from './cluster-job.ts';
import { openFileWriter, type ColumnSink, type FileLayout } from './cluster-write.ts';
import { sortColumnsOf } from './sort-order.ts';
import type { Prefetch } from './worker-wire.ts';

/** Worker → the encoding thread. */
export type ClusterStageMessage =
  | { layout: FileLayout[] }
  | { column: { k: number; j: number; b: number; at: number; col: WireColumn; ids?: { ids: Int32Array; values: WireColumn; onlyIds?: boolean } } }
  /** file k's bloom filter, built by the worker while it waited (HoodieBloomFilter.toBytes) */
  | { bloom: { k: number; bytes: Uint8Array; type: string; keys: number } };

/** The encoding thread → worker: gather buffer b is free again; or the order of a base-files group (null: the worker computes it). */
export type ClusterStageReply = { released: number } | { order: Int32Array | null };

/** A column's fields as posted: shared buffers stay where they are, others are copied. */
function fieldsOf(c: PackedColumn): WireColumn {
  return { type: c.type, length: c.length, size: c.size, nullCount: c.nullCount, data: c.data, offsets: c.offsets, nulls: c.nulls };
}

/** The worker's sink: gathered fields posted to the encoding thread. */
export function remoteSink(post: (m: ClusterStageMessage) => void, onReply: (f: (r: ClusterStageReply) => void) => void): ColumnSink {
  const waiting = new Map<number, () => void>();
  onReply((r) => {
    if (!('released' in r)) return;
    waiting.get(r.released)?.();
    waiting.delete(r.released);
  });
  return {
    buffers: 2,
    shared: true,
    bloomHere: true,
    start(layout) {
      post({ layout });
    },
    bloom(k, { filter, keys }) {
      post({ bloom: { k, bytes: filter.toBytes(), type: filter.type, keys } });
    },
    put(k, j, b, g, at) {
      const released = new Promise<void>((resolve) => waiting.set(b, resolve));
      post({ column: { k, j, b, at, col: fieldsOf(g.col), ids: g.ids && { ids: g.ids.ids, values: fieldsOf(g.ids.values), onlyIds: g.ids.onlyIds } } });
      return { released, compressed: released };
    },
    finish: () => Promise.resolve(undefined),
  };
}

/**
 * The encoding thread's half: takes the worker's messages (`reply` answers it); `finish` completes
 * the worker's output with the files' bytes (unchanged when the worker wrote them itself: the row
 * path). Encoding errors reject there or through `fail`, whichever comes first.
 */
export function encodingSide(job: ClusterJob, reply: (r: ClusterStageReply) => void, fail: (e: unknown) => void): { onMessage(m: ClusterStageMessage): void; finish(out: ClusterOutput): Promise<ClusterOutput> } {
  let writers: HoodiePackedColumnWriter[] | undefined;
  const pending: Promise<void>[] = [];
  const blooms: GivenBloom[] = [];
  return {
    onMessage(m) {
      try {
        if ('layout' in m) {
          writers = m.layout.map((f) => openFileWriter(job, f, true));
          pending.length = 0;
          blooms.length = 0;
        } else if ('bloom' in m) {
          const { k, bytes, type, keys } = m.bloom;
          blooms[k] = { filter: HoodieBloomFilter.fromBytes(bytes, type), keys };
        } else {
          const { k, j, b, at, col, ids } = m.column;
          const p = writers![k]!.writeColumn(j, columnOfWire(col), ids && { ids: ids.ids, values: columnOfWire(ids.values), onlyIds: ids.onlyIds }, at);
          // encoded now: the buffer is the worker's again
          reply({ released: b });
          p.catch(fail);
          pending.push(p);
        }
      } catch (e) {
        fail(e);
      }
    },
    async finish(out) {
      if (!writers || out.path !== 'packed') return out;
      await Promise.all(pending);
      const files = [];
      for (const [k, f] of out.files.entries()) {
        const file = await writers[k]!.finish(blooms[k]);
        files.push({ ...f, parts: file.parts, size: file.size, rowCount: file.rowCount });
      }
      return { ...out, files };
    },
  };
}

/**
 * A base-files group's order, computed by the encoding thread while the worker starts up (it has
 * nothing to encode before the order is known): the base files are read here and sent to the worker
 * whole (`prefetch`) once their sort fields are decoded; `order` settles with the order for the
 * worker (cluster-base.ts baseOrder; undefined: the worker computes it, and raises any error).
 * Undefined for a group with log files.
 */
export function orderAhead(storage: Storage, job: ClusterJob): { prefetch: Prefetch[]; order: () => Promise<Int32Array | undefined> } | undefined {
  if (!baseFilesOnly(job)) return undefined;
  const handed = new Map<string, (b: Uint8Array | undefined) => void>();
  const prefetch = job.slices.map((s) => {
    const { path, size } = s.baseFile!;
    return { path, size, bytes: new Promise<Uint8Array | undefined>((resolve) => handed.set(path, resolve)) };
  });
  return {
    prefetch,
    order: async () => {
      try {
        return await baseOrder(storage, job, sortColumnsOf(job.writerSchema, job.sortColumns), (path, bytes) => handed.get(path)?.(bytes));
      } catch {
        return undefined;
      } finally {
        // the files not handed over: the worker asks for them
        for (const r of handed.values()) r(undefined);
      }
    },
  };
}
