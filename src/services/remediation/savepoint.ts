// `savepoint create` / `savepoint delete` without Spark (format-services-write.md §4.1–4.2):
// SavepointActionExecutor — the savepoint's time is the commit's, the commit must be completed and
// not older than the last clean's earliest commit to retain, the metadata lists the base and log file
// names of every file group's latest slice at or before it; `<t>.savepoint.inflight` (empty) then
// `<t>[_<ct>].savepoint`. SavepointHelpers.deleteSavepoint reverts and deletes it.
import { TblError } from '../../errors/index.ts';
import { decodeCleanerPlan, decodeCleanMetadata, encodeSavepointMetadata, type SavepointMetadata } from '../../metadata/index.ts';
import { buildFileSystemView } from '../../fs-view/index.ts';
import { viewTimelineOf, type Table } from '../../table/index.ts';
import type { Timeline } from '../../timeline/index.ts';
import { completeInstant, deleteInstantFile, instantFilePath } from '../../timeline/writer.ts';
import { nextInstantTime, reopen, underLock, type ServiceOptions } from '../transaction.ts';
import { instantChange, rel, type Change } from './report.ts';

const COMMITS = new Set(['commit', 'deltacommit', 'replacecommit']);

export interface SavepointOptions extends ServiceOptions {
  user?: string;
  comments?: string;
  dryRun?: boolean;
}

export interface SavepointReport {
  instant: string;
  dryRun: boolean;
  completionTime?: string;
  metadata?: SavepointMetadata;
  changes: Change[];
}

function commitsText(tl: Timeline): string {
  const names = tl.completed().filter((i) => COMMITS.has(i.action)).map((i) => `[${i.requestedTime}__${i.action}__COMPLETED]`);
  return names.length <= 6 ? `[${names.join(', ')}]` : `[${names.slice(0, 3).join(', ')}, … ${names.length - 6} more …, ${names.slice(-3).join(', ')}]`;
}

/** The last clean's earliest commit to retain (plan of a pending clean), else the first completed commit. */
async function lastCommitRetained(t: Table, tl: Timeline): Promise<string | undefined> {
  const clean = tl.instants.filter((i) => i.action === 'clean').at(-1);
  if (clean?.state === 'COMPLETED') return decodeCleanMetadata(await tl.read(clean), { path: t.storage.uri(clean.files.COMPLETED!.path) }).earliestCommitToRetain ?? undefined;
  if (clean?.files.REQUESTED) return decodeCleanerPlan(await tl.read(clean, 'REQUESTED'), { path: t.storage.uri(clean.files.REQUESTED.path) }).earliestInstantToRetain?.timestamp ?? undefined;
  return tl.completed().find((i) => COMMITS.has(i.action))?.requestedTime;
}

async function checkCreate(t: Table, tl: Timeline, time: string): Promise<void> {
  if (!tl.find(time).some((i) => i.state === 'COMPLETED' && COMMITS.has(i.action))) {
    throw new TblError('not-found', `Commit ${time} not found in Commits ${commitsText(tl)}`, { instant: time, path: t.uri, hint: 'only a completed commit, delta commit or replace commit can be savepointed' });
  }
  if (tl.find(time).some((i) => i.action === 'savepoint')) throw new TblError('conflict', `savepoint ${time} already exists in ${t.uri}`, { instant: time });
  const retained = await lastCommitRetained(t, tl);
  // "" = nothing cleaned yet (FILE_VERSIONS clean): no lookup window
  if (retained && time < retained) {
    throw new TblError('conflict', `Could not savepoint commit ${time} as this is beyond the lookup window ${retained}`, {
      instant: time,
      hint: 'the cleaner may already have deleted files of that commit; savepoint a later commit',
    });
  }
}

