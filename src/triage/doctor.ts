// `doctor`: the first minute of an incident (incidents.md §3 triage order: timeline first, then files).
import { loadRollbackInfo } from '../table/index.ts';
import { humanReadableByteCount, joinPath } from '../util/index.ts';
import { findCollisions, type CollisionOptions } from './collisions.ts';
import { findOrphans, type OrphanOptions } from './orphans.ts';
import { heartbeatOf, instantMs, type TableScan } from './scan.ts';
import { worst, type Finding, type Orphan, type Severity } from './types.ts';
import { PENDING_COMPACTION_FIX, STUCK_INSTANT_FIX } from './runbook.ts';

export const BACKLOG_WARN = 10;
export const MIN_GROUP_BYTES = 100 * 1024 * 1024;
export const MAX_GROUP_BYTES = 1024 * 1024 * 1024;

export interface DoctorCheck {
  check: string;
  severity: Severity;
  summary: string;
  nextStep: string;
  details: string[];
}

export interface BacklogEntry {
  partition: string;
  fileId: string;
  /** base instant of the latest base file ('' for a log-only group) */
  baseInstant: string;
  deltaCommits: number;
}

export interface PendingEntry {
  instant: string;
  action: string;
  state: string;
  ageSeconds: number;
  heartbeat: 'alive' | 'expired' | 'missing';
}

export interface DoctorReport {
  table: {
    name: string;
    type: string;
    version: number;
    layout: 1 | 2;
    basePath: string;
    instants: number;
    completed: number;
    pending: number;
    partitions: number;
    fileGroups: number;
    files: number;
    bytes: number;
  };
  severity: Severity;
  checks: DoctorCheck[];
  pending: PendingEntry[];
  rolledBack: { instant: string; by: string[]; rollbackAgeSeconds?: number }[];
  backlog: BacklogEntry[];
  collisions: Finding[];
  orphans: Orphan[];
}

export type DoctorOptions = CollisionOptions & OrphanOptions;

/** Delta commits since the last compaction, per file group of a MOR table (from write stats). */
export function compactionBacklog(scan: TableScan): BacklogEntry[] {
  if (scan.table.config.type !== 'MERGE_ON_READ') return [];
  const deltas = new Map<string, string[]>();
  for (const w of scan.writes) {
    if (w.instant.state !== 'COMPLETED' || w.instant.effectiveAction !== 'deltacommit') continue;
    const ids = new Set(w.stats.map((s) => `${s.partitionPath}\u0000${s.fileId}`));
    for (const k of ids) deltas.set(k, [...(deltas.get(k) ?? []), w.instant.requestedTime]);
  }
  const out: BacklogEntry[] = [];
  for (const g of scan.view.allFileGroups()) {
    let base = '';
    for (const s of g.slices) if (s.baseFile && s.baseFile.instant > base) base = s.baseFile.instant;
    const n = (deltas.get(`${g.partition}\u0000${g.fileId}`) ?? []).filter((t) => t > base).length;
    out.push({ partition: g.partition, fileId: g.fileId, baseInstant: base, deltaCommits: n });
  }
  return out.sort((a, b) => b.deltaCommits - a.deltaCommits || (a.partition + a.fileId < b.partition + b.fileId ? -1 : 1));
}

export function groupSizes(scan: TableScan): { partition: string; fileId: string; bytes: number }[] {
  return scan.view.latestFileSlices().map((s) => ({
    partition: s.partition,
    fileId: s.fileId,
    bytes: (s.baseFile?.size ?? 0) + s.logFiles.reduce((n, l) => n + l.size, 0),
  }));
}

export function pendingInstants(scan: TableScan): PendingEntry[] {
  const now = scan.now.getTime();
  return scan.tl.pending().map((i) => {
    const start = instantMs(i.requestedTime, scan.table);
    return {
      instant: i.requestedTime,
      action: i.effectiveAction,
      state: i.state.toLowerCase(),
      ageSeconds: start === undefined ? 0 : Math.max(0, Math.round((now - start) / 1000)),
      heartbeat: heartbeatOf(scan, i.requestedTime),
    };
  });
}

function age(s: number): string {
  if (s >= 86400) return `${(s / 86400).toFixed(1)} d`;
  if (s >= 3600) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 60) return `${Math.round(s / 60)} min`;
  return `${s} s`;
}

