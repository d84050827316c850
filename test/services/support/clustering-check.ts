// What every clustering acceptance test checks on a table before and after `scheduleAndExecute`:
// the snapshot (our merged reader; DuckDB over the latest base files), file counts as the plan says,
// sort order of every new file (DuckDB), replaced groups hidden by the view, MDT in step.
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import { readRecordIndex } from '../../../src/mdt/index.ts';
import { mergeConfigFromProperties } from '../../../src/merge/index.ts';
import { tableWriterSchema, type ClusteringRunResult, type ClusteringScheduleResult } from '../../../src/services/index.ts';
import type { ClusterJob } from '../../../src/services/rewrite/cluster-op.ts';
import { committedInstantsOf } from '../../../src/services/rewrite/inputs.ts';
import { LocalStorage } from '../../../src/storage/index.ts';
import { parseInstantTime } from '../../../src/util/instant-time.ts';
import { loadFileSystemView, openTable, viewTimelineOf } from '../../../src/table/index.ts';
import { comparable, logicalTypes, snapshotRows } from './snapshot.ts';

export interface Before {
  rows: Record<string, unknown>[];
  /** DuckDB's rows of the latest base files (COW only: MOR slices have logs DuckDB cannot merge) */
  duck?: string[];
  /** latest file slices */
  slices: number;
  types: Map<string, string>;
}

let db: DuckDBInstance | undefined;
export async function duck(): Promise<DuckDBConnection> {
  db ??= await DuckDBInstance.create(':memory:');
  return db.connect();
}

export async function latestBaseFiles(base: string): Promise<string[]> {
  const view = await loadFileSystemView(await openTable(base));
  return view.latestFileSlices().flatMap((s) => (s.baseFile ? [s.baseFile.path] : []));
}

const jsonSorted = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? [...v] : v))).sort();

const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Every row of the files as DuckDB reads them, without _hoodie_file_name, as sorted JSON lines. */
export async function duckRows(files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const con = await duck();
  try {
    const r = await con.runAndReadAll(`select * exclude (_hoodie_file_name) from read_parquet([${files.map(q).join(',')}], union_by_name = true)`);
    return r
      .getRowObjectsJson()
      .map((x) => JSON.stringify(x))
      .sort();
  } finally {
    con.closeSync();
  }
}

export async function captureBefore(base: string): Promise<Before> {
  const table = await openTable(base);
  const types = logicalTypes(table.config.createSchema);
  const rows = comparable(await snapshotRows(base), types);
  const view = await loadFileSystemView(table);
  const slices = view.latestFileSlices();
  const cow = table.config.type === 'COPY_ON_WRITE';
  return { rows, types, slices: slices.length, duck: cow ? await duckRows(slices.flatMap((s) => (s.baseFile ? [s.baseFile.path] : []))) : undefined };
}

