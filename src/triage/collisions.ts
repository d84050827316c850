// fileId collisions (incidents.md §1–2): from the write stats of every instant and the file listing.
import { assembleView, bucketIdFromFileId, parseBaseFileName, parseLogFileName, type FileGroup } from '../fs-view/index.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../merge/index.ts';
import { baseName, joinPath } from '../util/index.ts';
import { listFiles, relistView } from './listing.ts';
import { COLLISION_TEXT } from './runbook.ts';
import type { TableScan } from './scan.ts';
import { isService, overlaps, window, type InstantWrites } from './timing.ts';
import { CREATED, HAS_PATH } from './touches.ts';
import type { CollisionKind, Finding, Severity } from './types.ts';
import { rereadStats, type StatRef } from './writes.ts';

export interface CollisionOptions {
  /** bucket count of a bucket-index table (overrides config and inference) */
  bucketIndex?: number;
  /** read data: record keys present in more than one file group of a partition */
  keys?: boolean;
}

function key(partition: string, fileId: string): string {
  return `${partition}\u0000${fileId}`;
}

/** Table-relative path of a file in a partition ('' = the base path). */
function relPath(partition: string, name: string): string {
  return partition ? `${partition}/${name}` : name;
}

function finding(kind: CollisionKind, severity: Severity, partition: string, fileId: string, instants: string[], files: string[], evidence: string): Finding {
  return { kind, severity, partition, fileId, instants: [...new Set(instants)].sort(), files: [...new Set(files)].sort(), evidence, ...COLLISION_TEXT[kind] };
}

const pairKey = (partition: string, fileId: string, a: string, b: string) => `${key(partition, fileId)}\u0000${a < b ? a + '|' + b : b + '|' + a}`;

export function bucketCountOf(scan: TableScan, opts: CollisionOptions): { count?: number; source: string } | undefined {
  if (opts.bucketIndex !== undefined) return { count: opts.bucketIndex, source: '--bucket-index' };
  const props = scan.table.config.props;
  const n = props.get('hoodie.bucket.index.num.buckets') ?? props.get('hoodie.index.bucket.num.buckets');
  if ((props.get('hoodie.index.type') ?? '').toUpperCase() === 'BUCKET' || n !== undefined) {
    return { count: n !== undefined ? Number(n) : undefined, source: 'table config' };
  }
  // real tables do not store bucket settings: infer from fileId shape (a random UUID starts with 8 digits 2 % of the time)
  const ids = new Set<string>();
  for (const p of scan.partitions) for (const id of p.fileIds) ids.add(id);
  let shaped = 0;
  for (const id of ids) if (bucketIdFromFileId(id) !== undefined) shaped++;
  if (shaped >= 2 && shaped / ids.size >= 0.8) return { source: `inferred: ${shaped} of ${ids.size} fileIds are bucket-shaped` };
  return undefined;
}

/** Stats of one write instant read again (cached on the scan). */
function reread(scan: TableScan, w: number): Promise<StatRef[]> {
  let p = scan.reread.get(w);
  if (!p) {
    scan.reads.again++;
    scan.reread.set(w, (p = rereadStats(scan.table.storage, scan.tl, scan.writes[w]!)));
  }
  return p;
}

