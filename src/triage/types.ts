// Shared shapes of triage results: every finding carries severity, evidence, meaning and one next step.

export type Severity = 'ok' | 'info' | 'warning' | 'error';

export const SEVERITY_RANK: Record<Severity, number> = { ok: 0, info: 1, warning: 2, error: 3 };

export function worst(list: Iterable<Severity>): Severity {
  let w: Severity = 'ok';
  for (const s of list) if (SEVERITY_RANK[s] > SEVERITY_RANK[w]) w = s;
  return w;
}

export type CollisionKind =
  | 'duplicate-create'
  | 'overlapping-writers'
  | 'service-race'
  | 'write-under-pending-plan'
  | 'bucket-duplicate'
  | 'bucket-missing-prefix'
  | 'bucket-out-of-range'
  | 'duplicate-write-token'
  | 'overlapping-log-appends'
  | 'duplicate-keys';

export interface Finding {
  kind: CollisionKind;
  severity: Severity;
  partition: string;
  fileId: string;
  /** instants involved, ascending */
  instants: string[];
  /** table-relative file names (or paths) that show it */
  files: string[];
  /** one line: what was seen, with times */
  evidence: string;
  meaning: string;
  nextStep: string;
}

export type OrphanKind =
  | 'flink-leftover'
  | 'uncommitted-file'
  | 'marker-dir'
  | 'stuck-instant'
  | 'unparseable'
  | 'outside-partition';

export interface Orphan {
  kind: OrphanKind;
  /** table-relative path ('.hoodie/.temp/<t>' for marker dirs, the timeline file for stuck instants); absolute below `root` */
  path: string;
  /** set for files of a directory outside the table (orphans --dir): that directory, absolute */
  root?: string;
  /** bytes (a directory: the sum of its files) */
  size: number;
  /** newest modification time, epoch ms */
  mtimeMs: number;
  /** seconds since mtimeMs (stuck instants: since the requested time) */
  ageSeconds: number;
  /** instant the file belongs to, if any */
  instant?: string;
  /** state of that instant in the active timeline: requested, inflight, completed, absent */
  instantState?: 'requested' | 'inflight' | 'completed' | 'absent';
  /** heartbeat of that instant: alive, expired, missing */
  heartbeat?: 'alive' | 'expired' | 'missing';
  reason: string;
  /** what --delete would do: only 'move' entries are ever touched */
  deletable: boolean;
  /** why not deletable (young, live heartbeat, report-only) */
  keepReason?: string;
  severity: Severity;
}
