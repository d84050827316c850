// Everything a clustering run reads, resolved and checked before the run writes anything (the model:
// compaction/inputs.ts): the plan, every path it names (absolute URIs with scheme in Hudi's plans;
// src/storage/confine.ts keeps them inside the table and inside their slice's partition), base
// footers, log framing, the table schema and the view timeline. A run that cannot succeed fails here
// with a one-line error naming the file, and the table is untouched.
import { TblError } from '../../errors/index.ts';
import { parseBaseFileName, parseLogFileName } from '../../fs-view/index.ts';
import { decodeRequestedReplaceMetadata, type ClusteringPlan, type SliceInfo } from '../../metadata/index.ts';
import { mapLimit } from '../../storage/index.ts';
import { resolveTableEntry, unsafeSegment } from '../../storage/confine.ts';
import type { Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { joinPath } from '../../util/index.ts';
import { checkSliceInputs, type ResolvedFile } from '../rewrite/inputs.ts';

export interface ResolvedSlice {
  info: SliceInfo;
  partition: string;
  fileId: string;
  baseFile?: ResolvedFile;
  logFiles: ResolvedFile[];
}

export interface ResolvedGroup {
  partition: string;
  numOutputFileGroups: number;
  slices: ResolvedSlice[];
}

export interface ClusteringInputs {
  instant: string;
  plan: ClusteringPlan;
  groups: ResolvedGroup[];
}

export function planError(instant: string, message: string): TblError {
  return new TblError('metadata', `clustering plan ${instant}: ${message}`, { instant, hint: 'nothing was changed' });
}

/** The clustering plan of a pending replacecommit / clustering instant (undefined: not a clustering). */
export async function readClusteringPlan(t: Table, tl: Timeline, i: Instant): Promise<ClusteringPlan | undefined> {
  const f = i.files.REQUESTED;
  if (!f || f.size === 0) return undefined;
  const m = decodeRequestedReplaceMetadata(await tl.read(i, 'REQUESTED'), { path: t.storage.uri(f.path) });
  return m.clusteringPlan ?? undefined;
}

function baseNameOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

async function resolveSlice(t: Table, instant: string, s: SliceInfo): Promise<ResolvedSlice> {
  const partition = s.partitionPath ?? '';
  const fileId = s.fileId ?? '';
  if (fileId === '' || /[/\\_]/.test(fileId)) throw planError(instant, `slice with file id ${JSON.stringify(fileId)} is not a Hudi file id`);
  const bad = partition.startsWith('/') ? 'is absolute' : /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(partition) ? 'is a URI' : unsafeSegment(partition);
  if (bad) throw planError(instant, `slice ${fileId}: partition path ${JSON.stringify(partition)} ${bad}`);
  if (s.bootstrapFilePath) throw new TblError('unsupported', `clustering plan ${instant}: slice ${fileId} has a bootstrap base file; bootstrapped tables are not clustered by tblcli`, { instant });
  const dir = partition === '' ? t.basePath : joinPath(t.basePath, partition);
  const ctx = { instant, source: 'clustering plan', relativeTo: dir };
  const file = async (entry: string, kind: 'base' | 'log'): Promise<ResolvedFile> => {
    const path = resolveTableEntry(t.storage, t.basePath, entry, ctx);
    const name = baseNameOf(path);
    if (joinPath(dir, name) !== path) throw planError(instant, `slice ${fileId}: ${JSON.stringify(entry)} is not a file of partition ${JSON.stringify(partition)}`);
    const parsed = kind === 'base' ? parseBaseFileName(name) : parseLogFileName(name);
    if (!parsed || parsed.fileId !== fileId) throw planError(instant, `slice ${fileId}: ${JSON.stringify(entry)} is not a ${kind} file of file group ${fileId}`);
    if (kind === 'base' && !name.endsWith('.parquet')) throw new TblError('unsupported', `clustering plan ${instant}: ${name} is not a parquet base file`, { instant, path: t.storage.uri(path) });
    return { path, size: (await t.storage.stat(path)).size };
  };
  return {
    info: s,
    partition,
    fileId,
    baseFile: s.dataFilePath ? await file(s.dataFilePath, 'base') : undefined,
    logFiles: await Promise.all((s.deltaFilePaths ?? []).map((p) => file(p, 'log'))),
  };
}

/**
 * The plan of `i` with every path resolved and every file's framing read: base footers parse, log
 * files can be walked block by block, and the schema and view timeline the merge uses decode.
 */
export async function checkClusteringInputs(t: Table, tl: Timeline, i: Instant, keepAlive?: () => Promise<void>): Promise<ClusteringInputs> {
  const instant = i.requestedTime;
  const plan = await readClusteringPlan(t, tl, i);
  if (!plan) throw new TblError('metadata', `${i.action} ${instant} is not a clustering (its requested file holds no clustering plan)`, { instant, hint: 'nothing was changed' });
  const groups: ResolvedGroup[] = [];
  const seen = new Set<string>();
  for (const [g, group] of (plan.inputGroups ?? []).entries()) {
    const slices = await mapLimit(group.slices ?? [], 16, (s) => resolveSlice(t, instant, s));
    if (slices.length === 0) throw planError(instant, `input group ${g} has no slices`);
    const partition = slices[0]!.partition;
    for (const s of slices) {
      if (s.partition !== partition) throw planError(instant, `input group ${g} mixes partitions ${JSON.stringify(partition)} and ${JSON.stringify(s.partition)}`);
      const k = `${s.partition}\u0000${s.fileId}`;
      if (seen.has(k)) throw planError(instant, `file group ${s.fileId} of partition ${JSON.stringify(s.partition)} appears twice`);
      seen.add(k);
    }
    const n = group.numOutputFileGroups ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > 100_000) throw planError(instant, `input group ${g} asks for ${n} output file groups`);
    groups.push({ partition, numOutputFileGroups: n, slices });
  }
  if (groups.length === 0) throw planError(instant, 'no input groups');
  await checkSliceInputs(t, groups.flatMap((g) => g.slices), keepAlive);
  return { instant, plan, groups };
}
