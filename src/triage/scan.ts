// One pass over a table for triage: the listing of every file outside .hoodie, the timeline with the
// write stats of every write instant (completed metadata; inflight workload for pending ones), pending
// plans, marker dirs and heartbeats, and the file-system view assembled from the same listing.
import { TblError } from '../errors/index.ts';
import { decodeCommitMetadata } from '../metadata/index.ts';
import { listOrEmpty, mapLimit, type FileStatus, type Storage } from '../storage/index.ts';
import { viewTimelineOf, type Table } from '../table/index.ts';
import { WRITE_ACTIONS, type Instant, type Timeline } from '../timeline/index.ts';
import {
  assembleView,
  parseBaseFileName,
  parseLogFileName,
  partitionMetafileFormat,
  type FileSystemView,
  type ListedPartition,
  type ViewTimeline,
} from '../fs-view/index.ts';
import { joinPath, parseInstantTime, relativeTo } from '../util/index.ts';

/** HoodieWriteConfig defaults: heartbeat interval 60 s × 2 tolerable misses. */
export const HEARTBEAT_EXPIRY_MS = 120_000;

export interface ListedFile extends FileStatus {
  /** table-relative path */
  rel: string;
  /** table-relative directory ('' for the base path) */
  dir: string;
}

/** The part of a HoodieWriteStat triage uses (the full stats of a 200k-file table cost hundreds of MB). */
export interface WriteRef {
  fileId: string;
  partitionPath: string;
  prevCommit: string | null;
  /** table-relative path; null in an inflight workload profile */
  path: string | null;
}

export interface InstantWrites {
  instant: Instant;
  /** stats of the completed file, or of the inflight workload profile of a pending instant */
  stats: WriteRef[];
  /** partitionToReplaceFileIds of a completed replacecommit */
  replaced: { partition: string; fileId: string }[];
  /** operationType of the completed metadata (CLUSTER for a v6 clustering replacecommit) */
  operationType?: string;
  /** epoch ms of the requested time */
  startMs?: number;
  /** epoch ms of the completion time (layout 2 names, layout 1 file mtime); undefined while pending */
  endMs?: number;
}

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
  /** files below it; `rel`/`dir` relative to root; its own .tblcli-trash is skipped */
  files: ListedFile[];
}

export interface TableScan {
  table: Table;
  tl: Timeline;
  now: Date;
  layout: 1 | 2;
  /** every file under the base path outside .hoodie */
  files: ListedFile[];
  partitions: ListedPartition[];
  /** relative dirs that are partitions */
  partitionSet: Set<string>;
  view: FileSystemView;
  viewTimeline: ViewTimeline;
  writes: InstantWrites[];
  markerDirs: MarkerDir[];
  /** heartbeat file mtime by instant */
  heartbeats: Map<string, number>;
  outside: OutsideDir[];
  warnings: string[];
}

export interface ScanOptions {
  now?: Date;
  concurrency?: number;
  /** absolute directories outside the base path to list as well (orphans --dir) */
  outsideDirs?: string[];
}

/** Lists every file under `root`, level by level, skipping `skip` dirs (absolute paths). */
export async function walk(storage: Storage, root: string, skip: ReadonlySet<string>, concurrency = 16): Promise<FileStatus[]> {
  const files: FileStatus[] = [];
  let level = [root];
  while (level.length > 0) {
    const listed = await mapLimit(level, concurrency, (d) => listOrEmpty(storage, d));
    const next: string[] = [];
    for (const entries of listed) {
      for (const e of entries) {
        if (e.isDirectory) {
          if (!skip.has(e.path)) next.push(e.path);
        } else files.push(e);
      }
    }
    level = next;
  }
  return files;
}

/** Adds `rel`/`dir` to the listed statuses in place (a copy would keep the whole listing twice). */
function toListed(statuses: FileStatus[], basePath: string): ListedFile[] {
  for (const f of statuses as ListedFile[]) {
    const rel = relativeTo(basePath, f.path) ?? f.name;
    const slash = rel.lastIndexOf('/');
    f.rel = rel;
    f.dir = slash < 0 ? '' : rel.slice(0, slash);
  }
  return statuses as ListedFile[];
}

/** Bytes of instant files decoded at once: a decoded commit file is ~10x its size, so big ones go one by one. */
const DECODE_BUDGET_BYTES = 8 * 1024 * 1024;

/** mapLimit that also bounds the bytes in flight (an item larger than the budget runs alone); keeps order. */
function mapWithinBudget<T, R>(items: readonly T[], size: (t: T) => number, concurrency: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let running = 0;
  let bytes = 0;
  return new Promise((resolve, reject) => {
    let failed = false;
    const pump = () => {
      if (failed) return;
      if (next === items.length && running === 0) return resolve(out);
      while (next < items.length && running < concurrency) {
        const n = size(items[next]!);
        if (running > 0 && bytes + n > DECODE_BUDGET_BYTES) break;
        const i = next++;
        running++;
        bytes += n;
        fn(items[i]!).then(
          (r) => {
            out[i] = r;
            running--;
            bytes -= n;
            pump();
          },
          (e) => {
            failed = true;
            reject(e);
          },
        );
      }
    };
    pump();
  });
}

export function instantMs(t: string, table: Table): number | undefined {
  return parseInstantTime(t, table.config.timezone)?.getTime();
}

