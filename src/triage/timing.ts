// When write instants ran, and whether two of them ran at the same time (collisions, and the scan's
// choice of which write stats' paths to keep).
import type { Instant } from '../timeline/index.ts';

/** A write instant's time window; its write stats live in the scan's compact store. */
export interface InstantWrites {
  instant: Instant;
  /** epoch ms of the requested time */
  startMs?: number;
  /** epoch ms of the completion time (layout 2 names, layout 1 file mtime); undefined while pending */
  endMs?: number;
  /** partitionToReplaceFileIds of a completed instant */
  replaced: { partition: string; fileId: string }[];
  /** operationType of the decoded metadata (CLUSTER for a v6 clustering replacecommit) */
  operationType?: string;
}

const SERVICE_ACTIONS = new Set(['compaction', 'logcompaction', 'clustering']);

/** A table service's write (a v6 clustering completes as a plain replacecommit with operationType CLUSTER). */
export function isService(w: InstantWrites): boolean {
  return SERVICE_ACTIONS.has(w.instant.effectiveAction) || w.operationType === 'CLUSTER' || w.operationType === 'COMPACT';
}

export interface OverlapContext {
  layout: 1 | 2;
  now: Date;
  heartbeat(instant: string): 'alive' | 'expired' | 'missing';
}

const open = (w: InstantWrites) => w.instant.state !== 'COMPLETED';

/** Whether two writes ran at the same time. Layout-1 completion times are file mtimes: only trusted while an instant is still pending. */
export function overlaps(a: InstantWrites, b: InstantWrites, ctx: OverlapContext): boolean {
  if (a.startMs === undefined || b.startMs === undefined) return false;
  const now = ctx.now.getTime();
  if (ctx.layout === 1 && !open(a) && !open(b)) return false;
  // a pending writer whose heartbeat is gone is a failed writer, reported by `orphans`, not a concurrent one
  for (const w of [a, b]) if (open(w) && ctx.heartbeat(w.instant.requestedTime) !== 'alive') return false;
  const endA = a.endMs ?? now;
  const endB = b.endMs ?? now;
  if (ctx.layout === 1) {
    // only the pending one's window is known: the other one started inside it
    const [p, o] = open(a) ? [a, b] : [b, a];
    return o.startMs! > p.startMs!;
  }
  return a.startMs < endB && b.startMs < endA;
}

/**
 * The writes that overlap at least one other write (a superset of every instant `overlaps` can pair),
 * without comparing every pair: a 20,000-instant timeline would be 200 million pairs.
 */
export function overlapCandidates(writes: readonly InstantWrites[], ctx: OverlapContext): boolean[] {
  const out = writes.map(() => false);
  const now = ctx.now.getTime();
  const eligible: number[] = [];
  writes.forEach((w, i) => {
    if (w.startMs === undefined) return;
    if (open(w) && ctx.heartbeat(w.instant.requestedTime) !== 'alive') return;
    eligible.push(i);
  });
  if (ctx.layout === 1) {
    // a pair needs a live pending writer p and another write started after it (or p started after a live one)
    let first = Infinity;
    for (const i of eligible) if (open(writes[i]!)) first = Math.min(first, writes[i]!.startMs!);
    if (first === Infinity) return out;
    for (const i of eligible) if (open(writes[i]!) || writes[i]!.startMs! > first) out[i] = true;
    return out;
  }
  // layout 2: intervals [start, end ?? now]; one overlaps another iff it starts before the latest end of
  // those starting no later than it, or ends after the earliest start of those starting no earlier
  const byStart = [...eligible].sort((x, y) => writes[x]!.startMs! - writes[y]!.startMs!);
  const end = (i: number) => writes[i]!.endMs ?? now;
  let maxEnd = -Infinity;
  for (let k = 0; k < byStart.length; k++) {
    const i = byStart[k]!;
    if (writes[i]!.startMs! <= maxEnd) out[i] = true;
    maxEnd = Math.max(maxEnd, end(i));
  }
  let minStart = Infinity;
  for (let k = byStart.length - 1; k >= 0; k--) {
    const i = byStart[k]!;
    if (minStart <= end(i)) out[i] = true;
    minStart = Math.min(minStart, writes[i]!.startMs!);
  }
  return out;
}

function iso(ms: number | undefined): string {
  return ms === undefined ? 'pending' : new Date(ms).toISOString();
}

/** `<t> (<action>, <state>, <start> → <end>)` for evidence lines. */
export function window(w: InstantWrites): string {
  return `${w.instant.requestedTime} (${w.instant.effectiveAction}, ${w.instant.state.toLowerCase()}, ${iso(w.startMs)} → ${iso(w.endMs)})`;
}