/** The checks after a completed clustering of `s`'s plan. */
export async function checkAfter(base: string, before: Before, s: ClusteringScheduleResult, r: ClusteringRunResult, sortColumns: string[] = [], layout = 'linear'): Promise<void> {
  expect(r.status).toBe('completed');
  const plan = s.plan!;
  const inputs = plan.inputGroups!.flatMap((g) => g.slices ?? []);
  // every input file group replaced, none left in the view
  expect(Object.values(r.partitionToReplaceFileIds).flat().sort()).toEqual(inputs.map((x) => x.fileId!).sort());
  const view = await loadFileSystemView(await openTable(base));
  const live = new Set(view.latestFileSlices().map((x) => x.fileId));
  for (const i of inputs) expect(live.has(i.fileId!), `replaced ${i.fileId} still in the view`).toBe(false);
  // file counts drop as the plan says: inputs out, the new files in
  expect(view.latestFileSlices().length).toBe(before.slices - inputs.length + r.files);
  expect(r.files).toBeGreaterThanOrEqual(plan.inputGroups!.filter((g) => (g.numOutputFileGroups ?? 1) > 0).length > 0 && r.records > 0 ? 1 : 0);
  // the snapshot: our merged reader
  expect(jsonSorted(comparable(await snapshotRows(base), before.types))).toEqual(jsonSorted(before.rows));
  // DuckDB over the latest base files: every record exactly once; equal to DuckDB's view before (COW)
  const files = await latestBaseFiles(base);
  const after = await duckRows(files);
  expect(after.length).toBe(before.rows.length);
  if (before.duck) expect(after).toEqual(before.duck);
  const con = await duck();
  try {
    const keys = (await con.runAndReadAll(`select count(distinct _hoodie_record_key) as n from read_parquet([${files.map(q).join(',')}], union_by_name = true)`)).getRowObjectsJS();
    expect(Number(keys[0]!.n)).toBe(new Set(before.rows.map((x) => `${x._hoodie_partition_path}\u0000${x._hoodie_record_key}`)).size > 0 ? new Set(before.rows.map((x) => x._hoodie_record_key)).size : 0);
    // each new file sorted by the sort columns (ascending, nulls first)
    if (sortColumns.length > 0 && (layout === 'linear' || sortColumns.length === 1)) {
      for (const w of r.writeStats) {
        const f = join(base, w.path!);
        const cols = sortColumns.map((c) => `"${c}"`).join(', ');
        const asRead = (await con.runAndReadAll(`select ${cols} from read_parquet(${q(f)})`)).getRowsJson();
        const sorted = (await con.runAndReadAll(`select ${cols} from read_parquet(${q(f)}) order by ${sortColumns.map((c) => `"${c}" asc nulls first`).join(', ')}`)).getRowsJson();
        expect(asRead, `${w.path} sorted by ${sortColumns.join(',')}`).toEqual(sorted);
      }
    }
    // the record index (where the table keeps one) points every key of a new file at its file group
    const table = await openTable(base);
    if (table.config.metadataPartitions.includes('record_index')) {
      const ri = await readRecordIndex(new LocalStorage(), base);
      const at = parseInstantTime(r.instant!, table.config.timezone)!.getTime();
      // (a table holding a key in two groups keeps one entry for it, pointing at one of them)
      const holders = new Map<string, string[]>();
      for (const w of r.writeStats) {
        const keys = (await con.runAndReadAll(`select _hoodie_record_key as k from read_parquet(${q(join(base, w.path!))})`)).getRowObjectsJS().map((x) => String(x.k));
        for (const k of keys) holders.set(k, [...(holders.get(k) ?? []), `${w.partitionPath}/${w.fileId}`]);
      }
      expect([...holders.values()].reduce((n, h) => n + h.length, 0)).toBe(r.records);
      for (const [k, h] of holders) {
        const e = ri.get(k);
        expect(e, `record index entry of ${k}`).toBeDefined();
        expect(h, `record index entry of ${k}`).toContain(`${e!.partition}/${e!.fileId}`);
        expect(e!.instantTime).toBe(at);
      }
    }
  } finally {
    con.closeSync();
  }
}

/** A clustering job over every latest slice of `partition`, as execute builds one (two outputs' file id prefixes), with `o` over it. */
export async function clusterJobOf(base: string, partition: string, o: Partial<ClusterJob> & Pick<ClusterJob, 'rowGroupSize' | 'sortColumns'>): Promise<ClusterJob> {
  const table = await openTable(base);
  const view = await loadFileSystemView(table);
  return {
    partition,
    instant: '20260101000000000',
    slices: view.latestFileSlices(partition).map((s) => ({ fileId: s.fileId, baseFile: { path: s.baseFile!.path, size: s.baseFile!.size }, logFiles: s.logFiles.map((l) => ({ path: l.path, size: l.size })) })),
    writerSchema: await tableWriterSchema(table),
    config: mergeConfigFromProperties(Object.fromEntries(table.config.props)),
    committed: committedInstantsOf(await viewTimelineOf(table)),
    layout: 'linear',
    fileIdPrefixes: ['11111111-2222-3333-4444-555555555555', '66666666-7777-8888-9999-000000000000'],
    firstTask: 0,
    targetFileMaxBytes: 1 << 30,
    withKeys: true,
    ...o,
  };
}
