// Which active instants Hudi's archiver moves to the archived timeline (format-services-write.md §5.1–5.2),
// as a pure function of the timeline and a few facts read beforehand (the last clean's plan, the
// metadata table's latest compaction). Two rule sets, by the release that writes each table version:
//   table version < 8 → 0.14 HoodieTimelineArchiver (cleans/rollbacks per action, commits by bounds)
//   table version ≥ 8 → 1.x TimelineArchiverV2 (commits by the earliest bound, then older cleans/rollbacks)
// Every instant that stays gets the reason it stays (`trigger archival --dry-run`). The same rules decide
// for a metadata table (its own config, plus the data table's active timeline as a bound).
import type { Action, Instant } from '../../timeline/index.ts';

export interface ArchivalConfig {
  /** hoodie.keep.min.commits */
  minCommits: number;
  /** hoodie.keep.max.commits */
  maxCommits: number;
  /** hoodie.cleaner.commits.retained (KEEP_LATEST_COMMITS, the policy hudi-cli's ARCHIVE job uses) */
  commitsRetained: number;
  /** hoodie.compact.inline.max.delta.commits (MOR, trigger strategy NUM_COMMITS: Hudi's default) */
  deltaCommitMax: number;
}

export const ARCHIVAL_DEFAULTS: ArchivalConfig = { minCommits: 20, maxCommits: 30, commitsRetained: 10, deltaCommitMax: 5 };

export interface ArchivalFacts {
  tableVersion: number;
  tableType: 'COPY_ON_WRITE' | 'MERGE_ON_READ';
  /** the active timeline, ascending */
  instants: readonly Instant[];
  /** the plan (`.clean.requested`) of the last completed clean */
  lastCleanPlan?: { earliestInstantToRetain?: string; savepointedTimestamps?: string[] };
  /** present when the metadata-table bound applies; `latestCompaction` = its last completed compaction */
  metadataTable?: { latestCompaction?: string };
  /** these are a metadata table's instants: the data table's active timeline (ascending) bounds them */
  dataTable?: { instants: readonly Instant[] };
}

export type BoundKind = 'pending' | 'savepoint' | 'compaction' | 'clustering' | 'metadata-table' | 'data-table';

export interface Bound {
  kind: BoundKind;
  /** commits at or after this requested time stay */
  instant: string;
  why: string;
}

export interface Verdict {
  instant: Instant;
  archive: boolean;
  reason: string;
}

export interface ArchivalDecision {
  rules: '0.14' | '1.x';
  /** effective keep.min / keep.max (raised when the cleaner retains more, ArchivalUtils) */
  minCommits: number;
  maxCommits: number;
  /** the cleaner's earliest commit to retain for the configured policy (the min/max adjustment) */
  earliestCommitToRetain?: string;
  bounds: Bound[];
  /** one verdict per active instant, in timeline order */
  verdicts: Verdict[];
  /** the instants to archive, ascending by requested time */
  toArchive: Instant[];
}

type Rules = ArchivalDecision['rules'];

const COMPLETED_COMMIT: ReadonlySet<Action> = new Set(['commit', 'deltacommit', 'replacecommit']);
const WRITE: ReadonlySet<Action> = new Set(['commit', 'deltacommit', 'replacecommit', 'clustering', 'compaction', 'logcompaction']);

const done = (i: Instant) => i.state === 'COMPLETED';
const before = (i: Instant, t: string) => i.requestedTime < t;

/** table.getCompletedCommitsTimeline(): completed commit, deltacommit, replacecommit (a compaction completes as commit). */
export function completedCommitsOf(instants: readonly Instant[]): Instant[] {
  return instants.filter((i) => done(i) && COMPLETED_COMMIT.has(i.action));
}

/** getCommitsTimeline() in every state: commit, deltacommit, replacecommit (+ clustering in 1.x). */
function commitsTimeline(instants: readonly Instant[], rules: Rules): Instant[] {
  return instants.filter((i) => COMPLETED_COMMIT.has(i.action) || (rules === '1.x' && i.action === 'clustering'));
}