export async function scanTable(table: Table, opts: ScanOptions = {}): Promise<TableScan> {
  const now = opts.now ?? new Date();
  const concurrency = opts.concurrency ?? 16;
  const { storage, basePath, metaPath } = table;
  const warnings: string[] = [];
  const [tl, viewTimeline, walked, heartbeatFiles, tempEntries] = await Promise.all([
    table.timeline(),
    viewTimelineOf(table),
    walk(storage, basePath, new Set([metaPath]), concurrency),
    listOrEmpty(storage, joinPath(metaPath, '.heartbeat')),
    listOrEmpty(storage, joinPath(metaPath, '.temp')),
  ]);

  const files = toListed(walked, basePath);

  // partitions as the fs-view defines them: dirs holding partition metadata, or the root holding data files
  const byDir = new Map<string, ListedFile[]>();
  for (const f of files) {
    const list = byDir.get(f.dir);
    if (list) list.push(f);
    else byDir.set(f.dir, [f]);
  }
  const partitions: ListedPartition[] = [];
  for (const [dir, list] of byDir) {
    const hasMeta = list.some((f) => partitionMetafileFormat(f.name) !== undefined);
    const hasData = dir === '' && list.some((f) => parseBaseFileName(f.name) || parseLogFileName(f.name));
    if (hasMeta || hasData) partitions.push({ partition: dir, files: list });
  }
  partitions.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
  const view = assembleView(partitions, viewTimeline);

  const writeInstants = tl.instants.filter((i) => WRITE_ACTIONS.has(i.action) || WRITE_ACTIONS.has(i.effectiveAction));
  const writes = await mapWithinBudget(writeInstants, (i) => (i.files.COMPLETED ?? i.files.INFLIGHT)?.size ?? 0, concurrency, async (i): Promise<InstantWrites> => {
    const out: InstantWrites = { instant: i, stats: [], replaced: [], startMs: instantMs(i.requestedTime, table) };
    if (i.state === 'COMPLETED') {
      out.endMs = i.completionTime ? instantMs(i.completionTime, table) : i.files.COMPLETED?.mtimeMs;
    }
    const state = i.state === 'COMPLETED' ? 'COMPLETED' : i.files.INFLIGHT ? 'INFLIGHT' : undefined;
    const file = state ? i.files[state] : undefined;
    // compaction/clustering pending files hold plans, not write stats
    const planOnly = i.state !== 'COMPLETED' && ['compaction', 'logcompaction', 'clustering'].includes(i.effectiveAction);
    if (!state || !file || file.size === 0 || planOnly) return out;
    try {
      const m = decodeCommitMetadata(await tl.read(i, state, false), { path: storage.uri(file.path) });
      if (m.operationType) out.operationType = m.operationType;
      for (const stats of Object.values(m.partitionToWriteStats)) {
        for (const s of stats) out.stats.push({ fileId: s.fileId, partitionPath: s.partitionPath, prevCommit: s.prevCommit ?? null, path: s.path ?? null });
      }
      if (state === 'COMPLETED') {
        for (const [partition, ids] of Object.entries(m.partitionToReplaceFileIds ?? {})) {
          for (const fileId of ids) out.replaced.push({ partition, fileId });
        }
      }
    } catch (e) {
      warnings.push(`${storage.uri(file.path)}: could not read write stats (${(e as Error).message})`);
    }
    return out;
  });

  const heartbeats = new Map<string, number>();
  for (const h of heartbeatFiles) if (!h.isDirectory) heartbeats.set(h.name, h.mtimeMs);

  const markerDirs = await mapLimit(
    tempEntries.filter((e) => e.isDirectory && /^\d+$/.test(e.name)),
    concurrency,
    async (d): Promise<MarkerDir> => ({ instant: d.name, rel: relativeTo(basePath, d.path) ?? d.name, path: d.path, ...(await dirSummary(storage, d, concurrency)) }),
  );

  const outside: OutsideDir[] = [];
  for (const root of opts.outsideDirs ?? []) {
    if (!(await storage.exists(root))) throw new TblError('not-found', `${storage.uri(root)}: no such directory`, { path: storage.uri(root) });
    outside.push({ root, files: toListed(await walk(storage, root, new Set([joinPath(root, '.tblcli-trash')]), concurrency), root) });
  }

  return { table, tl, now, layout: table.config.layoutVersion, files, partitions, partitionSet: new Set(partitions.map((p) => p.partition)), view, viewTimeline, writes, markerDirs, heartbeats, outside, warnings };
}

/** Total size, newest mtime (the dir's own or any file's below it) and file count of a directory. */
export async function dirSummary(storage: Storage, dir: FileStatus, concurrency = 16): Promise<{ size: number; mtimeMs: number; files: number }> {
  const inner = await walk(storage, dir.path, new Set(), concurrency);
  let size = 0;
  let mtimeMs = dir.mtimeMs;
  for (const f of inner) {
    size += f.size;
    mtimeMs = Math.max(mtimeMs, f.mtimeMs);
  }
  return { size, mtimeMs, files: inner.length };
}

/**
 * Heartbeat state of an instant. HoodieHeartbeatUtils reads a missing file as expired, but only writers
 * under the LAZY failed-writes policy write one; triage keeps 'missing' apart (a running job may have none).
 */
export function heartbeatOf(scan: TableScan, instant: string): 'alive' | 'expired' | 'missing' {
  const m = scan.heartbeats.get(instant);
  if (m === undefined) return 'missing';
  return scan.now.getTime() - m > HEARTBEAT_EXPIRY_MS ? 'expired' : 'alive';
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
