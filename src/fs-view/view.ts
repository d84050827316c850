// File-system view: partitions → file groups → file slices (format-timeline.md §10, Java HoodieFileGroup /
// AbstractTableFileSystemView, hudi-rs file_group). Depends on a small ViewTimeline, never on src/timeline.
import type { FileStatus, ListOptions, Storage } from '../storage/index.ts';
import { mapLimit } from '../storage/index.ts';
import { joinPath, relativeTo } from '../util/index.ts';
import { parseBaseFileName, parseLogFileName, partitionMetafileFormat, type LogFileName } from './names.ts';

export interface ViewInstant {
  requestedTime: string;
  /** action of the completed file: commit (also compaction), deltacommit (also logcompaction), replacecommit */
  action: string;
  completionTime?: string;
}

/** What the view needs from the timeline (the table layer adapts src/timeline to it). */
export interface ViewTimeline {
  layout: 1 | 2;
  /** all completed write instants (commit, deltacommit, replacecommit; compactions complete as commit) */
  completedInstants: ViewInstant[];
  /** layout 2: completion time of a completed instant by requested time */
  completionTimeOf(requestedTime: string): string | undefined;
  /** file groups replaced by completed replacecommits (partitionToReplaceFileIds) */
  replacedFileGroups: { partition: string; fileId: string; byInstant: string }[];
  pendingCompactions: { instant: string; operations: { partitionPath: string; fileId: string; baseInstantTime: string }[] }[];
  pendingClusteringFileGroups?: { partition: string; fileId: string; instant: string }[];
  /** first instant of the active timeline; files older than it count as committed (archived). Default: min completed. */
  firstActiveInstant?: string;
}

export interface ViewOptions {
  /** relative partition paths to load (default: all, found by listing) */
  partitions?: string[];
  /** as-of view: only instants ≤ maxInstant (requested time) count as completed */
  maxInstant?: string;
  /** with maxInstant: include it (default true) */
  includeMax?: boolean;
  /** keep files of pending instants (in the latest slice, as Java does for logs) */
  includeInflight?: boolean;
  /** parallel listings (default 16) */
  concurrency?: number;
  /**
   * read a file's size from its listing entry only when asked (a lazy local listing stats on first
   * access): a clean of a million files needs the sizes of the deleted ones at most
   */
  lazySizes?: boolean;
}

export interface BaseFile {
  name: string;
  path: string;
  fileId: string;
  writeToken: string;
  instant: string;
  ext: string;
  size: number;
  /** layout 2: completion time of the instant that wrote it */
  completionTime?: string;
}

export interface LogFile extends LogFileName {
  name: string;
  path: string;
  size: number;
  /** layout 2: completion time of the deltacommit that wrote it (undefined if pending) */
  completionTime?: string;
}

export interface FileSlice {
  partition: string;
  fileId: string;
  baseInstant: string;
  baseFile?: BaseFile;
  /** ordered oldest → newest (layout 1: instant, version, token; layout 2: completion time, version, token) */
  logFiles: LogFile[];
  /** CDC log files kept apart: they are not part of the slice's data */
  cdcLogFiles: LogFile[];
  /** the slice starts at a pending compaction instant */
  pendingCompaction?: boolean;
}

export interface FileGroup {
  partition: string;
  fileId: string;
  /** committed slices, oldest → newest by base instant */
  slices: FileSlice[];
  pendingClustering?: string;
}

/** A file group replaced by a committed replacecommit (clustering, insert_overwrite, delete_partition). */
export interface ReplacedFileGroup extends FileGroup {
  /** requested time of the replacecommit that replaced it */
  replacedBy: string;
}

export interface ExcludedFile {
  partition: string;
  name: string;
  reason: 'uncommitted' | 'replaced' | 'after-max-instant' | 'pending-compaction-output';
  instant: string;
}

export interface FileSystemView {
  readonly layout: 1 | 2;
  readonly maxInstant?: string;
  partitions(): string[];
  allFileGroups(partition?: string): FileGroup[];
  latestFileSlices(partition?: string): FileSlice[];
  /** `show fsview latest --merge`: a pending-compaction slice merged with the slice before it */
  latestMergedFileSlices(partition?: string): FileSlice[];
  /** file groups replaced by committed replacecommits, with their committed slices (what a clean removes) */
  replacedFileGroups(partition?: string): ReplacedFileGroup[];
  /** files listed but not part of the view, with the reason */
  excludedFiles(): ExcludedFile[];
  /** the instants the view treats as committed (for block filtering during a merge) */
  isCommitted(instant: string): boolean;
  pendingCompactionInstant(partition: string, fileId: string): string | undefined;
}

const SKIP_DIRS = new Set(['.hoodie', '__MACOSX']);

export interface ListedPartition {
  partition: string;
  files: FileStatus[];
}