/** CleanerUtils.getEarliestCommitToRetain for KEEP_LATEST_COMMITS (capped by the earliest pending commit). */
export function cleanerEarliestCommitToRetain(instants: readonly Instant[], rules: Rules, retained: number): Instant | undefined {
  const all = commitsTimeline(instants, rules);
  const completed = all.filter(done);
  if (completed.length <= retained) return undefined;
  const nth = completed[completed.length - retained]!;
  const pending = all.find((i) => !done(i));
  if (!pending || nth.requestedTime <= pending.requestedTime) return nth;
  return completed.filter((i) => before(i, pending.requestedTime)).pop();
}

/** ArchivalUtils.getMinAndMaxInstantsToKeep. */
export function effectiveMinMax(instants: readonly Instant[], rules: Rules, c: ArchivalConfig): { min: number; max: number; ectr?: Instant } {
  const ectr = cleanerEarliestCommitToRetain(instants, rules, c.commitsRetained);
  if (!ectr) return { min: c.minCommits, max: c.maxCommits };
  const byCleaning = completedCommitsOf(instants).filter((i) => i.requestedTime > ectr.requestedTime).length + 2;
  if (c.minCommits < byCleaning) return { min: byCleaning, max: byCleaning + c.maxCommits - c.minCommits, ectr };
  return { min: c.minCommits, max: c.maxCommits, ectr };
}

/** Rule 1: the newest completed commit before the earliest pending write (or that pending instant). */
function pendingBound(instants: readonly Instant[], commits: Instant[]): Bound | undefined {
  const pending = instants.find((i) => !done(i) && (WRITE.has(i.action) || WRITE.has(i.effectiveAction)));
  if (!pending) return undefined;
  const b = commits.filter((c) => before(c, pending.requestedTime)).pop() ?? pending;
  return {
    kind: 'pending',
    instant: b.requestedTime,
    why: `the earliest pending write is ${pending.effectiveAction} ${pending.requestedTime}${b === pending ? '' : `; ${b.requestedTime} is the newest completed commit before it`} (no holes before a pending instant)`,
  };
}

/** Rule 2 (MOR): CompactionUtils.getOldestInstantToRetainForCompaction / getEarliestInstantToRetainForCompaction. */
function compactionBound(instants: readonly Instant[], rules: Rules, c: ArchivalConfig): Bound | undefined {
  const compactionActions: ReadonlySet<Action> = rules === '0.14' ? new Set(['commit', 'replacecommit']) : new Set(['commit']);
  const last = instants.filter((i) => done(i) && compactionActions.has(i.action)).pop();
  const deltas = instants.filter((i) => i.action === 'deltacommit');
  let since: Instant[];
  let anchor: Instant;
  if (last) {
    since = deltas.filter((d) => d.requestedTime > last.requestedTime);
    anchor = last;
  } else if (deltas.length > 0) {
    since = deltas;
    anchor = deltas[0]!;
  } else return undefined;
  const b = since.length < c.deltaCommitMax ? anchor : since[since.length - c.deltaCommitMax]!;
  const what = last ? `the last compaction ${last.requestedTime}` : 'the first delta commit';
  return {
    kind: 'compaction',
    instant: b.requestedTime,
    why: `${since.length} delta commit(s) since ${what}; the newest ${c.deltaCommitMax} are kept for compaction scheduling (hoodie.compact.inline.max.delta.commits)`,
  };
}

/** Rule 3: replacecommits (clustering) whose replaced files may not be cleaned yet. */
function clusteringBound(facts: ArchivalFacts, rules: Rules, commits: Instant[]): Bound | undefined {
  const { instants } = facts;
  const replaces = instants.filter((i) => i.action === 'replacecommit' || (rules === '1.x' && i.action === 'clustering'));
  if (replaces.length === 0) return undefined;
  const lastClean = instants.filter((i) => done(i) && i.action === 'clean').pop();
  let oldest: Instant | undefined;
  let why: string;
  if (lastClean) {
    const ectr = facts.lastCleanPlan?.earliestInstantToRetain || undefined;
    let lower = ectr ?? lastClean.requestedTime;
    why = ectr ? `the last clean ${lastClean.requestedTime} retains from ${ectr}` : `the last clean ${lastClean.requestedTime} has no earliest commit to retain`;
    if (rules === '1.x' && ectr) {
      const sp = [...(facts.lastCleanPlan?.savepointedTimestamps ?? [])].sort()[0];
      if (sp && ectr > sp && instants.some((i) => done(i) && i.action === 'replacecommit' && i.requestedTime >= sp && i.requestedTime <= ectr)) {
        lower = sp;
        why = `the last clean ${lastClean.requestedTime} kept files of savepoint ${sp} that replacecommits up to ${ectr} replaced`;
      }
    }
    oldest = replaces.find((r) => r.requestedTime >= lower);
  } else {
    oldest = replaces[0];
    why = 'no clean has run yet';
  }
  if (rules === '0.14') {
    const pending = replaces.find((r) => !done(r));
    if (pending) {
      const prior = commits.filter((c) => before(c, pending.requestedTime)).pop();
      if (prior && (!oldest || oldest.requestedTime > prior.requestedTime)) {
        oldest = prior;
        why = `replacecommit ${pending.requestedTime} is pending; ${prior.requestedTime} is the completed commit before it`;
      }
    }
  }
  if (!oldest) return undefined;
  return { kind: 'clustering', instant: oldest.requestedTime, why: `replace/clustering instant ${oldest.requestedTime} stays until its replaced files are cleaned (${why})` };
}

