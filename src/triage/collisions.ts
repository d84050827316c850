// fileId collisions (incidents.md §1–2): from the write stats of every instant and the file listing.
import { bucketIdFromFileId, parseBaseFileName, parseLogFileName } from '../fs-view/index.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../merge/index.ts';
import { baseName } from '../util/index.ts';
import { COLLISION_TEXT } from './runbook.ts';
import { heartbeatOf, type InstantWrites, type TableScan } from './scan.ts';
import type { CollisionKind, Finding, Severity } from './types.ts';

export interface CollisionOptions {
  /** bucket count of a bucket-index table (overrides config and inference) */
  bucketIndex?: number;
  /** read data: record keys present in more than one file group of a partition */
  keys?: boolean;
}

const SERVICE_ACTIONS = new Set(['compaction', 'logcompaction', 'clustering']);

/** A table service's write (a v6 clustering completes as a plain replacecommit with operationType CLUSTER). */
function isService(w: InstantWrites): boolean {
  return SERVICE_ACTIONS.has(w.instant.effectiveAction) || w.operationType === 'CLUSTER' || w.operationType === 'COMPACT';
}

function isCreate(prev: string | null | undefined): boolean {
  return prev === null || prev === undefined || prev === 'null' || prev === '';
}

function key(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

/** Table-relative path of a file in a partition ('' = the base path). */
function relPath(partition: string, name: string): string {
  return partition ? `${partition}/${name}` : name;
}

function iso(ms: number | undefined): string {
  return ms === undefined ? 'pending' : new Date(ms).toISOString();
}

function window(w: InstantWrites): string {
  return `${w.instant.requestedTime} (${w.instant.effectiveAction}, ${w.instant.state.toLowerCase()}, ${iso(w.startMs)} → ${iso(w.endMs)})`;
}

function finding(kind: CollisionKind, severity: Severity, partition: string, fileId: string, instants: string[], files: string[], evidence: string): Finding {
  return { kind, severity, partition, fileId, instants: [...new Set(instants)].sort(), files: [...new Set(files)].sort(), evidence, ...COLLISION_TEXT[kind] };
}

/** Whether two writes ran at the same time. Layout-1 completion times are file mtimes: only trusted while an instant is still pending. */
function overlaps(a: InstantWrites, b: InstantWrites, scan: TableScan): boolean {
  if (a.startMs === undefined || b.startMs === undefined) return false;
  const now = scan.now.getTime();
  const open = (w: InstantWrites) => w.instant.state !== 'COMPLETED';
  if (scan.layout === 1 && !open(a) && !open(b)) return false;
  // a pending writer whose heartbeat is gone is a failed writer, reported by `orphans`, not a concurrent one
  for (const w of [a, b]) if (open(w) && heartbeatOf(scan, w.instant.requestedTime) !== 'alive') return false;
  const endA = a.endMs ?? now;
  const endB = b.endMs ?? now;
  if (scan.layout === 1) {
    // only the pending one's window is known: the other one started inside it
    const [p, o] = open(a) ? [a, b] : [b, a];
    return o.startMs! > p.startMs!;
  }
  return a.startMs < endB && b.startMs < endA;
}

export function bucketCountOf(scan: TableScan, opts: CollisionOptions): { count?: number; source: string } | undefined {
  if (opts.bucketIndex !== undefined) return { count: opts.bucketIndex, source: '--bucket-index' };
  const props = scan.table.config.props;
  const n = props.get('hoodie.bucket.index.num.buckets') ?? props.get('hoodie.index.bucket.num.buckets');
  if ((props.get('hoodie.index.type') ?? '').toUpperCase() === 'BUCKET' || n !== undefined) {
    return { count: n !== undefined ? Number(n) : undefined, source: 'table config' };
  }
  // real tables do not store bucket settings: infer from fileId shape (a random UUID starts with 8 digits 2 % of the time)
  const ids = new Set(scan.view.allFileGroups().map((g) => g.fileId));
  let shaped = 0;
  for (const id of ids) if (bucketIdFromFileId(id) !== undefined) shaped++;
  if (shaped >= 2 && shaped / ids.size >= 0.8) return { source: `inferred: ${shaped} of ${ids.size} fileIds are bucket-shaped` };
  return undefined;
}

export async function findCollisions(scan: TableScan, opts: CollisionOptions = {}): Promise<Finding[]> {
  const out: Finding[] = [];
  const seen = new Set<string>();
  const add = (f: Finding) => {
    const k = `${f.kind}|${f.partition}|${f.fileId}|${f.instants.join(',')}|${f.files.join(',')}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(f);
    }
  };

  // per file group: which write instants touched it, which created it, which replaced it
  interface Touch { w: InstantWrites; created: boolean; files: string[] }
  const touches = new Map<string, { partition: string; fileId: string; list: Touch[] }>();
  const touch = (partition: string, fileId: string) => {
    const k = key(partition, fileId);
    let t = touches.get(k);
    if (!t) touches.set(k, (t = { partition, fileId, list: [] }));
    return t;
  };
  for (const w of scan.writes) {
    const per = new Map<string, Touch>();
    for (const s of w.stats) {
      if (!s.fileId) continue;
      const k = key(s.partitionPath, s.fileId);
      let t = per.get(k);
      if (!t) {
        t = { w, created: false, files: [] };
        per.set(k, t);
        touch(s.partitionPath, s.fileId).list.push(t);
      }
      if (isCreate(s.prevCommit) && !isService(w)) t.created = true;
      if (s.path) t.files.push(s.path);
    }
  }

  // listed data files per file group with the instant in their name (base files; layout-2 log files)
  const listed = new Map<string, { rel: string; instant: string }[]>();
  for (const { partition, files } of scan.partitions) {
    for (const f of files) {
      const n = parseBaseFileName(f.name) ?? parseLogFileName(f.name);
      if (!n) continue;
      const k = key(partition, n.fileId);
      const l = listed.get(k);
      const e = { rel: relPath(partition, f.name), instant: n.instant };
      if (l) l.push(e);
      else listed.set(k, [e]);
    }
  }
  const filesOf = (t: Touch, partition: string, fileId: string): string[] =>
    t.files.length > 0 ? t.files : (listed.get(key(partition, fileId)) ?? []).filter((e) => e.instant === t.w.instant.requestedTime).map((e) => e.rel);
  const isLogOnly = (t: Touch) => t.files.length > 0 && t.files.every((f) => parseLogFileName(baseName(f)) !== undefined);
  // writer pairs already reported from write stats, so the listing check does not repeat them
  const reportedPairs = new Set<string>();
  const pairKey = (partition: string, fileId: string, a: string, b: string) => `${key(partition, fileId)}\u0000${a < b ? a + '|' + b : b + '|' + a}`;

  for (const { partition, fileId, list } of touches.values()) {
    const creators = list.filter((t) => t.created);
    // creators whose windows overlap are two concurrent writers (two jobs); the others created it one after another
    const concurrent = new Set<Touch>();
    for (let i = 0; i < creators.length; i++) {
      for (let j = i + 1; j < creators.length; j++) {
        if (overlaps(creators[i]!.w, creators[j]!.w, scan)) concurrent.add(creators[i]!).add(creators[j]!);
      }
    }
    if (creators.length > 1 && concurrent.size < creators.length) {
      add(
        finding(
          'duplicate-create',
          'error',
          partition,
          fileId,
          creators.map((c) => c.w.instant.requestedTime),
          creators.flatMap((c) => c.files),
          `file group ${fileId} in '${partition}' created (prevCommit null) by ${creators.length} instants: ${creators.map((c) => window(c.w)).join('; ')}`,
        ),
      );
    }
    const writers = list.filter((t) => !isService(t.w));
    for (let i = 0; i < writers.length; i++) {
      for (let j = i + 1; j < writers.length; j++) {
        const a = writers[i]!;
        const b = writers[j]!;
        if (a.created && b.created && !(concurrent.has(a) && concurrent.has(b))) continue; // a duplicate-create
        if (!overlaps(a.w, b.w, scan)) continue;
        const ta = a.w.instant.requestedTime;
        const tb = b.w.instant.requestedTime;
        reportedPairs.add(pairKey(partition, fileId, ta, tb));
        const files = [...filesOf(a, partition, fileId), ...filesOf(b, partition, fileId)];
        if (isLogOnly(a) && isLogOnly(b)) {
          add(finding('overlapping-log-appends', 'warning', partition, fileId, [ta, tb], files,
            `log files of file group ${fileId} in '${partition}' appended by overlapping instants ${window(a.w)}; ${window(b.w)}`));
          continue;
        }
        const both = a.created && b.created;
        add(
          finding('overlapping-writers', a.created || b.created ? 'error' : 'warning', partition, fileId, [ta, tb], files,
            `instants overlapping in time ${both ? 'both created' : 'both wrote'} file group ${fileId} in '${partition}': ${window(a.w)}; ${window(b.w)}`),
        );
      }
    }
  }

  // replaced/retired file groups (completed replacecommits and pending clustering plans) vs creators
  const byTime = new Map(scan.writes.map((w) => [w.instant.requestedTime, w]));
  const retirements: { partition: string; fileId: string; w?: InstantWrites; instant: string; pending: boolean }[] = [];
  for (const w of scan.writes) for (const r of w.replaced) retirements.push({ ...r, w, instant: w.instant.requestedTime, pending: false });
  for (const c of scan.viewTimeline.pendingClusteringFileGroups ?? []) {
    retirements.push({ partition: c.partition, fileId: c.fileId, w: byTime.get(c.instant), instant: c.instant, pending: true });
  }
  for (const r of retirements) {
    const t = touches.get(key(r.partition, r.fileId));
    if (!t) continue;
    for (const c of t.list) {
      if (!c.created || c.w.instant.requestedTime === r.instant) continue;
      const createdAfter = c.w.instant.requestedTime > r.instant;
      const concurrent = r.w !== undefined && scan.layout === 2 && c.w.endMs !== undefined && r.w.startMs !== undefined && c.w.startMs! < r.w.startMs && r.w.startMs < c.w.endMs;
      const pendingCreator = c.w.instant.state !== 'COMPLETED' && c.w.instant.requestedTime < r.instant;
      if (!createdAfter && !concurrent && !pendingCreator) continue;
      add(
        finding('service-race', 'error', r.partition, r.fileId, [c.w.instant.requestedTime, r.instant], filesOf(c, r.partition, r.fileId),
          `create_file_id == delete_file_id = ${r.fileId} in '${r.partition}': created by ${window(c.w)}, ${r.pending ? 'held by pending clustering plan' : 'replaced by'} ${r.w ? window(r.w) : r.instant}`),
      );
    }
  }

  // writes into file groups held by a pending compaction or clustering plan
  const plans: { partition: string; fileId: string; instant: string; kind: 'compaction' | 'clustering'; baseInstant?: string }[] = [];
  for (const pc of scan.viewTimeline.pendingCompactions) for (const op of pc.operations) plans.push({ partition: op.partitionPath, fileId: op.fileId, instant: pc.instant, kind: 'compaction', baseInstant: op.baseInstantTime });
  for (const c of scan.viewTimeline.pendingClusteringFileGroups ?? []) plans.push({ partition: c.partition, fileId: c.fileId, instant: c.instant, kind: 'clustering' });
  for (const p of plans) {
    const t = touches.get(key(p.partition, p.fileId));
    if (!t) continue;
    for (const c of t.list) {
      const w = c.w;
      if (w.instant.requestedTime <= p.instant || isService(w)) continue;
      const names = c.files.map((f) => baseName(f));
      const wroteBase = names.some((n) => parseBaseFileName(n) !== undefined);
      // layout 1: a log appended against the old slice (named after the old base instant) instead of the plan's instant
      const oldSliceLog = scan.layout === 1 && p.kind === 'compaction' && names.some((n) => parseLogFileName(n)?.instant === p.baseInstant);
      if (p.kind === 'compaction' && !wroteBase && !oldSliceLog) continue;
      add(
        finding('write-under-pending-plan', p.kind === 'compaction' && wroteBase ? 'error' : 'warning', p.partition, p.fileId, [p.instant, w.instant.requestedTime], c.files,
          `${window(w)} wrote ${names.join(', ') || 'file group ' + p.fileId} while pending ${p.kind} ${p.instant} holds file group ${p.fileId}`),
      );
    }
  }

  // completed clusterings that raced a writer: a write to an input file group that completed after the
  // plan was made is lost once the replacecommit hides the group (format-services-write.md §2.6)
  for (const r of scan.writes) {
    const clustering = r.instant.state === 'COMPLETED' && (r.instant.effectiveAction === 'clustering' || r.operationType === 'CLUSTER');
    if (!clustering || r.startMs === undefined) continue;
    for (const g of r.replaced) {
      const t = touches.get(key(g.partition, g.fileId));
      if (!t) continue;
      for (const c of t.list) {
        const w = c.w;
        // a writer that created the group is reported as a service race above
        if (w === r || c.created || isService(w) || w.instant.state !== 'COMPLETED') continue;
        const after = w.instant.requestedTime > r.instant.requestedTime || (w.endMs !== undefined && w.endMs > r.startMs);
        if (!after) continue;
        add(
          finding('write-under-pending-plan', 'error', g.partition, g.fileId, [r.instant.requestedTime, w.instant.requestedTime], c.files,
            `${window(w)} wrote file group ${g.fileId} after clustering ${window(r)} planned it; the completed clustering replaced the group, so that write is not in the table`),
        );
      }
    }
  }

  // bucket index
  const bucket = bucketCountOf(scan, opts);
  if (bucket) {
    for (const partition of scan.view.partitions()) {
      const groups = scan.view.allFileGroups(partition);
      const byBucket = new Map<number, string[]>();
      for (const g of groups) {
        const b = bucketIdFromFileId(g.fileId);
        const files = g.slices.flatMap((s) => [s.baseFile?.name, ...s.logFiles.map((l) => l.name)]).filter((x): x is string => !!x).map((n) => relPath(partition, n));
        if (b === undefined) {
          add(finding('bucket-missing-prefix', 'error', partition, g.fileId, g.slices.map((s) => s.baseInstant), files,
            `bucket-index table (${bucket.source}) holds fileId ${g.fileId} in '${partition}' without an 8-digit bucket prefix`));
          continue;
        }
        if (bucket.count !== undefined && b >= bucket.count) {
          add(finding('bucket-out-of-range', 'error', partition, g.fileId, g.slices.map((s) => s.baseInstant), files,
            `fileId ${g.fileId} in '${partition}' has bucket ${b}, but the table has ${bucket.count} buckets (${bucket.source})`));
        }
        const l = byBucket.get(b) ?? [];
        l.push(g.fileId);
        byBucket.set(b, l);
      }
      for (const [b, ids] of byBucket) {
        if (ids.length < 2) continue;
        const gs = groups.filter((g) => ids.includes(g.fileId));
        add(finding('bucket-duplicate', 'error', partition, ids.join(','), gs.flatMap((g) => g.slices.map((s) => s.baseInstant)),
          gs.flatMap((g) => g.slices.flatMap((s) => [s.baseFile?.name, ...s.logFiles.map((x) => x.name)]).filter((x): x is string => !!x)).map((n) => relPath(partition, n)),
          `bucket ${b} in '${partition}' has ${ids.length} file groups: ${ids.join(', ')}`));
      }
    }
  }

  // listing: base files of one group and instant with different write tokens; log files of overlapping writers
  const replaced = new Set(scan.view.excludedFiles().filter((e) => e.reason === 'replaced').map((e) => key(e.partition, e.name)));
  for (const { partition, files } of scan.partitions) {
    const bases = new Map<string, string[]>();
    const logs = new Map<string, { name: string; instant: string; version: number; token?: string }[]>();
    for (const f of files) {
      if (replaced.has(key(partition, f.name))) continue;
      const b = parseBaseFileName(f.name);
      if (b) {
        const k = `${b.fileId}\u0000${b.instant}`;
        bases.set(k, [...(bases.get(k) ?? []), f.name]);
        continue;
      }
      const l = parseLogFileName(f.name);
      if (l && l.ext === 'log' && !l.cdcSuffix) logs.set(l.fileId, [...(logs.get(l.fileId) ?? []), { name: f.name, instant: l.instant, version: l.version, token: l.writeToken }]);
    }
    for (const [k, names] of bases) {
      if (names.length < 2) continue;
      const [fileId, instant] = k.split('\u0000') as [string, string];
      const w = byTime.get(instant);
      const named = new Set((w?.stats ?? []).map((s) => (s.path ? baseName(s.path) : '')));
      const committed = names.filter((n) => named.has(n));
      add(finding('duplicate-write-token', 'warning', partition, fileId, [instant], names.map((n) => relPath(partition, n)),
        `${names.length} base files of file group ${fileId} for instant ${instant} with different write tokens; the instant's write stats name ${committed.length ? committed.join(', ') : 'none of them'}`));
    }
    for (const [fileId, list] of logs) {
      if (scan.layout === 1) {
        const byVersion = new Map<string, typeof list>();
        for (const l of list) byVersion.set(`${l.instant}.${l.version}`, [...(byVersion.get(`${l.instant}.${l.version}`) ?? []), l]);
        for (const [v, ls] of byVersion) {
          if (ls.length < 2) continue;
          // layout-1 log names carry the base instant: the writers are the instants whose stats name the files
          const rels = ls.map((l) => relPath(partition, l.name));
          const writers = scan.writes.filter((w) => w.stats.some((s) => s.path !== null && rels.includes(s.path))).map((w) => w.instant.requestedTime);
          add(finding('overlapping-log-appends', 'warning', partition, fileId, writers.length > 0 ? writers : [ls[0]!.instant], rels,
            `log version ${v} of file group ${fileId} written by ${ls.length} writers (write tokens ${ls.map((l) => l.token ?? 'none').join(', ')})`));
        }
        continue;
      }
      const instants = [...new Set(list.map((l) => l.instant))].sort();
      for (let i = 0; i < instants.length; i++) {
        for (let j = i + 1; j < instants.length; j++) {
          const a = byTime.get(instants[i]!);
          const b = byTime.get(instants[j]!);
          if (!a || !b || isService(a) || isService(b)) continue;
          if (!overlaps(a, b, scan) || reportedPairs.has(pairKey(partition, fileId, instants[i]!, instants[j]!))) continue;
          add(finding('overlapping-log-appends', 'warning', partition, fileId, [instants[i]!, instants[j]!],
            list.filter((l) => l.instant === instants[i] || l.instant === instants[j]).map((l) => relPath(partition, l.name)),
            `log files of file group ${fileId} appended by overlapping instants ${window(a)}; ${window(b)}`));
        }
      }
    }
  }

  if (opts.keys) out.push(...(await duplicateKeys(scan)));
  return out.sort((a, b) => (a.partition + a.fileId + a.kind < b.partition + b.fileId + b.kind ? -1 : 1));
}