/**
 * Partitions below basePath: directories holding `.hoodie_partition_metadata[.parquet|.orc]`, or the
 * root itself when it holds data files (non-partitioned tables). Hidden dirs, `.hoodie` and `__MACOSX`
 * are skipped. Each directory is listed once, level by level, with bounded parallelism.
 */
export async function listPartitions(storage: Storage, basePath: string, concurrency = 16, listOptions?: ListOptions): Promise<ListedPartition[]> {
  const out: ListedPartition[] = [];
  await forEachPartition(storage, basePath, (p) => void out.push(p), concurrency, listOptions);
  out.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
  return out;
}

/**
 * listPartitions, handing each partition to `fn` as soon as its directory is listed (in no particular
 * order) instead of keeping them all: a caller that reduces each partition holds one at a time.
 */
export async function forEachPartition(
  storage: Storage,
  basePath: string,
  fn: (p: ListedPartition) => void | Promise<void>,
  concurrency = 16,
  listOptions?: ListOptions,
): Promise<void> {
  let level = [basePath];
  while (level.length > 0) {
    const next: string[][] = [];
    await mapLimit(level, concurrency, async (dir, i) => {
      const entries = await storage.list(dir, listOptions);
      const rel = relativeTo(basePath, dir) ?? '';
      const files = entries.filter((e) => !e.isDirectory);
      const hasMeta = files.some((f) => partitionMetafileFormat(f.name) !== undefined);
      const hasData = rel === '' && files.some((f) => parseBaseFileName(f.name) || parseLogFileName(f.name));
      next[i] = entries.filter((e) => e.isDirectory && !e.name.startsWith('.') && !SKIP_DIRS.has(e.name)).map((e) => e.path);
      if (hasMeta || hasData) await fn({ partition: rel, files });
    });
    level = next.flat();
  }
}

