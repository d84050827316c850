// The safety rule of a clustering running next to writers (format-services-write.md §2.6): a writer
// that committed to one of the plan's input file groups after the plan was made would lose its update
// once the replacecommit hides those groups. Checked before the first write and again at completion,
// under the lock; either finds such a write and the clustering does not complete.
import { TblError } from '../../errors/index.ts';
import { decodeCommitMetadata } from '../../metadata/index.ts';
import type { Table } from '../../table/index.ts';
import type { Instant, Timeline } from '../../timeline/index.ts';
import { parseInstantTime } from '../../util/instant-time.ts';

const WRITES = new Set(['commit', 'deltacommit', 'replacecommit']);

/** Whether completed instant `i` completed after requested time `t`. */
function completedAfter(i: Instant, t: string, table: Table): boolean {
  if (i.requestedTime > t) return true;
  if (i.completionTime && /^\d{17}$/.test(i.completionTime)) return i.completionTime > t;
  // layout 1: the completed file's modification time against the instant's wall-clock time
  const tMs = parseInstantTime(t, table.config.timezone)?.getTime();
  const done = i.files.COMPLETED?.mtimeMs;
  return tMs !== undefined && done !== undefined && done > tMs;
}

export interface RacingWrite {
  instant: string;
  action: string;
  partition: string;
  fileId: string;
}

/** Completed writes after `instant`'s requested time that touched one of `groups` (partition\0fileId). */
export async function racingWrites(t: Table, tl: Timeline, instant: string, groups: ReadonlySet<string>): Promise<RacingWrite[]> {
  const out: RacingWrite[] = [];
  const candidates = tl.completed().filter((i) => i.requestedTime !== instant && WRITES.has(i.action) && completedAfter(i, instant, t));
  for (const i of candidates) {
    const f = i.files.COMPLETED;
    if (!f || f.size === 0) continue;
    const m = decodeCommitMetadata(await tl.read(i, 'COMPLETED'), { path: t.storage.uri(f.path) });
    const touched = new Set<string>();
    for (const [p, stats] of Object.entries(m.partitionToWriteStats)) for (const s of stats) touched.add(`${s.partitionPath || p}\u0000${s.fileId}`);
    for (const [p, ids] of Object.entries(m.partitionToReplaceFileIds ?? {})) for (const id of ids) touched.add(`${p}\u0000${id}`);
    for (const k of touched) {
      if (!groups.has(k)) continue;
      const [partition, fileId] = k.split('\u0000') as [string, string];
      out.push({ instant: i.requestedTime, action: i.effectiveAction, partition, fileId });
    }
  }
  return out;
}

/** Throws TblError('conflict') when a write raced the clustering `instant`. */
export async function refuseRacingWrites(t: Table, tl: Timeline, instant: string, groups: ReadonlySet<string>, when: 'start' | 'completion'): Promise<void> {
  const races = await racingWrites(t, tl, instant, groups);
  if (races.length === 0) return;
  const r = races[0]!;
  const more = races.length > 1 ? ` (and ${races.length - 1} more)` : '';
  throw new TblError(
    'conflict',
    `clustering ${instant}: ${r.action} ${r.instant} wrote file group ${r.fileId} of partition ${JSON.stringify(r.partition)} after the plan was made${more}; completing would lose that write`,
    {
      instant,
      hint:
        when === 'start'
          ? 'nothing was changed; the plan is stale: remove it (a rollback of a requested clustering) and schedule again, and run writers with the reject-update strategy while clustering is pending'
          : 'this attempt was rolled back; the plan is stale: schedule a new clustering',
    },
  );
}
