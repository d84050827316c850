// An independent prediction of what a Hudi clean deletes, written from the reference
// (../shared/reference/format-services-write.md §1.2–§1.5, format-data.md §9.1), not from
// src/services/clean: it lists the table with node:fs, parses file and timeline names with its own
// patterns, groups files into slices itself and applies the rules as the reference words them. Only
// the metadata codecs (commit, clean, savepoint, compaction plan decoding) are shared.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseProperties } from '../../../src/config/index.ts';
import { decodeCleanMetadata, decodeCommitMetadata, decodeCompactionPlan, decodeSavepointMetadata } from '../../../src/metadata/index.ts';
import { formatInstantTime } from '../../../src/util/index.ts';

export type Policy = 'KEEP_LATEST_COMMITS' | 'KEEP_LATEST_FILE_VERSIONS' | 'KEEP_LATEST_BY_HOURS';

export interface OracleConfig {
  policy: Policy;
  commitsRetained?: number;
  fileVersionsRetained?: number;
  hoursRetained?: number;
  incremental?: boolean;
  maxCommits?: number;
  now?: Date;
}

export interface Prediction {
  /** no clean instant is created */
  nothing: boolean;
  ectr?: string;
  /** table-relative paths of the files the clean deletes */
  files: Set<string>;
  partitionsDeleted: Set<string>;
}

interface TimelineEntry {
  time: string;
  /** comparable group: commit, deltacommit, replacecommit, clean, savepoint, rollback … */
  group: string;
  /** action of each state's file */
  requested?: string;
  inflight?: string;
  completed?: string;
  completion?: string;
}

const COMPARABLE: Record<string, string> = { compaction: 'commit', logcompaction: 'deltacommit', clustering: 'replacecommit' };

function readTimeline(base: string, layout: 1 | 2, dir: string): { entries: TimelineEntry[]; dir: string } {
  const byKey = new Map<string, TimelineEntry>();
  for (const name of readdirSync(dir)) {
    let m = /^(\d+)(?:_(\d+))?\.([a-z]+)(?:\.(requested|inflight))?$/.exec(name);
    let time: string, completion: string | undefined, action: string, state: string | undefined;
    if (m) [, time, completion, action, state] = m as unknown as [string, string, string | undefined, string, string | undefined];
    else if ((m = /^(\d+)\.inflight$/.exec(name))) [time, action, state] = [m[1]!, 'commit', 'inflight'];
    else continue;
    if (layout === 1 && completion) continue;
    if (action === 'inflight') [action, state] = ['commit', 'inflight'];
    const group = COMPARABLE[action] ?? action;
    const key = `${time}|${group}`;
    const e = byKey.get(key) ?? { time, group };
    if (state === 'requested') e.requested = action;
    else if (state === 'inflight') e.inflight = action;
    else {
      e.completed = action;
      e.completion = completion;
    }
    byKey.set(key, e);
  }
  return { entries: [...byKey.values()].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.group < b.group ? -1 : 1)), dir };
}

function fileOf(layout: 1 | 2, e: TimelineEntry, state: 'requested' | 'completed'): string {
  if (state === 'requested') return `${e.time}.${e.requested}.requested`;
  return layout === 2 ? `${e.time}_${e.completion}.${e.completed}` : `${e.time}.${e.completed}`;
}

const BASE = /^([A-Za-z0-9-]+)_([A-Za-z0-9-]+)_(\d+)\.(parquet|orc|hfile|lance)$/;
const LOG = /^\.(.+)_(\d+)\.log\.(\d+)(?:_[0-9-]+(?:-cdc|\.cdc)?)?$/;

interface Slice {
  base: string;
  files: string[]; // names
}

