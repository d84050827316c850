// An independent statement of Hudi's archival rules for the tests (format-services-write.md §5.1–5.2 and
// the Java it cites: 0.14 HoodieTimelineArchiver, 1.x TimelineArchiverV2, ArchivalUtils, CleanerUtils,
// CompactionUtils, ClusteringUtils). It reads the timeline directory itself (file names only) and
// returns the `<requestedTime>|<completed action>` keys Hudi would archive. Written from the reference,
// not from src/services/archival.
import { readdirSync } from 'node:fs';

export interface OInstant {
  t: string;
  /** the latest state's file action */
  action: string;
  completed: boolean;
  ct?: string;
}

const COMPARABLE: Record<string, string> = { compaction: 'commit', logcompaction: 'deltacommit', clustering: 'replacecommit' };

/** Groups the timeline directory's instant files as Hudi's active timeline does (latest state per instant). */
export function readTimelineDir(dir: string, layout: 1 | 2): OInstant[] {
  const re = layout === 1 ? /^(\d+)\.([a-z]+)(?:\.(requested|inflight))?$/ : /^(\d+)(?:_(\d+))?\.([a-z]+)(?:\.(requested|inflight))?$/;
  const rank = { requested: 0, inflight: 1, completed: 2 } as const;
  const groups = new Map<string, { o: OInstant; rank: number }>();
  for (const name of readdirSync(dir)) {
    const m = re.exec(name);
    if (!m) continue;
    const t = m[1]!;
    let action = layout === 1 ? m[2]! : m[3]!;
    let state = (layout === 1 ? m[3] : m[4]) as 'requested' | 'inflight' | undefined;
    if (action === 'inflight' && state === undefined) {
      action = 'commit';
      state = 'inflight';
    }
    if (['properties', 'temp', 'aux', 'heartbeat'].includes(action)) continue;
    const r = rank[state ?? 'completed'];
    const key = `${t}|${COMPARABLE[action] ?? action}`;
    const g = groups.get(key);
    if (!g || r >= g.rank) groups.set(key, { o: { t, action, completed: r === 2, ct: layout === 2 && r === 2 ? m[2] : undefined }, rank: r });
  }
  return [...groups.values()].map((g) => g.o).sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.action < b.action ? -1 : 1));
}

export interface OracleInput {
  version: number;
  mor: boolean;
  min: number;
  max: number;
  retained: number;
  /** last completed clean's plan: earliestInstantToRetain timestamp and savepointed_timestamps */
  cleanPlanEctr?: string;
  cleanPlanSavepoints?: string[];
  /** undefined: no metadata table bound; null: MDT without a compaction; else its latest compaction */
  mdtCompaction?: string | null;
  /** MOR: hoodie.compact.inline.max.delta.commits (default 5; the metadata table's compaction trigger for it) */
  deltaCommitMax?: number;
  /** deciding for a metadata table: its data table's active timeline (after the data table's archival) */
  dataTable?: OInstant[];
}

/**
 * The metadata table's settings as Hudi's metadata writer derives them from the data table's
 * (HoodieMetadataWriteUtils): keep min + 1 / max + 1, its cleaner retains 20 (1.x: ≥ 1.2 × the data's).
 */
export function mdtOracleInput(data: Pick<OracleInput, 'version' | 'min' | 'max' | 'retained'>, dataTable: OInstant[], deltaCommitMax = 10): OracleInput {
  return { version: data.version, mor: true, min: data.min + 1, max: data.max + 1, retained: data.version >= 8 ? Math.max(20, Math.floor(data.retained * 1.2)) : 20, deltaCommitMax, dataTable };
}

