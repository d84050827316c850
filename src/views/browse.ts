// What `tblcli browse` and `timeline show active --chart` show: the timeline's instants with their
// wall-clock spans, and one instant's insides (a commit's partitions → files → write stat, a
// compaction or clustering plan's operations, a clean's deleted files, a rollback's targets), each as
// a TableResult read through the same column specs as the hudi-cli commands.
import { buildTable, type ColumnSpec, type TableOptions } from '../render/index.ts';
import { humanDuration, renderTimeChart, type Bar } from '../render/time-chart.ts';
import type { BrowseSource, DoctorLine, DrillLevel } from '../render/ink/types.ts';
import {
  decodeCleanMetadata,
  decodeCleanerPlan,
  decodeRequestedReplaceMetadata,
  decodeRollbackMetadata,
  decodeRollbackPlan,
} from '../metadata/index.ts';
import { openTableAt, type Table } from '../table/index.ts';
import type { Instant } from '../timeline/index.ts';
import { parseInstantTime } from '../util/index.ts';
import { commitShowFiles, commitShowPartitions } from './commit-results.ts';
import { result, type TableResult } from './result.ts';
import { compactionShow, timelineShow } from './service-results.ts';
import { formatModTime, type TimelineRow } from './timeline.ts';

/** An instant's wall-clock span: requested → completed (→ now while pending). */
export function instantSpan(i: Instant, zone: 'UTC' | 'LOCAL', nowMs: number): { startMs?: number; endMs?: number; pending: boolean } {
  const startMs = parseInstantTime(i.requestedTime, zone)?.getTime();
  const pending = i.state !== 'COMPLETED';
  let endMs = pending ? nowMs : i.completionTime ? parseInstantTime(i.completionTime, zone)?.getTime() : undefined;
  // layout 1 takes completion from a file's mtime, which a copy or an unzip may have moved before the start
  if (startMs !== undefined && endMs !== undefined && endMs < startMs) endMs = startMs;
  return { startMs, endMs, pending };
}

/** The chart's bars for timeline rows: labels read through the timeline column spec. */
export function timelineBars(rows: TimelineRow[], columns: ColumnSpec<TimelineRow>[], zone: 'UTC' | 'LOCAL', nowMs: number): Bar[] {
  const pick = ['instant', 'action', 'state'].map((k) => columns.find((c) => c.key === k)!);
  return rows.map((r) => {
    const s = instantSpan(r.instant, zone, nowMs);
    return { labels: pick.map((c) => String(c.value(r)).split('\n')[0]!), startMs: s.startMs, endMs: s.endMs, pending: s.pending };
  });
}

export const CHART_LABELS = ['Instant', 'Action', 'State'];

/** MM-dd HH:mm:ss (timeline show's time format, with seconds) or HH:mm:ss, in this process's zone. */
export function chartTime(ms: number, withDate: boolean): string {
  const t = formatModTime(ms, true);
  return withDate ? t : t.slice(6);
}

/**
 * `timeline show active --chart`: the rows the table would show (its --limit, --sortBy, --desc),
 * drawn as bars fitted to `width`, with a legend line.
 */
export function timelineChart(r: TableResult, opts: TableOptions, zone: 'UTC' | 'LOCAL', nowMs: number, width: number): string[] {
  const rows = r.rows as TimelineRow[];
  const at = new Map(rows.map((row, i) => [row, i]));
  const index: ColumnSpec<TimelineRow> = { key: '_row', header: '_row', value: (row) => at.get(row)! };
  const picked = buildTable([...r.columns, index], rows, opts).rawRows.map((raw) => rows[raw[raw.length - 1] as number]!);
  if (picked.length === 0) return ['(no instants)'];
  const chart = renderTimeChart(timelineBars(picked, r.columns, zone, nowMs), { width, labelHeaders: CHART_LABELS, formatTime: chartTime });
  return [...chart.header, ...chart.rows, '█ requested → completed  ▒ pending, to now  Lane: overlapping instants differ'];
}

export interface BrowseEntry {
  instant: Instant;
  row: TimelineRow;
  startMs?: number;
  endMs?: number;
  pending: boolean;
}

