// One pass over a table for every triage check (issue 22: tables of millions of files). In order: the
// timeline, heartbeats, marker dirs and (for doctor) the metadata table's file list; every write
// instant's metadata, read once in timeline order into compact per-file-group records; then the
// listing, streamed: directories are listed 16 at a time and each one is fed to the checks and dropped,
// so memory follows the largest partition and the number of file groups, not the number of files.
import { TblError } from '../errors/index.ts';
import { viewAssembler, type ViewAssembler, type ViewTimeline } from '../fs-view/index.ts';
import { listOrEmpty, mapLimit, type FileStatus, type Storage } from '../storage/index.ts';
import { viewTimelineOf, type Table } from '../table/index.ts';
import type { Timeline } from '../timeline/index.ts';
import { joinPath, relativeTo } from '../util/index.ts';
import { dirSummary, feedOutsideDir, feedTableDir, listDir, newPassResult, streamWalk, type FileCandidate, type PartitionSummary, type PassContext, type PassResult } from './listing.ts';
import { overlapCandidates, type InstantWrites, type OverlapContext } from './timing.ts';
import { HAS_PATH, type Touches } from './touches.ts';
import { decodeWrites, instantMs, statsFileOf, writeInstantsOf, type StatRef } from './writes.ts';
import { ListingWorker, toJob, type ListingJob } from './listing-job.ts';

export { dirSummary } from './listing.ts';
export { instantMs } from './writes.ts';
export type { InstantWrites } from './timing.ts';

/** HoodieWriteConfig defaults: heartbeat interval 60 s × 2 tolerable misses. */
export const HEARTBEAT_EXPIRY_MS = 120_000;

export interface MarkerDir {
  instant: string;
  rel: string;
  path: string;
  size: number;
  mtimeMs: number;
  files: number;
}

/** A directory outside the table listed for `orphans --dir` (e.g. a Flink file-sink dir next to it). */
export interface OutsideDir {
  /** absolute storage path */
  root: string;
  /** its Flink part files (`rel` relative to root); its own .tblcli-trash is skipped */
  candidates: FileCandidate[];
}

/** The metadata table's `files` partition as doctor compares it with the listing. */
export type MdtFiles =
  | { state: 'absent' }
  | { state: 'unavailable' }
  | { state: 'unreadable'; message: string }
  | { state: 'read'; partitions: string[]; files: Map<string, Map<string, number>> };

/** What `--partitions` / `--since` narrowed the scan to. */
export interface ScanScope {
  /** table-relative directories: partitions at or below them */
  partitions?: string[];
  /** instants requested at or after it, and files of those instants (or modified since) */
  since?: string;
}

export interface ScanProgress {
  phase: 'timeline' | 'instants' | 'listing' | 'markers';
  instantsRead: number;
  instantsTotal: number;
  dirs: number;
  files: number;
  partitions: number;
}

export interface TableScan {
  table: Table;
  tl: Timeline;
  now: Date;
  layout: 1 | 2;
  viewTimeline: ViewTimeline;
  /** builds the file groups of one partition (for checks that list a partition again) */
  asm: ViewAssembler;
  /** every write instant of the timeline, in timeline order */
  writes: InstantWrites[];
  byTime: Map<string, InstantWrites>;
  /** their write stats as per-file-group records */
  touches: Touches;
  overlap: OverlapContext;
  /** per write: whether it overlaps some other write (only those can pair up) */
  capable: boolean[];
  /** listed partitions, ascending */
  partitions: PartitionSummary[];
  /** files that may be orphans */
  candidates: FileCandidate[];
  /** listed files of touches whose stats name no path (inflight workloads), by touch */
  pathlessFiles: Map<number, string[]>;
  /** requested times of pending write instants (pathlessFiles covers their touches) */
  pendingTimes: ReadonlySet<string>;
  /** files under the base path outside .hoodie (within the scope) and their bytes */
  fileCount: number;
  bytes: number;
  markerDirs: MarkerDir[];
  /** heartbeat file mtime by instant */
  heartbeats: Map<string, number>;
  outside: OutsideDir[];
  /** undefined when the scan was made without it (metadataTable: false) */
  mdt?: MdtFiles;
  scope: ScanScope;
  /** instant files read: once each in the scan, again only for a finding that needs a path not kept */
  reads: { instants: number; again: number };
  /** stats of instants read again, by index into writes */
  reread: Map<number, Promise<StatRef[]>>;
  /** file names of partitions listed again for a finding */
  relisted: Map<string, string[]>;
  /** which thread listed the table */
  listedOn: 'worker' | 'main';
  warnings: string[];
}