export function oracleArchive(all: OInstant[], o: OracleInput): Set<string> {
  const v1x = o.version >= 8;
  const key = (i: OInstant) => `${i.t}|${i.action}`;
  const commitsCompleted = all.filter((i) => i.completed && ['commit', 'deltacommit', 'replacecommit'].includes(i.action));
  const writePending = all.filter((i) => !i.completed && ['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'logcompaction'].includes(i.action));

  // ArchivalUtils: min/max raised when the cleaner (KEEP_LATEST_COMMITS) retains more
  const commitsAnyState = all.filter((i) => ['commit', 'deltacommit', 'replacecommit', ...(v1x ? ['clustering'] : [])].includes(i.action));
  const doneCommits = commitsAnyState.filter((i) => i.completed);
  let ectr: OInstant | undefined;
  if (doneCommits.length > o.retained) {
    const nth = doneCommits[doneCommits.length - o.retained]!;
    const firstPending = commitsAnyState.find((i) => !i.completed);
    if (firstPending && nth.t > firstPending.t) ectr = doneCommits.filter((i) => i.t < firstPending.t).at(-1);
    else ectr = nth;
  }
  let min = o.min;
  let max = o.max;
  if (ectr) {
    const need = commitsCompleted.filter((i) => i.t > ectr!.t).length + 2;
    if (min < need) {
      max = need + o.max - o.min;
      min = need;
    }
  }

  // bound 1: the completed commit right before the earliest pending write
  const firstPendingWrite = writePending[0];
  const bound1 = firstPendingWrite ? (commitsCompleted.filter((i) => i.t < firstPendingWrite.t).at(-1) ?? firstPendingWrite).t : undefined;

  // bound 2 (MOR): keep the delta commits compaction scheduling needs
  let bound2: string | undefined;
  if (o.mor) {
    const compactions = all.filter((i) => i.completed && (i.action === 'commit' || (!v1x && i.action === 'replacecommit')));
    const lastCompaction = compactions.at(-1);
    const deltas = all.filter((i) => i.action === 'deltacommit');
    const since = lastCompaction ? deltas.filter((d) => d.t > lastCompaction.t) : deltas;
    const anchor = lastCompaction ?? deltas[0];
    const n = o.deltaCommitMax ?? 5;
    if (anchor) bound2 = since.length < n ? anchor.t : since[since.length - n]!.t;
  }

  // bound 3: replace/clustering instants stay until the clean covers them
  let bound3: string | undefined;
  const replaces = all.filter((i) => i.action === 'replacecommit' || (v1x && i.action === 'clustering'));
  if (replaces.length > 0) {
    const clean = all.filter((i) => i.completed && i.action === 'clean').at(-1);
    if (clean) {
      let lower = o.cleanPlanEctr ? o.cleanPlanEctr : clean.t;
      if (v1x && o.cleanPlanEctr) {
        const sp = [...(o.cleanPlanSavepoints ?? [])].filter(Boolean).sort()[0];
        if (sp && o.cleanPlanEctr > sp && all.some((i) => i.completed && i.action === 'replacecommit' && i.t >= sp && i.t <= o.cleanPlanEctr!)) lower = sp;
      }
      bound3 = replaces.find((r) => r.t >= lower)?.t;
    } else bound3 = replaces[0]!.t;
    if (!v1x) {
      const pendingReplace = replaces.find((r) => !r.completed);
      if (pendingReplace) {
        const prev = commitsAnyState.filter((i) => i.completed && i.t < pendingReplace.t).at(-1);
        if (prev && (bound3 === undefined || bound3 > prev.t)) bound3 = prev.t;
      }
    }
  }

  // bound 5 (metadata table): the data table's first commit in any state, or its first pending instant if earlier
  let bound5: string | undefined;
  if (o.dataTable) {
    const firstCommit = o.dataTable.find((i) => ['commit', 'deltacommit', 'replacecommit', ...(v1x ? ['clustering'] : [])].includes(i.action))?.t;
    const firstPending = o.dataTable.find((i) => !i.completed)?.t;
    bound5 = [firstCommit, firstPending].filter((t): t is string => t !== undefined).sort()[0];
  }

  const savepoint = all.find((i) => i.completed && i.action === 'savepoint')?.t;
  const out = new Set<string>();
  if (!v1x) {
    // cleans and rollbacks, per action
    for (const a of ['clean', 'rollback']) {
      const list = all.filter((i) => i.completed && i.action === a);
      if (list.length > max) list.slice(0, list.length - min).forEach((i) => out.add(key(i)));
    }
    if (commitsCompleted.length > max) {
      const ok = commitsCompleted.filter((c) => (savepoint === undefined || c.t < savepoint) && [bound1, bound2, bound3].every((b) => b === undefined || c.t < b));
      ok.slice(0, commitsCompleted.length - min).forEach((c) => out.add(key(c)));
    }
    if (o.mdtCompaction === null) return new Set();
    if (o.mdtCompaction !== undefined) for (const k of [...out]) if (k.split('|')[0]! >= o.mdtCompaction) out.delete(k);
    if (bound5 !== undefined) for (const k of [...out]) if (k.split('|')[0]! >= bound5) out.delete(k);
    return out;
  }
  if (commitsCompleted.length <= max) return out;
  let bound4: string | undefined;
  if (o.mdtCompaction === null) return out;
  if (o.mdtCompaction !== undefined) {
    const lc = o.mdtCompaction;
    bound4 = commitsCompleted.find((c) => c.ct !== undefined && c.ct > lc && c.t !== lc)?.t;
  }
  const bounds = [bound1, bound2, bound3, bound4, bound5].filter((b): b is string => b !== undefined).sort();
  const earliest = bounds[0];
  const ok = commitsCompleted.filter((c) => (savepoint === undefined || c.t < savepoint) && (earliest === undefined || c.t < earliest));
  const picked = ok.slice(0, commitsCompleted.length - min);
  picked.forEach((c) => out.add(key(c)));
  const newest = picked.at(-1);
  if (newest) for (const i of all) if (i.completed && (i.action === 'clean' || i.action === 'rollback') && i.t < newest.t) out.add(key(i));
  return out;
}