/**
 * Rule 5, on a metadata table: TimelineUtils.getEarliestInstantForMetadataArchival — nothing at or after
 * the data table's first commit (any state) or its first pending instant (any action), whichever is
 * earlier: the MDT records of instants the data table still shows must stay readable.
 */
function dataTableBound(facts: ArchivalFacts, rules: Rules): Bound | undefined {
  const d = facts.dataTable;
  if (!d) return undefined;
  const commit = commitsTimeline(d.instants, rules)[0];
  const pending = d.instants.find((i) => !done(i));
  const first = commit && pending ? (pending.requestedTime < commit.requestedTime ? pending : commit) : commit ?? pending;
  if (!first) return undefined;
  const what = first === pending ? `its earliest pending instant ${first.effectiveAction} ${first.requestedTime}` : `its earliest commit ${first.requestedTime}`;
  return { kind: 'data-table', instant: first.requestedTime, why: `the data table's active timeline starts with ${what} (the metadata table keeps every instant the data timeline still has)` };
}

function otherReason(i: Instant): string | undefined {
  if (!done(i)) return `pending (${i.state.toLowerCase()})`;
  if (i.action === 'savepoint') return 'savepoints are never archived while they exist';
  if (!COMPLETED_COMMIT.has(i.action) && i.action !== 'clean' && i.action !== 'rollback') return `Hudi's archiver does not archive ${i.action} instants`;
  return undefined;
}

