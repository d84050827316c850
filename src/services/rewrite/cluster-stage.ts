// A clustering group on two threads: the worker reads, sorts and gathers the output a field at a
// time (cluster-write.ts) into two shared buffers by turns; the thread that started it encodes,
// compresses and assembles the files (openHoodiePackedColumnWriter, the same bytes as one thread
// writes), reading each gathered field where it is and handing its buffer back once encoded —
// so the worker gathers the next field while this one is encoded. The worker also builds the bloom
// filters, in the time it waits for a buffer (cluster-write.ts BloomWork). The row path's files, and any
// error, come back as the one-thread worker returns them.
import { HoodieBloomFilter } from '../../parquet/bloom.ts';
import { columnOfWire, type PackedColumn, type WireColumn } from '../../parquet/packed.ts';
import type { GivenBloom, HoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import type { ClusterJob, ClusterOutput } from './cluster-job.ts';
import { openFileWriter, type ColumnSink, type FileLayout } from './cluster-write.ts';

/** Worker → the encoding thread. */
export type ClusterStageMessage =
  | { layout: FileLayout[] }
  | { column: { k: number; j: number; b: number; at: number; col: WireColumn; ids?: { ids: Int32Array; values: WireColumn } } }
  /** file k's bloom filter, built by the worker while it waited (HoodieBloomFilter.toBytes) */
  | { bloom: { k: number; bytes: Uint8Array; type: string; keys: number } };

/** The encoding thread → worker: gather buffer b is free again. */
export type ClusterStageReply = { released: number };

/** A column's fields as posted: shared buffers stay where they are, others are copied. */
function fieldsOf(c: PackedColumn): WireColumn {
  return { type: c.type, length: c.length, size: c.size, nullCount: c.nullCount, data: c.data, offsets: c.offsets, nulls: c.nulls };
}

/** The worker's sink: gathered fields posted to the encoding thread. */
export function remoteSink(post: (m: ClusterStageMessage) => void, onReply: (f: (r: ClusterStageReply) => void) => void): ColumnSink {
  const waiting = new Map<number, () => void>();
  onReply((r) => {
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
      post({ column: { k, j, b, at, col: fieldsOf(g.col), ids: g.ids && { ids: g.ids.ids, values: fieldsOf(g.ids.values) } } });
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
          const p = writers![k]!.writeColumn(j, columnOfWire(col), ids && { ids: ids.ids, values: columnOfWire(ids.values) }, at);
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
