// `metrics --explain`: the Prometheus gauges for a person setting up dashboards and alerts — each
// sample's value now, what it measures, and a PromQL alerting condition with whether it holds now.
import { BACKLOG_WARN, type MetricSample } from '../triage/index.ts';
import type { ColumnSpec } from '../render/index.ts';

export interface ExplainedMetric {
  status: 'ok' | 'alert' | '-';
  metric: string;
  labels: string;
  value: number;
  meaning: string;
  alertWhen: string;
}

interface Rule {
  /** PromQL condition on the gauge */
  expr: string;
  holds: (v: number) => boolean;
}

/** Alerting conditions an on-call rotation would start from; thresholds as doctor judges them. */
function ruleFor(name: string, pendingAgeSeconds: number): Rule | undefined {
  switch (name) {
    case 'tblcli_oldest_pending_instant_age_seconds':
      return { expr: `${name} > ${pendingAgeSeconds}`, holds: (v) => v > pendingAgeSeconds };
    case 'tblcli_stuck_instants':
    case 'tblcli_collisions':
    case 'tblcli_failed_commits_last_hour':
    case 'tblcli_compaction_backlog_file_groups':
      return { expr: `${name} > 0`, holds: (v) => v > 0 };
    case 'tblcli_compaction_backlog_max_delta_commits':
      return { expr: `${name} >= ${BACKLOG_WARN}`, holds: (v) => v >= BACKLOG_WARN };
    case 'tblcli_doctor_severity':
      return { expr: `${name} >= 2`, holds: (v) => v >= 2 };
    case 'tblcli_last_run_timestamp_seconds':
      // staleness is judged by the scraper's clock, not by this run
      return { expr: `time() - ${name} > 2 * <your cron interval>`, holds: () => false };
    default:
      return undefined;
  }
}

/** One row per sample; the table's own labels (table, path) are left out: every row has them. */
export function explainMetrics(metrics: MetricSample[], pendingAgeSeconds: number): ExplainedMetric[] {
  const rows: ExplainedMetric[] = [];
  for (const m of metrics) {
    const rule = ruleFor(m.name, pendingAgeSeconds);
    for (const s of m.samples) {
      const labels = Object.entries(s.labels)
        .filter(([k]) => k !== 'table' && k !== 'path')
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const stale = m.name === 'tblcli_last_run_timestamp_seconds';
      rows.push({
        status: !rule || stale ? '-' : rule.holds(s.value) ? 'alert' : 'ok',
        metric: m.name,
        labels,
        value: s.value,
        meaning: m.help,
        alertWhen: rule?.expr ?? '',
      });
    }
  }
  return rows;
}

export const explainColumns: ColumnSpec<ExplainedMetric>[] = [
  { key: 'status', header: 'Now', value: (r) => r.status, tone: (v) => (v === 'alert' ? 'bad' : v === 'ok' ? 'good' : 'dim') },
  { key: 'metric', header: 'Metric', value: (r) => r.metric },
  { key: 'labels', header: 'Labels', value: (r) => r.labels },
  { key: 'value', header: 'Value', value: (r) => r.value },
  { key: 'meaning', header: 'Meaning', value: (r) => r.meaning },
  { key: 'alertWhen', header: 'Alert When (PromQL)', value: (r) => r.alertWhen },
];
