// The pure parts of the clean (src/services/clean/plan.ts, config.ts) on hand-built inputs: the
// earliest commit to retain (pending cap for COMMITS only, wall clock for BY_HOURS), the partitions to
// scan (full, incremental, savepoint removal per table version), and the configuration keys.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLEAN_CONFIG, earliestCommitToRetain, parseHoodieConfigs, resolveCleanConfig, scanScope, type CleanConfig, type CleanTimeline } from '../../src/services/index.ts';

const c = (t: string, completed = true, action = 'commit') => ({ requestedTime: t, action, completed });

function timeline(over: Partial<CleanTimeline> = {}): CleanTimeline {
  const cc = over.commitsAndCompaction ?? ['01', '02', '03', '04', '05'].map((t) => c(`202501010000000${t}`.slice(-17)));
  return {
    commitsAndCompaction: cc,
    completedCommits: cc.filter((i) => i.completed).map(({ requestedTime, action }) => ({ requestedTime, action })),
    commitsTimelineStart: cc[0]?.requestedTime,
    savepoints: [],
    pendingCompactionOps: new Map(),
    ...over,
  };
}

const cfg = (o: Partial<CleanConfig>): CleanConfig => ({ ...DEFAULT_CLEAN_CONFIG, ...o });
const T = (n: number) => `2025010100000000${n}`;

describe('earliest commit to retain', () => {
  const five = [1, 2, 3, 4, 5].map((n) => c(T(n)));
  it('KEEP_LATEST_COMMITS: completed[count - N] once there are more than N', () => {
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: five }), cfg({ commitsRetained: 2 }), new Date(), 'UTC')?.requestedTime).toBe(T(4));
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: five }), cfg({ commitsRetained: 5 }), new Date(), 'UTC')).toBeUndefined();
  });
  it('KEEP_LATEST_COMMITS: never later than the earliest pending instant (a pending compaction counts)', () => {
    const tl = [c(T(1)), c(T(2)), c(T(3), false, 'compaction'), c(T(4)), c(T(5)), c(T(6))];
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: tl }), cfg({ commitsRetained: 1 }), new Date(), 'UTC')?.requestedTime).toBe(T(2));
    const first = [c(T(1), false), c(T(2)), c(T(3))];
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: first }), cfg({ commitsRetained: 1 }), new Date(), 'UTC')).toBeUndefined();
  });
  it('KEEP_LATEST_BY_HOURS: first completed instant at or after now − N hours, not capped by pending ones', () => {
    const hours = ['20250101000000000', '20250101010000000', '20250101020000000', '20250101030000000'];
    const tl = [c(hours[0]!), c(hours[1]!, false), c(hours[2]!), c(hours[3]!)];
    const now = new Date('2025-01-01T03:30:00Z');
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: tl }), cfg({ policy: 'KEEP_LATEST_BY_HOURS', hoursRetained: 2 }), now, 'UTC')?.requestedTime).toBe(hours[2]);
    expect(earliestCommitToRetain(timeline({ commitsAndCompaction: tl }), cfg({ policy: 'KEEP_LATEST_BY_HOURS', hoursRetained: 0 }), now, 'UTC')).toBeUndefined();
  });
  it('KEEP_LATEST_FILE_VERSIONS has none', () => {
    expect(earliestCommitToRetain(timeline(), cfg({ policy: 'KEEP_LATEST_FILE_VERSIONS' }), new Date(), 'UTC')).toBeUndefined();
  });
});