export interface ScanOptions {
  now?: Date;
  concurrency?: number;
  /** absolute directories outside the base path to list as well (orphans --dir) */
  outsideDirs?: string[];
  /** read the metadata table's file list for doctor's comparison (default true) */
  metadataTable?: boolean;
  /** --partitions: table-relative directories to look at (partitions at or below them) */
  partitions?: string[];
  /** --since: an instant time; older instants and their files are left out */
  since?: string;
  onProgress?: (p: ScanProgress) => void;
}

/** `--partitions` values as table-relative directories (absolute ones below the base path allowed). */
function scopePartitions(table: Table, values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const out: string[] = [];
  for (const v of values) {
    let p = v.trim();
    if (p.startsWith('/')) p = relativeTo(table.basePath, p.replace(/\/+$/, '')) ?? p;
    p = p.replace(/^\/+|\/+$/g, '');
    if (p === '' || p.split('/').some((s) => s === '..' || s === '.' || s === '.hoodie')) {
      throw new TblError('usage', `--partitions: '${v}' is not a partition directory of the table`, { hint: 'give table-relative partition paths, e.g. --partitions region=us,region=eu' });
    }
    if (!out.includes(p)) out.push(p);
  }
  if (out.length === 0) throw new TblError('usage', '--partitions needs at least one partition path');
  return out;
}

async function loadMdt(table: Table): Promise<MdtFiles> {
  const { storage, basePath } = table;
  if (!(await storage.exists(joinPath(basePath, '.hoodie', 'metadata', '.hoodie', 'hoodie.properties')))) return { state: 'absent' };
  let mdt: typeof import('../mdt/index.ts');
  try {
    mdt = await import('../mdt/index.ts');
  } catch {
    return { state: 'unavailable' };
  }
  try {
    const f = await mdt.readMetadataTableFiles(storage, basePath);
    return { state: 'read', partitions: f.partitions, files: f.files };
  } catch (e) {
    return { state: 'unreadable', message: (e as Error).message };
  }
}

