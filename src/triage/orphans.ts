// Orphans (incidents.md §2, §4): Flink sink leftovers, data files of no completed instant, marker
// dirs, stuck instants, unparseable names; and their quarantine under .hoodie/.tblcli-trash/<run>.
import { StorageError, TblError } from '../errors/index.ts';
import { parseBaseFileName, parseLogFileName, partitionMetafileFormat } from '../fs-view/index.ts';
import { formatInstantTime, joinPath, parentPath, relativeTo } from '../util/index.ts';
import { confineStorage } from '../storage/confine.ts';
import type { Storage } from '../storage/index.ts';
import { ORPHAN_TEXT } from './runbook.ts';
import { openTableAt } from '../table/index.ts';
import { dirSummary, HEARTBEAT_EXPIRY_MS, heartbeatOf, instantMs, instantStateIn, instantStateOf, type InstantState, type TableScan } from './scan.ts';
import type { Orphan, OrphanKind, Severity } from './types.ts';

export const DEFAULT_OLDER_THAN_MS = 60 * 60 * 1000;

export interface OrphanOptions {
  /** only files (and instants) older than this count as abandoned; default 1 h */
  olderThanMs?: number;
  /**
   * restrict file orphans to this table-relative directory (default: the whole table); an absolute
   * directory outside the table (listed by scanTable's outsideDirs) reports only its Flink part files
   */
  dir?: string;
}

/** Whether `dir` names a directory outside the table (an absolute path not below the base path). */
export function isOutsideDir(scan: TableScan, dir: string | undefined): boolean {
  return dir !== undefined && dir.startsWith('/') && relativeTo(scan.table.basePath, dir) === undefined;
}

// `.part-<uuid>-<n>.inprogress.<uuid>`, `part-<uuid>-<n>.pending.<uuid>` (hidden or not)
const FLINK_PART = /^\.?part-.+\.(inprogress|pending)\.[^/]+$/;
const TABLE_SERVICE_PLANS = new Set(['compaction', 'logcompaction', 'clustering']);
// names Hudi itself keeps beside data files
const KNOWN_FILES = new Set(['_SUCCESS']);

export function isFlinkLeftover(name: string): 'inprogress' | 'pending' | undefined {
  const m = FLINK_PART.exec(name);
  return m ? (m[1] as 'inprogress' | 'pending') : undefined;
}

export const ROLL_BACK_FIRST =
  'roll it back first (`tblcli rollback failed --yes` once no writer runs, or `tblcli commit rollback --commit <t>`), then re-run orphans';

/**
 * Why a data file or marker dir of `instant` must stay, or undefined when the instant no longer protects
 * it. Data files: the instant is off the timeline, or pending with a heartbeat file that exists and
 * expired (a missing heartbeat proves nothing: single-writer Spark/Flink jobs and compactions write
 * none). Marker dirs: only of completed or absent instants (a rollback reads the markers).
 */
export function instantKeepReason(kind: 'uncommitted-file' | 'marker-dir', instant: string, state: InstantState, heartbeat: 'alive' | 'expired' | 'missing' | undefined): string | undefined {
  if (state === 'absent') return undefined;
  if (state === 'completed') return kind === 'marker-dir' ? undefined : `instant ${instant} is completed: the file may be committed`;
  if (heartbeat === 'alive') return `instant ${instant} has a live heartbeat`;
  if (kind === 'marker-dir') return `markers of the ${state} instant ${instant} (a rollback reads them): ${ROLL_BACK_FIRST}`;
  if (heartbeat !== 'expired') return `instant ${instant} is ${state} with no heartbeat file, its writer may still be running (single-writer jobs and compactions write none): ${ROLL_BACK_FIRST}`;
  return undefined;
}

