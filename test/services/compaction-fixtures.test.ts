// schedule + run on fresh copies of every MOR fixture table with log files: the snapshot is unchanged,
// upstream assertions hold, the new base files hold the rows with correct meta columns, the instant
// files decode with Hudi's schemas, and hudi-cli views show the compaction.
import { readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetReadObjects, parquetMetadata } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { latestTableSchema, loadFileSystemView, openTable } from '../../src/table/index.ts';
import { runCompaction, scheduleCompaction, type RunResult } from '../../src/services/index.ts';
import type { Row } from '../../src/merge/index.ts';
import { decodeCommitMetadata, decodeCompactionPlan, readAvroContainer } from '../../src/metadata/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table, tableFresh } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { comparable, logicalTypes, snapshotRows } from './support/snapshot.ts';
import { EXPECTED } from './support/expected.ts';

const FAST = { clockSkewMs: 1 };

function morWithLogs(): string[] {
  if (!HAVE_FIXTURES) return [];
  return allTableIds().filter((id) => {
    const t = catalogTable(id);
    return t.table_type === 'MERGE_ON_READ' && Number(t.num_log_files) > 0 && !String(t.base_file_format).startsWith('LANCE');
  });
}

function timelineDir(base: string): string {
  return existsSync(join(base, '.hoodie/timeline')) ? join(base, '.hoodie/timeline') : join(base, '.hoodie');
}

/** Field set of the write stats of real compaction commits (v8 trips, layout 2). */
function realCompactionStatFields(): string[] {
  const dir = timelineDir(table('quickstart_trips_table/mor/avro/v8_trips_8i3u1d'));
  const f = readdirSync(dir).find((n) => /^20251220210129235_\d+\.commit$/.test(n))!;
  const rec = readAvroContainer(readFileSync(join(dir, f)), { path: f }).records[0] as { partitionToWriteStats: Record<string, object[]> };
  return Object.keys(Object.values(rec.partitionToWriteStats)[0]![0]!).sort();
}

describe.skipIf(!HAVE_FIXTURES)('compaction schedule + run on fixture tables', () => {
  for (const id of morWithLogs()) {
    it(`${id}`, async () => {
      const base = tableFresh(id);
      const before = await snapshotRows(base);
      const mdt = (catalogTable(id).metadata_table_exists as boolean) === true;
      const opts = { ...FAST, metadataTable: mdt ? ('disable' as const) : undefined };
      if (mdt) {
        await expect(scheduleCompaction(await openTable(base), { ...FAST, strategy: 'all', metadataTable: 'refuse' })).rejects.toThrow(/metadata table/);
      }
      const view = await loadFileSystemView(await openTable(base));
      const withLogs = view.latestFileSlices().filter((x) => x.logFiles.length > 0);
      const s = await scheduleCompaction(await openTable(base), { ...opts, strategy: 'all' });
      if (withLogs.length === 0) {
        // every log is already compacted (v9 txns) or in a replaced file group (overwritetable)
        expect(s.instant).toBeUndefined();
        expect(s.reason).toMatch(/no file slice with log files/);
        expect((await runCompaction(await openTable(base), opts)).status).toBe('nothing-to-do');
        return;
      }
      expect(s.instant, s.reason).toBeDefined();
      expect(s.plan!.operations!.length).toBe(withLogs.length);
      const t0 = await openTable(base);
      expect(t0.config.metadataPartitions).toEqual([]);
      expect(existsSync(join(base, '.hoodie/metadata'))).toBe(false);
      const r = await runCompaction(await openTable(base), opts);
      expect(r.status).toBe('completed');
      expect(r.instant).toBe(s.instant);
      await verifyCompaction(id, base, r, before);
      // everything was compacted: the read-optimized view (base files only) is the snapshot
      const types = logicalTypes((await latestTableSchema(await openTable(base))).schema);
      expect(comparable(await snapshotRows(base, { readOptimized: true }), types)).toEqual(comparable(before, types));
    });
  }

  for (const id of withRealCompaction()) {
    it(`${id}: re-executes Hudi's own plan and writes the rows Hudi wrote`, async () => {
      const base = tableFresh(id);
      const dir = timelineDir(base);
      const T = instantsOf(id).find((i) => i.effective_action === 'compaction')!.ts;
      // Hudi's output, then back to the state right after Hudi scheduled the plan
      const hudiFiles = new Map<string, Record<string, unknown>[]>();
      for (const p of findBaseFiles(base, T)) {
        hudiFiles.set(p.split('/').pop()!.split('_')[0]!, await readRows(p));
        rmSync(p);
      }
      for (const n of readdirSync(dir)) if (n.startsWith(`${T}_`) || n === `${T}.compaction.inflight`) rmSync(join(dir, n));
      const before = await snapshotRows(base);
      const mdt = (catalogTable(id).metadata_table_exists as boolean) === true;
      const opts = { ...FAST, metadataTable: mdt ? ('disable' as const) : undefined };
      const r = await runCompaction(await openTable(base), opts);
      expect(r.status).toBe('completed');
      expect(r.instant).toBe(T);
      expect(r.fileGroups).toBe(hudiFiles.size);
      const types = logicalTypes((await latestTableSchema(await openTable(base))).schema);
      for (const st of r.writeStats) {
        const ours = await readRows(join(base, st.path!));
        expect(comparable(ours, types)).toEqual(comparable(hudiFiles.get(st.fileId)!, types));
      }
      await verifyCompaction(id, base, r, before);
    });
  }
});