/** `o` with the listing entry's size: copied, or (lazy) an own enumerable getter reading it on demand. */
function sized<T extends object>(o: T, f: FileStatus, lazy: boolean): T & { size: number } {
  if (!lazy) return Object.assign(o, { size: f.size });
  return Object.defineProperty(o, 'size', { get: () => f.size, enumerable: true, configurable: true }) as T & { size: number };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function logOrder(layout: 1 | 2) {
  return (a: LogFile, b: LogFile): number => {
    if (layout === 2) {
      // pending files last (hudi-rs LogFile Ord)
      const ca = a.completionTime ?? '\uffff';
      const cb = b.completionTime ?? '\uffff';
      if (ca !== cb) return cmp(ca, cb);
    } else if (a.instant !== b.instant) return cmp(a.instant, b.instant);
    if (a.version !== b.version) return a.version - b.version;
    if (a.writeToken === b.writeToken) return 0;
    if (a.writeToken === undefined) return -1;
    if (b.writeToken === undefined) return 1;
    return cmp(a.writeToken, b.writeToken);
  };
}

function groupKey(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

export async function buildFileSystemView(
  storage: Storage,
  basePath: string,
  timeline: ViewTimeline,
  opts: ViewOptions = {},
): Promise<FileSystemView> {
  const concurrency = opts.concurrency ?? 16;
  let listed: ListedPartition[];
  if (opts.partitions) {
    const parts = opts.partitions;
    listed = await mapLimit(parts, concurrency, async (p) => ({
      partition: p,
      files: (await storage.list(p === '' ? basePath : joinPath(basePath, p))).filter((f) => !f.isDirectory),
    }));
  } else listed = await listPartitions(storage, basePath, concurrency);
  return assembleView(listed, timeline, opts);
}

/** Builds the file groups of one listed partition at a time (for scans that cannot hold every listing). */
export interface ViewAssembler {
  /**
   * file groups of one partition (fileIds ascending); files left out are appended to `excluded`, and
   * with `replaced` the groups a committed replacecommit replaced are built too and appended there
   */
  partition(partition: string, files: readonly FileStatus[], excluded: ExcludedFile[], replaced?: ReplacedFileGroup[]): FileGroup[];
  /** the same from files already parsed and grouped by fileId (data logs only; each list in listing order) */
  parsedPartition(partition: string, bases: ReadonlyMap<string, BaseFile[]>, logs: ReadonlyMap<string, LogFile[]>, excluded: ExcludedFile[], replaced?: ReplacedFileGroup[]): FileGroup[];
  isCommitted(instant: string): boolean;
  pendingCompactionInstant(partition: string, fileId: string): string | undefined;
}

export function viewAssembler(timeline: ViewTimeline, opts: ViewOptions = {}): ViewAssembler {
  const layout = timeline.layout;
  const lazy = opts.lazySizes === true;
  const max = opts.maxInstant;
  const includeMax = opts.includeMax ?? true;
  const inRange = (t: string): boolean => max === undefined || (includeMax ? t <= max : t < max);

  const completed = new Set<string>();
  let first = timeline.firstActiveInstant;
  for (const i of timeline.completedInstants) {
    if (first === undefined || i.requestedTime < first) first = i.requestedTime;
    if (inRange(i.requestedTime)) completed.add(i.requestedTime);
  }
  const isCommitted = (t: string): boolean => inRange(t) && (completed.has(t) || (first !== undefined && t < first));

  const pendingCompaction = new Map<string, string>();
  for (const pc of timeline.pendingCompactions) {
    if (!inRange(pc.instant)) continue;
    for (const op of pc.operations) pendingCompaction.set(groupKey(op.partitionPath, op.fileId), pc.instant);
  }
  // group → the earliest committed replacecommit that replaced it
  const replaced = new Map<string, string>();
  for (const r of timeline.replacedFileGroups) {
    const key = groupKey(r.partition, r.fileId);
    const prev = replaced.get(key);
    if (isCommitted(r.byInstant) && (prev === undefined || r.byInstant < prev)) replaced.set(key, r.byInstant);
  }
  const clustering = new Map<string, string>();
  for (const c of timeline.pendingClusteringFileGroups ?? []) clustering.set(groupKey(c.partition, c.fileId), c.instant);

  const assemble = (partition: string, files: readonly FileStatus[], excluded: ExcludedFile[], replacedOut?: ReplacedFileGroup[]): FileGroup[] => {
    const bases = new Map<string, BaseFile[]>();
    const logs = new Map<string, LogFile[]>();
    for (const f of files) {
      const b = parseBaseFileName(f.name);
      if (b) {
        const base = sized({ name: f.name, path: f.path, ...b }, f, lazy) as BaseFile;
        const list = bases.get(b.fileId) ?? [];
        list.push(base);
        bases.set(b.fileId, list);
        continue;
      }
      const l = parseLogFileName(f.name);
      if (l && l.ext === 'log') {
        const log = sized({ name: f.name, path: f.path, ...l }, f, lazy) as LogFile;
        const list = logs.get(l.fileId) ?? [];
        list.push(log);
        logs.set(l.fileId, list);
      }
    }
    return assembleParsed(partition, bases, logs, excluded, replacedOut);
  };

  const order = logOrder(layout);
  const assembleParsed = (
    partition: string,
    bases: ReadonlyMap<string, BaseFile[]>,
    logs: ReadonlyMap<string, LogFile[]>,
    excluded: ExcludedFile[],
    replacedOut?: ReplacedFileGroup[],
  ): FileGroup[] => {
    const groups: FileGroup[] = [];
    const fileIds = [...new Set([...bases.keys(), ...logs.keys()])].sort();
    for (const fileId of fileIds) {
      const key = groupKey(partition, fileId);
      const fgBases = bases.get(fileId) ?? [];
      const fgLogs = logs.get(fileId) ?? [];
      const replacedBy = replaced.get(key);
      if (replacedBy !== undefined) {
        for (const f of [...fgBases, ...fgLogs]) excluded.push({ partition, name: f.name, reason: 'replaced', instant: f.instant });
        if (!replacedOut) continue;
      }
      // a replaced group's files are reported once, as replaced; its slices are still built (for cleaning)
      const skipped: ExcludedFile[] = replacedBy !== undefined ? [] : excluded;
      const compactionAt = pendingCompaction.get(key);
      const slices = new Map<string, FileSlice>();
      const sliceAt = (t: string): FileSlice => {
        let s = slices.get(t);
        if (!s) {
          s = { partition, fileId, baseInstant: t, logFiles: [], cdcLogFiles: [] };
          slices.set(t, s);
        }
        return s;
      };
      for (const b of fgBases) {
        if (compactionAt !== undefined && b.instant === compactionAt) {
          skipped.push({ partition, name: b.name, reason: 'pending-compaction-output', instant: b.instant });
          continue;
        }
        if (!isCommitted(b.instant) && !(opts.includeInflight && inRange(b.instant))) {
          skipped.push({ partition, name: b.name, reason: inRange(b.instant) ? 'uncommitted' : 'after-max-instant', instant: b.instant });
          continue;
        }
        if (layout === 2) b.completionTime = timeline.completionTimeOf(b.instant);
        const s = sliceAt(b.instant);
        // two committed base files for one instant (a retried task): keep the later token, like a re-list would
        if (!s.baseFile || cmp(b.writeToken, s.baseFile.writeToken) > 0) s.baseFile = b;
      }
      if (compactionAt !== undefined) {
        const s = sliceAt(compactionAt);
        s.pendingCompaction = true;
      }
      const ordered = fgLogs.length > 1 ? [...fgLogs].sort((a, b) => cmp(a.instant, b.instant)) : fgLogs;
      // slice base instants, ascending (recomputed when a log opens a slice of its own)
      let keys: string[] | undefined;
      for (const l of ordered) {
        if (layout === 1) {
          // 0.x: the name carries the slice's base instant; deltacommit validity is checked per block
          const ok = isCommitted(l.instant) || l.instant === compactionAt || slices.has(l.instant);
          if (!ok && !(opts.includeInflight && inRange(l.instant))) {
            skipped.push({ partition, name: l.name, reason: inRange(l.instant) ? 'uncommitted' : 'after-max-instant', instant: l.instant });
            continue;
          }
          const s = sliceAt(l.instant);
          (l.cdcSuffix ? s.cdcLogFiles : s.logFiles).push(l);
          continue;
        }
        // layout 2: the name carries the writing deltacommit; slice = largest base instant ≤ its completion time
        const committed = isCommitted(l.instant);
        if (!committed && !(opts.includeInflight && inRange(l.instant))) {
          skipped.push({ partition, name: l.name, reason: inRange(l.instant) ? 'uncommitted' : 'after-max-instant', instant: l.instant });
          continue;
        }
        l.completionTime = committed ? timeline.completionTimeOf(l.instant) : undefined;
        if (!keys || keys.length !== slices.size) keys = [...slices.keys()].sort();
        let target: string | undefined;
        if (l.completionTime === undefined) target = keys[keys.length - 1];
        else for (const k of keys) if (k <= l.completionTime) target = k;
        const s = sliceAt(target ?? l.instant);
        (l.cdcSuffix ? s.cdcLogFiles : s.logFiles).push(l);
      }
      const sorted = [...slices.values()];
      if (sorted.length > 1) sorted.sort((a, b) => cmp(a.baseInstant, b.baseInstant));
      for (const s of sorted) {
        if (s.logFiles.length > 1) s.logFiles.sort(order);
        if (s.cdcLogFiles.length > 1) s.cdcLogFiles.sort(order);
      }
      // a slice without base file and without logs only survives as a pending-compaction slice
      const isLive = (s: FileSlice) => s.baseFile || s.logFiles.length > 0 || s.pendingCompaction;
      const live = sorted.every(isLive) ? sorted : sorted.filter(isLive);
      if (live.length === 0) continue;
      if (replacedBy !== undefined) {
        replacedOut!.push({ partition, fileId, slices: live, replacedBy });
        continue;
      }
      const fg: FileGroup = { partition, fileId, slices: live };
      const pc = clustering.get(key);
      if (pc) fg.pendingClustering = pc;
      groups.push(fg);
    }
    return groups;
  };

  return {
    partition: assemble,
    parsedPartition: assembleParsed,
    isCommitted,
    pendingCompactionInstant: (partition, fileId) => pendingCompaction.get(groupKey(partition, fileId)),
  };
}

/** The pure part of the view: from listed files and the timeline to file groups. */
export function assembleView(listed: ListedPartition[], timeline: ViewTimeline, opts: ViewOptions = {}): FileSystemView {
  const asm = viewAssembler(timeline, opts);
  const excluded: ExcludedFile[] = [];
  const groupsByPartition = new Map<string, FileGroup[]>();
  const replacedByPartition = new Map<string, ReplacedFileGroup[]>();
  for (const { partition, files } of listed) {
    const replaced: ReplacedFileGroup[] = [];
    groupsByPartition.set(partition, asm.partition(partition, files, excluded, replaced));
    if (replaced.length > 0) replacedByPartition.set(partition, replaced);
  }

  const partitionNames = [...groupsByPartition.keys()].sort();
  const groupsOf = (partition?: string): FileGroup[] =>
    partition === undefined ? partitionNames.flatMap((p) => groupsByPartition.get(p)!) : groupsByPartition.get(partition) ?? [];

  return {
    layout: timeline.layout,
    maxInstant: opts.maxInstant,
    partitions: () => partitionNames,
    allFileGroups: groupsOf,
    latestFileSlices: (partition) => groupsOf(partition).map((g) => g.slices[g.slices.length - 1]!),
    latestMergedFileSlices: (partition) =>
      groupsOf(partition).map((g) => {
        const last = g.slices[g.slices.length - 1]!;
        const prev = g.slices[g.slices.length - 2];
        if (!last.pendingCompaction || last.baseFile || !prev) return last;
        return {
          ...prev,
          logFiles: [...prev.logFiles, ...last.logFiles],
          cdcLogFiles: [...prev.cdcLogFiles, ...last.cdcLogFiles],
        };
      }),
    replacedFileGroups: (partition) =>
      partition === undefined ? partitionNames.flatMap((p) => replacedByPartition.get(p) ?? []) : replacedByPartition.get(partition) ?? [],
    excludedFiles: () => excluded,
    isCommitted: asm.isCommitted,
    pendingCompactionInstant: asm.pendingCompactionInstant,
  };
}