/** The archiver's decision over one timeline. */
export function decideArchival(facts: ArchivalFacts, config: ArchivalConfig = ARCHIVAL_DEFAULTS): ArchivalDecision {
  const rules: Rules = facts.tableVersion >= 8 ? '1.x' : '0.14';
  const { instants } = facts;
  const { min, max, ectr } = effectiveMinMax(instants, rules, config);
  const commits = completedCommitsOf(instants);
  const reason = new Map<Instant, string>();
  const archive = new Set<Instant>();
  const bounds: Bound[] = [];
  for (const i of instants) {
    const r = otherReason(i);
    if (r) reason.set(i, r);
  }
  const tooFew = `${commits.length} completed commit(s) on the active timeline, not more than maxCommits=${max}`;
  const firstSavepoint = instants.find((i) => done(i) && i.action === 'savepoint');
  const savepoint: Bound | undefined = firstSavepoint && {
    kind: 'savepoint',
    instant: firstSavepoint.requestedTime,
    why: `savepoint ${firstSavepoint.requestedTime}: its commit and everything after stay (hoodie.archive.beyond.savepoint=false)`,
  };
  const mdtBound = (): Bound | 'none' | undefined => {
    const m = facts.metadataTable;
    if (!m) return undefined;
    if (m.latestCompaction === undefined) return 'none';
    if (rules === '0.14') {
      return { kind: 'metadata-table', instant: m.latestCompaction, why: `the metadata table's latest compaction is ${m.latestCompaction}` };
    }
    const lc = m.latestCompaction;
    const first = commits.find((c) => c.completionTime !== undefined && c.completionTime > lc && c.requestedTime !== lc);
    return first && { kind: 'metadata-table', instant: first.requestedTime, why: `${first.requestedTime} is the first commit completed after the metadata table's latest compaction ${lc}` };
  };
  const noMdtCompaction = 'the metadata table has no compaction yet: nothing is archived until it has one';

  /** commits passing every bound, oldest first, at most count − min */
  const pickCommits = (all: Bound[]): void => {
    let taken = 0;
    for (const c of commits) {
      const stop = all.filter((b) => c.requestedTime >= b.instant);
      if (stop.length > 0) {
        reason.set(c, stop.map((b) => `at or after ${b.instant}: ${b.why}`).join('; '));
      } else if (taken >= commits.length - min) {
        reason.set(c, `among the newest ${min} completed commits (minCommits${min !== config.minCommits ? `, raised from ${config.minCommits} for the cleaner's ${config.commitsRetained} retained commits` : ''})`);
      } else {
        archive.add(c);
        taken++;
      }
    }
  };

  if (rules === '0.14') {
    for (const action of ['clean', 'rollback'] as const) {
      const list = instants.filter((i) => done(i) && i.action === action);
      list.forEach((i, n) => {
        if (list.length <= max) reason.set(i, `${list.length} completed ${action} instant(s), not more than maxCommits=${max}`);
        else if (n < list.length - min) archive.add(i);
        else reason.set(i, `among the newest ${min} completed ${action} instants (minCommits)`);
      });
    }
    if (commits.length <= max) for (const c of commits) reason.set(c, tooFew);
    else {
      const p = pendingBound(instants, commits);
      const comp = facts.tableType === 'MERGE_ON_READ' ? compactionBound(instants, rules, config) : undefined;
      const clus = clusteringBound(facts, rules, commits);
      for (const b of [savepoint, p, comp, clus]) if (b) bounds.push(b);
      pickCommits(bounds);
    }
    const m = mdtBound();
    if (m === 'none') {
      for (const i of archive) reason.set(i, noMdtCompaction);
      archive.clear();
    } else if (m) {
      bounds.push(m);
    }
    const d = dataTableBound(facts, rules);
    if (d) bounds.push(d);
    for (const b of [m === 'none' ? undefined : m, d]) {
      if (!b) continue;
      for (const i of [...archive]) {
        if (i.requestedTime >= b.instant) {
          archive.delete(i);
          reason.set(i, `at or after ${b.instant}: ${b.why}`);
        }
      }
    }
  } else {
    const cleanRollbacks = instants.filter((i) => done(i) && (i.action === 'clean' || i.action === 'rollback'));
    if (commits.length <= max) {
      for (const c of commits) reason.set(c, tooFew);
      for (const i of cleanRollbacks) reason.set(i, `no commit is archived (${tooFew})`);
    } else {
      const m = mdtBound();
      if (m === 'none') {
        for (const i of [...commits, ...cleanRollbacks]) reason.set(i, noMdtCompaction);
      } else {
        const candidates = [pendingBound(instants, commits), facts.tableType === 'MERGE_ON_READ' ? compactionBound(instants, rules, config) : undefined, clusteringBound(facts, rules, commits), m, dataTableBound(facts, rules)];
        const present = candidates.filter((b): b is Bound => b !== undefined);
        // the earliest of the candidates is the one bound (TimelineArchiverV2 takes their minimum)
        const earliest = present.sort((a, b) => (a.instant < b.instant ? -1 : a.instant > b.instant ? 1 : 0))[0];
        for (const b of [savepoint, earliest]) if (b) bounds.push(b);
        for (const b of present) if (b !== earliest) bounds.push(b);
        pickCommits([savepoint, earliest].filter((b): b is Bound => b !== undefined));
        const archived = commits.filter((c) => archive.has(c));
        const latest = archived[archived.length - 1];
        for (const i of cleanRollbacks) {
          if (latest && before(i, latest.requestedTime)) archive.add(i);
          else reason.set(i, latest ? `not older than ${latest.requestedTime}, the newest commit archived in this run` : 'no commit is archived in this run');
        }
      }
    }
  }
  const verdicts = instants.map((i) => ({ instant: i, archive: archive.has(i), reason: archive.has(i) ? 'archived' : reason.get(i) ?? 'kept' }));
  return {
    rules,
    minCommits: min,
    maxCommits: max,
    earliestCommitToRetain: ectr?.requestedTime,
    bounds,
    verdicts,
    toArchive: instants.filter((i) => archive.has(i)),
  };
}
