// Column specs for `collisions`, `orphans`, `orphans --delete` and `doctor` (one spec per mode, gh-style).
import type { ColumnSpec } from '../render/index.ts';
import { humanReadableByteCount } from '../util/index.ts';
import type { DeleteResult, DoctorCheck, Finding, Orphan } from '../triage/index.ts';

export const collisionColumns: ColumnSpec<Finding>[] = [
  { key: 'severity', header: 'Severity', value: (f) => f.severity },
  { key: 'kind', header: 'Kind', value: (f) => f.kind },
  { key: 'partition', header: 'Partition', value: (f) => f.partition },
  { key: 'fileId', header: 'FileId', value: (f) => f.fileId },
  { key: 'instants', header: 'Instants', value: (f) => f.instants.join(',') },
  { key: 'files', header: 'Files', value: (f) => f.files.join(',') },
  { key: 'evidence', header: 'Evidence', value: (f) => f.evidence },
  { key: 'meaning', header: 'Meaning', value: (f) => f.meaning },
  { key: 'nextStep', header: 'Next Step', value: (f) => f.nextStep },
];

export const orphanColumns: ColumnSpec<Orphan>[] = [
  { key: 'severity', header: 'Severity', value: (o) => o.severity },
  { key: 'kind', header: 'Kind', value: (o) => o.kind },
  { key: 'path', header: 'Path', value: (o) => o.path },
  { key: 'size', header: 'Size', value: (o) => o.size, format: (v) => humanReadableByteCount(Number(v)) },
  { key: 'ageSeconds', header: 'Age (s)', value: (o) => o.ageSeconds },
  { key: 'mtime', header: 'Modified', value: (o) => new Date(o.mtimeMs).toISOString() },
  { key: 'instant', header: 'Instant', value: (o) => o.instant ?? null },
  { key: 'instantState', header: 'Instant State', value: (o) => o.instantState ?? null },
  { key: 'heartbeat', header: 'Heartbeat', value: (o) => o.heartbeat ?? null },
  { key: 'deletable', header: 'Deletable', value: (o) => o.deletable },
  { key: 'reason', header: 'Reason', value: (o) => (o.keepReason ? `${o.reason}; kept: ${o.keepReason}` : o.reason) },
];

export const deleteColumns: ColumnSpec<DeleteResult>[] = [
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'kind', header: 'Kind', value: (r) => r.kind },
  { key: 'path', header: 'Path', value: (r) => r.path },
  { key: 'to', header: 'Moved To', value: (r) => r.to ?? null },
  { key: 'size', header: 'Size', value: (r) => r.size, format: (v) => humanReadableByteCount(Number(v)) },
  { key: 'reason', header: 'Reason', value: (r) => r.reason ?? null },
];

export const doctorColumns: ColumnSpec<DoctorCheck>[] = [
  { key: 'check', header: 'Check', value: (c) => c.check },
  { key: 'severity', header: 'Severity', value: (c) => c.severity },
  { key: 'summary', header: 'Summary', value: (c) => c.summary },
  { key: 'nextStep', header: 'Next Step', value: (c) => c.nextStep },
];