function instantsOf(id: string): { ts: string; effective_action: string }[] {
  return (catalogTable(id).instants ?? []) as { ts: string; effective_action: string }[];
}

function withRealCompaction(): string[] {
  if (!HAVE_FIXTURES) return [];
  return allTableIds().filter((id) => instantsOf(id).some((i) => i.effective_action === 'compaction'));
}

function findBaseFiles(base: string, instant: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.hoodie') continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(`_${instant}.parquet`)) out.push(join(d, e.name));
    }
  };
  walk(base);
  return out;
}

async function readRows(path: string): Promise<Record<string, unknown>[]> {
  const buf = readFileSync(path);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return (await parquetReadObjects({ file: ab, compressors })) as Record<string, unknown>[];
}

let duck: Promise<DuckDBConnection> | undefined;
/** The independent reader of issue 6 (b): DuckDB's own parquet reader, not hyparquet. */
async function duckdbMetaRows(path: string): Promise<string[][]> {
  duck ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  const c = await duck;
  const r = await c.runAndReadAll(
    `SELECT _hoodie_commit_time, _hoodie_commit_seqno, _hoodie_record_key, _hoodie_partition_path, _hoodie_file_name
       FROM read_parquet('${path.replaceAll("'", "''")}', file_row_number = true) ORDER BY file_row_number`,
  );
  return r.getRows().map((row) => row.map((v) => String(v)));
}