/** Every instant of the active timeline, oldest first, with its span. */
export async function browseEntries(table: Table, nowMs: number): Promise<{ entries: BrowseEntry[]; columns: ColumnSpec<TimelineRow>[]; zone: 'UTC' | 'LOCAL' }> {
  const tl = await table.timeline();
  const r = await timelineShow(table, { incomplete: false, rollbackInfo: false, seconds: true });
  const zone = tl.source.timezone;
  const entries = (r.rows as TimelineRow[]).map((row) => ({ instant: row.instant, row, ...instantSpan(row.instant, zone, nowMs) }));
  return { entries, columns: r.columns, zone };
}

/** One level of a drill-down: a table, and for some rows the level below. */
export interface Drill {
  title: string;
  result: TableResult;
  /** the tblcli command printing this level */
  command: string;
  open?: (row: number) => Promise<Drill | undefined>;
}

interface KV {
  field: string;
  value: string;
}
const kvColumns: ColumnSpec<KV>[] = [
  { key: 'field', header: 'Field', value: (r) => r.field },
  { key: 'value', header: 'Value', value: (r) => r.value },
];

/** A row of a result as field/value lines (a write stat, an operation). */
function recordOf(r: TableResult, row: number): TableResult {
  const m = buildTable(r.columns, [r.rows[row]]);
  return result(kvColumns, m.headers.map((h, i) => ({ field: h.replace(/\n/g, ' '), value: m.cells[0]![i]! })));
}

function recordLevel(title: string, command: string, r: TableResult): Drill['open'] {
  return async (row) => (r.rows[row] === undefined ? undefined : { title, command, result: recordOf(r, row) });
}

interface FileRow {
  partition: string;
  file: string;
}
const fileColumns: ColumnSpec<FileRow>[] = [
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.partition },
  { key: 'file', header: 'File', value: (r) => r.file },
];

interface SliceRow {
  group: number;
  partition: string;
  fileId: string;
  baseFile: string;
  logFiles: number;
}
const sliceColumns: ColumnSpec<SliceRow>[] = [
  { key: 'group', header: 'Group', value: (r) => r.group },
  { key: 'partitionPath', header: 'Partition Path', value: (r) => r.partition },
  { key: 'fileId', header: 'File Id', value: (r) => r.fileId },
  { key: 'baseFile', header: 'Base File', value: (r) => r.baseFile },
  { key: 'logFiles', header: 'Log Files', value: (r) => r.logFiles },
];

