// show fsview all|latest, stats wa, stats filesizes (hudi-cli FileSystemViewCommand, StatsCommand).
import type { ColumnSpec, Raw } from '../render/index.ts';
import { decimalHash00, javaDouble } from '../render/index.ts';
import type { FileSlice, LogFile } from '../fs-view/index.ts';
import { commitTotals } from '../metadata/index.ts';
import type { Table } from '../table/index.ts';
import { loadFileSystemView, loadCommits } from '../table/index.ts';
import { bytesHuman } from './format.ts';
import { javaHashMapOrder } from './java-map.ts';
import { pathGlob as globMatcher } from '../util/index.ts';
import { result, type TableResult } from './result.ts';

interface SliceRow {
  partition: string;
  slice: FileSlice;
  dataFile: string;
  dataFileSize: number;
  table: Table;
}

/** HoodieLogFile.toString() inside a Java List.toString(). */
function logList(table: Table, logs: LogFile[]): string {
  return `[${logs.map((l) => `HoodieLogFile{pathStr='${table.storage.uri(l.path)}', fileLen=${l.size}}`).join(', ')}]`;
}

const sum = (logs: LogFile[]) => logs.reduce((s, l) => s + l.size, 0);
const scheduled = (s: FileSlice) => s.logFiles.filter((l) => l.instant === s.baseInstant);
const unscheduled = (s: FileSlice) => s.logFiles.filter((l) => l.instant !== s.baseInstant);
const dbl = (v: Raw) => javaDouble(Number(v));

function baseColumns(): ColumnSpec<SliceRow>[] {
  return [
    { key: 'partition', header: 'Partition', value: (r) => r.partition },
    { key: 'fileId', header: 'FileId', value: (r) => r.slice.fileId },
    { key: 'baseInstant', header: 'Base-Instant', value: (r) => r.slice.baseInstant },
    { key: 'dataFile', header: 'Data-File', value: (r) => r.dataFile },
    { key: 'dataFileSize', header: 'Data-File Size', value: (r) => r.dataFileSize, format: bytesHuman },
  ];
}

function toSliceRow(table: Table, partition: string, slice: FileSlice): SliceRow {
  return {
    partition,
    slice,
    dataFile: slice.baseFile ? table.storage.uri(slice.baseFile.path) : '',
    dataFileSize: slice.baseFile ? slice.baseFile.size : -1,
    table,
  };
}

export interface FsViewOptions {
  baseFileOnly: boolean;
  excludeCompaction?: boolean;
  maxInstant?: string;
  includeMax: boolean;
  includeInflight: boolean;
}

export async function showFsViewAll(table: Table, pathGlob: string, o: FsViewOptions): Promise<TableResult> {
  const view = await loadFileSystemView(table, {
    maxInstant: o.maxInstant || undefined,
    includeMax: o.includeMax,
    includeInflight: o.includeInflight,
    excludeCompaction: o.excludeCompaction,
  });
  const match = globMatcher(pathGlob);
  const rows: SliceRow[] = [];
  for (const fg of view.allFileGroups()) {
    if (!match(fg.partition)) continue;
    for (const s of fg.slices) rows.push(toSliceRow(table, fg.partition, s));
  }
  const cols = baseColumns();
  if (!o.baseFileOnly) {
    cols.push(
      { key: 'numDeltaFiles', header: 'Num Delta Files', value: (r) => r.slice.logFiles.length },
      { key: 'totalDeltaFileSize', header: 'Total Delta File Size', value: (r) => sum(r.slice.logFiles), format: bytesHuman },
      { key: 'deltaFiles', header: 'Delta Files', value: (r) => logList(r.table, r.slice.logFiles) },
    );
  }
  return result(cols, rows);
}

export async function showFsViewLatest(table: Table, partition: string, merge: boolean, o: FsViewOptions): Promise<TableResult> {
  const view = await loadFileSystemView(table, {
    partitions: [partition],
    maxInstant: o.maxInstant || undefined,
    includeMax: o.includeMax,
    includeInflight: o.includeInflight,
    excludeCompaction: o.excludeCompaction,
  });
  const slices = merge ? view.latestMergedFileSlices(partition) : view.latestFileSlices(partition);
  const rows = slices.map((s) => toSliceRow(table, partition, s));
  const cols = baseColumns();
  if (!o.baseFileOnly) {
    cols.push(
      { key: 'numDeltaFiles', header: 'Num Delta Files', value: (r) => r.slice.logFiles.length },
      { key: 'totalDeltaSize', header: 'Total Delta Size', value: (r) => sum(r.slice.logFiles), format: bytesHuman },
      { key: 'deltaSizeScheduled', header: 'Delta Size - compaction scheduled', value: (r) => sum(scheduled(r.slice)), format: bytesHuman },
      { key: 'deltaSizeUnscheduled', header: 'Delta Size - compaction unscheduled', value: (r) => sum(unscheduled(r.slice)), format: bytesHuman },
      {
        key: 'deltaToBaseRatioScheduled',
        header: 'Delta To Base Ratio - compaction scheduled',
        value: (r) => (r.dataFileSize > 0 ? sum(scheduled(r.slice)) / r.dataFileSize : -1),
        format: dbl,
      },
      {
        key: 'deltaToBaseRatioUnscheduled',
        header: 'Delta To Base Ratio - compaction unscheduled',
        value: (r) => (r.dataFileSize > 0 ? sum(unscheduled(r.slice)) / r.dataFileSize : -1),
        format: dbl,
      },
      { key: 'deltaFilesScheduled', header: 'Delta Files - compaction scheduled', value: (r) => logList(r.table, scheduled(r.slice)) },
      { key: 'deltaFilesUnscheduled', header: 'Delta Files - compaction unscheduled', value: (r) => logList(r.table, unscheduled(r.slice)) },
    );
  }
  return result(cols, rows);
}

