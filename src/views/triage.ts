// Column specs for `collisions`, `orphans`, `orphans --delete` and `doctor` (one spec per mode, gh-style).
import type { CheckItem, ColumnSpec, IntroLine, Raw, Tone } from '../render/index.ts';
import { humanReadableByteCount } from '../util/index.ts';
import type { DeleteResult, DoctorCheck, DoctorReport, Finding, Orphan, Severity } from '../triage/index.ts';

/** A severity as a person sees it on a colour terminal. */
export function severityTone(v: Raw): Tone | undefined {
  return v === 'ok' ? 'good' : v === 'info' ? 'info' : v === 'warning' ? 'warn' : v === 'error' ? 'bad' : undefined;
}
const severity = <T extends { severity: Severity }>(): ColumnSpec<T> => ({ key: 'severity', header: 'Severity', value: (f) => f.severity, tone: severityTone });

export const collisionColumns: ColumnSpec<Finding>[] = [
  severity<Finding>(),
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
  severity<Orphan>(),
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
  { key: 'action', header: 'Action', value: (r) => r.action, tone: (v) => (v === 'skipped' ? 'warn' : v === 'moved' || v === 'purged' ? 'good' : undefined) },
  { key: 'kind', header: 'Kind', value: (r) => r.kind },
  { key: 'path', header: 'Path', value: (r) => r.path },
  { key: 'to', header: 'Moved To', value: (r) => r.to ?? null },
  { key: 'size', header: 'Size', value: (r) => r.size, format: (v) => humanReadableByteCount(Number(v)) },
  { key: 'reason', header: 'Reason', value: (r) => r.reason ?? null },
];

export const doctorColumns: ColumnSpec<DoctorCheck>[] = [
  { key: 'check', header: 'Check', value: (c) => c.check },
  severity<DoctorCheck>(),
  { key: 'summary', header: 'Summary', value: (c) => c.summary },
  { key: 'nextStep', header: 'Next Step', value: (c) => c.nextStep },
];

/** The lines above doctor's checks: the table, its size, the overall severity. */
export function doctorIntro(report: DoctorReport): IntroLine[] {
  const tb = report.table;
  const head = `Table ${tb.name} (${tb.type}, version ${tb.version}, timeline layout ${tb.layout})`;
  return [
    // a terminal shows the path on a line of its own, never broken by the wrapping
    { text: `${head} at ${tb.basePath}`, tty: `${head}\n  at ${tb.basePath}`, wrap: false },
    `${tb.instants} instants (${tb.completed} completed, ${tb.pending} pending), ${tb.partitions} partitions, ${tb.fileGroups} file groups, ${tb.files} files, ${tb.bytes} bytes`,
    `Overall: ${report.severity}`,
  ];
}

/** doctor's checks as a checklist, read through doctorColumns (the columns --format csv prints). */
export function doctorChecklist(checks: DoctorCheck[]): CheckItem[] {
  const col = (key: string) => doctorColumns.find((c) => c.key === key)!;
  return checks.map((c) => ({
    tone: severityTone(c.severity) ?? 'info',
    word: String(col('severity').value(c)),
    name: String(col('check').value(c)),
    summary: String(col('summary').value(c)),
    next: String(col('nextStep').value(c) ?? ''),
    details: c.details,
  }));
}
