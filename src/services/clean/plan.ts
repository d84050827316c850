// Clean planning as Hudi's CleanPlanner / CleanPlanActionExecutor / CleanerUtils do it
// (format-services-write.md §1.2–§1.8, format-data.md §9), pure: timeline facts and a file-system view
// in, a HoodieCleanerPlan (v2) out, with the size and the reason of every file it deletes.
import type { FileGroup, FileSlice, FileSystemView } from '../../fs-view/index.ts';
import type { CleanerPlan, CleanFileInfo } from '../../metadata/index.ts';
import { formatInstantTime } from '../../util/index.ts';
import type { CleanConfig, CleanPolicy } from './config.ts';

export interface InstantRef {
  requestedTime: string;
  /** the action of the instant's latest file (a completed compaction is a commit) */
  action: string;
}

/** What the planner needs from the timeline (the caller reads it; tests build it by hand). */
export interface CleanTimeline {
  /** getCommitsAndCompactionTimeline: commit, deltacommit, replacecommit, compaction, clustering, every state, ascending */
  commitsAndCompaction: (InstantRef & { completed: boolean })[];
  /** getCommitsTimeline().filterCompletedInstants(): completed commit, deltacommit, replacecommit, ascending */
  completedCommits: InstantRef[];
  /** requested time of the first instant (any state) of the commits timeline */
  commitsTimelineStart?: string;
  /** the last completed clean, when it is not empty */
  lastClean?: { earliestCommitToRetain: string; lastCompletedCommitTimestamp: string; savepointedTimestamps: string[] };
  /** completed savepoints: time and savepointed file names (base and log) */
  savepoints: { time: string; dataFiles: readonly string[] }[];
  /** pending compaction and log-compaction operations: partition + '\0' + fileId → the operation's base instant */
  pendingCompactionOps: ReadonlyMap<string, string>;
}

export interface TableFacts {
  version: number;
  partitioned: boolean;
  timezone: 'UTC' | 'LOCAL';
}

/** needsCleaning (NUM_COMMITS): completed commits after the last clean's lastCompletedCommitTimestamp. */
export function commitsSinceLastClean(tl: CleanTimeline): number {
  const after = tl.lastClean?.lastCompletedCommitTimestamp ?? '';
  return tl.completedCommits.filter((i) => i.requestedTime > after).length;
}

/** CleanerUtils.getEarliestCommitToRetain over the commits-and-compaction timeline. */
export function earliestCommitToRetain(tl: CleanTimeline, cfg: CleanConfig, now: Date, zone: 'UTC' | 'LOCAL'): InstantRef | undefined {
  const completed = tl.commitsAndCompaction.filter((i) => i.completed);
  if (cfg.policy === 'KEEP_LATEST_COMMITS') {
    if (completed.length <= cfg.commitsRetained) return undefined;
    const nth = completed[completed.length - cfg.commitsRetained]!;
    const pending = tl.commitsAndCompaction.find((i) => !i.completed);
    // must not be later than the earliest pending instant (a pending write or table service)
    if (pending && compareInstants(nth, pending) > 0) return last(completed.filter((i) => i.requestedTime < pending.requestedTime));
    return ref(nth);
  }
  if (cfg.policy === 'KEEP_LATEST_BY_HOURS') {
    // wall-clock now minus N hours, in the table's time zone; not capped by pending instants
    const cutoff = formatInstantTime(new Date(now.getTime() - cfg.hoursRetained * 3_600_000), zone);
    const first = completed.find((i) => i.requestedTime >= cutoff);
    return first ? ref(first) : undefined;
  }
  return undefined;
}

function ref(i: InstantRef): InstantRef {
  return { requestedTime: i.requestedTime, action: i.action };
}

function last<T extends InstantRef>(xs: T[]): InstantRef | undefined {
  const x = xs[xs.length - 1];
  return x ? ref(x) : undefined;
}

/** HoodieInstant.compareTo: requested time, then action name. */
function compareInstants(a: InstantRef, b: InstantRef): number {
  if (a.requestedTime !== b.requestedTime) return a.requestedTime < b.requestedTime ? -1 : 1;
  return a.action < b.action ? -1 : a.action > b.action ? 1 : 0;
}

export type ScanScope =
  | { kind: 'none'; why: string }
  | { kind: 'all'; why: string }
  /** incremental: the partitions these completed instants wrote (replacecommits: also the replaced ones) */
  | { kind: 'instants'; instants: InstantRef[]; why: string };

