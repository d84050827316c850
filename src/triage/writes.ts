// Reads every write instant's metadata once, in timeline order (reads run ahead within a byte budget),
// into the compact per-file-group touches; and, for the rare finding that needs a stat path the store
// did not keep, reads one instant again.
import { visitWriteRefs } from '../metadata/index.ts';
import type { Storage } from '../storage/index.ts';
import type { Table } from '../table/index.ts';
import { WRITE_ACTIONS, type Instant, type Timeline } from '../timeline/index.ts';
import { parseInstantTime } from '../util/index.ts';
import { isService, type InstantWrites } from './timing.ts';
import { CREATED, HAS_PATH, nameFingerprint, Touches } from './touches.ts';

export const SERVICE_ACTIONS = new Set(['compaction', 'logcompaction', 'clustering']);

/** Raw bytes read ahead of the decoder: a decoded commit file is several times its size, so big ones go one by one. */
const READ_AHEAD_BYTES = 64 * 1024 * 1024;

export function instantMs(t: string, table: Table): number | undefined {
  return parseInstantTime(t, table.config.timezone)?.getTime();
}

function isCreate(prev: string | null): boolean {
  return prev === null || prev === 'null' || prev === '';
}

/** The write instants of the timeline with their windows (stats not read yet). */
export function writeInstantsOf(table: Table, tl: Timeline): InstantWrites[] {
  return tl.instants
    .filter((i) => WRITE_ACTIONS.has(i.action) || WRITE_ACTIONS.has(i.effectiveAction))
    .map((i) => {
      const w: InstantWrites = { instant: i, replaced: [], startMs: instantMs(i.requestedTime, table) };
      if (i.state === 'COMPLETED') w.endMs = i.completionTime ? instantMs(i.completionTime, table) : i.files.COMPLETED?.mtimeMs;
      return w;
    });
}

/** Which state's file holds an instant's write stats; undefined when it holds none (empty, or a service plan). */
export function statsFileOf(i: Instant): 'COMPLETED' | 'INFLIGHT' | undefined {
  const state = i.state === 'COMPLETED' ? 'COMPLETED' : i.files.INFLIGHT ? 'INFLIGHT' : undefined;
  const file = state ? i.files[state] : undefined;
  // compaction/clustering pending files hold plans, not write stats
  const planOnly = i.state !== 'COMPLETED' && SERVICE_ACTIONS.has(i.effectiveAction);
  if (!state || !file || file.size === 0 || planOnly) return undefined;
  return state;
}

/** Reads `items` with up to `concurrency` reads (and READ_AHEAD_BYTES) ahead, handing each to `process` in order. */
async function readInOrder<T>(
  items: readonly T[],
  concurrency: number,
  size: (t: T) => number,
  read: (t: T) => Promise<Uint8Array>,
  process: (t: T, r: { bytes?: Uint8Array; error?: unknown }) => void,
): Promise<void> {
  const slots: (Promise<{ bytes?: Uint8Array; error?: unknown }> | undefined)[] = new Array(items.length);
  let next = 0;
  let ahead = 0;
  for (let i = 0; i < items.length; i++) {
    while (next < items.length && next - i < concurrency && (next === i || ahead + size(items[next]!) <= READ_AHEAD_BYTES)) {
      ahead += size(items[next]!);
      slots[next] = read(items[next]!).then(
        (bytes) => ({ bytes }),
        (error: unknown) => ({ error }),
      );
      next++;
    }
    const r = await slots[i]!;
    slots[i] = undefined;
    ahead -= size(items[i]!);
    process(items[i]!, r);
  }
}

export interface DecodeOptions {
  table: Table;
  tl: Timeline;
  writes: InstantWrites[];
  /** per write: whether it overlaps some other write (overlapCandidates) */
  capable: readonly boolean[];
  /** file groups held by pending compaction/clustering plans → the earliest plan instant */
  planned: Map<string, string>;
  concurrency: number;
  since?: string;
  inScope?: (partition: string) => boolean;
  warnings: string[];
  onInstant?: (done: number, total: number) => void;
}

export interface DecodedWrites {
  touches: Touches;
  /** replacedFileGroups for the file-system view: every completed replacecommit's (also before --since) */
  viewReplaced: { partition: string; fileId: string; byInstant: string }[];
  /** write instants whose file was read */
  read: number;
}