export async function scanTable(table: Table, opts: ScanOptions = {}): Promise<TableScan> {
  const now = opts.now ?? new Date();
  const concurrency = opts.concurrency ?? 16;
  const { storage, basePath, metaPath } = table;
  const warnings: string[] = [];
  const scope: ScanScope = {};
  const parts = scopePartitions(table, opts.partitions);
  if (parts) scope.partitions = parts;
  let sinceMs: number | undefined;
  if (opts.since !== undefined) {
    sinceMs = /^\d{8,17}$/.test(opts.since) ? instantMs(opts.since.padEnd(17, '0'), table) : undefined;
    if (sinceMs === undefined) throw new TblError('usage', `--since must be an instant time (yyyyMMddHHmmss[SSS]), got '${opts.since}'`);
    scope.since = opts.since;
  }
  const progress: ScanProgress = { phase: 'timeline', instantsRead: 0, instantsTotal: 0, dirs: 0, files: 0, partitions: 0 };
  const report = () => opts.onProgress?.(progress);
  report();

  const [tl, heartbeatFiles, tempEntries, mdt] = await Promise.all([
    table.timeline(),
    listOrEmpty(storage, joinPath(metaPath, '.heartbeat')),
    listOrEmpty(storage, joinPath(metaPath, '.temp')),
    opts.metadataTable === false ? undefined : loadMdt(table),
  ]);
  const heartbeats = new Map<string, number>();
  for (const h of heartbeatFiles) if (!h.isDirectory) heartbeats.set(h.name, h.mtimeMs);
  const overlap: OverlapContext = {
    layout: table.config.layoutVersion,
    now,
    heartbeat: (t) => {
      const m = heartbeats.get(t);
      if (m === undefined) return 'missing';
      return now.getTime() - m > HEARTBEAT_EXPIRY_MS ? 'expired' : 'alive';
    },
  };
  // pending plans now; what completed replacecommits replaced comes with their write stats below
  const plans = await viewTimelineOf(table, { replacedFileGroups: [] });
  const planned = new Map<string, string>();
  const plan = (partition: string, fileId: string, instant: string) => {
    const k = `${partition}\u0000${fileId}`;
    const p = planned.get(k);
    if (p === undefined || instant < p) planned.set(k, instant);
  };
  for (const pc of plans.pendingCompactions) for (const op of pc.operations) plan(op.partitionPath, op.fileId, pc.instant);
  for (const c of plans.pendingClusteringFileGroups ?? []) plan(c.partition, c.fileId, c.instant);

  const writes = writeInstantsOf(table, tl);
  const capable = overlapCandidates(writes, overlap);
  const capableSet = new Set(writes.filter((_, k) => capable[k]));
  const byTime = new Map(writes.map((w) => [w.instant.requestedTime, w]));
  // the listing pass needs timeline facts only (plans, not what replacecommits replaced: dropped afterwards)
  const passCtx: PassContext = {
    layout: table.config.layoutVersion,
    asm: viewAssembler(plans),
    byTime,
    pending: new Set(writes.filter((w) => w.instant.state !== 'COMPLETED').map((w) => w.instant.requestedTime)),
    overlap,
    ...(capableSet.size > 0 ? { mayOverlap: (a: InstantWrites, b: InstantWrites) => capableSet.has(a) && capableSet.has(b) } : {}),
    ...(mdt?.state === 'read' ? { mdtFiles: mdt.files } : {}),
    ...(scope.since !== undefined ? { since: { instant: scope.since, ms: sinceMs! } } : {}),
  };
  const roots = parts ? parts.map((p) => ({ abs: joinPath(basePath, p), rel: p })) : [{ abs: basePath, rel: '' }];
  if (parts) {
    for (const r of roots) {
      const st = await storage.stat(r.abs).catch(() => undefined);
      if (!st?.isDirectory) throw new TblError('not-found', `${storage.uri(r.abs)}: no such partition directory`, { path: storage.uri(r.abs) });
    }
  }
  // a local listing is synchronous (readdir, then a stat per file on first access): listing ahead would
  // only hold more directories in memory at once
  const listAhead = storage.scheme === 'file' ? 1 : concurrency;
  // a large local table is listed on a worker thread while this one reads the write stats
  const onWorkerProgress = (p: { dirs: number; files: number; partitions: number }) => {
    Object.assign(progress, p);
    report();
  };
  const worker = storage.scheme === 'file' && (await worthAWorker(table, writes, roots)) ? ListingWorker.start(listingJob(), onWorkerProgress) : undefined;
  function listingJob(): ListingJob {
    const completion: [string, string][] = [];
    if (table.config.layoutVersion === 2) {
      const seen = new Set<string>();
      for (const i of tl.instants) {
        if (i.state !== 'COMPLETED' || seen.has(i.requestedTime)) continue;
        seen.add(i.requestedTime);
        if (i.completionTime !== undefined) completion.push([i.requestedTime, i.completionTime]);
      }
    }
    return toJob(roots, metaPath, passCtx, plans, completion, writes, capable, heartbeats, HEARTBEAT_EXPIRY_MS);
  }
  const inScope = parts ? (p: string) => parts.some((v) => p === v || p.startsWith(`${v}/`)) : undefined;
  progress.phase = 'instants';
  const decoded = await decodeWrites({
    table,
    tl,
    writes,
    capable,
    planned,
    concurrency,
    since: scope.since,
    inScope,
    warnings,
    onInstant: (done, total) => {
      progress.instantsRead = done;
      progress.instantsTotal = total;
      report();
    },
  });
  const viewTimeline: ViewTimeline = { ...plans, replacedFileGroups: decoded.viewReplaced };
  const asm = viewAssembler(viewTimeline);

  progress.phase = 'listing';
  report();
  const fromWorker = await worker?.result();
  const pass =
    fromWorker ??
    (await listTable(storage, roots, metaPath, listAhead, passCtx, (p) => {
      progress.dirs = p.dirs;
      progress.files = p.files;
      progress.partitions = p.partitions.length;
      report();
    }));
  const pathlessFiles = mergeListing(pass, decoded.touches, writes, viewTimeline, asm);

  progress.phase = 'markers';
  report();
  const markerDirs = await mapLimit(
    tempEntries.filter((e) => e.isDirectory && /^\d+$/.test(e.name) && (scope.since === undefined || e.name >= scope.since)),
    concurrency,
    async (d): Promise<MarkerDir> => ({ instant: d.name, rel: relativeTo(basePath, d.path) ?? d.name, path: d.path, ...(await dirSummary(storage, d, concurrency)) }),
  );

  const outside: OutsideDir[] = [];
  for (const root of opts.outsideDirs ?? []) {
    if (!(await storage.exists(root))) throw new TblError('not-found', `${storage.uri(root)}: no such directory`, { path: storage.uri(root) });
    const candidates: FileCandidate[] = [];
    await streamWalk(storage, [{ abs: root, rel: '' }], new Set([joinPath(root, '.tblcli-trash')]), concurrency, (rel, files) => feedOutsideDir(passCtx, candidates, rel, files));
    outside.push({ root, candidates });
  }

  return {
    table,
    tl,
    now,
    layout: table.config.layoutVersion,
    viewTimeline,
    asm,
    writes,
    byTime,
    touches: decoded.touches,
    overlap,
    capable,
    partitions: pass.partitions,
    candidates: pass.candidates,
    pathlessFiles,
    pendingTimes: passCtx.pending,
    fileCount: pass.files,
    bytes: pass.bytes,
    markerDirs,
    heartbeats,
    outside,
    ...(mdt ? { mdt } : {}),
    scope,
    reads: { instants: decoded.read, again: 0 },
    reread: new Map(),
    relisted: new Map(),
    listedOn: fromWorker ? 'worker' : 'main',
    warnings,
  };
}

