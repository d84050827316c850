// The streaming listing pass: directories are listed in parallel (16 in flight) and each one is fed to
// the checks as soon as it is listed, then dropped. What survives a directory is per file group (its
// backlog, size, fileId) or per finding candidate, never per file.
import { StorageError } from '../errors/index.ts';
import {
  parseBaseFileName,
  parseLogFileName,
  partitionMetafileFormat,
  type BaseFile,
  type ExcludedFile,
  type FileGroup,
  type LogFile,
  type ViewAssembler,
} from '../fs-view/index.ts';
import { mapLimit, type FileStatus, type Storage } from '../storage/index.ts';
import { joinPath } from '../util/index.ts';
import { isService, overlaps, type InstantWrites, type OverlapContext } from './timing.ts';

/** Lists `dir`; a directory that is gone (or not a directory) lists as empty. Local listings stat lazily. */
export async function listDir(storage: Storage, dir: string): Promise<FileStatus[]> {
  try {
    return await storage.list(dir, { lazyStatus: true });
  } catch (e) {
    if (e instanceof StorageError && (e.code === 'not-found' || e.code === 'not-a-directory')) return [];
    throw e;
  }
}

/** The files (not directories) of one directory. */
export async function listFiles(storage: Storage, dir: string): Promise<FileStatus[]> {
  return (await listDir(storage, dir)).filter((f) => !f.isDirectory);
}

/**
 * Lists every directory below `roots` (not `skip`), up to `concurrency` at a time, calling `onDir`
 * with each directory's files (table-relative `rel`) as it is listed.
 */
export async function streamWalk(
  storage: Storage,
  roots: { abs: string; rel: string }[],
  skip: ReadonlySet<string>,
  concurrency: number,
  onDir: (rel: string, files: FileStatus[]) => void,
): Promise<void> {
  const queue = [...roots];
  let running = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (queue.length === 0 && running === 0) return resolve();
      while (queue.length > 0 && running < concurrency) {
        const d = queue.shift()!;
        running++;
        listDir(storage, d.abs).then(
          (entries) => {
            running--;
            const files: FileStatus[] = [];
            for (const e of entries) {
              if (!e.isDirectory) files.push(e);
              else if (!skip.has(e.path)) queue.push({ abs: e.path, rel: d.rel === '' ? e.name : `${d.rel}/${e.name}` });
            }
            try {
              onDir(d.rel, files);
            } catch (err) {
              failed = true;
              return reject(err);
            }
            pump();
          },
          (err: unknown) => {
            failed = true;
            reject(err);
          },
        );
      }
    };
    pump();
  });
}

/** Total size, newest mtime (the dir's own or any file's below it) and file count of a directory. */
export async function dirSummary(storage: Storage, dir: FileStatus, concurrency = 16): Promise<{ size: number; mtimeMs: number; files: number }> {
  let size = 0;
  let mtimeMs = dir.mtimeMs;
  let files = 0;
  await streamWalk(storage, [{ abs: dir.path, rel: '' }], new Set(), concurrency, (_rel, list) => {
    for (const f of list) {
      size += f.size;
      mtimeMs = Math.max(mtimeMs, f.mtimeMs);
      files++;
    }
  });
  return { size, mtimeMs, files };
}

// `.part-<uuid>-<n>.inprogress.<uuid>`, `part-<uuid>-<n>.pending.<uuid>` (hidden or not)
const FLINK_PART = /^\.?part-.+\.(inprogress|pending)\.[^/]+$/;
// names Hudi itself keeps beside data files
const KNOWN_FILES = new Set(['_SUCCESS']);

export function isFlinkLeftover(name: string): 'inprogress' | 'pending' | undefined {
  const m = FLINK_PART.exec(name);
  return m ? (m[1] as 'inprogress' | 'pending') : undefined;
}

/** A file that may be an orphan, as listed (age, deletability and wording come at report time). */
export interface FileCandidate {
  kind: 'flink-leftover' | 'outside-partition' | 'uncommitted-file' | 'unparseable';
  /** table-relative (relative to its root for files of a directory outside the table) */
  rel: string;
  size: number;
  mtimeMs: number;
  /** uncommitted-file: the instant that wrote it, and its file group (a replaced group's files are not orphans) */
  instant?: string;
  fileId?: string;
  flink?: 'inprogress' | 'pending';
}

/** What the listing shows that only the write stats can confirm (resolved when collisions are reported). */
export type ListingCandidate =
  | { kind: 'duplicate-write-token'; fileId: string; instant: string; names: string[] }
  | { kind: 'log-version'; fileId: string; version: string; rels: string[]; tokens: string[]; firstInstant: string }
  | { kind: 'log-overlap'; fileId: string; a: string; b: string; files: string[] };

