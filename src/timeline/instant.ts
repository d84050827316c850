import { TblError } from '../errors/index.ts';
import type { FileStatus } from '../storage/index.ts';

export type State = 'REQUESTED' | 'INFLIGHT' | 'COMPLETED';

/** Every action Hudi writes to a timeline (HoodieTimeline constants, both layouts). */
export const ACTIONS = [
  'commit',
  'deltacommit',
  'replacecommit',
  'clustering',
  'compaction',
  'logcompaction',
  'clean',
  'rollback',
  'savepoint',
  'restore',
  'indexing',
  'schemacommit',
] as const;
export type Action = (typeof ACTIONS)[number];
const ACTION_SET: ReadonlySet<string> = new Set(ACTIONS);

export const STATE_ORDER: Record<State, number> = { REQUESTED: 0, INFLIGHT: 1, COMPLETED: 2 };

export interface ParsedInstantName {
  requestedTime: string;
  action: Action;
  state: State;
  /** only layout-2 completed names carry it */
  completionTime?: string;
}

const V1 = /^(\d+)(\.\w+)(\.\D+)?$/;
const V2 = /^(\d+)(?:_(\d+))?(\.\w+)(\.\D+)?$/;

/**
 * Parses a timeline file name (InstantGeneratorV1/V2). Returns undefined for files that are not
 * instants (hoodie.properties, dirs' names, temp files); throws for an instant-shaped name whose
 * action or state Hudi does not know.
 */
export function parseInstantFileName(name: string, layout: 1 | 2, where = name): ParsedInstantName | undefined {
  // fast path for the names Hudi writes (a 60k-file timeline): digits, [_digits,] a known suffix
  let i = 0;
  while (i < name.length && isDigit(name.charCodeAt(i))) i++;
  if (i === 0) return undefined;
  let end = i;
  if (layout === 2 && name.charCodeAt(i) === 0x5f) {
    end = i + 1;
    while (end < name.length && isDigit(name.charCodeAt(end))) end++;
  }
  const known = SUFFIXES.get(name.slice(end));
  if (known && end === i) return { requestedTime: name.slice(0, i), action: known.action, state: known.state, completionTime: undefined };
  if (known && end > i + 1 && known.state === 'COMPLETED') {
    return { requestedTime: name.slice(0, i), action: known.action, state: known.state, completionTime: name.slice(i + 1, end) };
  }
  return parseSlowly(name, layout, where);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Every suffix a valid instant file name ends with: `.a`, `.a.requested`, `.a.inflight`, and `.inflight` (a commit). */
const SUFFIXES = new Map<string, { action: Action; state: State }>([['.inflight', { action: 'commit', state: 'INFLIGHT' }]]);
for (const action of ACTIONS) {
  SUFFIXES.set(`.${action}`, { action, state: 'COMPLETED' });
  SUFFIXES.set(`.${action}.requested`, { action, state: 'REQUESTED' });
  SUFFIXES.set(`.${action}.inflight`, { action, state: 'INFLIGHT' });
}

/** The regex parse: the reference (a test pins the fast path to it), and the one that words the errors. */
export function parseSlowly(name: string, layout: 1 | 2, where: string): ParsedInstantName | undefined {
  if (!/^\d/.test(name)) return undefined;
  let ts: string;
  let completion: string | undefined;
  let actionPart: string;
  let statePart: string | undefined;
  if (layout === 1) {
    const m = V1.exec(name);
    if (!m) return invalid(name, where);
    [, ts, actionPart, statePart] = m as unknown as [string, string, string, string | undefined];
  } else {
    const m = V2.exec(name);
    if (!m) {
      // a layout-1 style name can still appear in a layout-2 timeline (upgraded tables)
      return invalid(name, where);
    }
    [, ts, completion, actionPart, statePart] = m as unknown as [string, string, string | undefined, string, string | undefined];
  }
  let action = actionPart.slice(1);
  let state: State;
  if (action === 'inflight' && statePart === undefined) {
    action = 'commit';
    state = 'INFLIGHT';
  } else if (statePart === undefined) state = 'COMPLETED';
  else if (statePart === '.requested') state = 'REQUESTED';
  else if (statePart === '.inflight') state = 'INFLIGHT';
  else return invalid(name, where, `unknown state suffix '${statePart}'`);
  if (!ACTION_SET.has(action)) {
    return invalid(name, where, `unknown action '${action}'`);
  }
  if (completion !== undefined && state !== 'COMPLETED') {
    return invalid(name, where, 'a completion time is only legal on a completed instant');
  }
  return { requestedTime: ts, action: action as Action, state, completionTime: completion };
}

function invalid(name: string, where: string, why = 'not a valid instant file name'): never {
  throw new TblError('timeline', `${where}: ${why} (timeline file ${name})`, { path: where });
}

/** The file name Hudi writes for an instant (InstantFileNameGeneratorV1/V2). */
export function formatInstantFileName(i: ParsedInstantName, layout: 1 | 2): string {
  const { requestedTime: rt, state } = i;
  let action: string = i.action;
  if (state === 'COMPLETED') {
    if (action === 'compaction') action = 'commit';
    else if (action === 'logcompaction') action = 'deltacommit';
    else if (action === 'clustering') action = 'replacecommit';
    const ts = layout === 2 && i.completionTime ? `${rt}_${i.completionTime}` : rt;
    return `${ts}.${action}`;
  }
  if (state === 'INFLIGHT') return action === 'commit' ? `${rt}.inflight` : `${rt}.${action}.inflight`;
  if (action === 'savepoint') return `${rt}.savepoint.inflight`;
  return `${rt}.${action}.requested`;
}

/**
 * The action an instant is grouped under: a completed compaction is a commit, a log compaction a
 * deltacommit, a clustering a replacecommit (getComparableAction).
 */
export function comparableAction(a: Action): Action {
  if (a === 'compaction') return 'commit';
  if (a === 'logcompaction') return 'deltacommit';
  if (a === 'clustering') return 'replacecommit';
  return a;
}

/** One instant in its latest state, with the files of every state it went through. */
export interface Instant {
  requestedTime: string;
  /** action of the latest state's file (a completed compaction is 'commit') */
  action: Action;
  state: State;
  /** from the layout-2 file name, or the completed file's mtime on layout 1 */
  completionTime?: string;
  /** what the instant did: 'compaction' for a completed compaction commit, 'clustering', 'logcompaction' */
  effectiveAction: Action;
  files: Partial<Record<State, FileStatus>>;
  /** action named by each state's file */
  stateActions: Partial<Record<State, Action>>;
}

export function compareInstants(a: Instant, b: Instant): number {
  if (a.requestedTime !== b.requestedTime) return a.requestedTime < b.requestedTime ? -1 : 1;
  return a.action < b.action ? -1 : a.action > b.action ? 1 : 0;
}