/** Whether a worker's start-up (~50 ms) pays: metadata of 8 MiB or more to read, or 64 or more entries at the top. */
async function worthAWorker(table: Table, writes: readonly InstantWrites[], roots: { abs: string }[]): Promise<boolean> {
  let bytes = 0;
  for (const w of writes) {
    const state = statsFileOf(w.instant);
    if (state) bytes += w.instant.files[state]!.size;
  }
  if (bytes >= 8 << 20) return true;
  let entries = 0;
  for (const r of roots) entries += (await listDir(table.storage, r.abs)).length;
  return entries >= 64;
}

/** The listing pass over the table (or the --partitions roots), in this thread. */
export async function listTable(
  storage: Storage,
  roots: { abs: string; rel: string }[],
  metaPath: string,
  listAhead: number,
  ctx: PassContext,
  onDir?: (p: PassResult) => void,
): Promise<PassResult> {
  const pass = newPassResult();
  await streamWalk(storage, roots, new Set([metaPath]), listAhead, (rel, files: FileStatus[]) => {
    feedTableDir(ctx, pass, rel, files);
    onDir?.(pass);
  });
  pass.partitions.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
  return pass;
}

/**
 * Joins the listing with the write stats: drops the file groups completed replacecommits replaced (the
 * view leaves them out), counts each group's delta commits since its base file, and hands the listed
 * files of pending instants to their touches. Returns those files by touch.
 */