async function verifyCompaction(id: string, base: string, r: RunResult, before: Row[]): Promise<void> {
      const T = r.instant!;
      const types = logicalTypes((await latestTableSchema(await openTable(base))).schema);
      const opts = { ...FAST, metadataTable: 'disable' as const };
      // (a) snapshot unchanged and upstream assertions still hold
      const after = await snapshotRows(base);
      expect(comparable(after, types)).toEqual(comparable(before, types));
      await EXPECTED[id]?.(after);

      // (b) new base files read by hyparquet directly: rows + meta columns
      let total = 0;
      for (const st of r.writeStats) {
        const path = join(base, st.path!);
        const buf = readFileSync(path);
        const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
        const md = parquetMetadata(ab);
        const kv = Object.fromEntries((md.key_value_metadata ?? []).map((k) => [k.key, k.value]));
        for (const k of ['parquet.avro.schema', 'org.apache.hudi.bloomfilter']) expect(kv).toHaveProperty(k);
        if (st.numWrites > 0) for (const k of ['hoodie_min_record_key', 'hoodie_max_record_key']) expect(kv).toHaveProperty(k);
        const rows = (await parquetReadObjects({ file: ab, compressors })) as Record<string, unknown>[];
        expect(rows.length).toBe(st.numWrites);
        total += rows.length;
        const name = st.path!.split('/').pop()!;
        expect(name).toMatch(new RegExp(`^${st.fileId}_\\d+-\\d+-\\d+_${T}\\.parquet$`));
        for (const row of rows) {
          expect(row._hoodie_file_name).toBe(name);
          expect(row._hoodie_partition_path).toBe(st.partitionPath);
          expect(String(row._hoodie_commit_time) <= T).toBe(true);
          expect(String(row._hoodie_commit_seqno).startsWith(String(row._hoodie_commit_time))).toBe(true);
        }
        expect(md.row_groups.every((rg) => rg.columns.every((c) => c.meta_data?.codec === "GZIP"))).toBe(true);
        // (b) the same file read by DuckDB: same rows in the same order, same meta columns
        const meta = ['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path', '_hoodie_file_name'];
        expect(await duckdbMetaRows(path)).toEqual(rows.map((row) => meta.map((m) => String(row[m]))));
      }
      const written = new Set(r.writeStats.map((st) => st.path!.split('/').pop()));
      // every row now in a new base file is read from it (log rows of later deltacommits are not)
      expect(after.filter((row) => written.has(String(row._hoodie_file_name))).length).toBeLessThanOrEqual(total);
      expect(total).toBe(r.records);

      // (e) written plan and commit decode with Hudi's schemas
      const dir = timelineDir(base);
      const names = readdirSync(dir);
      const plan = decodeCompactionPlan(readFileSync(join(dir, `${T}.compaction.requested`)), { path: 'plan' });
      expect(plan.operations!.length).toBe(r.fileGroups);
      const layout2 = catalogTable(id).timeline_layout_version === 2;
      const commitName = names.find((n) => n.startsWith(`${T}`) && n.endsWith('.commit'))!;
      expect(commitName).toMatch(layout2 ? new RegExp(`^${T}_\\d{17}\\.commit$`) : new RegExp(`^${T}\\.commit$`));
      const bytes = readFileSync(join(dir, commitName));
      if (layout2) expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).toBe('Obj\x01');
      else expect(bytes[0]).toBe(0x7b);
      const cm = decodeCommitMetadata(bytes, { path: commitName });
      expect(cm.operationType).toBe('COMPACT');
      expect(cm.compacted).toBe(true);
      // (d) same write-stat field set as a real compaction commit
      if (layout2) {
        const rec = readAvroContainer(bytes, { path: commitName }).records[0] as { partitionToWriteStats: Record<string, object[]> };
        expect(Object.keys(Object.values(rec.partitionToWriteStats)[0]![0]!).sort()).toEqual(realCompactionStatFields());
      }
      expect(names.filter((n) => n.startsWith(T)).sort()).toEqual(
        [`${T}.compaction.inflight`, `${T}.compaction.requested`, commitName].sort(),
      );
      // markers and heartbeat gone
      expect(existsSync(join(base, '.hoodie/.temp', T))).toBe(false);
      expect(existsSync(join(base, '.hoodie/.heartbeat', T))).toBe(false);
      expect(existsSync(join(base, '.hoodie/.aux/lock'))).toBe(false);

      // (c) hudi-cli views
      const commits = await runCli(['commits', 'show', '--path', base, '--json']);
      expect(commits.exitCode, commits.stderr).toBe(0);
      expect(JSON.stringify(JSON.parse(commits.stdout))).toContain(T);
      const comps = await runCli(['compactions', 'show', 'all', '--path', base, '--json']);
      expect(comps.exitCode, comps.stderr).toBe(0);
      const row = (JSON.parse(comps.stdout) as Record<string, unknown>[]).find((x) => Object.values(x).includes(T));
      expect(row).toBeDefined();
      expect(Object.values(row!)).toContain('COMPLETED');

      // a second run has nothing to do; the completed instant is never redone
      expect((await runCompaction(await openTable(base), opts)).status).toBe('nothing-to-do');
      expect((await runCompaction(await openTable(base), { ...opts, instant: T })).status).toBe('already-completed');
}
