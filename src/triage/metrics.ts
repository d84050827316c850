// Prometheus text exposition format (version 0.0.4) for node_exporter's textfile collector.
import type { DoctorReport } from './doctor.ts';
import type { TableScan } from './scan.ts';
import { BACKLOG_WARN } from './doctor.ts';

export interface MetricSample {
  name: string;
  help: string;
  type: 'gauge';
  samples: { labels: Record<string, string>; value: number }[];
}

function esc(v: string): string {
  return v.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');
}

export function tableMetrics(scan: TableScan, report: DoctorReport): MetricSample[] {
  const table = { table: report.table.name, path: report.table.basePath };
  const byActionState = new Map<string, number>();
  for (const i of scan.tl.instants) {
    const k = `${i.effectiveAction}\u0000${i.state.toLowerCase()}`;
    byActionState.set(k, (byActionState.get(k) ?? 0) + 1);
  }
  const oldest = report.pending.reduce((m, p) => Math.max(m, p.ageSeconds), 0);
  const failedLastHour = report.rolledBack.filter((r) => r.rollbackAgeSeconds !== undefined && r.rollbackAgeSeconds < 3600).length;
  const orphanFiles = report.orphans.filter((o) => o.kind !== 'stuck-instant');
  const g = (name: string, help: string, value: number, labels: Record<string, string> = {}): MetricSample => ({ name, help, type: 'gauge', samples: [{ labels: { ...table, ...labels }, value }] });
  return [
    {
      name: 'tblcli_instants',
      help: 'Instants on the active timeline by action and state.',
      type: 'gauge',
      samples: [...byActionState].sort().map(([k, v]) => {
        const [action, state] = k.split('\u0000') as [string, string];
        return { labels: { ...table, action, state }, value: v };
      }),
    },
    g('tblcli_pending_instants', 'Requested or inflight instants.', report.pending.length),
    g('tblcli_oldest_pending_instant_age_seconds', 'Age of the oldest requested/inflight instant (0 when none).', oldest),
    g('tblcli_failed_commits_last_hour', 'Instants rolled back by a rollback started in the last hour.', failedLastHour),
    g('tblcli_rolled_back_instants', 'Rolled-back instants on the active timeline.', report.rolledBack.length),
    g('tblcli_compaction_backlog_max_delta_commits', 'Largest number of delta commits since the last compaction of one file group.', report.backlog[0]?.deltaCommits ?? 0),
    g('tblcli_compaction_backlog_file_groups', `File groups with at least ${BACKLOG_WARN} delta commits since the last compaction.`, report.backlog.filter((b) => b.deltaCommits >= BACKLOG_WARN).length),
    g('tblcli_orphan_files', 'Orphan files and marker directories.', orphanFiles.length),
    g('tblcli_orphan_bytes', 'Bytes held by orphan files and marker directories.', orphanFiles.reduce((n, o) => n + o.size, 0)),
    g('tblcli_stuck_instants', 'Pending instants older than the threshold without a live heartbeat.', report.orphans.filter((o) => o.kind === 'stuck-instant').length),
    g('tblcli_collisions', 'fileId collision findings.', report.collisions.length),
    g('tblcli_file_groups', 'File groups in the latest view.', report.table.fileGroups),
    g('tblcli_files', 'Files under the table outside .hoodie.', report.table.files),
    g('tblcli_doctor_severity', 'Worst doctor severity: 0 ok, 1 info, 2 warning, 3 error.', { ok: 0, info: 1, warning: 2, error: 3 }[report.severity]),
    g('tblcli_last_run_timestamp_seconds', 'When these metrics were computed.', Math.floor(scan.now.getTime() / 1000)),
  ];
}

export function renderPrometheus(metrics: MetricSample[]): string {
  let out = '';
  for (const m of metrics) {
    out += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n`;
    for (const s of m.samples) {
      const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${esc(v)}"`).join(',');
      out += `${m.name}${labels ? `{${labels}}` : ''} ${Number.isFinite(s.value) ? s.value : 'NaN'}\n`;
    }
  }
  return out;
}
