// Everything a compaction run reads, resolved and checked before the run writes anything (issue 13
// §3): the plan, every path it names (inside the table: src/storage/confine.ts), the base files'
// footers, the log files' framing, the table schema and the instants the file-system view reads. A run
// that cannot succeed fails here with a one-line error naming the file, and the table is untouched.
// (A corrupt data page or record is only found by the merge itself; that attempt is rolled back.)
import { TblError } from '../../errors/index.ts';
import { decodeCompactionPlan, type CompactionOperation, type CompactionPlan } from '../../metadata/index.ts';
import { mapLimit } from '../../storage/index.ts';
import { resolveTableEntry, unsafeSegment } from '../../storage/confine.ts';
import type { Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { joinPath } from '../../util/index.ts';
import { checkSliceInputs, type ResolvedFile } from '../rewrite/inputs.ts';

export type { ResolvedFile };

export interface ResolvedOperation {
  op: CompactionOperation;
  partition: string;
  fileId: string;
  baseFile?: ResolvedFile;
  logFiles: ResolvedFile[];
}

export interface CompactionInputs {
  instant: string;
  plan: CompactionPlan;
  operations: ResolvedOperation[];
}

export async function readPlan(t: Table, tl: Timeline, i: Instant): Promise<CompactionPlan> {
  return decodeCompactionPlan(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(i.files.REQUESTED!.path) });
}

function planError(instant: string, message: string): TblError {
  return new TblError('metadata', `compaction plan ${instant}: ${message}`, { instant, hint: 'nothing was changed' });
}

async function resolveOperation(t: Table, instant: string, op: CompactionOperation): Promise<ResolvedOperation> {
  const partition = op.partitionPath ?? '';
  const fileId = op.fileId ?? '';
  if (fileId === '' || /[/\\_]/.test(fileId)) throw planError(instant, `operation with file id ${JSON.stringify(fileId)} is not a Hudi file id`);
  const bad = partition.startsWith('/') ? 'is absolute' : /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(partition) ? 'is a URI' : unsafeSegment(partition);
  if (bad) throw planError(instant, `operation ${fileId}: partition path ${JSON.stringify(partition)} ${bad}`);
  const dir = partition === '' ? t.basePath : joinPath(t.basePath, partition);
  const ctx = { instant, source: 'compaction plan', relativeTo: dir };
  const file = async (name: string): Promise<ResolvedFile> => {
    if (name.includes('/')) throw planError(instant, `operation ${fileId}: ${JSON.stringify(name)} is not a file name of partition ${JSON.stringify(partition)}`);
    const path = resolveTableEntry(t.storage, t.basePath, name, ctx);
    return { path, size: (await t.storage.stat(path)).size };
  };
  return {
    op,
    partition,
    fileId,
    baseFile: op.dataFilePath ? await file(op.dataFilePath) : undefined,
    logFiles: await Promise.all((op.deltaFilePaths ?? []).map(file)),
  };
}

/**
 * The plan of `i` with every path it names resolved inside the table and every file there (what an
 * engine run checks before it launches; the engine reads the files itself).
 */
export async function resolveCompactionPlan(t: Table, tl: Timeline, i: Instant): Promise<CompactionInputs> {
  const instant = i.requestedTime;
  const plan = await readPlan(t, tl, i);
  const operations = await mapLimit(plan.operations ?? [], 16, (op) => resolveOperation(t, instant, op));
  const seen = new Set<string>();
  for (const o of operations) {
    const k = `${o.partition}\u0000${o.fileId}`;
    if (seen.has(k)) throw planError(instant, `file group ${o.fileId} of partition ${JSON.stringify(o.partition)} appears twice`);
    seen.add(k);
  }
  return { instant, plan, operations };
}

/**
 * The plan of `i` with every path resolved and every file's framing read: base footers parse, log
 * files can be walked block by block (corrupt blocks are legal: Hudi's scanner skips them), and the
 * schema and view timeline the merge uses decode.
 */
export async function checkCompactionInputs(t: Table, tl: Timeline, i: Instant, keepAlive?: () => Promise<void>): Promise<CompactionInputs> {
  const inputs = await resolveCompactionPlan(t, tl, i);
  await checkSliceInputs(t, inputs.operations, keepAlive);
  return inputs;
}