async function mdtCheck(scan: TableScan): Promise<DoctorCheck> {
  const name = 'metadata-table';
  const { storage, basePath } = scan.table;
  if (!(await storage.exists(joinPath(basePath, '.hoodie', 'metadata', '.hoodie', 'hoodie.properties')))) {
    return { check: name, severity: 'ok', summary: 'no metadata table', nextStep: '-', details: [] };
  }
  let mdt: typeof import('../mdt/index.ts');
  try {
    mdt = await import('../mdt/index.ts');
  } catch {
    return { check: name, severity: 'info', summary: 'not checked (metadata-table reader unavailable)', nextStep: '-', details: [] };
  }
  let files;
  try {
    files = await mdt.readMetadataTableFiles(storage, basePath);
  } catch (e) {
    return { check: name, severity: 'warning', summary: `not checked: ${(e as Error).message}`, nextStep: 'Read the metadata table with `metadata list-files`; if it stays unreadable, disable and rebuild it (hoodie.metadata.enable).', details: [] };
  }
  const listed = new Map<string, Map<string, number>>();
  for (const p of scan.partitions) listed.set(p.partition, new Map(p.files.map((f) => [f.name, f.size])));
  const committed = new Map<string, Set<string>>();
  for (const g of scan.view.allFileGroups()) {
    const set = committed.get(g.partition) ?? new Set<string>();
    for (const s of g.slices) {
      if (s.baseFile) set.add(s.baseFile.name);
      for (const l of [...s.logFiles, ...s.cdcLogFiles]) set.add(l.name);
    }
    committed.set(g.partition, set);
  }
  const missingOnStorage: string[] = [];
  const missingInMdt: string[] = [];
  for (const [partition, names] of files.files) {
    const here = listed.get(partition);
    for (const n of names.keys()) if (!here?.has(n)) missingOnStorage.push(partition ? `${partition}/${n}` : n);
  }
  for (const [partition, names] of committed) {
    const inMdt = files.files.get(partition);
    for (const n of names) if (!inMdt?.has(n)) missingInMdt.push(partition ? `${partition}/${n}` : n);
  }
  const details = [...missingOnStorage.map((p) => `listed in the metadata table, missing on storage: ${p}`), ...missingInMdt.map((p) => `committed on storage, missing in the metadata table: ${p}`)];
  if (details.length === 0) return { check: name, severity: 'ok', summary: `metadata table files partition matches the listing (${files.partitions.length} partitions)`, nextStep: '-', details: [] };
  return {
    check: name,
    severity: missingOnStorage.length > 0 ? 'error' : 'warning',
    summary: `${missingOnStorage.length} file(s) in the metadata table but not on storage, ${missingInMdt.length} committed file(s) not in the metadata table`,
    nextStep: 'Readers that use the metadata table see a different file list: stop writers, then rebuild the metadata table (disable hoodie.metadata.enable, re-enable) in a quiet window.',
    details,
  };
}

