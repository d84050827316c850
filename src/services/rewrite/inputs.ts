// What compaction and clustering check and derive alike before they rewrite file slices: every
// input file's framing (base footers parse, log files walk block by block — corrupt blocks are
// legal, Hudi's scanner skips them), the table schema the new base files are written with, and the
// view timeline's commit rule. Checked before anything is written, so a run that cannot succeed fails
// with a one-line error naming the file and leaves the table untouched.
import { TblError } from '../../errors/index.ts';
import type { ViewTimeline } from '../../fs-view/index.ts';
import { iterateLogBlocks } from '../../logfile/index.ts';
import { readParquetInfo } from '../../parquet/read.ts';
import { withHoodieMetaFields, type AvroRecordSchema } from '../../parquet/write.ts';
import { mapLimit } from '../../storage/index.ts';
import { latestTableSchema, viewTimelineOf, type Table } from '../../table/index.ts';
import type { CommittedInstants } from './merge-op.ts';

export interface ResolvedFile {
  path: string;
  size: number;
}

export interface SliceInput {
  baseFile?: ResolvedFile;
  logFiles: ResolvedFile[];
}

/** The table's latest schema with the Hudi meta fields first: what the new base files are written with. */
export async function tableWriterSchema(t: Table): Promise<AvroRecordSchema> {
  const raw = (await latestTableSchema(t)).schema;
  let parsed: AvroRecordSchema;
  try {
    parsed = JSON.parse(raw) as AvroRecordSchema;
  } catch (e) {
    throw new TblError('metadata', `${t.uri}: table schema is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  return withHoodieMetaFields(parsed);
}

/** The view's isCommitted rule (fs-view assembleView, no as-of bound) as data a worker can take. */
export function committedInstantsOf(vt: ViewTimeline): CommittedInstants {
  const completed = vt.completedInstants.map((i) => i.requestedTime);
  let first = vt.firstActiveInstant;
  for (const t of completed) if (first === undefined || t < first) first = t;
  return { completed, first };
}

/** Reads every slice's framing, then the schema and the view timeline the merge uses. */
export async function checkSliceInputs(t: Table, slices: readonly SliceInput[], keepAlive?: () => Promise<void>): Promise<void> {
  await mapLimit(slices, 8, async (s) => {
    await keepAlive?.();
    if (s.baseFile) await readParquetInfo(t.storage, s.baseFile.path, s.baseFile.size);
    for (const l of s.logFiles) for await (const _ of iterateLogBlocks(t.storage, l.path, { size: l.size }));
  });
  await tableWriterSchema(t);
  await viewTimelineOf(t);
}