/** Listed data files of one file group named after `instant` (the partition listed again, once per scan). */
async function listedFiles(scan: TableScan, partition: string, fileId: string, instant: string): Promise<string[]> {
  if (!scan.partitions.some((p) => p.partition === partition)) return [];
  let names = scan.relisted.get(partition);
  if (!names) {
    const { storage, basePath } = scan.table;
    names = (await listFiles(storage, partition === '' ? basePath : joinPath(basePath, partition))).map((f) => f.name);
    scan.relisted.set(partition, names);
  }
  return names.filter((n) => {
    const p = parseBaseFileName(n) ?? parseLogFileName(n);
    return p !== undefined && p.fileId === fileId && p.instant === instant;
  }).map((n) => relPath(partition, n));
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
  const T = scan.touches;
  const W = scan.writes;
  const wOf = (t: number): InstantWrites => W[T.write.get(t)]!;
  const timeOf = (t: number) => wOf(t).instant.requestedTime;
  const created = (t: number) => T.has(t, CREATED);
  /** whether every stat path of the touch is a log file (false without paths) */
  const isLogOnly = async (t: number) => T.has(t, HAS_PATH) && (await statPaths(t)).every((p) => parseLogFileName(baseName(p)) !== undefined);
  /** the touch's stat paths, in stat order ([] for an inflight workload) */
  const statPaths = async (t: number): Promise<string[]> => {
    if (!T.has(t, HAS_PATH)) return [];
    const kept = T.kept.get(t);
    if (kept) return kept;
    const g = T.group.get(t);
    const p = T.groupPartition[g]!;
    const id = T.groupFileId[g]!;
    return (await reread(scan, T.write.get(t))).filter(([sp, sf, path]) => sp === p && sf === id && !!path).map(([, , path]) => path!);
  };
  /** the files a finding names for a touch: its stat paths, else (inflight workload) the listed files of its instant */
  const filesOf = async (t: number): Promise<string[]> => {
    if (T.has(t, HAS_PATH)) return statPaths(t);
    const instant = timeOf(t);
    if (scan.pendingTimes.has(instant)) return scan.pathlessFiles.get(t) ?? [];
    // a completed instant whose stats name no path (not seen in Hudi-written tables): list the partition again
    const g = T.group.get(t);
    return listedFiles(scan, T.groupPartition[g]!, T.groupFileId[g]!, instant);
  };
  // writer pairs already reported from write stats, so the listing check does not repeat them
  const reportedPairs = new Set<string>();
  // only writes that overlap some other write can pair up (most tables: none)
  const capable = scan.capable;
  const mayOverlap = (a: number, b: number) => capable[T.write.get(a)]! && capable[T.write.get(b)]! && overlaps(wOf(a), wOf(b), scan.overlap);

  for (let g = 0; g < T.groups; g++) {
    // most groups: one creator and no write that overlaps another, so nothing to pair up
    let creatorCount = 0;
    let overlapping = 0;
    for (let t = T.first(g); t >= 0; t = T.nextOf(t)) {
      if (created(t)) creatorCount++;
      if (capable[T.write.get(t)]) overlapping++;
    }
    if (creatorCount < 2 && overlapping < 2) continue;
    const partition = T.groupPartition[g]!;
    const fileId = T.groupFileId[g]!;
    const list: number[] = [];
    for (let t = T.first(g); t >= 0; t = T.nextOf(t)) list.push(t);
    const creators = list.filter(created);
    // creators whose windows overlap are two concurrent writers (two jobs); the others created it one after another
    const concurrent = new Set<number>();
    for (let i = 0; i < creators.length; i++) {
      for (let j = i + 1; j < creators.length; j++) {
        if (mayOverlap(creators[i]!, creators[j]!)) concurrent.add(creators[i]!).add(creators[j]!);
      }
    }
    if (creators.length > 1 && concurrent.size < creators.length) {
      const files: string[] = [];
      for (const c of creators) files.push(...(await filesOf(c)));
      add(
        finding(
          'duplicate-create',
          'error',
          partition,
          fileId,
          creators.map(timeOf),
          files,
          `file group ${fileId} in '${partition}' created (prevCommit null) by ${creators.length} instants: ${creators.map((c) => window(wOf(c))).join('; ')}`,
        ),
      );
    }
    const writers = list.filter((t) => !isService(wOf(t)));
    for (let i = 0; i < writers.length; i++) {
      for (let j = i + 1; j < writers.length; j++) {
        const a = writers[i]!;
        const b = writers[j]!;
        if (created(a) && created(b) && !(concurrent.has(a) && concurrent.has(b))) continue; // a duplicate-create
        if (!mayOverlap(a, b)) continue;
        const ta = timeOf(a);
        const tb = timeOf(b);
        reportedPairs.add(pairKey(partition, fileId, ta, tb));
        const files = [...(await filesOf(a)), ...(await filesOf(b))];
        if ((await isLogOnly(a)) && (await isLogOnly(b))) {
          add(finding('overlapping-log-appends', 'warning', partition, fileId, [ta, tb], files,
            `log files of file group ${fileId} in '${partition}' appended by overlapping instants ${window(wOf(a))}; ${window(wOf(b))}`));
          continue;
        }
        const both = created(a) && created(b);
        add(
          finding('overlapping-writers', created(a) || created(b) ? 'error' : 'warning', partition, fileId, [ta, tb], files,
            `instants overlapping in time ${both ? 'both created' : 'both wrote'} file group ${fileId} in '${partition}': ${window(wOf(a))}; ${window(wOf(b))}`),
        );
      }
    }
  }

  // replaced/retired file groups (completed replacecommits and pending clustering plans) vs creators
  const byTime = scan.byTime;
  const retirements: { partition: string; fileId: string; w?: InstantWrites; instant: string; pending: boolean }[] = [];
  for (const w of W) for (const r of w.replaced) retirements.push({ ...r, w, instant: w.instant.requestedTime, pending: false });
  for (const c of scan.viewTimeline.pendingClusteringFileGroups ?? []) {
    retirements.push({ partition: c.partition, fileId: c.fileId, w: byTime.get(c.instant), instant: c.instant, pending: true });
  }
  for (const r of retirements) {
    const g = T.groupOf(r.partition, r.fileId);
    if (g < 0) continue;
    for (const c of T.of(g)) {
      const cw = wOf(c);
      if (!created(c) || cw.instant.requestedTime === r.instant) continue;
      const createdAfter = cw.instant.requestedTime > r.instant;
      const concurrent = r.w !== undefined && scan.layout === 2 && cw.endMs !== undefined && r.w.startMs !== undefined && cw.startMs! < r.w.startMs && r.w.startMs < cw.endMs;
      const pendingCreator = cw.instant.state !== 'COMPLETED' && cw.instant.requestedTime < r.instant;
      if (!createdAfter && !concurrent && !pendingCreator) continue;
      add(
        finding('service-race', 'error', r.partition, r.fileId, [cw.instant.requestedTime, r.instant], await filesOf(c),
          `create_file_id == delete_file_id = ${r.fileId} in '${r.partition}': created by ${window(cw)}, ${r.pending ? 'held by pending clustering plan' : 'replaced by'} ${r.w ? window(r.w) : r.instant}`),
      );
    }
  }

  // writes into file groups held by a pending compaction or clustering plan
  const plans: { partition: string; fileId: string; instant: string; kind: 'compaction' | 'clustering'; baseInstant?: string }[] = [];
  for (const pc of scan.viewTimeline.pendingCompactions) for (const op of pc.operations) plans.push({ partition: op.partitionPath, fileId: op.fileId, instant: pc.instant, kind: 'compaction', baseInstant: op.baseInstantTime });
  for (const c of scan.viewTimeline.pendingClusteringFileGroups ?? []) plans.push({ partition: c.partition, fileId: c.fileId, instant: c.instant, kind: 'clustering' });
  for (const p of plans) {
    const g = T.groupOf(p.partition, p.fileId);
    if (g < 0) continue;
    for (const c of T.of(g)) {
      const w = wOf(c);
      if (w.instant.requestedTime <= p.instant || isService(w)) continue;
      const paths = await statPaths(c);
      const names = paths.map((f) => baseName(f));
      const wroteBase = names.some((n) => parseBaseFileName(n) !== undefined);
      // layout 1: a log appended against the old slice (named after the old base instant) instead of the plan's instant
      const oldSliceLog = scan.layout === 1 && p.kind === 'compaction' && names.some((n) => parseLogFileName(n)?.instant === p.baseInstant);
      if (p.kind === 'compaction' && !wroteBase && !oldSliceLog) continue;
      add(
        finding('write-under-pending-plan', p.kind === 'compaction' && wroteBase ? 'error' : 'warning', p.partition, p.fileId, [p.instant, w.instant.requestedTime], paths,
          `${window(w)} wrote ${names.join(', ') || 'file group ' + p.fileId} while pending ${p.kind} ${p.instant} holds file group ${p.fileId}`),
      );
    }
  }

  // completed clusterings that raced a writer: a write to an input file group that completed after the
  // plan was made is lost once the replacecommit hides the group (format-services-write.md §2.6)
  for (const r of W) {
    const clustering = r.instant.state === 'COMPLETED' && (r.instant.effectiveAction === 'clustering' || r.operationType === 'CLUSTER');
    if (!clustering || r.startMs === undefined) continue;
    for (const rg of r.replaced) {
      const g = T.groupOf(rg.partition, rg.fileId);
      if (g < 0) continue;
      for (const c of T.of(g)) {
        const w = wOf(c);
        // a writer that created the group is reported as a service race above
        if (w === r || created(c) || isService(w) || w.instant.state !== 'COMPLETED') continue;
        const after = w.instant.requestedTime > r.instant.requestedTime || (w.endMs !== undefined && w.endMs > r.startMs);
        if (!after) continue;
        add(
          finding('write-under-pending-plan', 'error', rg.partition, rg.fileId, [r.instant.requestedTime, w.instant.requestedTime], await statPaths(c),
            `${window(w)} wrote file group ${rg.fileId} after clustering ${window(r)} planned it; the completed clustering replaced the group, so that write is not in the table`),
        );
      }
    }
  }

  // bucket index
  const bucket = bucketCountOf(scan, opts);
  if (bucket) for (const f of await bucketFindings(scan, bucket)) add(f);

  // listing: base files of one group and instant with different write tokens; log files of overlapping writers
  /** whether write `w`'s stats name `rel` (whole path) or, with byName, a path whose last segment is `rel` */
  const names = async (w: number, partition: string, fileId: string, rel: string, byName: boolean): Promise<boolean> => {
    const name = baseName(rel);
    if (!T.mayName(w, name)) return false;
    const match = (path: string | null) => !!path && (byName ? baseName(path) === name : path === rel);
    const g = T.groupOf(partition, fileId);
    if (g >= 0) for (const t of T.of(g)) if (T.write.get(t) === w && T.kept.get(t)?.some(match)) return true;
    return (await reread(scan, w)).some(([, , path]) => match(path));
  };
  const writeIndex = new Map(W.map((w, k) => [w, k]));
  for (const s of scan.partitions) {
    const partition = s.partition;
    for (const c of s.listing) {
      if (c.kind === 'duplicate-write-token') {
        const w = byTime.get(c.instant);
        const committed: string[] = [];
        for (const n of c.names) if (w && (await names(writeIndex.get(w)!, partition, c.fileId, n, true))) committed.push(n);
        add(finding('duplicate-write-token', 'warning', partition, c.fileId, [c.instant], c.names.map((n) => relPath(partition, n)),
          `${c.names.length} base files of file group ${c.fileId} for instant ${c.instant} with different write tokens; the instant's write stats name ${committed.length ? committed.join(', ') : 'none of them'}`));
      } else if (c.kind === 'log-version') {
        // layout-1 log names carry the base instant: the writers are the instants whose stats name the files
        const writers: string[] = [];
        for (let k = 0; k < W.length; k++) {
          let hit = false;
          for (const rel of c.rels) if (!hit && (await names(k, partition, c.fileId, rel, false))) hit = true;
          if (hit) writers.push(W[k]!.instant.requestedTime);
        }
        add(finding('overlapping-log-appends', 'warning', partition, c.fileId, writers.length > 0 ? writers : [c.firstInstant], c.rels,
          `log version ${c.version} of file group ${c.fileId} written by ${c.rels.length} writers (write tokens ${c.tokens.join(', ')})`));
      } else {
        if (reportedPairs.has(pairKey(partition, c.fileId, c.a, c.b))) continue;
        add(finding('overlapping-log-appends', 'warning', partition, c.fileId, [c.a, c.b], c.files,
          `log files of file group ${c.fileId} appended by overlapping instants ${window(byTime.get(c.a)!)}; ${window(byTime.get(c.b)!)}`));
      }
    }
  }

  if (opts.keys) out.push(...(await duplicateKeys(scan)));
  return out.sort((a, b) => (a.partition + a.fileId + a.kind < b.partition + b.fileId + b.kind ? -1 : 1));
}