/** CleanPlanner.getPartitionPathsToClean, up to reading the instants' partitions (the caller's I/O). */
export function scanScope(tl: CleanTimeline, cfg: CleanConfig, ectr: InstantRef | undefined, facts: TableFacts): ScanScope {
  if (cfg.policy === 'KEEP_LATEST_FILE_VERSIONS') return { kind: 'all', why: 'KEEP_LATEST_FILE_VERSIONS scans every partition' };
  if (!ectr) return { kind: 'none', why: 'no earliest commit to retain' };
  const lc = tl.lastClean;
  if (!cfg.incremental) return { kind: 'all', why: 'incremental cleaning is disabled' };
  if (!lc || lc.earliestCommitToRetain.trim() === '') return { kind: 'all', why: 'no earlier clean with an earliest commit to retain' };
  if (tl.commitsTimelineStart !== undefined && lc.earliestCommitToRetain < tl.commitsTimelineStart) {
    return { kind: 'all', why: `the last clean's earliest commit to retain ${lc.earliestCommitToRetain} is before the active timeline` };
  }
  const current = new Set(tl.savepoints.map((s) => s.time));
  const removed = facts.partitioned ? lc.savepointedTimestamps.filter((t) => !current.has(t)) : [];
  // 1.x: a savepoint removed since the last clean means a full scan; 0.14 adds its commit's partitions
  if (removed.length > 0 && facts.version >= 8) return { kind: 'all', why: `savepoint(s) ${removed.join(',')} removed since the last clean` };
  const instants = tl.completedCommits.filter((i) => i.requestedTime >= lc.earliestCommitToRetain && i.requestedTime < ectr.requestedTime);
  for (const t of removed) {
    const c = tl.completedCommits.find((i) => i.requestedTime === t);
    if (c && !instants.includes(c)) instants.push(c);
  }
  return { kind: 'instants', instants: instants.map(ref), why: `incremental: instants from ${lc.earliestCommitToRetain} to before ${ectr.requestedTime}` };
}

/** One file the plan deletes. */
export interface PlannedFile {
  /** storage path */
  path: string;
  name: string;
  /** from the listing, when asked for (PartitionContext.sizes) */
  size?: number;
  /** why it goes: in a few words with the instants when explained, else the rule's name */
  reason: string;
}

export interface PartitionPlan {
  partition: string;
  files: PlannedFile[];
  /** toDeletePartition: nothing of the partition is left */
  deletePartition: boolean;
}

export interface PartitionContext {
  cfg: CleanConfig;
  ectr?: InstantRef;
  /** completed commits timeline size (the "enough commits" check of COMMITS / BY_HOURS) */
  completedCommitCount: number;
  savepointed: ReadonlySet<string>;
  pendingCompactionOps: ReadonlyMap<string, string>;
  /**
   * The partition's directory was listed and holds no data file outside the file groups the view
   * calls replaced (hasPendingFiles == false); false also when it could not be listed.
   */
  onlyReplacedFiles: boolean;
  /** read each deleted file's size (a lazy local listing stats it) */
  sizes?: boolean;
  /** word every file's reason with its instants (dry runs); else one shared string per rule */
  explain?: boolean;
}