/** One partition after its listing: per file group (fileIds ascending) and per candidate, nothing per file. */
export interface PartitionSummary {
  partition: string;
  files: number;
  fileIds: string[];
  /** latest base instant of each group ('' for a log-only group) */
  baseInstants: string[];
  /** completed delta commits since that base instant (from the write stats; filled in after the listing) */
  deltaCommits: Int32Array;
  /** bytes of the latest slice (base + logs) */
  latestBytes: Float64Array;
  listing: ListingCandidate[];
  /** metadata-table check: committed files missing in it (with their fileIds), and its files missing on storage */
  missingInMdt: string[];
  missingInMdtGroup: string[];
  missingOnStorage: string[];
}

/**
 * What the listing pass needs: only timeline facts, no write stats, so it can run while the write stats
 * are read (on a worker thread for a local table). File groups replaced by a completed replacecommit
 * are not known yet: the pass treats them as live, and the scan drops them afterwards.
 */
export interface PassContext {
  layout: 1 | 2;
  /** built without replaced file groups */
  asm: ViewAssembler;
  /** write instants by requested time (their actions and windows) */
  byTime: ReadonlyMap<string, InstantWrites>;
  /** requested times of pending write instants: their stats name no paths, so their listed files are kept */
  pending: ReadonlySet<string>;
  overlap: OverlapContext;
  /** prefilter for `overlaps` (only writes that overlap some write can); undefined when none can */
  mayOverlap?: (a: InstantWrites, b: InstantWrites) => boolean;
  /** the metadata table's files partition, when doctor compares it */
  mdtFiles?: Map<string, Map<string, number>>;
  /** files of an instant at or after this only (by the instant in their name, or their mtime) */
  since?: { instant: string; ms: number };
}

export interface PassResult {
  partitions: PartitionSummary[];
  candidates: FileCandidate[];
  /** listed data files of pending write instants: [partition, fileId, instant, rel], in listing order */
  pendingFiles: [string, string, string, string][];
  files: number;
  bytes: number;
  dirs: number;
}

export function newPassResult(): PassResult {
  return { partitions: [], candidates: [], pendingFiles: [], files: 0, bytes: 0, dirs: 0 };
}