interface WaRow {
  commitTime: string;
  upserted: number;
  written: number;
}

function waf(r: WaRow): string {
  return r.upserted === 0 ? '0' : decimalHash00(Math.fround(r.written / r.upserted));
}

export async function statsWa(table: Table): Promise<TableResult> {
  const commits = (await loadCommits(table)).filter((c) => ['commit', 'replacecommit'].includes(c.instant.action)).reverse();
  const rows: WaRow[] = commits.map((c) => {
    const t = commitTotals(c.metadata);
    return { commitTime: c.instant.requestedTime, upserted: t.totalUpdateRecordsWritten, written: t.totalRecordsWritten };
  });
  const total: WaRow = {
    commitTime: 'Total',
    upserted: rows.reduce((s, r) => s + r.upserted, 0),
    written: rows.reduce((s, r) => s + r.written, 0),
  };
  rows.push(total);
  return result(
    [
      { key: 'commitTime', header: 'CommitTime', value: (r: WaRow) => r.commitTime },
      { key: 'totalUpserted', header: 'Total Upserted', value: (r: WaRow) => r.upserted },
      { key: 'totalWritten', header: 'Total Written', value: (r: WaRow) => r.written },
      { key: 'writeAmplificationFactor', header: 'Write Amplification Factor', value: (r: WaRow) => waf(r) },
    ],
    rows,
  );
}

interface SizeRow {
  commitTime: string;
  sizes: number[];
}

/** Dropwizard UniformSnapshot quantile. */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = q * (sorted.length + 1);
  const index = Math.floor(pos);
  if (index < 1) return sorted[0]!;
  if (index >= sorted.length) return sorted[sorted.length - 1]!;
  const lower = sorted[index - 1]!;
  const upper = sorted[index]!;
  return lower + (pos - Math.floor(pos)) * (upper - lower);
}

function mean(v: number[]): number {
  return v.length === 0 ? 0 : v.reduce((s, x) => s + x, 0) / v.length;
}

function stdDev(v: number[]): number {
  if (v.length <= 1) return 0;
  const m = mean(v);
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1));
}

export async function statsFileSizes(table: Table, pathGlob: string): Promise<TableResult> {
  const view = await loadFileSystemView(table, { includeInflight: true });
  const match = globMatcher(pathGlob);
  const byCommit = new Map<string, number[]>();
  const all: number[] = [];
  for (const fg of view.allFileGroups()) {
    if (!match(fg.partition)) continue;
    for (const s of fg.slices) {
      if (!s.baseFile) continue;
      const list = byCommit.get(s.baseFile.instant) ?? [];
      list.push(s.baseFile.size);
      byCommit.set(s.baseFile.instant, list);
      all.push(s.baseFile.size);
    }
  }
  const rows: SizeRow[] = javaHashMapOrder([...byCommit.keys()], 16).map((k) => ({ commitTime: k, sizes: byCommit.get(k)! }));
  rows.push({ commitTime: 'ALL', sizes: all });
  for (const r of rows) r.sizes.sort((a, b) => a - b);
  const stat = (key: string, header: string, f: (v: number[]) => number): ColumnSpec<SizeRow> => ({
    key,
    header,
    value: (r) => f(r.sizes),
    format: bytesHuman,
  });
  return result(
    [
      { key: 'commitTime', header: 'CommitTime', value: (r: SizeRow) => r.commitTime },
      stat('min', 'Min', (v) => v[0] ?? 0),
      stat('p10', '10th', (v) => quantile(v, 0.1)),
      stat('p50', '50th', (v) => quantile(v, 0.5)),
      stat('avg', 'avg', mean),
      stat('p95', '95th', (v) => quantile(v, 0.95)),
      stat('max', 'Max', (v) => v[v.length - 1] ?? 0),
      { key: 'numFiles', header: 'NumFiles', value: (r: SizeRow) => r.sizes.length },
      stat('stdDev', 'StdDev', stdDev),
    ],
    rows,
  );
}