export async function doctor(scan: TableScan, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const olderThanS = (opts.olderThanMs ?? 3_600_000) / 1000;
  const { table, tl } = scan;
  const checks: DoctorCheck[] = [];
  const files = scan.files.length;
  const bytes = scan.files.reduce((n, f) => n + f.size, 0);
  const groups = scan.view.allFileGroups();

  const pending = pendingInstants(scan);
  const stale = pending.filter((p) => !['compaction', 'logcompaction', 'clustering'].includes(p.action) && p.ageSeconds >= olderThanS && p.heartbeat !== 'alive');
  const plans = pending.filter((p) => ['compaction', 'logcompaction', 'clustering'].includes(p.action));
  checks.push({
    check: 'pending-instants',
    severity: stale.length > 0 ? 'warning' : pending.length > 0 ? 'info' : 'ok',
    summary: pending.length === 0 ? 'no pending instants' : `${pending.length} pending instant(s), ${stale.length} older than ${age(olderThanS)} without a live heartbeat`,
    nextStep: stale.length > 0 ? STUCK_INSTANT_FIX : '-',
    details: pending.map((p) => `${p.instant} ${p.action} ${p.state}, age ${age(p.ageSeconds)}, heartbeat ${p.heartbeat}`),
  });
  const compactionPlans = plans.filter((p) => p.action !== 'clustering');
  checks.push({
    check: 'pending-compaction',
    severity: compactionPlans.length > 0 ? 'warning' : plans.length > 0 ? 'info' : 'ok',
    summary: plans.length === 0 ? 'no pending compaction or clustering' : `${compactionPlans.length} pending compaction(s), ${plans.length - compactionPlans.length} pending clustering(s)`,
    nextStep: plans.length > 0 ? PENDING_COMPACTION_FIX : '-',
    details: plans.map((p) => `${p.instant} ${p.action} ${p.state}, age ${age(p.ageSeconds)}`),
  });

  const rb = await loadRollbackInfo(table, tl);
  const rolledBack = [...rb.rolledBackBy].map(([instant, by]) => {
    const last = by[by.length - 1]!;
    const t = instantMs(last, table);
    return { instant, by, ...(t !== undefined ? { rollbackAgeSeconds: Math.round((scan.now.getTime() - t) / 1000) } : {}) };
  });
  const recent = rolledBack.filter((r) => r.rollbackAgeSeconds !== undefined && r.rollbackAgeSeconds < 3600);
  checks.push({
    check: 'failed-instants',
    severity: recent.length > 0 ? 'warning' : rolledBack.length > 0 ? 'info' : 'ok',
    summary: rolledBack.length === 0 ? 'no rolled-back instants on the active timeline' : `${rolledBack.length} rolled-back instant(s), ${recent.length} in the last hour`,
    nextStep: recent.length > 0 ? 'Failed commits in the last hour: check the writer logs for the failing commit phase; how many jobs write this table path?' : '-',
    details: rolledBack.map((r) => `${r.instant} rolled back by ${r.by.join(', ')}${r.rollbackAgeSeconds !== undefined ? `, ${age(r.rollbackAgeSeconds)} ago` : ''}`),
  });

  const backlog = compactionBacklog(scan);
  const behind = backlog.filter((b) => b.deltaCommits >= BACKLOG_WARN);
  checks.push({
    check: 'compaction-backlog',
    severity: behind.length > 0 ? 'warning' : 'ok',
    summary: table.config.type !== 'MERGE_ON_READ' ? 'copy-on-write table: no compaction' : `max ${backlog[0]?.deltaCommits ?? 0} delta commit(s) since the last compaction; ${behind.length} file group(s) at ≥ ${BACKLOG_WARN}`,
    nextStep: behind.length > 0 ? 'Un-compacted delta commits per file group should stay below 10: compaction is falling behind; schedule and run compaction (offline, in a quiet window).' : '-',
    details: behind.map((b) => `${b.partition}/${b.fileId}: ${b.deltaCommits} delta commits since ${b.baseInstant || 'creation'}`),
  });

  const sizes = groupSizes(scan);
  const big = sizes.filter((s) => s.bytes > MAX_GROUP_BYTES);
  const small = sizes.filter((s) => s.bytes < MIN_GROUP_BYTES);
  checks.push({
    check: 'file-group-size',
    severity: big.length > 0 ? 'warning' : small.length > 0 ? 'info' : 'ok',
    summary: `${sizes.length} file group(s): ${big.length} above 1 GB, ${small.length} below 100 MB (small files)`,
    nextStep: big.length > 0 ? 'File groups larger than 1 GB: run clustering.' : small.length > 0 ? 'Many small file groups: tune the writer\'s small-file limit or run clustering.' : '-',
    details: big.map((s) => `${s.partition}/${s.fileId}: ${humanReadableByteCount(s.bytes)}`),
  });

  const collisions = await findCollisions(scan, opts);
  const cs = worst(collisions.map((c) => c.severity));
  checks.push({
    check: 'collisions',
    severity: cs,
    summary: collisions.length === 0 ? 'no fileId collisions' : `${collisions.length} collision finding(s): ${[...new Set(collisions.map((c) => c.kind))].join(', ')}`,
    nextStep: collisions[0]?.nextStep ?? '-',
    details: collisions.map((c) => `${c.severity} ${c.kind}: ${c.evidence}`),
  });

  const orphans = findOrphans(scan, opts);
  const os = worst(orphans.map((o) => o.severity));
  const orphanBytes = orphans.filter((o) => o.kind !== 'stuck-instant').reduce((n, o) => n + o.size, 0);
  checks.push({
    check: 'orphans',
    severity: os,
    summary: orphans.length === 0 ? 'no orphan files' : `${orphans.length} orphan(s), ${humanReadableByteCount(orphanBytes)}, ${orphans.filter((o) => o.deletable).length} safe to quarantine`,
    nextStep: orphans.length === 0 ? '-' : 'Review with `tblcli orphans`; quarantine the old ones with `tblcli orphans --delete --yes` (moves them to .hoodie/.tblcli-trash/).',
    details: orphans.map((o) => `${o.kind} ${o.path}: ${o.reason}`),
  });

  checks.push(await mdtCheck(scan));

  return {
    table: {
      name: table.config.name,
      type: table.config.type,
      version: table.config.version,
      layout: table.config.layoutVersion,
      basePath: table.storage.uri(table.basePath),
      instants: tl.instants.length,
      completed: tl.completed().length,
      pending: pending.length,
      partitions: scan.view.partitions().length,
      fileGroups: groups.length,
      files,
      bytes,
    },
    severity: worst(checks.map((c) => c.severity)),
    checks,
    pending,
    rolledBack,
    backlog,
    collisions,
    orphans,
  };
}