describe('partitions to scan', () => {
  const facts = (version: number) => ({ version, partitioned: true, timezone: 'UTC' as const });
  const tl5 = () => timeline({ commitsAndCompaction: [1, 2, 3, 4, 5].map((n) => c(T(n))) });
  const ectr = { requestedTime: T(4), action: 'commit' };
  it('full scan on the first clean, with incremental mode off, and for FILE_VERSIONS', () => {
    expect(scanScope(tl5(), cfg({}), ectr, facts(8)).kind).toBe('all');
    expect(scanScope({ ...tl5(), lastClean: { earliestCommitToRetain: T(2), lastCompletedCommitTimestamp: T(3), savepointedTimestamps: [] } }, cfg({ incremental: false }), ectr, facts(8)).kind).toBe('all');
    expect(scanScope(tl5(), cfg({ policy: 'KEEP_LATEST_FILE_VERSIONS' }), undefined, facts(8)).kind).toBe('all');
    expect(scanScope(tl5(), cfg({}), undefined, facts(8)).kind).toBe('none');
  });
  it("incremental: the instants from the last clean's earliest commit to retain to before the new one", () => {
    const s = scanScope({ ...tl5(), lastClean: { earliestCommitToRetain: T(2), lastCompletedCommitTimestamp: T(3), savepointedTimestamps: [] } }, cfg({}), ectr, facts(8));
    expect(s.kind === 'instants' && s.instants.map((i) => i.requestedTime)).toEqual([T(2), T(3)]);
  });
  it('full scan when the last clean retained an instant before the active timeline', () => {
    const tl = timeline({ commitsAndCompaction: [3, 4, 5].map((n) => c(T(n))), lastClean: { earliestCommitToRetain: T(1), lastCompletedCommitTimestamp: T(2), savepointedTimestamps: [] } });
    expect(scanScope(tl, cfg({}), ectr, facts(8)).kind).toBe('all');
  });
  it('a savepoint removed since the last clean: 1.x scans everything, 0.14 adds its commit', () => {
    const tl = { ...tl5(), lastClean: { earliestCommitToRetain: T(3), lastCompletedCommitTimestamp: T(3), savepointedTimestamps: [T(1)] } };
    expect(scanScope(tl, cfg({}), ectr, facts(8)).kind).toBe('all');
    const v6 = scanScope(tl, cfg({}), ectr, facts(6));
    expect(v6.kind === 'instants' && v6.instants.map((i) => i.requestedTime)).toEqual([T(3), T(1)]);
    expect(scanScope({ ...tl, savepoints: [{ time: T(1), dataFiles: [] }] }, cfg({}), ectr, facts(8)).kind).toBe('instants');
  });
});

describe('clean configuration', () => {
  const m = (o: Record<string, string>) => new Map(Object.entries(o));
  it('1.x names over 0.14 names, later layers over earlier ones, flags over all', () => {
    const table = m({ 'hoodie.cleaner.commits.retained': '5' });
    expect(resolveCleanConfig([table], {}, 6).commitsRetained).toBe(5);
    expect(resolveCleanConfig([table, m({ 'hoodie.clean.commits.retained': '7', 'hoodie.cleaner.commits.retained': '9' })], {}, 6).commitsRetained).toBe(7);
    expect(resolveCleanConfig([table], { commitsRetained: 2 }, 6).commitsRetained).toBe(2);
    expect(resolveCleanConfig([m({ 'hoodie.cleaner.policy': 'keep_latest_by_hours' })], {}, 6).policy).toBe('KEEP_LATEST_BY_HOURS');
  });
  it('table version 8 infers the policy from the one retained key set; version 6 keeps the default', () => {
    expect(resolveCleanConfig([m({ 'hoodie.clean.hours.retained': '5' })], {}, 8).policy).toBe('KEEP_LATEST_BY_HOURS');
    expect(resolveCleanConfig([m({ 'hoodie.clean.hours.retained': '5' })], {}, 6).policy).toBe('KEEP_LATEST_COMMITS');
    expect(resolveCleanConfig([m({ 'hoodie.clean.hours.retained': '5', 'hoodie.clean.commits.retained': '3' })], {}, 8).policy).toBe('KEEP_LATEST_COMMITS');
  });
  it('LAZY failed writes: explicit, or inferred from optimistic concurrency control', () => {
    expect(resolveCleanConfig([], {}, 8).failedWritesPolicy).toBe('EAGER');
    expect(resolveCleanConfig([m({ 'hoodie.write.concurrency.mode': 'OPTIMISTIC_CONCURRENCY_CONTROL' })], {}, 6).failedWritesPolicy).toBe('LAZY');
    expect(resolveCleanConfig([m({ 'hoodie.write.concurrency.mode': 'optimistic_concurrency_control', 'hoodie.cleaner.policy.failed.writes': 'NEVER' })], {}, 6).failedWritesPolicy).toBe('NEVER');
  });
  it('bad values name the key', () => {
    expect(() => resolveCleanConfig([m({ 'hoodie.clean.fileversions.retained': '0' })], {}, 8)).toThrow(/hoodie.clean.fileversions.retained=0/);
    expect(() => resolveCleanConfig([m({ 'hoodie.clean.trigger.strategy': 'HOURLY' })], {}, 8)).toThrow(/NUM_COMMITS/);
    expect(() => resolveCleanConfig([], { policy: 'NOPE' }, 8)).toThrow(/NOPE/);
    expect(() => parseHoodieConfigs(['novalue'])).toThrow(/key=value/);
    expect([...parseHoodieConfigs(['a=1,b=2', 'c=x=y'])]).toEqual([['a', '1'], ['b', '2'], ['c', 'x=y']]);
  });
});
