// The sorted write of a clustering group, shared by its two packed paths (cluster-op.ts: merged
// slices held; cluster-base.ts: base files decoded a field at a time): the order from the sort
// fields' ranks (or the space-filling curve), then the output gathered and encoded one field at a
// time into openHoodiePackedColumnWriter, each held field let go once it is written.
import { openHoodiePackedColumnWriter } from '../../parquet/write-packed.ts';
import { inputBytesOf, outputLayout, type ClusterFile, type ClusterJob } from './cluster-job.ts';
import { GatherScratch, rankHeld, type HeldColumn } from './held-columns.ts';
import { permutationOfRanks, sortPermutation, type SortColumn } from './sort-order.ts';

const text = new TextDecoder();

/** The order of the held rows: perm[i] = the held row output row i takes. */
export function sortedOrder(job: ClusterJob, sortCols: SortColumn[], records: number, field: (c: SortColumn) => HeldColumn): Int32Array {
  if (job.layout === 'linear' || sortCols.length === 1) return permutationOfRanks(records, sortCols.map((c) => rankHeld(field(c), c)));
  const values = sortCols.map((c) => field(c).values(c));
  return sortPermutation(records, sortCols, job.layout, (c, i) => values[c]![i]);
}

/**
 * Writes the group's files from its held fields in sorted order (`src`: where each output row comes
 * from), one field at a time: `field(j)` gives field j's held values (undefined: the file name, a
 * constant), which are let go once gathered; `maxFieldBytes` sizes the gather buffers.
 */
export async function writeSorted(job: ClusterJob, records: number, src: { chunk: Int32Array; row: Int32Array }, field: (j: number) => HeldColumn | undefined | Promise<HeldColumn | undefined>, maxFieldBytes: number): Promise<ClusterFile[]> {
  const jKey = job.writerSchema.fields.findIndex((f) => f.name === '_hoodie_record_key');
  const layout = outputLayout(job, records, inputBytesOf(job));
  const writers = layout.map((f) => {
    const constants = job.writerSchema.fields.map((x) => (x.name === '_hoodie_file_name' ? new TextEncoder().encode(f.fileName) : undefined));
    return openHoodiePackedColumnWriter({ schema: job.writerSchema, codec: job.codec, gzipLevel: job.gzipLevel, rowGroupSize: job.rowGroupSize, constants }, f.to - f.from);
  });
  const keys: (string[] | undefined)[] = layout.map(() => undefined);
  // one field of the output at a time (the fields before it are encoded, those after it still held);
  // its compression overlaps the next field's gather
  let compressing: Promise<void> = Promise.resolve();
  const scratch = new GatherScratch(maxFieldBytes);
  for (let j = 0; j < job.writerSchema.fields.length; j++) {
    const h = await field(j);
    if (!h) continue;
    const done: Promise<void>[] = [];
    for (const [k, f] of layout.entries()) {
      const { col, ids } = h.gather(src.chunk, src.row, f.from, f.to, layout.length === 1, scratch);
      if (job.withKeys && j === jKey) keys[k] = Array.from({ length: col.length }, (_, i) => text.decode(col.data.subarray(col.start(i), col.end(i))));
      done.push(writers[k]!.writeColumn(j, col, ids));
    }
    h.release();
    for (const d of done) d.catch(() => undefined);
    await compressing;
    compressing = Promise.all(done).then(() => undefined);
  }
  await compressing;
  const files: ClusterFile[] = [];
  for (const [k, f] of layout.entries()) {
    const file = await writers[k]!.finish();
    files.push({ fileId: f.fileId, fileName: f.fileName, bytes: file.bytes, rowCount: file.rowCount, keys: keys[k] ?? (job.withKeys ? [] : undefined) });
  }
  return files;
}