/** savepointDataFile per partition: base and log file names of the latest slices at or before `time`. */
async function latestFiles(t: Table, time: string): Promise<SavepointMetadata['partitionMetadata']> {
  const view = await buildFileSystemView(t.storage, t.basePath, await viewTimelineOf(t), { maxInstant: time });
  const out: SavepointMetadata['partitionMetadata'] = {};
  for (const p of view.partitions()) {
    const names: string[] = [];
    for (const s of view.latestFileSlices(p)) {
      if (s.baseFile) names.push(s.baseFile.name);
      for (const l of s.logFiles) names.push(l.name);
    }
    out[p] = { partitionPath: p, savepointDataFile: names };
  }
  return out;
}

export async function createSavepoint(table: Table, time: string, opts: SavepointOptions = {}): Promise<SavepointReport> {
  const now = opts.now ?? (() => new Date());
  const build = async (t: Table): Promise<SavepointMetadata> => ({
    savepointedBy: opts.user ?? 'default',
    savepointedAt: now().getTime(),
    comments: opts.comments ?? 'default',
    partitionMetadata: await latestFiles(t, time),
    version: 1,
  });
  const changes = (t: Table, ct?: string): Change[] => [
    instantChange(t, 'create', time, 'savepoint', 'INFLIGHT', 'savepoint started (empty)'),
    instantChange(t, 'create', time, 'savepoint', 'COMPLETED', 'savepoint metadata: the latest files at or before the commit', ct),
  ];
  if (opts.dryRun) {
    await checkCreate(table, await table.timeline(), time);
    return { instant: time, dryRun: true, metadata: await build(table), changes: changes(table) };
  }
  return underLock(table, opts, async (t) => {
    const tl = await t.timeline();
    await checkCreate(t, tl, time);
    const metadata = await build(t);
    const src = t.timelineSource;
    await t.storage.writeNew(instantFilePath(src, time, 'savepoint', 'INFLIGHT'), new Uint8Array(0));
    const ct = src.layout === 2 ? await nextInstantTime(t, await (await reopen(t)).timeline(), opts) : undefined;
    await completeInstant(src, time, 'savepoint', 'savepoint', encodeSavepointMetadata(metadata), ct);
    return { instant: time, dryRun: false, completionTime: ct, metadata, changes: changes(t, ct) };
  });
}

/**
 * SavepointHelpers.deleteSavepoint: the completed file goes, then the inflight. Hudi's
 * revertToInflight also creates an empty `<t>.savepoint.requested` and never deletes it (a pending
 * savepoint left on the timeline); tblcli deletes every state file of the savepoint instead.
 */
export async function deleteSavepoint(table: Table, time: string, opts: ServiceOptions & { dryRun?: boolean } = {}): Promise<SavepointReport> {
  const check = (t: Table, tl: Timeline) => {
    const done = tl.completed().filter((i) => i.action === 'savepoint');
    if (done.length === 0) throw new TblError('not-found', 'There are no completed savepoint to run delete', { path: t.uri });
    const sp = done.find((i) => i.requestedTime === time);
    if (!sp) throw new TblError('not-found', `Savepoint ${time} not found in ${t.uri} (savepoints: ${done.map((i) => i.requestedTime).join(', ')})`, { instant: time, path: t.uri });
    return sp;
  };
  const changes = (t: Table, sp: ReturnType<typeof check>): Change[] => [
    { op: 'delete', path: rel(t, sp.files.COMPLETED!.path), what: 'the completed savepoint' },
    ...(sp.files.INFLIGHT ? [instantChange(t, 'delete', time, 'savepoint', 'INFLIGHT', 'its inflight file')] : []),
    ...(sp.files.REQUESTED ? [instantChange(t, 'delete', time, 'savepoint', 'REQUESTED', 'its requested file')] : []),
  ];
  if (opts.dryRun) {
    const sp = check(table, await table.timeline());
    return { instant: time, dryRun: true, changes: changes(table, sp) };
  }
  return underLock(table, opts, async (t) => {
    const sp = check(t, await t.timeline());
    const out = changes(t, sp);
    await t.storage.delete(sp.files.COMPLETED!.path);
    await deleteInstantFile(t.timelineSource, time, 'savepoint', 'INFLIGHT');
    await deleteInstantFile(t.timelineSource, time, 'savepoint', 'REQUESTED');
    return { instant: time, dryRun: false, changes: out };
  });
}