export async function decodeWrites(o: DecodeOptions): Promise<DecodedWrites> {
  const { table, tl, writes } = o;
  const storage = table.storage;
  const touches = new Touches();
  const viewReplaced: DecodedWrites['viewReplaced'] = [];
  const capable = o.capable;
  const jobs: number[] = [];
  writes.forEach((w, k) => {
    const i = w.instant;
    if (!statsFileOf(i)) return;
    // before --since only a completed replacecommit is read: the view needs what it replaced
    if (o.since !== undefined && i.requestedTime < o.since && !(i.state === 'COMPLETED' && i.action === 'replacecommit')) return;
    jobs.push(k);
  });
  const fileOf = (k: number) => writes[k]!.instant.files[statsFileOf(writes[k]!.instant)!]!;
  let done = 0;
  await readInOrder(
    jobs,
    o.concurrency,
    (k) => fileOf(k).size,
    (k) => tl.read(writes[k]!.instant, statsFileOf(writes[k]!.instant)!, false),
    (k, r) => {
      const w = writes[k]!;
      const i = w.instant;
      const file = fileOf(k);
      const viewReplace = i.state === 'COMPLETED' && i.action === 'replacecommit';
      try {
        if (r.error !== undefined) throw r.error;
        decodeOne(o, touches, k, r.bytes!, storage.uri(file.path), capable[k]!, viewReplaced);
      } catch (e) {
        // the file-system view cannot be built without what a replacecommit replaced (as viewTimelineOf fails)
        if (viewReplace) throw e;
        o.warnings.push(`${storage.uri(file.path)}: could not read write stats (${(e as Error).message})`);
      }
      o.onInstant?.(++done, jobs.length);
    },
  );
  return { touches, viewReplaced, read: jobs.length };
}

function decodeOne(o: DecodeOptions, touches: Touches, k: number, bytes: Uint8Array, uri: string, capable: boolean, viewReplaced: DecodedWrites['viewReplaced']): void {
  const w = o.writes[k]!;
  const i = w.instant;
  const record = o.since === undefined || i.requestedTime >= o.since;
  let service = SERVICE_ACTIONS.has(i.effectiveAction);
  const completed = i.state === 'COMPLETED';
  const fps: number[] = [];
  const pathTouch: number[] = [];
  const paths: string[] = [];
  /** touches marked as creating their group: a service's (known only from operationType, after the stats) are not */
  const creates: number[] = [];
  visitWriteRefs(bytes, { path: uri }, {
    stat(partitionPath, fileId, prevCommit, path) {
      if (path) fps.push(nameFingerprint(path));
      if (!record || !fileId || (o.inScope && !o.inScope(partitionPath))) return;
      const t = touches.touch(partitionPath, fileId, k);
      let f = touches.flags.get(t);
      if (!service && isCreate(prevCommit)) {
        f |= CREATED;
        creates.push(t);
      }
      if (path) {
        f |= HAS_PATH;
        pathTouch.push(t);
        paths.push(path);
      }
      touches.flags.set(t, f);
    },
    replaced(partition, fileId) {
      if (!completed) return;
      if (i.action === 'replacecommit') viewReplaced.push({ partition, fileId, byInstant: i.requestedTime });
      if (record) w.replaced.push({ partition, fileId });
    },
    operationType(op) {
      if (op === null) return;
      w.operationType = op;
      if (!isService(w) || service) return;
      service = true;
      for (const t of creates) touches.flags.set(t, touches.flags.get(t) & ~CREATED);
    },
  });
  if (!record) return;
  touches.fingerprints[k] = Uint32Array.from(fps).sort();
  // which of this instant's touches keep their paths
  const keep = (t: number): boolean => {
    if (capable || touches.has(t, CREATED)) return true;
    if (o.planned.size === 0 || service) return false;
    const g = touches.group.get(t);
    const plan = o.planned.get(`${touches.groupPartition[g]}\u0000${touches.groupFileId[g]}`);
    return plan !== undefined && i.requestedTime > plan;
  };
  for (let n = 0; n < pathTouch.length; n++) {
    const t = pathTouch[n]!;
    if (!keep(t)) continue;
    const list = touches.kept.get(t);
    if (list) list.push(paths[n]!);
    else touches.kept.set(t, [paths[n]!]);
  }
}

/** Every write stat of one instant: [partitionPath, fileId, path]. */
export type StatRef = [string, string, string | null];

/** Reads one write instant's stats again (a finding needs paths the compact store did not keep). */
export async function rereadStats(storage: Storage, tl: Timeline, w: InstantWrites): Promise<StatRef[]> {
  const state = statsFileOf(w.instant);
  if (!state) return [];
  const out: StatRef[] = [];
  visitWriteRefs(await tl.read(w.instant, state, false), { path: storage.uri(w.instant.files[state]!.path) }, {
    stat: (partitionPath, fileId, _prev, path) => void out.push([partitionPath, fileId, path]),
    replaced: () => undefined,
  });
  return out;
}
