// The sorted write of a clustering group, shared by its two packed paths (cluster-op.ts: merged
// slices held; cluster-base.ts: base files decoded a field at a time): the order from the sort
// fields' ranks (or the space-filling curve), then the output gathered and encoded one field at a
// time into openHoodiePackedColumnWriter, each held field let go once it is written.
import { openHoodiePackedColumnWriter, type HoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import { inputBytesOf, outputLayout, type ClusterFile, type ClusterJob } from './cluster-job.ts';
import { GatherScratch, partOrder, rankHeld, type Gathered, type HeldColumn, type PartOrder } from './held-columns.ts';
import { permutationOfRanks, sortPermutation, type SortColumn } from './sort-order.ts';

const text = new TextDecoder();

/** Rows gathered at a time (whole row groups, at least one): the gather buffers hold this many. */
const PART_ROWS = 200_000;

/** The order of the held rows: perm[i] = the held row output row i takes. */
export function sortedOrder(job: ClusterJob, sortCols: SortColumn[], records: number, field: (c: SortColumn) => HeldColumn): Int32Array {
  if (job.layout === 'linear' || sortCols.length === 1) return permutationOfRanks(records, sortCols.map((c) => rankHeld(field(c), c)));
  const values = sortCols.map((c) => field(c).values(c));
  return sortPermutation(records, sortCols, job.layout, (c, i) => values[c]![i]);
}

/** One output file: rows [from, to) of the sorted order, its file id and name. */
export type FileLayout = ReturnType<typeof outputLayout>[number];

/** The column writer of one output file (its file name the constant column). */
export function openFileWriter(job: ClusterJob, f: FileLayout): HoodiePackedColumnWriter {
  const constants = job.writerSchema.fields.map((x) => (x.name === '_hoodie_file_name' ? new TextEncoder().encode(f.fileName) : undefined));
  return openHoodiePackedColumnWriter({ schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize, constants }, f.to - f.from);
}

/**
 * Where the gathered fields are encoded: in this thread (localSink), or in the thread that posted
 * the job (cluster-stage.ts), reading the gather buffers where they are while this thread gathers
 * the next field into the other buffer.
 */
export interface ColumnSink {
  /** gather buffers to take turns with */
  readonly buffers: number;
  /** the gather buffers are SharedArrayBuffers */
  readonly shared: boolean;
  start(layout: FileLayout[]): void;
  /**
   * Field j of file k, gathered into buffer b: `released` settles once buffer b can be written again,
   * `compressed` once the field is encoded and compressed as far as this thread waits for it.
   */
  put(k: number, j: number, b: number, g: Gathered, at: number): { released: Promise<void>; compressed: Promise<void> };
  /** Every file's bytes; undefined when the other thread finishes the files. */
  finish(): Promise<{ bytes: Uint8Array; rowCount: number }[] | undefined>;
}

export function localSink(job: ClusterJob): ColumnSink {
  let writers: HoodiePackedColumnWriter[] = [];
  return {
    buffers: 1,
    shared: false,
    start(layout) {
      writers = layout.map((f) => openFileWriter(job, f));
    },
    put(k, j, _b, g, at) {
      // encoded now: the buffer is free on return
      return { released: Promise.resolve(), compressed: writers[k]!.writeColumn(j, g.col, g.ids, at) };
    },
    async finish() {
      const out: { bytes: Uint8Array; rowCount: number }[] = [];
      for (const w of writers) out.push(await w.finish());
      return out;
    },
  };
}

/**
 * Writes the group's files from its held fields in sorted order (`perm[i]`: the held row output row
 * i takes), one field at a time: `field(j)` gives field j's held values (undefined: the file name, a
 * constant), which are let go once gathered. Files the sink finishes elsewhere come back without
 * their bytes.
 */
export async function writeSorted(
  job: ClusterJob,
  records: number,
  perm: Int32Array,
  field: (j: number) => HeldColumn | undefined | Promise<HeldColumn | undefined>,
  sink: ColumnSink = localSink(job),
  /** rows gathered at a time (rounded down to whole row groups, at least one) */
  partTarget = PART_ROWS,
): Promise<ClusterFile[]> {
  const jKey = job.writerSchema.fields.findIndex((f) => f.name === '_hoodie_record_key');
  const layout = outputLayout(job, records, inputBytesOf(job));
  sink.start(layout);
  const keys: (string[] | undefined)[] = layout.map(() => undefined);
  const partRows = job.rowGroupSize * Math.max(1, Math.floor(partTarget / job.rowGroupSize));
  // a part of row groups at a time: the gather buffers stay small
  const parts: { k: number; from: number; order: PartOrder }[] = [];
  for (const [k, f] of layout.entries()) for (let a = f.from; a < f.to; a += partRows) parts.push({ k, from: a - f.from, order: partOrder(perm, a, Math.min(f.to, a + partRows)) });
  // the part orders stand for the order from here on
  perm = new Int32Array(0);
  const scratches = Array.from({ length: sink.buffers }, () => new GatherScratch(sink.shared));
  const free: Promise<void>[] = scratches.map(() => Promise.resolve());
  let next = 0;
  // one field of the output at a time (the fields before it are encoded, those after it still held);
  // its compression overlaps the next field's gather
  let compressing: Promise<void> = Promise.resolve();
  for (let j = 0; j < job.writerSchema.fields.length; j++) {
    const h = await field(j);
    if (!h) continue;
    const done: Promise<void>[] = [];
    if (job.withKeys && j === jKey) for (const k of layout.keys()) keys[k] = [];
    for (const { k, from, order } of parts) {
      const b = next;
      next = (next + 1) % scratches.length;
      await free[b];
      const g = h.gather(order, scratches[b]!);
      const { col } = g;
      if (job.withKeys && j === jKey) for (let i = 0; i < col.length; i++) keys[k]!.push(text.decode(col.data.subarray(col.start(i), col.end(i))));
      const { released, compressed } = sink.put(k, j, b, g, from);
      released.catch(() => undefined);
      free[b] = released;
      done.push(compressed);
    }
    h.release();
    for (const d of done) d.catch(() => undefined);
    await compressing;
    compressing = Promise.all(done).then(() => undefined);
  }
  await compressing;
  await Promise.all(free);
  const written = await sink.finish();
  return layout.map((f, k) => ({
    fileId: f.fileId,
    fileName: f.fileName,
    // (a fresh empty buffer each: the worker hands the files' buffers over)
    bytes: written?.[k]!.bytes ?? new Uint8Array(0),
    rowCount: written?.[k]!.rowCount ?? f.to - f.from,
    keys: keys[k] ?? (job.withKeys ? [] : undefined),
  }));
}