function relOf(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** Whether a file is in the --since scope: the instant in its name, or else its mtime. */
function inSince(ctx: PassContext, instant: string | undefined, f: FileStatus): boolean {
  if (!ctx.since) return true;
  return (instant !== undefined && instant >= ctx.since.instant) || f.mtimeMs >= ctx.since.ms;
}

/** A listed file parsed once: a base file, a log file (data or archive), or neither. */
type Parsed = BaseFile | LogFile | undefined;

const isLog = (p: Parsed): p is LogFile => p !== undefined && 'version' in p;

/** Feeds one listed directory of the table (every directory outside .hoodie) to the checks. */
export function feedTableDir(ctx: PassContext, out: PassResult, dir: string, files: FileStatus[]): void {
  out.dirs++;
  out.files += files.length;
  const n = files.length;
  const parsed: Parsed[] = new Array<Parsed>(n);
  // data files grouped by fileId, as the file-system view takes them (data logs only)
  const bases = new Map<string, BaseFile[]>();
  const logs = new Map<string, LogFile[]>();
  let hasMeta = false;
  let hasData = false;
  for (let i = 0; i < n; i++) {
    const f = files[i]!;
    const name = f.name;
    const size = f.size;
    out.bytes += size;
    if (partitionMetafileFormat(name) !== undefined) {
      hasMeta = true;
      continue;
    }
    const b = parseBaseFileName(name);
    if (b) {
      const base: BaseFile = { name, path: f.path, size, ...b };
      parsed[i] = base;
      hasData = true;
      const list = bases.get(b.fileId);
      if (list) list.push(base);
      else bases.set(b.fileId, [base]);
      continue;
    }
    const l = name.charCodeAt(0) === 0x2e ? parseLogFileName(name) : undefined;
    if (l) {
      const log: LogFile = { name, path: f.path, size, ...l };
      parsed[i] = log;
      hasData = true;
      if (l.ext !== 'log') continue;
      const list = logs.get(l.fileId);
      if (list) list.push(log);
      else logs.set(l.fileId, [log]);
    }
  }
  // partitions as the file-system view defines them: dirs holding partition metadata, or the root holding data files
  const isPartition = n > 0 && (hasMeta || (dir === '' && hasData));
  let uncommitted: Map<string, string> | undefined;
  if (isPartition) {
    const excluded: ExcludedFile[] = [];
    const groups = ctx.asm.parsedPartition(dir, bases, logs, excluded);
    let replaced: Set<string> | undefined;
    for (const e of excluded) {
      if (e.reason === 'uncommitted' || e.reason === 'pending-compaction-output') (uncommitted ??= new Map()).set(e.name, e.instant);
      else if (e.reason === 'replaced') (replaced ??= new Set()).add(e.name);
    }
    const summary = summarise(ctx, dir, files, groups);
    listingCandidates(ctx, summary, files, parsed, bases, logs, replaced);
    if (ctx.pending.size > 0) for (const p of parsed) if (p && ctx.pending.has(p.instant)) out.pendingFiles.push([dir, p.fileId, p.instant, relOf(dir, p.name)]);
    out.partitions.push(summary);
  }
  for (let i = 0; i < n; i++) {
    const f = files[i]!;
    const name = f.name;
    const c0 = name.charCodeAt(0);
    const flink = c0 === 0x70 /* p */ || c0 === 0x2e /* . */ ? isFlinkLeftover(name) : undefined;
    if (flink) {
      if (inSince(ctx, undefined, f)) out.candidates.push({ kind: 'flink-leftover', rel: relOf(dir, name), size: f.size, mtimeMs: f.mtimeMs, flink });
      continue;
    }
    const p = parsed[i];
    if (p && (!isLog(p) || p.ext === 'log')) {
      if (!isPartition) {
        if (inSince(ctx, p.instant, f)) out.candidates.push({ kind: 'outside-partition', rel: relOf(dir, name), size: f.size, mtimeMs: f.mtimeMs });
        continue;
      }
      const instant = uncommitted?.get(name);
      if (instant !== undefined && inSince(ctx, p.instant, f)) {
        out.candidates.push({ kind: 'uncommitted-file', rel: relOf(dir, name), size: f.size, mtimeMs: f.mtimeMs, instant, fileId: p.fileId });
      }
      continue;
    }
    if (partitionMetafileFormat(name) !== undefined || KNOWN_FILES.has(name)) continue;
    if (inSince(ctx, undefined, f)) out.candidates.push({ kind: 'unparseable', rel: relOf(dir, name), size: f.size, mtimeMs: f.mtimeMs });
  }
}

/** Feeds one listed directory below a directory outside the table (orphans --dir): only Flink part files count there. */
export function feedOutsideDir(ctx: PassContext, out: FileCandidate[], dir: string, files: FileStatus[]): void {
  for (const f of files) {
    const flink = isFlinkLeftover(f.name);
    if (flink && inSince(ctx, undefined, f)) out.push({ kind: 'flink-leftover', rel: relOf(dir, f.name), size: f.size, mtimeMs: f.mtimeMs, flink });
  }
}

function summarise(ctx: PassContext, partition: string, files: FileStatus[], groups: FileGroup[]): PartitionSummary {
  const n = groups.length;
  const s: PartitionSummary = {
    partition,
    files: files.length,
    fileIds: new Array<string>(n),
    baseInstants: new Array<string>(n),
    deltaCommits: new Int32Array(n),
    latestBytes: new Float64Array(n),
    listing: [],
    missingInMdt: [],
    missingInMdtGroup: [],
    missingOnStorage: [],
  };
  for (let k = 0; k < n; k++) {
    const g = groups[k]!;
    let base = '';
    for (const sl of g.slices) if (sl.baseFile && sl.baseFile.instant > base) base = sl.baseFile.instant;
    s.fileIds[k] = g.fileId;
    s.baseInstants[k] = base;
    const latest = g.slices[g.slices.length - 1]!;
    let bytes = latest.baseFile?.size ?? 0;
    for (const l of latest.logFiles) bytes += l.size;
    s.latestBytes[k] = bytes;
  }
  if (ctx.mdtFiles) compareMdt(ctx.mdtFiles, s, files, groups);
  return s;
}

/**
 * What the listing alone shows: base files of one group and instant with different write tokens, one
 * layout-1 log version written twice, layout-2 log files of overlapping writers. Candidates keep the
 * order of their first file in the listing (the order findings are reported in before sorting).
 */
function listingCandidates(
  ctx: PassContext,
  s: PartitionSummary,
  files: FileStatus[],
  parsed: Parsed[],
  bases: ReadonlyMap<string, BaseFile[]>,
  logs: ReadonlyMap<string, LogFile[]>,
  replaced: ReadonlySet<string> | undefined,
): void {
  const partition = s.partition;
  const found: { at: BaseFile | LogFile; c: ListingCandidate }[] = [];
  let index: Map<BaseFile | LogFile, number> | undefined;
  const indexOf = (p: BaseFile | LogFile): number => {
    if (!index) {
      index = new Map();
      parsed.forEach((x, i) => x && index!.set(x, i));
    }
    return index.get(p)!;
  };
  const inScope = (p: BaseFile | LogFile) => !ctx.since || inSince(ctx, p.instant, files[indexOf(p)]!);
  for (const [fileId, list] of bases) {
    if (list.length < 2) continue;
    const byInstant = new Map<string, BaseFile[]>();
    for (const b of list) {
      if (replaced?.has(b.name) || !inScope(b)) continue;
      const e = byInstant.get(b.instant);
      if (e) e.push(b);
      else byInstant.set(b.instant, [b]);
    }
    for (const [instant, bs] of byInstant) {
      if (bs.length > 1) found.push({ at: bs[0]!, c: { kind: 'duplicate-write-token', fileId, instant, names: bs.map((b) => b.name) } });
    }
  }
  const baseCount = found.length;
  for (const [fileId, all] of logs) {
    if (all.length < 2 || (ctx.layout === 2 && !ctx.mayOverlap)) continue;
    const list = all.filter((l) => !l.cdcSuffix && !replaced?.has(l.name) && inScope(l));
    if (list.length < 2) continue;
    if (ctx.layout === 1) {
      // most groups: no log version written twice (checked without building keys)
      let twice = list.length > 64;
      for (let i = 1; i < list.length && !twice; i++) {
        for (let j = 0; j < i && !twice; j++) twice = list[i]!.version === list[j]!.version && list[i]!.instant === list[j]!.instant;
      }
      if (!twice) continue;
      const byVersion = new Map<string, LogFile[]>();
      for (const l of list) {
        const v = `${l.instant}.${l.version}`;
        const vs = byVersion.get(v);
        if (vs) vs.push(l);
        else byVersion.set(v, [l]);
      }
      for (const [version, ls] of byVersion) {
        if (ls.length < 2) continue;
        found.push({
          at: list[0]!,
          c: { kind: 'log-version', fileId, version, rels: ls.map((l) => relOf(partition, l.name)), tokens: ls.map((l) => l.writeToken ?? 'none'), firstInstant: ls[0]!.instant },
        });
      }
      continue;
    }
    const instants = [...new Set(list.map((l) => l.instant))].sort();
    for (let i = 0; i < instants.length; i++) {
      for (let j = i + 1; j < instants.length; j++) {
        const a = ctx.byTime.get(instants[i]!);
        const b = ctx.byTime.get(instants[j]!);
        if (!a || !b || isService(a) || isService(b)) continue;
        if (!ctx.mayOverlap!(a, b) || !overlaps(a, b, ctx.overlap)) continue;
        found.push({
          at: list[0]!,
          c: { kind: 'log-overlap', fileId, a: instants[i]!, b: instants[j]!, files: list.filter((l) => l.instant === instants[i] || l.instant === instants[j]).map((l) => relOf(partition, l.name)) },
        });
      }
    }
  }
  if (found.length === 0) return;
  // base candidates first, each kind in the order of its first file in the listing
  const order = (x: { at: BaseFile | LogFile }, y: { at: BaseFile | LogFile }) => indexOf(x.at) - indexOf(y.at);
  s.listing.push(...found.slice(0, baseCount).sort(order).map((x) => x.c), ...found.slice(baseCount).sort(order).map((x) => x.c));
}

/** The metadata table's file list of this partition against its listing and its committed files. */
function compareMdt(mdt: Map<string, Map<string, number>>, s: PartitionSummary, files: FileStatus[], groups: FileGroup[]): void {
  const inMdt = mdt.get(s.partition);
  if (inMdt) {
    const here = new Set(files.map((f) => f.name));
    for (const n of inMdt.keys()) if (!here.has(n)) s.missingOnStorage.push(relOf(s.partition, n));
  }
  for (const g of groups) {
    const committed = new Set<string>();
    for (const sl of g.slices) {
      if (sl.baseFile) committed.add(sl.baseFile.name);
      for (const l of sl.logFiles) committed.add(l.name);
      for (const l of sl.cdcLogFiles) committed.add(l.name);
    }
    for (const n of committed) {
      if (inMdt?.has(n)) continue;
      s.missingInMdt.push(relOf(s.partition, n));
      s.missingInMdtGroup.push(g.fileId);
    }
  }
}

/** A file-system view of the listed partitions, listed again (for the rare check that needs every file name). */
export async function relistView(storage: Storage, basePath: string, partitions: readonly string[], asm: ViewAssembler, concurrency: number): Promise<Map<string, FileGroup[]>> {
  const out = new Map<string, FileGroup[]>();
  const lists = await mapLimit(partitions, concurrency, (p) => listFiles(storage, p === '' ? basePath : joinPath(basePath, p)));
  partitions.forEach((p, i) => out.set(p, asm.partition(p, lists[i]!, [])));
  return out;
}