/** ` --path P` (quoted for a shell when it must be), or nothing when the table came from connect / TBLCLI_PATH. */
export function pathFlag(path: string | undefined): string {
  if (!path) return '';
  return ` --path ${/^[\w/.:=@%+,-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`}`;
}

const COMMIT_LIKE = new Set(['commit', 'deltacommit', 'replacecommit']);

/**
 * What Enter shows for an instant, or undefined with the reason when there is nothing to open (a
 * pending write has no metadata yet). `path` is the --path the suggested commands carry.
 */
export async function drillInto(table: Table, i: Instant, path?: string): Promise<Drill | { none: string }> {
  const t = i.requestedTime;
  const p = pathFlag(path);
  const tl = await table.timeline();
  const uri = (f: { path: string }) => ({ path: table.storage.uri(f.path) });
  const isCompaction = i.effectiveAction === 'compaction' || i.stateActions.REQUESTED === 'compaction';
  if (isCompaction && table.config.type === 'MERGE_ON_READ' && i.files.REQUESTED) {
    const r = await compactionShow(table, t);
    return { title: `compaction ${t}: plan operations`, command: `tblcli compaction show --instant ${t}${p}`, result: r, open: recordLevel(`compaction ${t}: operation`, `tblcli compaction show --instant ${t}${p}`, r) };
  }
  if ((i.effectiveAction === 'clustering' || i.stateActions.REQUESTED === 'replacecommit' || i.stateActions.REQUESTED === 'clustering') && i.state !== 'COMPLETED' && i.files.REQUESTED) {
    const m = decodeRequestedReplaceMetadata(await tl.read(i, 'REQUESTED'), uri(i.files.REQUESTED));
    const rows: SliceRow[] = (m.clusteringPlan?.inputGroups ?? []).flatMap((g, n) =>
      (g.slices ?? []).map((s) => ({ group: n + 1, partition: s.partitionPath ?? '', fileId: s.fileId ?? '', baseFile: s.dataFilePath ?? '', logFiles: s.deltaFilePaths?.length ?? 0 })),
    );
    return { title: `clustering ${t}: input file slices`, command: `tblcli timeline show active${p}`, result: result(sliceColumns, rows) };
  }
  if (i.action === 'clean') {
    if (i.state === 'COMPLETED') {
      const m = decodeCleanMetadata(await tl.read(i), uri(i.files.COMPLETED!));
      const rows = Object.entries(m.partitionMetadata ?? {}).flatMap(([part, pm]) => (pm.successDeleteFiles ?? []).map((f) => ({ partition: part, file: f })));
      return { title: `clean ${t}: deleted files`, command: `tblcli clean showpartitions --clean ${t}${p}`, result: result(fileColumns, rows) };
    }
    if (!i.files.REQUESTED) return { none: `clean ${t} has no plan file` };
    const plan = decodeCleanerPlan(await tl.read(i, 'REQUESTED'), uri(i.files.REQUESTED));
    const rows = Object.entries(plan.filePathsToBeDeletedPerPartition ?? {}).flatMap(([part, fs]) => (fs ?? []).map((f) => ({ partition: part, file: f.filePath ?? '' })));
    return { title: `clean ${t} (${i.state.toLowerCase()}): files to delete`, command: `tblcli cleans show${p}`, result: result(fileColumns, rows) };
  }
  if (i.action === 'rollback') {
    if (i.state === 'COMPLETED') {
      const m = decodeRollbackMetadata(await tl.read(i), uri(i.files.COMPLETED!));
      const rows = Object.entries(m.partitionMetadata ?? {}).flatMap(([part, pm]) => [...(pm.successDeleteFiles ?? []), ...(pm.failedDeleteFiles ?? [])].map((f) => ({ partition: part, file: f })));
      return { title: `rollback ${t} of ${(m.commitsRollback ?? []).join(', ')}: deleted files`, command: `tblcli show rollback --instant ${t}${p}`, result: result(fileColumns, rows) };
    }
    if (!i.files.REQUESTED) return { none: `rollback ${t} has no plan file` };
    const plan = decodeRollbackPlan(await tl.read(i, 'REQUESTED'), uri(i.files.REQUESTED));
    const rows = (plan.RollbackRequests ?? []).flatMap((r) => r.filesToBeDeleted.map((f) => ({ partition: r.partitionPath, file: f })));
    return { title: `rollback ${t} (${i.state.toLowerCase()}) of ${plan.instantToRollback?.commitTime ?? '?'}: files to delete`, command: `tblcli timeline show incomplete --show-rollback-info${p}`, result: result(fileColumns, rows) };
  }
  if (COMMIT_LIKE.has(i.action) && i.state === 'COMPLETED') {
    const parts = await commitShowPartitions(table, t);
    const files = await commitShowFiles(table, t);
    const filesCmd = `tblcli commit showfiles --commit ${t}${p}`;
    return {
      title: `${i.action} ${t}: partitions`,
      command: `tblcli commit showpartitions --commit ${t}${p}`,
      result: parts,
      open: async (row) => {
        const part = (parts.rows[row] as { partitionPath: string } | undefined)?.partitionPath;
        if (part === undefined) return undefined;
        const r = result(files.columns, files.rows.filter((s: { stat: { partitionPath: string } }) => s.stat.partitionPath === part));
        return { title: `${i.action} ${t}: files in ${part || '(table root)'}`, command: filesCmd, result: r, open: recordLevel(`${i.action} ${t}: write stat`, filesCmd, r) };
      },
    };
  }
  return { none: `${i.action} ${t} is ${i.state.toLowerCase()}: nothing to open${i.state === 'COMPLETED' ? '' : ' yet'}` };
}

/** The exact command that shows more about an instant, or acts on it (shown, never run). */
export function suggestion(i: Instant, path?: string): string {
  const p = pathFlag(path);
  const t = i.requestedTime;
  const compaction = i.effectiveAction === 'compaction' || i.stateActions.REQUESTED === 'compaction';
  if (compaction && i.state !== 'COMPLETED') return `tblcli compaction run --instant ${t}${p}`;
  if (i.state !== 'COMPLETED') return `tblcli timeline show incomplete --show-rollback-info${p}`;
  if (COMMIT_LIKE.has(i.action)) return `tblcli commit showfiles --commit ${t}${p}`;
  if (i.action === 'clean') return `tblcli clean showpartitions --clean ${t}${p}`;
  if (i.action === 'rollback') return `tblcli show rollback --instant ${t}${p}`;
  return `tblcli timeline show active --limit -1${p}`;
}

const browseColumns: ColumnSpec<BrowseEntry>[] = [
  { key: 'instant', header: 'Instant', value: (e) => e.instant.requestedTime },
  { key: 'action', header: 'Action', value: (e) => e.instant.effectiveAction },
  { key: 'state', header: 'State', value: (e) => e.instant.state },
  { key: 'requested', header: 'Requested', value: (e) => e.startMs ?? null, format: (v) => (v === null ? '-' : formatModTime(Number(v), true)) },
  { key: 'completed', header: 'Completed', value: (e) => (e.pending ? null : (e.endMs ?? null)), format: (v) => (v === null ? '-' : formatModTime(Number(v), true)) },
  {
    key: 'duration',
    header: 'Duration',
    value: (e) => (e.startMs === undefined || e.endMs === undefined ? null : e.endMs - e.startMs),
    format: (v) => (v === null ? '-' : humanDuration(Number(v))),
  },
];

function level(d: Drill): DrillLevel {
  const m = buildTable(d.result.columns, d.result.rows);
  return {
    title: d.title,
    command: d.command,
    headers: m.headers.map((h) => h.replace(/\n/g, ' ')),
    cells: m.cells,
    open: d.open
      ? async (row) => {
          const next = await d.open!(row);
          return next ? level(next) : undefined;
        }
      : undefined,
  };
}

const SEVERITY_TONE: Record<string, DoctorLine['tone']> = { ok: 'good', info: 'info', warning: 'warn', error: 'bad' };
const MARK: Record<string, string> = { ok: '✓', info: 'i', warning: '!', error: '✗' };

/**
 * What `tblcli browse` shows of a table: the timeline (read again on each refresh, through a fresh
 * Table so a moving timeline is seen), an instant's insides, and doctor's findings.
 */
export function browseSource(table: Table, path: string | undefined, now: () => Date): BrowseSource {
  let current = table;
  let first = true;
  let byId = new Map<string, Instant>();
  return {
    async load() {
      if (!first) current = await openTableAt(table.storage, table.basePath, table.uri);
      first = false;
      const nowMs = now().getTime();
      const { entries } = await browseEntries(current, nowMs);
      byId = new Map(entries.map((e) => [`${e.instant.requestedTime}.${e.instant.action}`, e.instant]));
      const m = buildTable(browseColumns, entries);
      return {
        title: `${current.config.name} (${current.config.type}, v${current.config.version})`,
        headers: m.headers,
        items: entries.map((e, k) => ({
          id: `${e.instant.requestedTime}.${e.instant.action}`,
          instant: e.instant.requestedTime,
          action: e.instant.effectiveAction,
          state: e.instant.state,
          pending: e.pending,
          cells: m.cells[k]!,
          startMs: e.startMs,
          endMs: e.endMs,
        })),
        loadedAt: formatModTime(nowMs, true).slice(6),
      };
    },
    async open(item) {
      const i = (await current.timeline()).find(item.instant).find((x) => `${x.requestedTime}.${x.action}` === item.id);
      if (!i) return `${item.instant} is no longer on the active timeline (r to refresh)`;
      const d = await drillInto(current, i, path);
      return 'none' in d ? d.none : level(d);
    },
    async doctor() {
      const t = await import('../triage/index.ts');
      const scan = await t.scanTable(current, { now: now() });
      const report = await t.doctor(scan);
      const lines: DoctorLine[] = [];
      const named = new Set<string>();
      for (const c of report.checks) {
        lines.push({ text: `${MARK[c.severity] ?? '?'} ${c.check}: ${c.summary}`, tone: SEVERITY_TONE[c.severity] });
        if (c.nextStep && c.nextStep !== '-') lines.push({ text: `    → ${c.nextStep}` });
        for (const d of c.details) lines.push({ text: `    · ${d}`, tone: 'dim' });
        if (c.severity !== 'ok') for (const m of `${c.summary} ${c.details.join(' ')}`.matchAll(/\b\d{14,17}\b/g)) named.add(m[0]);
      }
      lines.push({ text: '' }, { text: `Overall: ${report.severity}   $ tblcli doctor${pathFlag(path)}`, tone: SEVERITY_TONE[report.severity] });
      return { lines, instants: [...named] };
    },
    suggest(item) {
      const i = byId.get(item.id);
      return i ? suggestion(i, path) : `tblcli timeline show active --limit -1${pathFlag(path)}`;
    },
    formatTime: chartTime,
    now: () => now().getTime(),
  };
}
