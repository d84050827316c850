// The sorted write of a clustering group, shared by its two packed paths (cluster-op.ts: merged
// slices held; cluster-base.ts: base files decoded a field at a time): the order from the sort
// fields' ranks (or the space-filling curve), then the output gathered and encoded one field at a
// time into openHoodiePackedColumnWriter, each held field let go once it is written.
import { setImmediate as immediate } from 'node:timers/promises';
import { BloomBatch, HoodieBloomFilter, type BloomFilterOptions } from '../../parquet/bloom.ts';
import { openHoodiePackedColumnWriter, type GivenBloom, type HoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import { inputBytesOf, outputLayout, type ClusterFile, type ClusterJob } from './cluster-job.ts';
import { GatherScratch, partOrders, rankHeld, type Gathered, type HeldColumn, type PartOrder } from './held-columns.ts';
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

/**
 * The bloom filter built on two threads (ColumnSink.bloomHere): the encoding thread hashes every
 * KEYS_HASHED_THERE-th key (rows r with r % n === 0; 0: none), the gathering thread the rest while it
 * waits. The encoding thread is the busier one (compression, pages, statistics): on the bench's 2-core
 * host the gathering thread hashing every key was 4% faster than a quarter of them hashed there.
 */
export const KEYS_HASHED_THERE = 0;

/** The column writer of one output file (its file name the constant column); `bloomShared`: the bloom filter built with the gathering thread. */
export function openFileWriter(job: ClusterJob, f: FileLayout, bloomShared = false): HoodiePackedColumnWriter {
  const constants = job.writerSchema.fields.map((x) => (x.name === '_hoodie_file_name' ? new TextEncoder().encode(f.fileName) : undefined));
  return openHoodiePackedColumnWriter(
    { schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize, constants, bloomShared: bloomShared ? { every: KEYS_HASHED_THERE } : undefined },
    f.to - f.from,
  );
}

/** Keys hashed per step between two looks at the event loop (~3 ms). */
const BLOOM_STEP = 2048;

/**
 * The output files' bloom filters, built from the held record keys part by part (each key added at
 * its row in its file: HoodieBloomFilter.addBytesAt) while this thread would otherwise wait for the
 * encoding thread — 30 hashes a key are that thread's largest cost. The key field stays held until
 * every part is hashed.
 */
export class BloomWork {
  private readonly filters: HoodieBloomFilter[];
  private readonly keys: number[];
  private queue: { k: number; from: number; order: PartOrder }[] = [];
  private pos = 0;
  private held: HeldColumn | undefined;
  private inUse = false;

  /** `skipEvery`: rows r with r % skipEvery === 0 are hashed by the other thread (0: none); `opts`: the filters' (the writer's defaults, as openFileWriter's) */
  constructor(files: number, private readonly skipEvery = KEYS_HASHED_THERE, opts: BloomFilterOptions = {}) {
    this.filters = Array.from({ length: files }, () => HoodieBloomFilter.create(opts));
    this.keys = new Array<number>(files).fill(0);
  }

  /** The key field and the parts to hash (let go of once hashed and `gathered`). */
  start(h: HeldColumn, parts: { k: number; from: number; order: PartOrder }[]): void {
    this.held = h;
    this.inUse = true;
    this.queue = [...parts];
  }

  /** The key field is gathered (written): it is let go once its keys are hashed. */
  gathered(): void {
    this.inUse = false;
    this.releaseIfDone();
  }

  private releaseIfDone(): void {
    if (this.queue.length === 0 && !this.inUse && this.held) {
      this.held.release();
      this.held = undefined;
    }
  }

  get pending(): boolean {
    return this.queue.length > 0;
  }

  /** Hashes up to `n` keys. */
  step(n: number): void {
    let left = n;
    while (left > 0 && this.queue.length > 0) {
      const { k, from, order } = this.queue[0]!;
      const end = Math.min(order.at.length, this.pos + left);
      // four keys hashed at once; the held bytes stay put
      const batch = new BloomBatch(this.filters[k]!);
      let added = 0;
      const every = this.skipEvery;
      this.held!.eachBytes(order, this.pos, end, (d, s, e, at) => {
        const r = from + at;
        if (every > 0 && r % every === 0) return;
        batch.addAt(d, s, e, r);
        added++;
      });
      batch.flush();
      this.keys[k]! += added;
      left -= end - this.pos;
      this.pos = end;
      if (end === order.at.length) {
        this.queue.shift();
        this.pos = 0;
      }
    }
    this.releaseIfDone();
  }

  /** Hashes while `p` is pending (a step, then a look at the event loop, which settles it). */
  async during(p: Promise<unknown>): Promise<void> {
    if (!this.pending) return;
    let settled = false;
    const seen = () => {
      settled = true;
    };
    p.then(seen, seen);
    await immediate();
    while (!settled && this.pending) {
      this.step(BLOOM_STEP);
      await immediate();
    }
  }

  /** Every key hashed: file k's filter. */
  given(k: number): GivenBloom {
    this.step(Infinity);
    return { filter: this.filters[k]!, keys: this.keys[k]! };
  }
}

/**
 * Where the gathered fields are encoded: in this thread (localSink), or in the thread that posted
 * the job (cluster-stage.ts), reading the gather buffers where they are while this thread gathers
 * the next field into the other buffer.
 */
export interface ColumnSink {
  /** gather buffers to take turns with */
  readonly buffers: number;
  /** the record keys' bloom filters are built in this thread while it waits, and handed over with `bloom` */
  readonly bloomHere: boolean;
  /** File k's bloom filter (bloomHere), before finish. */
  bloom(k: number, b: GivenBloom): void;
  /** the gather buffers are SharedArrayBuffers */
  readonly shared: boolean;
  start(layout: FileLayout[]): void;
  /**
   * Field j of file k, gathered into buffer b: `released` settles once buffer b can be written again,
   * `compressed` once the field is encoded and compressed as far as this thread waits for it.
   */
  put(k: number, j: number, b: number, g: Gathered, at: number): { released: Promise<void>; compressed: Promise<void> };
  /** Every file in its parts; undefined when the other thread finishes the files. */
  finish(): Promise<{ parts: Uint8Array[]; size: number; rowCount: number }[] | undefined>;
}

export function localSink(job: ClusterJob): ColumnSink {
  let writers: HoodiePackedColumnWriter[] = [];
  return {
    buffers: 1,
    shared: false,
    bloomHere: false,
    bloom() {
      throw new Error('the local sink hashes its own keys');
    },
    start(layout) {
      writers = layout.map((f) => openFileWriter(job, f));
    },
    put(k, j, _b, g, at) {
      // encoded now: the buffer is free on return
      return { released: Promise.resolve(), compressed: writers[k]!.writeColumn(j, g.col, g.ids, at) };
    },
    async finish() {
      const out: { parts: Uint8Array[]; size: number; rowCount: number }[] = [];
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
  const cuts: { k: number; from: number; start: number }[] = [];
  for (const [k, f] of layout.entries()) for (let a = f.from; a < f.to; a += partRows) cuts.push({ k, from: a - f.from, start: a });
  const orders = partOrders(perm, [...cuts.map((c) => c.start), layout.at(-1)?.to ?? 0]);
  const parts: { k: number; from: number; order: PartOrder }[] = cuts.map(({ k, from }, p) => ({ k, from, order: orders[p]! }));
  // the part orders stand for the order from here on
  perm = new Int32Array(0);
  const bloom = sink.bloomHere ? new BloomWork(layout.length) : undefined;
  const waitFor = async (p: Promise<unknown>) => {
    await bloom?.during(p);
    await p;
  };
  const scratches = Array.from({ length: sink.buffers }, () => new GatherScratch(sink.shared));
  const free: Promise<void>[] = scratches.map(() => Promise.resolve());
  let next = 0;
  // one field of the output at a time (the fields before it are encoded, those after it still held);
  // its compression overlaps the next field's gather
  let compressing: Promise<void> = Promise.resolve();
  for (let j = 0; j < job.writerSchema.fields.length; j++) {
    const fetched = Promise.resolve(field(j));
    await waitFor(fetched);
    const h = await fetched;
    if (!h) continue;
    // the keys are hashed from here on, between the gathers' waits
    if (bloom && j === jKey) bloom.start(h, parts);
    const done: Promise<void>[] = [];
    if (job.withKeys && j === jKey) for (const k of layout.keys()) keys[k] = [];
    for (const { k, from, order } of parts) {
      const b = next;
      next = (next + 1) % scratches.length;
      await waitFor(free[b]!);
      // a dictionary field's bytes are the writer's to take where it needs them; the keys' are needed here
      const g = h.gather(order, scratches[b]!, j === jKey);
      const { col } = g;
      if (job.withKeys && j === jKey) for (let i = 0; i < col.length; i++) keys[k]!.push(text.decode(col.data.subarray(col.start(i), col.end(i))));
      const { released, compressed } = sink.put(k, j, b, g, from);
      released.catch(() => undefined);
      free[b] = released;
      done.push(compressed);
    }
    // the key field is let go once its keys are hashed too
    if (bloom && j === jKey) bloom.gathered();
    else h.release();
    for (const d of done) d.catch(() => undefined);
    await waitFor(compressing);
    compressing = Promise.all(done).then(() => undefined);
  }
  await waitFor(compressing);
  await waitFor(Promise.all(free));
  if (bloom) for (const k of layout.keys()) sink.bloom(k, bloom.given(k));
  const written = await sink.finish();
  return layout.map((f, k) => ({
    fileId: f.fileId,
    fileName: f.fileName,
    // (none when the other thread finishes the file)
    parts: written?.[k]!.parts ?? [],
    size: written?.[k]!.size ?? 0,
    rowCount: written?.[k]!.rowCount ?? f.to - f.from,
    keys: keys[k] ?? (job.withKeys ? [] : undefined),
  }));
}
