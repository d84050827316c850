import { TblError } from '../errors/index.ts';
import { mapLimit, type FileStatus, type Storage } from '../storage/index.ts';
import { formatInstantTime } from '../util/index.ts';
import {
  comparableAction,
  compareInstants,
  parseInstantFileName,
  STATE_ORDER,
  type Action,
  type Instant,
  type State,
} from './instant.ts';

export interface TimelineSource {
  storage: Storage;
  /** <base>/.hoodie */
  metaPath: string;
  layout: 1 | 2;
  /** directory holding the active timeline files */
  timelineDir: string;
  timezone: 'LOCAL' | 'UTC';
  concurrency?: number;
}

/** Completed instants of these actions make up `getCommitsTimeline()` (1.x adds clustering). */
export const COMMIT_ACTIONS: ReadonlySet<Action> = new Set(['commit', 'deltacommit', 'replacecommit', 'clustering']);
/** getWriteTimeline(): every action that writes data files. */
export const WRITE_ACTIONS: ReadonlySet<Action> = new Set([
  'commit',
  'deltacommit',
  'replacecommit',
  'clustering',
  'compaction',
  'logcompaction',
]);

/**
 * The active timeline: one Instant per (requested time, comparable action) in its latest state,
 * ascending. Listing reads only names and statuses; bodies are read on demand and cached.
 */
export class Timeline {
  readonly instants: readonly Instant[];
  /** built on the first find(): listing commands over 20k instants never look one up */
  private byTime: Map<string, Instant[]> | undefined;
  private readonly cache = new Map<string, Promise<Uint8Array>>();

  constructor(
    readonly source: TimelineSource,
    instants: Instant[],
  ) {
    this.instants = instants;
  }

  get layout(): 1 | 2 {
    return this.source.layout;
  }

  /** Instants with this requested time (usually one). */
  find(requestedTime: string): Instant[] {
    if (!this.byTime) {
      this.byTime = new Map();
      for (const i of this.instants) {
        const list = this.byTime.get(i.requestedTime);
        if (list) list.push(i);
        else this.byTime.set(i.requestedTime, [i]);
      }
    }
    return this.byTime.get(requestedTime) ?? [];
  }

  completed(): Instant[] {
    return this.instants.filter((i) => i.state === 'COMPLETED');
  }

  pending(): Instant[] {
    return this.instants.filter((i) => i.state !== 'COMPLETED');
  }

  /** Completed commit / deltacommit / replacecommit instants (a completed compaction is a commit). */
  completedCommits(): Instant[] {
    return this.instants.filter((i) => i.state === 'COMPLETED' && COMMIT_ACTIONS.has(i.action));
  }

  ofActions(actions: Iterable<Action>): Instant[] {
    const set = new Set(actions);
    return this.instants.filter((i) => set.has(i.action) || set.has(i.effectiveAction));
  }

  lastCompletedCommit(): Instant | undefined {
    const c = this.completedCommits();
    return c[c.length - 1];
  }

  completionTimeOf(requestedTime: string): string | undefined {
    for (const i of this.find(requestedTime)) if (i.state === 'COMPLETED') return i.completionTime;
    return undefined;
  }

  isCompleted(requestedTime: string): boolean {
    return this.find(requestedTime).some((i) => i.state === 'COMPLETED');
  }

  /** The bytes of one state's file (default: the latest state); cached unless `cache` is false. */
  read(instant: Instant, state: State = instant.state, cache = true): Promise<Uint8Array> {
    const file = instant.files[state];
    if (!file) {
      return Promise.reject(noStateFile(instant, state));
    }
    let p = this.cache.get(file.path);
    if (!p) {
      p = this.source.storage.readFile(file.path);
      if (cache) this.cache.set(file.path, p);
    }
    return p;
  }

  /**
   * Reads and decodes many instants with bounded parallelism, keeping order. Bytes are not cached:
   * a 20k-instant scan would otherwise keep every file alive (and the GC busy).
   */
  mapRead<T>(instants: readonly Instant[], state: State | 'latest', fn: (bytes: Uint8Array, i: Instant) => T): Promise<T[]> {
    return mapLimit(instants, this.source.concurrency ?? 16, async (i) =>
      fn(await this.read(i, state === 'latest' ? i.state : state, false), i),
    );
  }
}

function noStateFile(i: Instant, state: State): TblError {
  return new TblError('timeline', `instant ${i.requestedTime} (${i.action}) has no ${state.toLowerCase()} file`, { instant: i.requestedTime });
}

/**
 * An instant as listed. On layout 1 the completion time is the completed file's mtime, read (stat)
 * only when asked; a prototype getter keeps 20k instants in fast-property objects.
 */
class ListedInstant implements Instant {
  effectiveAction: Action;
  files: Partial<Record<State, FileStatus>> = {};
  stateActions: Partial<Record<State, Action>> = {};
  #completion: string | undefined = undefined;
  #completedFile: FileStatus | undefined = undefined;
  readonly #zone: 'LOCAL' | 'UTC';