function mergeListing(pass: PassResult, touches: Touches, writes: readonly InstantWrites[], vt: ViewTimeline, asm: ViewAssembler): Map<number, string[]> {
  const replaced = new Map<string, Set<string>>();
  for (const r of vt.replacedFileGroups) {
    if (!asm.isCommitted(r.byInstant)) continue;
    let ids = replaced.get(r.partition);
    if (!ids) replaced.set(r.partition, (ids = new Set()));
    ids.add(r.fileId);
  }
  for (const s of pass.partitions) {
    const gone = replaced.get(s.partition);
    if (gone && s.fileIds.some((id) => gone.has(id))) {
      const keep = s.fileIds.map((id) => !gone.has(id));
      s.fileIds = s.fileIds.filter((_, k) => keep[k]);
      s.baseInstants = s.baseInstants.filter((_, k) => keep[k]);
      s.latestBytes = s.latestBytes.filter((_, k) => keep[k]);
      s.deltaCommits = new Int32Array(s.fileIds.length);
      s.listing = s.listing.filter((c) => !gone.has(c.fileId));
      const mdtKeep = s.missingInMdtGroup.map((id) => !gone.has(id));
      s.missingInMdt = s.missingInMdt.filter((_, k) => mdtKeep[k]);
      s.missingInMdtGroup = s.missingInMdtGroup.filter((_, k) => mdtKeep[k]);
    }
    for (let k = 0; k < s.fileIds.length; k++) {
      const g = touches.groupOf(s.partition, s.fileIds[k]!);
      let d = 0;
      for (let t = g < 0 ? -1 : touches.first(g); t >= 0; t = touches.nextOf(t)) {
        const w = writes[touches.write.get(t)]!.instant;
        if (w.state === 'COMPLETED' && w.effectiveAction === 'deltacommit' && w.requestedTime > s.baseInstants[k]!) d++;
      }
      s.deltaCommits[k] = d;
    }
  }
  if (replaced.size > 0) {
    pass.candidates = pass.candidates.filter((c) => c.kind !== 'uncommitted-file' || !replaced.get(c.rel.includes('/') ? c.rel.slice(0, c.rel.lastIndexOf('/')) : '')?.has(c.fileId!));
  }
  const out = new Map<number, string[]>();
  for (const [partition, fileId, instant, rel] of pass.pendingFiles) {
    const g = touches.groupOf(partition, fileId);
    for (let t = g < 0 ? -1 : touches.first(g); t >= 0; t = touches.nextOf(t)) {
      if (touches.has(t, HAS_PATH) || writes[touches.write.get(t)]!.instant.requestedTime !== instant) continue;
      const list = out.get(t);
      if (list) list.push(rel);
      else out.set(t, [rel]);
    }
  }
  return out;
}

/**
 * Heartbeat state of an instant. HoodieHeartbeatUtils reads a missing file as expired, but only writers
 * under the LAZY failed-writes policy write one; triage keeps 'missing' apart (a running job may have none).
 */
export function heartbeatOf(scan: TableScan, instant: string): 'alive' | 'expired' | 'missing' {
  return scan.overlap.heartbeat(instant);
}

export type InstantState = 'requested' | 'inflight' | 'completed' | 'absent';

export function instantStateOf(scan: TableScan, instant: string): InstantState {
  return instantStateIn(scan.tl, instant);
}

/** State of an instant in a timeline; 'absent' when no file of it is left (rolled back, or failed and cleaned). */
export function instantStateIn(tl: Timeline, instant: string): InstantState {
  const list = tl.find(instant);
  if (list.length === 0) return 'absent';
  if (list.some((i) => i.state === 'COMPLETED')) return 'completed';
  return list.some((i) => i.state === 'INFLIGHT') ? 'inflight' : 'requested';
}