/** Partitions: directories with a partition metadata file, or the root when it holds data files. */
function partitionsOf(base: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (rel: string) => {
    const dir = rel === '' ? base : join(base, rel);
    const ents = readdirSync(dir, { withFileTypes: true });
    const files = ents.filter((e) => e.isFile()).map((e) => e.name);
    const isPartition = files.some((f) => f.startsWith('.hoodie_partition_metadata')) || (rel === '' && files.some((f) => BASE.test(f) || LOG.test(f)));
    if (isPartition) out.set(rel, files);
    for (const e of ents) if (e.isDirectory() && !e.name.startsWith('.')) walk(rel === '' ? e.name : `${rel}/${e.name}`);
  };
  walk('');
  return out;
}

export function predictClean(base: string, cfg: OracleConfig): Prediction {
  const props = parseProperties(readFileSync(join(base, '.hoodie', 'hoodie.properties')));
  const version = Number(props.get('hoodie.table.version') ?? '6');
  const layout: 1 | 2 = (props.get('hoodie.timeline.layout.version') ?? (version >= 8 ? '2' : '1')) === '2' ? 2 : 1;
  const zone = (props.get('hoodie.table.timeline.timezone') ?? 'LOCAL').toUpperCase() === 'UTC' ? 'UTC' : 'LOCAL';
  const partitioned = (props.get('hoodie.table.partition.fields') ?? '') !== '';
  const tlDir = layout === 2 ? join(base, '.hoodie', props.get('hoodie.timeline.path') ?? 'timeline') : join(base, '.hoodie');
  const { entries } = readTimeline(base, layout, tlDir);
  const read = (name: string) => readFileSync(join(tlDir, name));
  const nothing = (ectr?: string): Prediction => ({ nothing: true, ectr, files: new Set(), partitionsDeleted: new Set() });

  const writeGroups = new Set(['commit', 'deltacommit', 'replacecommit']);
  const completedCommits = entries.filter((e) => writeGroups.has(e.group) && e.completed);
  // the commits-and-compaction timeline: completed writes, and pending writes / compactions / clusterings (not log compactions)
  const pendingCC = entries.filter((e) => writeGroups.has(e.group) && !e.completed && (e.requested ?? e.inflight) !== 'logcompaction');

  // the last completed clean
  const cleans = entries.filter((e) => e.group === 'clean' && e.completed);
  const lastCleanEntry = cleans[cleans.length - 1];
  let lastClean: { ectr: string; lastCompleted: string; savepoints: string[] } | undefined;
  if (lastCleanEntry && statSync(join(tlDir, fileOf(layout, lastCleanEntry, 'completed'))).size > 0) {
    const m = decodeCleanMetadata(read(fileOf(layout, lastCleanEntry, 'completed')), { path: 'clean' });
    lastClean = { ectr: m.earliestCommitToRetain, lastCompleted: m.lastCompletedCommitTimestamp, savepoints: (m.extraMetadata?.savepointed_timestamps ?? '').split(',').filter(Boolean) };
  }

  // trigger: completed commits after the last clean's lastCompletedCommitTimestamp
  const since = completedCommits.filter((e) => e.time > (lastClean?.lastCompleted ?? '')).length;
  if (since < (cfg.maxCommits ?? 1)) return nothing();

  // earliest commit to retain
  let ectr: string | undefined;
  const n = cfg.commitsRetained ?? 10;
  if (cfg.policy === 'KEEP_LATEST_COMMITS' && completedCommits.length > n) {
    const cand = completedCommits[completedCommits.length - n]!;
    const firstPending = pendingCC[0];
    if (firstPending && cand.time > firstPending.time) ectr = completedCommits.filter((e) => e.time < firstPending.time).pop()?.time;
    else ectr = cand.time;
  } else if (cfg.policy === 'KEEP_LATEST_BY_HOURS') {
    const cutoff = formatInstantTime(new Date((cfg.now ?? new Date()).getTime() - (cfg.hoursRetained ?? 24) * 3600_000), zone);
    ectr = completedCommits.find((e) => e.time >= cutoff)?.time;
  }

  // savepoints
  const savepoints = entries.filter((e) => e.group === 'savepoint' && e.completed);
  const savepointed = new Set<string>();
  for (const s of savepoints) {
    const m = decodeSavepointMetadata(read(fileOf(layout, s, 'completed')), { path: 'savepoint' });
    for (const p of Object.values(m.partitionMetadata)) for (const f of p.savepointDataFile) savepointed.add(f);
  }

  // partitions to scan
  const listing = partitionsOf(base);
  let scan: Set<string>;
  if (cfg.policy === 'KEEP_LATEST_FILE_VERSIONS') scan = new Set(listing.keys());
  else if (!ectr) return nothing();
  else {
    const firstCommitsInstant = entries.find((e) => writeGroups.has(e.group) && (e.completed || !['compaction', 'logcompaction'].includes(e.requested ?? e.inflight ?? '')))?.time;
    const removed = partitioned && lastClean ? lastClean.savepoints.filter((t) => !savepoints.some((s) => s.time === t)) : [];
    const incremental =
      (cfg.incremental ?? true) && lastClean && lastClean.ectr !== '' && !(firstCommitsInstant !== undefined && lastClean.ectr < firstCommitsInstant) && !(removed.length > 0 && version >= 8);
    if (!incremental) scan = new Set(listing.keys());
    else {
      scan = new Set();
      const touched = completedCommits.filter((e) => (e.time >= lastClean!.ectr && e.time < ectr!) || removed.includes(e.time));
      for (const e of touched) {
        const m = decodeCommitMetadata(read(fileOf(layout, e, 'completed')), { path: 'commit' });
        for (const p of Object.keys(m.partitionToWriteStats ?? {})) scan.add(p);
        if (e.completed === 'replacecommit') for (const p of Object.keys(m.partitionToReplaceFileIds ?? {})) scan.add(p);
      }
    }
  }

  // committed instants (and those before the start of the active timeline) — the file groups' visibility
  const completedTimes = new Set(completedCommits.map((e) => e.time));
  const completion = new Map(completedCommits.map((e) => [e.time, e.completion ?? e.time]));
  const pendingCompactions = entries.filter((e) => e.group === 'commit' && !e.completed && e.requested === 'compaction');
  const firstVisible = [...completedCommits, ...pendingCompactions].map((e) => e.time).sort()[0];
  const committed = (t: string) => completedTimes.has(t) || (firstVisible !== undefined && t < firstVisible);

  // pending compaction / log compaction operations
  const pendingOps = new Map<string, string>();
  const pendingCompactionAt = new Map<string, string>();
  for (const e of entries.filter((x) => !x.completed && (x.requested === 'compaction' || x.requested === 'logcompaction'))) {
    const plan = decodeCompactionPlan(read(fileOf(layout, e, 'requested')), { path: 'plan' });
    for (const op of plan.operations ?? []) {
      const k = `${op.partitionPath ?? ''}|${op.fileId}`;
      pendingOps.set(k, op.baseInstantTime ?? '');
      if (e.requested === 'compaction') pendingCompactionAt.set(k, e.time);
    }
  }

  // replaced file groups: partitionToReplaceFileIds of completed replacecommits
  const replacedBy = new Map<string, string>();
  for (const e of completedCommits.filter((x) => x.completed === 'replacecommit')) {
    const m = decodeCommitMetadata(read(fileOf(layout, e, 'completed')), { path: 'replace' });
    for (const [p, ids] of Object.entries(m.partitionToReplaceFileIds ?? {})) for (const id of ids) if (!replacedBy.has(`${p}|${id}`)) replacedBy.set(`${p}|${id}`, e.time);
  }

  const files = new Set<string>();
  const partitionsDeleted = new Set<string>();
  const rel = (p: string, name: string) => (p === '' ? name : `${p}/${name}`);
  for (const p of [...scan].sort()) {
    const names = listing.get(p);
    if (!names) continue;
    // group by file id
    const groups = new Map<string, { bases: { name: string; instant: string }[]; logs: { name: string; instant: string }[] }>();
    const g = (id: string) => groups.get(id) ?? groups.set(id, { bases: [], logs: [] }).get(id)!;
    for (const name of names) {
      const b = BASE.exec(name);
      if (b) g(b[1]!).bases.push({ name, instant: b[3]! });
      const l = LOG.exec(name);
      if (l) g(l[1]!).logs.push({ name, instant: l[2]! });
    }
    const slicesOf = (id: string): Slice[] => {
      const { bases, logs } = groups.get(id)!;
      const key = `${p}|${id}`;
      const compactionAt = pendingCompactionAt.get(key);
      const slices = new Map<string, Slice>();
      const at = (t: string) => slices.get(t) ?? slices.set(t, { base: t, files: [] }).get(t)!;
      for (const b of bases) {
        if (b.instant === compactionAt || !committed(b.instant)) continue;
        at(b.instant).files.push(b.name);
      }
      if (compactionAt) at(compactionAt);
      for (const l of [...logs].sort((a, b) => (a.instant < b.instant ? -1 : 1))) {
        if (layout === 1) {
          if (committed(l.instant) || l.instant === compactionAt || slices.has(l.instant)) at(l.instant).files.push(l.name);
          continue;
        }
        if (!committed(l.instant)) continue;
        const c = completion.get(l.instant) ?? l.instant;
        const keys = [...slices.keys()].filter((k) => k <= c).sort();
        at(keys.length > 0 ? keys[keys.length - 1]! : l.instant).files.push(l.name);
      }
      // newest first; a slice without files survives only as the pending compaction's
      return [...slices.values()].filter((s) => s.files.length > 0 || s.base === compactionAt).sort((a, b) => (a.base < b.base ? 1 : -1));
    };
    const saved = (s: Slice) => s.files.some((f) => savepointed.has(f));
    const needed = (id: string, s: Slice) => {
      const op = pendingOps.get(`${p}|${id}`);
      return op !== undefined && s.base >= op;
    };
    const active = [...groups.keys()].filter((id) => !replacedBy.has(`${p}|${id}`));
    const replaced = [...groups.keys()].filter((id) => replacedBy.has(`${p}|${id}`));
    const del = (s: Slice) => s.files.forEach((f) => files.add(rel(p, f)));
    if (cfg.policy === 'KEEP_LATEST_FILE_VERSIONS') {
      for (const id of replaced) for (const s of slicesOf(id)) if (!saved(s)) del(s);
      for (const id of active) {
        let keep = cfg.fileVersionsRetained ?? 3;
        if (pendingOps.has(`${p}|${id}`)) keep -= 1;
        for (const s of slicesOf(id).filter((x) => !needed(id, x))) {
          if (keep > 0) keep -= 1;
          else if (!saved(s)) del(s);
        }
      }
      if (p !== '' && partitioned && active.length === 0) partitionsDeleted.add(p);
      continue;
    }
    const retained = cfg.policy === 'KEEP_LATEST_BY_HOURS' ? 0 : n;
    if (completedCommits.length <= retained) continue;
    const e = ectr!;
    for (const id of replaced) if (replacedBy.get(`${p}|${id}`)! < e) for (const s of slicesOf(id)) if (!saved(s)) del(s);
    for (const id of active) {
      const slices = slicesOf(id);
      if (slices.length === 0) continue;
      const latest = slices[0]!.base;
      const newestBefore = slices.find((s) => s.base < e)?.base;
      for (const s of slices) {
        if (saved(s) || s.base === latest || s.base === newestBefore) continue;
        if (!needed(id, s) && s.base < e) del(s);
      }
    }
    const laterReplace = replaced.some((id) => replacedBy.get(`${p}|${id}`)! >= e);
    if (p !== '' && partitioned && active.length === 0 && !laterReplace) partitionsDeleted.add(p);
  }
  return { nothing: files.size === 0 && partitionsDeleted.size === 0, ectr, files, partitionsDeleted };
}