  constructor(
    readonly requestedTime: string,
    public action: Action,
    public state: State,
    zone: 'LOCAL' | 'UTC',
    /** the comparable action instants are grouped by */
    readonly group: Action,
  ) {
    this.effectiveAction = action;
    this.#zone = zone;
  }

  get completionTime(): string | undefined {
    if (this.#completion === undefined && this.#completedFile) this.#completion = formatInstantTime(new Date(this.#completedFile.mtimeMs), this.#zone);
    return this.#completion;
  }

  set completionTime(t: string | undefined) {
    this.#completion = t;
    this.#completedFile = undefined;
  }

  completedAt(file: FileStatus): void {
    this.#completedFile = file;
    this.#completion = undefined;
  }

  toJSON(): Instant {
    const { requestedTime, action, state, effectiveAction, files, stateActions, completionTime } = this;
    return { requestedTime, action, state, effectiveAction, files, stateActions, completionTime };
  }
}

/** Groups timeline files into instants (TimelineLayout filter: latest state per instant). */
export function groupInstants(files: FileStatus[], src: Pick<TimelineSource, 'layout' | 'timezone'>): Instant[] {
  // keyed by requested time alone (no key string per file); the rare second action at one time
  // (a clean and a commit, say) makes the entry a list
  const groups = new Map<string, ListedInstant | ListedInstant[]>();
  const all: ListedInstant[] = [];
  for (const f of files) {
    if (f.isDirectory) continue;
    const p = parseInstantFileName(f.name, src.layout, f.path);
    if (!p) continue;
    const group = comparableAction(p.action);
    const found = groups.get(p.requestedTime);
    let inst = found === undefined ? undefined : Array.isArray(found) ? found.find((i) => i.group === group) : found.group === group ? found : undefined;
    if (!inst) {
      inst = new ListedInstant(p.requestedTime, p.action, p.state, src.timezone, group);
      all.push(inst);
      if (found === undefined) groups.set(p.requestedTime, inst);
      else if (Array.isArray(found)) found.push(inst);
      else groups.set(p.requestedTime, [found, inst]);
    }
    inst.files[p.state] = f;
    inst.stateActions[p.state] = p.action;
    if (STATE_ORDER[p.state] >= STATE_ORDER[inst.state]) {
      inst.state = p.state;
      inst.action = p.action;
    }
    if (p.state === 'COMPLETED') {
      if (p.completionTime !== undefined) inst.completionTime = p.completionTime;
      else inst.completedAt(f); // layout 1: the file's mtime, read only when asked
    }
  }
  for (const inst of all) {
    const pendingAction = inst.stateActions.REQUESTED ?? inst.stateActions.INFLIGHT;
    inst.effectiveAction = pendingAction && pendingAction !== 'commit' ? pendingAction : inst.action;
    if (inst.state === 'COMPLETED' && pendingAction === undefined) inst.effectiveAction = inst.action;
  }
  return all.sort(compareInstants);
}

/** `onListed` sees the directory listing before it is grouped (a caller may start work on it). */
export async function loadActiveTimeline(src: TimelineSource, onListed?: (files: FileStatus[]) => void): Promise<Timeline> {
  const files = await src.storage.list(src.timelineDir, { lazyStatus: true });
  onListed?.(files);
  return new Timeline(src, groupInstants(files, src));
}

const COMPLETED_COMMIT_V1 = /^(\d+)\.(commit|deltacommit|replacecommit)$/;
const COMPLETED_COMMIT_V2 = /^(\d+)(?:_\d+)?\.(commit|deltacommit|replacecommit)$/;

/**
 * The completed commit files of a listing, newest first, from their names alone: the files
 * `completedCommits().reverse()` will name once the listing is grouped, in the same order, unless
 * the timeline is malformed (a caller must compare before relying on it).
 */
export function completedCommitFilesOf(files: readonly FileStatus[], layout: 1 | 2): { file: FileStatus; requestedTime: string }[] {
  const re = layout === 1 ? COMPLETED_COMMIT_V1 : COMPLETED_COMMIT_V2;
  const found: { file: FileStatus; requestedTime: string; action: string }[] = [];
  let ordered = true;
  for (const file of files) {
    if (!file.name.endsWith('commit')) continue; // cheap first cut: most names are requested/inflight
    const m = re.exec(file.name);
    if (!m || file.isDirectory) continue;
    const next = { file, requestedTime: m[1]!, action: m[2]! };
    const prev = found[found.length - 1];
    if (prev && byTimeThenAction(prev, next) > 0) ordered = false;
    found.push(next);
  }
  // a sorted listing is already in (time, action) order except where 14- and 17-digit times meet
  if (!ordered) found.sort(byTimeThenAction);
  return found.reverse();
}

function byTimeThenAction(a: { requestedTime: string; action: string }, b: { requestedTime: string; action: string }): number {
  if (a.requestedTime !== b.requestedTime) return a.requestedTime < b.requestedTime ? -1 : 1;
  return a.action < b.action ? -1 : a.action > b.action ? 1 : 0;
}