function groupKey(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

function sliceFiles(s: FileSlice): { path: string; name: string; size: number }[] {
  const out: { path: string; name: string; size: number }[] = [];
  if (s.baseFile) out.push(s.baseFile);
  // the log files of the slice, CDC logs included (they live only as long as their slice)
  for (const l of s.logFiles) out.push(l);
  for (const l of s.cdcLogFiles) out.push(l);
  return out;
}

function isSavepointed(s: FileSlice, savepointed: ReadonlySet<string>): boolean {
  if (savepointed.size === 0) return false;
  if (s.baseFile && savepointed.has(s.baseFile.name)) return true;
  for (const l of s.logFiles) if (savepointed.has(l.name)) return true;
  for (const l of s.cdcLogFiles) if (savepointed.has(l.name)) return true;
  return false;
}

function add(out: PlannedFile[], s: FileSlice, reason: string, sizes: boolean | undefined): void {
  for (const f of sliceFiles(s)) out.push(sizes ? { path: f.path, name: f.name, size: f.size, reason } : { path: f.path, name: f.name, reason });
}

const RULE = { replaced: 'replaced file group', version: 'older file version', slice: 'slice before the retention window' } as const;

/** getDeletePaths for one partition of `view`. */
export function planPartition(view: FileSystemView, partition: string, ctx: PartitionContext): PartitionPlan {
  const { cfg } = ctx;
  const files: PlannedFile[] = [];
  const needed = (s: FileSlice) => {
    const base = ctx.pendingCompactionOps.get(groupKey(s.partition, s.fileId));
    return base !== undefined && s.baseInstant >= base;
  };
  const groups = view.allFileGroups(partition);
  const replaced = view.replacedFileGroups(partition);
  const { explain, sizes } = ctx;
  if (cfg.policy === 'KEEP_LATEST_FILE_VERSIONS') {
    for (const g of replaced) for (const s of newestFirst(g)) if (!isSavepointed(s, ctx.savepointed)) add(files, s, explain ? `file group replaced by ${g.replacedBy}` : RULE.replaced, sizes);
    for (const g of groups) {
      let keep = cfg.fileVersionsRetained;
      if (ctx.pendingCompactionOps.has(groupKey(g.partition, g.fileId))) keep--; // the pending slice is one of the kept versions
      let version = 0;
      for (const s of newestFirst(g)) {
        if (needed(s)) continue;
        version++;
        if (keep > 0) {
          keep--;
          continue;
        }
        if (isSavepointed(s, ctx.savepointed)) continue;
        add(files, s, explain ? `version ${version} of the file group; ${cfg.fileVersionsRetained} kept` : RULE.version, sizes);
      }
    }
    return { partition, files, deletePartition: groups.length === 0 && ctx.onlyReplacedFiles };
  }
  const retained = cfg.policy === 'KEEP_LATEST_BY_HOURS' ? 0 : cfg.commitsRetained;
  const ectr = ctx.ectr;
  if (!ectr || ctx.completedCommitCount <= retained) return { partition, files, deletePartition: false };
  const e = ectr.requestedTime;
  for (const g of replaced) {
    if (g.replacedBy >= e) continue;
    for (const s of newestFirst(g)) if (!isSavepointed(s, ctx.savepointed)) add(files, s, explain ? `file group replaced by ${g.replacedBy}, before the earliest commit to retain ${e}` : RULE.replaced, sizes);
  }
  for (const g of groups) {
    const slices = newestFirst(g);
    if (slices.length === 0) continue;
    const lastVersion = slices[0]!.baseInstant;
    const lastBeforeEctr = slices.find((s) => s.baseInstant < e)?.baseInstant;
    for (const s of slices) {
      if (isSavepointed(s, ctx.savepointed)) continue;
      // the latest slice, and the newest one before the retention window (a long query may still read it)
      if (s.baseInstant === lastVersion || s.baseInstant === lastBeforeEctr) continue;
      if (!needed(s) && e > s.baseInstant) add(files, s, explain ? `slice ${s.baseInstant} older than the newest slice ${lastBeforeEctr} before the earliest commit to retain ${e}` : RULE.slice, sizes);
    }
  }
  const laterReplace = replaced.some((g) => g.replacedBy >= e);
  return { partition, files, deletePartition: groups.length === 0 && ctx.onlyReplacedFiles && !laterReplace };
}

function newestFirst(g: FileGroup): FileSlice[] {
  return [...g.slices].reverse();
}

export interface CleanPlanResult {
  /** the plan to write; undefined when it would delete nothing (no clean instant then) */
  plan?: CleanerPlan;
  ectr?: InstantRef;
  partitions: PartitionPlan[];
  files: number;
  /** why nothing is planned, or how the partitions were chosen */
  reason: string;
}

export interface BuildPlanInput {
  policy: CleanPolicy;
  ectr?: InstantRef;
  lastCompletedCommitTimestamp: string;
  partitions: PartitionPlan[];
  /** savepointed_timestamps (partitioned data tables with savepoints) */
  savepointTimes: string[];
  partitioned: boolean;
  /** the path string Hudi holds for a storage path (absolute, with scheme) */
  pathString: (path: string) => string;
  scope: string;
}

/** CleanPlanActionExecutor.requestClean: plan v2; only a plan that deletes something is kept. */
export function buildCleanerPlan(input: BuildPlanInput): CleanPlanResult {
  const kept = input.partitions.filter((p) => p.files.length > 0 || p.deletePartition);
  const files = kept.reduce((n, p) => n + p.files.length, 0);
  const toDelete = kept.filter((p) => p.deletePartition).map((p) => p.partition);
  const base = { ectr: input.ectr, partitions: kept, files };
  if (files === 0 && toDelete.length === 0) return { ...base, reason: `nothing to clean (${input.scope})` };
  const perPartition: Record<string, CleanFileInfo[]> = {};
  for (const p of kept) perPartition[p.partition] = p.files.map((f) => ({ filePath: input.pathString(f.path), isBootstrapBaseFile: false }));
  const extra: Record<string, string> = {};
  if (input.partitioned && input.savepointTimes.length > 0) extra.savepointed_timestamps = [...input.savepointTimes].sort().join(',');
  return {
    ...base,
    reason: input.scope,
    plan: {
      earliestInstantToRetain: input.ectr ? { timestamp: input.ectr.requestedTime, action: input.ectr.action, state: 'COMPLETED' } : null,
      lastCompletedCommitTimestamp: input.lastCompletedCommitTimestamp,
      policy: input.policy,
      filesToBeDeletedPerPartition: {},
      version: 2,
      filePathsToBeDeletedPerPartition: perPartition,
      partitionsToBeDeleted: toDelete,
      extraMetadata: extra,
    },
  };
}

/** Bytes the plan deletes (planned with sizes). */
export function plannedBytes(partitions: readonly PartitionPlan[]): number {
  let n = 0;
  for (const p of partitions) for (const f of p.files) n += f.size ?? 0;
  return n;
}
