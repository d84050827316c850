// Instant transitions (format-timeline.md §6.1), the same for both layouts: requested → inflight →
// completed, each a new write-once file (Storage.writeNew never overwrites). Requested and inflight files
// are kept when an instant completes. Callers hold the table lock around every call here.
import { StorageError, TblError } from '../errors/index.ts';
import { formatInstantTime, joinPath, parseInstantTime } from '../util/index.ts';
import { formatInstantFileName, type Action, type State } from './instant.ts';
import type { Timeline, TimelineSource } from './timeline.ts';

const EMPTY = new Uint8Array(0);

/** Path of one state's file of an instant. */
export function instantFilePath(src: TimelineSource, requestedTime: string, action: Action, state: State, completionTime?: string): string {
  return joinPath(src.timelineDir, formatInstantFileName({ requestedTime, action, state, completionTime }, src.layout));
}

async function writeOnce(src: TimelineSource, path: string, content: Uint8Array, instant: string): Promise<void> {
  try {
    await src.storage.writeNew(path, content);
  } catch (e) {
    if (e instanceof StorageError && e.code === 'already-exists') {
      throw new TblError('conflict', `${src.storage.uri(path)} already exists: another writer created instant ${instant}`, {
        path: src.storage.uri(path),
        instant,
        cause: e,
      });
    }
    throw e;
  }
}

async function requireFile(src: TimelineSource, path: string, instant: string, what: string): Promise<void> {
  if (!(await src.storage.exists(path))) {
    throw new TblError('timeline', `instant ${instant}: ${what} ${src.storage.uri(path)} is missing`, { path: src.storage.uri(path), instant });
  }
}

/** createNewInstant: `<t>.<action>.requested` with the plan (empty for commits). */
export async function createRequested(src: TimelineSource, requestedTime: string, action: Action, content: Uint8Array = EMPTY): Promise<string> {
  const path = instantFilePath(src, requestedTime, action, 'REQUESTED');
  await writeOnce(src, path, content, requestedTime);
  return path;
}

/** transitionRequestedToInflight: the requested file must exist; it is kept. */
export async function transitionToInflight(src: TimelineSource, requestedTime: string, action: Action, content: Uint8Array = EMPTY): Promise<string> {
  await requireFile(src, instantFilePath(src, requestedTime, action, 'REQUESTED'), requestedTime, 'requested file');
  const path = instantFilePath(src, requestedTime, action, 'INFLIGHT');
  await writeOnce(src, path, content, requestedTime);
  return path;
}

/**
 * transitionStateToComplete: the inflight file must exist. `completedAction` is the action of the
 * completed file (a compaction completes as `commit`); layout 2 needs the completion time.
 */
export async function completeInstant(
  src: TimelineSource,
  requestedTime: string,
  pendingAction: Action,
  completedAction: Action,
  content: Uint8Array,
  completionTime?: string,
): Promise<string> {
  await requireFile(src, instantFilePath(src, requestedTime, pendingAction, 'INFLIGHT'), requestedTime, 'inflight file');
  if (src.layout === 2 && !completionTime) throw new TblError('bug', `completing ${requestedTime} on a layout-2 timeline needs a completion time`);
  const path = instantFilePath(src, requestedTime, completedAction, 'COMPLETED', src.layout === 2 ? completionTime : undefined);
  await writeOnce(src, path, content, requestedTime);
  return path;
}

/** Deletes one state's file (revertInstantFromInflightToRequested, deleteCompactionRequested). */
export async function deleteInstantFile(src: TimelineSource, requestedTime: string, action: Action, state: Exclude<State, 'COMPLETED'>): Promise<boolean> {
  return src.storage.delete(instantFilePath(src, requestedTime, action, state));
}

/** Every time on the timeline: requested times and (layout 2) completion times. */
export function timesOnTimeline(tl: Timeline): string[] {
  const out: string[] = [];
  for (const i of tl.instants) {
    out.push(i.requestedTime);
    if (i.completionTime && tl.layout === 2) out.push(i.completionTime);
  }
  return out;
}

/**
 * A new instant time (yyyyMMddHHmmssSSS in the table's zone) strictly later than every time given
 * (HoodieInstantTimeGenerator loops until it is greater than the last one).
 */
export function newInstantTime(existing: Iterable<string>, zone: 'UTC' | 'LOCAL', now: Date): string {
  let max = '';
  for (const t of existing) {
    // compare on 17 digits: metadata-table service times are longer, 14-digit ones shorter
    const n = t.length > 17 ? t.slice(0, 17) : t.length === 14 ? `${t}999` : t;
    if (n > max) max = n;
  }
  let t = formatInstantTime(now, zone);
  if (t <= max) {
    const last = parseInstantTime(max, zone);
    if (!last) throw new TblError('timeline', `cannot generate an instant time after ${max}`);
    t = formatInstantTime(new Date(last.getTime() + 1), zone);
    // a DST fold in LOCAL can make +1 ms format earlier: step until it sorts after
    let step = 2;
    while (t <= max) t = formatInstantTime(new Date(last.getTime() + step++ * 3_600_000), zone);
  }
  return t;
}

/**
 * revertCompleteToInflight (rollback or restore of a completed instant): re-create the requested and
 * inflight files when missing (empty), then delete the completed file. `pendingAction` is the action
 * of the pending files (a completed compaction reverts to `compaction.inflight`).
 */
export async function revertCompletedToInflight(src: TimelineSource, instant: { requestedTime: string; files: { COMPLETED?: { path: string } } }, pendingAction: Action): Promise<void> {
  const rt = instant.requestedTime;
  for (const state of ['REQUESTED', 'INFLIGHT'] as const) {
    const path = instantFilePath(src, rt, pendingAction, state);
    if (!(await src.storage.exists(path))) {
      try {
        await src.storage.writeNew(path, EMPTY);
      } catch (e) {
        if (!(e instanceof StorageError && e.code === 'already-exists')) throw e;
      }
    }
  }
  if (instant.files.COMPLETED) await src.storage.delete(instant.files.COMPLETED.path);
}