const filesOfGroup = (partition: string, g: FileGroup): string[] =>
  g.slices.flatMap((s) => [s.baseFile?.name, ...s.logFiles.map((l) => l.name)]).filter((x): x is string => !!x).map((n) => relPath(partition, n));

/** Bucket-index findings; the partitions holding one are listed again for their file names. */
async function bucketFindings(scan: TableScan, bucket: { count?: number; source: string }): Promise<Finding[]> {
  const flagged = scan.partitions.filter((s) => {
    const seen = new Set<number>();
    for (const id of s.fileIds) {
      const b = bucketIdFromFileId(id);
      if (b === undefined || (bucket.count !== undefined && b >= bucket.count) || seen.has(b)) return true;
      seen.add(b);
    }
    return false;
  });
  if (flagged.length === 0) return [];
  const views = await relistView(scan.table.storage, scan.table.basePath, flagged.map((s) => s.partition), scan.asm, 16);
  const out: Finding[] = [];
  for (const s of flagged) {
    const partition = s.partition;
    const groups = views.get(partition) ?? [];
    const byBucket = new Map<number, string[]>();
    for (const g of groups) {
      const b = bucketIdFromFileId(g.fileId);
      const files = filesOfGroup(partition, g);
      if (b === undefined) {
        out.push(finding('bucket-missing-prefix', 'error', partition, g.fileId, g.slices.map((x) => x.baseInstant), files,
          `bucket-index table (${bucket.source}) holds fileId ${g.fileId} in '${partition}' without an 8-digit bucket prefix`));
        continue;
      }
      if (bucket.count !== undefined && b >= bucket.count) {
        out.push(finding('bucket-out-of-range', 'error', partition, g.fileId, g.slices.map((x) => x.baseInstant), files,
          `fileId ${g.fileId} in '${partition}' has bucket ${b}, but the table has ${bucket.count} buckets (${bucket.source})`));
      }
      const l = byBucket.get(b) ?? [];
      l.push(g.fileId);
      byBucket.set(b, l);
    }
    for (const [b, ids] of byBucket) {
      if (ids.length < 2) continue;
      const gs = groups.filter((g) => ids.includes(g.fileId));
      out.push(finding('bucket-duplicate', 'error', partition, ids.join(','), gs.flatMap((g) => g.slices.map((x) => x.baseInstant)),
        gs.flatMap((g) => filesOfGroup(partition, g)),
        `bucket ${b} in '${partition}' has ${ids.length} file groups: ${ids.join(', ')}`));
    }
  }
  return out;
}

/** Record keys in more than one file group of a partition (lists each partition again and reads every latest slice). */
async function duplicateKeys(scan: TableScan): Promise<Finding[]> {
  const props = Object.fromEntries(scan.table.config.props);
  const config = mergeConfigFromProperties(props);
  const out: Finding[] = [];
  const { storage, basePath } = scan.table;
  for (const { partition } of scan.partitions) {
    const files = await listFiles(storage, partition === '' ? basePath : joinPath(basePath, partition));
    const view = assembleView([{ partition, files }], scan.viewTimeline);
    const owners = new Map<string, string[]>();
    const slices = view.latestMergedFileSlices(partition);
    for (const s of slices) {
      const m = await mergeFileSlice(storage, { partition, fileId: s.fileId, baseFile: s.baseFile, logFiles: s.logFiles }, { config, isValidInstant: view.isCommitted });
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