/** Record keys in more than one file group of a partition (reads every latest slice). */
async function duplicateKeys(scan: TableScan): Promise<Finding[]> {
  const props = Object.fromEntries(scan.table.config.props);
  const config = mergeConfigFromProperties(props);
  const out: Finding[] = [];
  for (const partition of scan.view.partitions()) {
    const owners = new Map<string, string[]>();
    const slices = scan.view.latestMergedFileSlices(partition);
    for (const s of slices) {
      const m = await mergeFileSlice(scan.table.storage, { partition, fileId: s.fileId, baseFile: s.baseFile, logFiles: s.logFiles }, { config, isValidInstant: scan.view.isCommitted });
      for (const k of new Set(m.keys)) owners.set(k, [...(owners.get(k) ?? []), s.fileId]);
    }
    const dup = [...owners].filter(([, ids]) => ids.length > 1);
    if (dup.length === 0) continue;
    const groups = [...new Set(dup.flatMap(([, ids]) => ids))].sort();
    const sample = dup.slice(0, 5).map(([k, ids]) => `${k} in ${ids.join(' and ')}`);
    const involved = slices.filter((s) => groups.includes(s.fileId));
    out.push(finding('duplicate-keys', 'error', partition, groups.join(','), involved.map((s) => s.baseInstant), involved.flatMap((s) => [s.baseFile?.name, ...s.logFiles.map((l) => l.name)]).filter((x): x is string => !!x).map((n) => relPath(partition, n)),
      `${dup.length} record key(s) in more than one file group of '${partition}': ${sample.join('; ')}${dup.length > 5 ? '; …' : ''}`));
  }
  return out;
}