export function findOrphans(scan: TableScan, opts: OrphanOptions = {}): Orphan[] {
  const olderThan = opts.olderThanMs ?? DEFAULT_OLDER_THAN_MS;
  const now = scan.now.getTime();
  const out: Orphan[] = [];
  const outsideOnly = isOutsideDir(scan, opts.dir);
  const within = (rel: string) => !outsideOnly && (opts.dir === undefined || opts.dir === '' || rel === opts.dir || rel.startsWith(`${opts.dir.replace(/\/$/, '')}/`));

  const push = (o: Omit<Orphan, 'ageSeconds' | 'deletable' | 'severity'> & { severity?: Severity; reportOnly?: string }) => {
    const ageMs = now - o.mtimeMs;
    let keepReason = o.reportOnly;
    if (!keepReason && o.heartbeat === 'alive') keepReason = `instant ${o.instant} has a live heartbeat`;
    if (!keepReason && ageMs < olderThan) keepReason = `younger than --older-than (${Math.round(ageMs / 1000)} s old)`;
    const { reportOnly: _r, ...rest } = o;
    out.push({ ...rest, ageSeconds: Math.max(0, Math.round(ageMs / 1000)), deletable: keepReason === undefined, ...(keepReason ? { keepReason } : {}), severity: o.severity ?? (keepReason ? 'info' : 'warning') });
  };

  const instantFacts = (instant: string) => {
    const instantState = instantStateOf(scan, instant);
    return { instant, instantState, ...(instantState === 'completed' ? {} : { heartbeat: heartbeatOf(scan, instant) }) };
  };

  // files under the table
  const uncommitted = new Map<string, string>();
  for (const e of scan.view.excludedFiles()) {
    if (e.reason === 'uncommitted' || e.reason === 'pending-compaction-output') uncommitted.set(`${e.partition}\u0000${e.name}`, e.instant);
  }
  for (const f of scan.files) {
    if (!within(f.rel)) continue;
    const base = { path: f.rel, size: f.size, mtimeMs: f.mtimeMs };
    const flink = isFlinkLeftover(f.name);
    if (flink) {
      push({ ...base, kind: 'flink-leftover', reason: `${ORPHAN_TEXT['flink-leftover']} (${flink})` });
      continue;
    }
    const b = parseBaseFileName(f.name);
    const l = b ? undefined : parseLogFileName(f.name);
    if (b || (l && l.ext === 'log')) {
      if (!scan.partitionSet.has(f.dir)) {
        push({ ...base, kind: 'outside-partition', reason: ORPHAN_TEXT['outside-partition'], reportOnly: 'outside any partition: report only' });
        continue;
      }
      const instant = uncommitted.get(`${f.dir}\u0000${f.name}`);
      if (instant === undefined) continue;
      const facts = instantFacts(instant);
      const who = facts.instantState === 'absent' ? 'failed or rolled back, no longer on the timeline' : `still ${facts.instantState}, heartbeat ${facts.heartbeat}`;
      const reportOnly = instantKeepReason('uncommitted-file', instant, facts.instantState, facts.heartbeat);
      push({ ...base, kind: 'uncommitted-file', ...facts, reason: `${ORPHAN_TEXT['uncommitted-file']}: written by ${instant} (${who})`, ...(reportOnly ? { reportOnly } : {}) });
      continue;
    }
    if (partitionMetafileFormat(f.name) !== undefined || KNOWN_FILES.has(f.name)) continue;
    push({ ...base, kind: 'unparseable', reason: ORPHAN_TEXT.unparseable });
  }

  // a directory outside the table (a Flink file sink next to it): only unfinished part files are orphans there
  for (const o of scan.outside) {
    if (outsideOnly && o.root !== opts.dir!.replace(/\/$/, '')) continue;
    for (const f of o.files) {
      const flink = isFlinkLeftover(f.name);
      if (flink) push({ path: joinPath(o.root, f.rel), root: o.root, size: f.size, mtimeMs: f.mtimeMs, kind: 'flink-leftover', reason: `${ORPHAN_TEXT['flink-leftover']} (${flink})` });
    }
  }
  if (outsideOnly) return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  // marker dirs: completed instants should have none; abandoned ones keep theirs forever
  if (opts.dir === undefined || opts.dir === '' || within('.hoodie/.temp')) {
    for (const m of scan.markerDirs) {
      const facts = instantFacts(m.instant);
      const st = facts.instantState;
      if (st !== 'completed' && st !== 'absent' && facts.heartbeat === 'alive') continue; // a running writer's markers
      const age = instantMs(m.instant, scan.table);
      if (st !== 'completed' && st !== 'absent' && age !== undefined && now - age < olderThan) continue;
      const what = st === 'completed' ? 'of a completed instant' : st === 'absent' ? 'of an instant no longer on the timeline (rolled back or abandoned)' : `of the ${st} instant (heartbeat ${facts.heartbeat})`;
      const reportOnly = instantKeepReason('marker-dir', m.instant, st, facts.heartbeat);
      push({ path: m.rel, size: m.size, mtimeMs: m.mtimeMs, kind: 'marker-dir', ...facts, reason: `${ORPHAN_TEXT['marker-dir']} ${what}, ${m.files} marker file(s)`, ...(reportOnly ? { reportOnly } : {}) });
    }
  }

  // stuck requested/inflight instants (report only: the timeline is never edited here)
  for (const i of scan.tl.pending()) {
    if (TABLE_SERVICE_PLANS.has(i.effectiveAction) && i.state === 'REQUESTED') continue; // a plan waiting for its executor, see doctor
    const start = instantMs(i.requestedTime, scan.table);
    if (start === undefined || now - start < olderThan) continue;
    const hb = heartbeatOf(scan, i.requestedTime);
    if (hb === 'alive') continue;
    const file = i.files[i.state]!;
    const rel = relativeTo(scan.table.basePath, file.path) ?? file.name;
    if (opts.dir && !within(rel)) continue;
    push({
      path: rel,
      size: file.size,
      mtimeMs: start,
      kind: 'stuck-instant',
      instant: i.requestedTime,
      instantState: i.state === 'INFLIGHT' ? 'inflight' : 'requested',
      heartbeat: hb,
      reason: `${i.effectiveAction} ${i.requestedTime} ${i.state.toLowerCase()} since ${new Date(start).toISOString()}, heartbeat ${hb}: ${ORPHAN_TEXT['stuck-instant']}`,
      severity: 'warning',
      reportOnly: 'timeline file: report only (roll the failed write back with `tblcli rollback failed --yes`)',
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface DeleteResult {
  path: string;
  kind: OrphanKind;
  /** kept: not deletable in the listing; skipped: deletable in the listing, but the re-check before deleting said no */
  action: 'moved' | 'purged' | 'kept' | 'skipped';
  /** table-relative quarantine path for moved entries */
  to?: string;
  size: number;
  reason?: string;
}

export interface DeleteOptions {
  purge?: boolean;
  /** run id: the quarantine dir name (default: now as an instant time) */
  run?: string;
  olderThanMs?: number;
}

export function trashDir(scan: TableScan, run: string): string {
  return joinPath(scan.table.metaPath, '.tblcli-trash', run);
}

/**
 * Moves (or purges) the deletable orphans. Each one is re-checked first against storage and a timeline
 * loaded afresh: a file (or any file in a marker dir) changed since the scan or younger than
 * --older-than, an instant that completed since the scan, or a heartbeat that came back, is skipped.
 */
export async function deleteOrphans(scan: TableScan, orphans: Orphan[], opts: DeleteOptions = {}): Promise<{ run: string; trash: string; results: DeleteResult[] }> {
  const { basePath, metaPath } = scan.table;
  // every move and delete stays inside the table (or inside the outside root it was found in)
  const storage = confineStorage(scan.table.storage, basePath);
  const roots = new Map<string, Storage>();
  const storageFor = (o: Orphan): Storage => {
    if (!o.root) return storage;
    let s = roots.get(o.root);
    if (!s) roots.set(o.root, (s = confineStorage(scan.table.storage, o.root)));
    return s;
  };
  const run = opts.run ?? formatInstantTime(scan.now, 'UTC');
  const trash = trashDir(scan, run);
  const olderThan = opts.olderThanMs ?? DEFAULT_OLDER_THAN_MS;
  const now = scan.now.getTime();
  const results: DeleteResult[] = [];
  // a new Table: the timeline is cached per Table, and a writer may have moved on since the scan
  const fresh = orphans.some((o) => o.deletable && o.instant) ? await (await openTableAt(storage, basePath, scan.table.uri)).timeline() : undefined;
  for (const o of orphans) {
    const skip = (reason: string) => results.push({ path: o.path, kind: o.kind, action: 'skipped', size: o.size, reason });
    if (!o.deletable) {
      results.push({ path: o.path, kind: o.kind, action: 'kept', size: o.size, reason: o.keepReason ?? 'not deletable' });
      continue;
    }
    if (o.instant && fresh && (o.kind === 'uncommitted-file' || o.kind === 'marker-dir')) {
      const state = instantStateIn(fresh, o.instant);
      if (state === 'completed' && o.instantState !== 'completed') {
        skip(`instant ${o.instant} completed since the scan`);
        continue;
      }
      let hb: 'alive' | 'expired' | 'missing' | undefined;
      if (state === 'requested' || state === 'inflight') {
        const h = await storage.stat(joinPath(metaPath, '.heartbeat', o.instant)).catch(() => undefined);
        hb = h === undefined ? 'missing' : now - h.mtimeMs <= HEARTBEAT_EXPIRY_MS ? 'alive' : 'expired';
      }
      const why = instantKeepReason(o.kind, o.instant, state, hb);
      if (why) {
        skip(`${why} (timeline re-read before deleting)`);
        continue;
      }
    }
    const abs = o.root ? o.path : joinPath(basePath, o.path);
    const at = storageFor(o);
    let st;
    try {
      st = await at.stat(abs);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'not-found') {
        skip('gone since the scan');
        continue;
      }
      throw e;
    }
    const newest = st.isDirectory ? (await dirSummary(at, st)).mtimeMs : st.mtimeMs;
    if (newest !== o.mtimeMs || now - newest < olderThan) {
      skip('modified since the scan');
      continue;
    }
    if (opts.purge) {
      await at.delete(abs, { recursive: true });
      results.push({ path: o.path, kind: o.kind, action: 'purged', size: o.size });
      continue;
    }
    // a file outside the table goes to that directory's own trash, never into the table
    const dest = o.root ? joinPath(o.root, '.tblcli-trash', run, relativeTo(o.root, o.path) ?? o.path) : joinPath(trash, o.path);
    await at.mkdirs(parentPath(dest));
    try {
      await at.rename(abs, dest);
    } catch (e) {
      throw new TblError('storage', `could not move ${storage.uri(abs)} to ${storage.uri(dest)}: ${(e as Error).message}`, { path: storage.uri(abs), cause: e });
    }
    results.push({ path: o.path, kind: o.kind, action: 'moved', to: o.root ? dest : (relativeTo(basePath, dest) ?? dest), size: o.size });
  }
  return { run, trash, results };
}
