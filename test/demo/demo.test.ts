import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import avro from 'avsc';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { LocalStorage } from '../../src/storage/index.ts';
import { generateDemoTable, type DemoSummary } from '../../src/demo/index.ts';
import { parseProperties, tableChecksum, toTableConfig } from '../../src/config/index.ts';
import { parseInstantFileName } from '../../src/timeline/index.ts';
import { readPartitionMetadata } from '../../src/fs-view/index.ts';
import { parseInstantTime } from '../../src/util/index.ts';
import {
  SCHEMAS,
  decodeCleanMetadata,
  decodeCleanerPlan,
  decodeCommitMetadata,
  decodeCompactionPlan,
  decodeRollbackMetadata,
  decodeRollbackPlan,
  schemaRecordName,
  sniffContent,
  type CommitMetadata,
} from '../../src/metadata/index.ts';
import { readLogFile } from '../../src/logfile/index.ts';
import { openTableAt } from '../../src/table/index.ts';
import { HoodieBloomFilter } from '../../src/parquet/bloom.ts';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';

const storage = new LocalStorage();
const NOW = new Date('2025-06-01T12:00:00Z');

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}
function ab(b: Uint8Array): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}
/** avsc's own container decoder (independent of src/metadata's framing). */
async function avscDecode(path: string): Promise<{ schemaName: string; records: unknown[] }> {
  const records: unknown[] = [];
  let schemaName = '';
  await new Promise<void>((resolve, reject) => {
    avro
      .createFileDecoder(path, { wrapUnions: 'auto' } as never)
      .on('metadata', (t: avro.Type) => (schemaName = (t as unknown as { name: string }).name))
      .on('data', (r: unknown) => records.push(r))
      .on('end', () => resolve())
      .on('error', reject);
  });
  return { schemaName, records };
}

for (const version of [6, 8] as const) {
  describe(`demo table, table version ${version}`, () => {
    let dir: string;
    let summary: DemoSummary;
    let timelineDir: string;
    const layout = version === 8 ? 2 : 1;
    const completedCommits = new Map<string, CommitMetadata>();

    beforeAll(async () => {
      dir = join(mkdtempSync(join(tmpdir(), 'tblcli-demo-')), 'demo_orders');
      summary = await generateDemoTable(storage, dir, { tableVersion: version, now: NOW });
      timelineDir = layout === 2 ? join(dir, '.hoodie', 'timeline') : join(dir, '.hoodie');
    });

    it('hoodie.properties parses, has the right layout and the CRC32 checksum of default.demo_orders', () => {
      const props = parseProperties(readFileSync(join(dir, '.hoodie', 'hoodie.properties')));
      const cfg = toTableConfig(props, dir);
      expect(cfg.checksumMismatch).toBeUndefined();
      expect(props.get('hoodie.table.checksum')).toBe(tableChecksum('default', 'demo_orders'));
      expect(props.get('hoodie.table.type')).toBe('MERGE_ON_READ');
      expect(props.get('hoodie.table.version')).toBe(String(version));
      expect(props.get('hoodie.timeline.layout.version')).toBe(String(layout));
      expect(JSON.parse(props.get('hoodie.table.create.schema')!).name).toBe('demo_orders_record');
    });

    it.skipIf(!HAVE_FIXTURES)('hoodie.properties has the same keys as a real table of that version', () => {
      const real = parseProperties(
        readFileSync(join(table(version === 6 ? 'quickstart_trips_table/mor/avro/v6_trips_8i1u' : 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d'), '.hoodie', 'hoodie.properties')),
      );
      const ours = parseProperties(readFileSync(join(dir, '.hoodie', 'hoodie.properties')));
      // the real v8 table has a metadata table and an index definition; the demo has neither
      const mdtKeys = ['hoodie.table.metadata.partitions', 'hoodie.table.metadata.partitions.inflight', 'hoodie.table.index.defs.path'];
      expect([...ours.keys()].sort()).toEqual([...real.keys()].filter((k) => !mdtKeys.includes(k)).sort());
    });

    it('every instant file decodes with src/metadata and with avsc against the Hudi schemas', async () => {
      const names = readdirSync(timelineDir).filter((n) => /^\d/.test(n));
      expect(names.length).toBeGreaterThan(20);
      for (const name of names) {
        const path = join(timelineDir, name);
        const bytes = new Uint8Array(readFileSync(path));
        const p = parseInstantFileName(name, layout)!;
        expect(p, name).toBeDefined();
        if (layout === 2 && p.state === 'COMPLETED') expect(p.completionTime, name).toMatch(/^\d{17}$/);
        const ctx = { path };
        const kind = sniffContent(bytes, ctx);
        if (kind === 'avro') {
          const { schemaName, records } = await avscDecode(path);
          expect(records, name).toHaveLength(1);
          const expected = schemaRecordName(bytes, ctx)!;
          expect(schemaName.endsWith(expected), name).toBe(true);
          const fields = (SCHEMAS[expected as keyof typeof SCHEMAS] as { fields: { name: string }[] }).fields.map((f) => f.name);
          expect(Object.keys(records[0] as object), name).toEqual(fields);
        }
        if (p.action === 'deltacommit' || (p.action === 'commit' && p.state === 'COMPLETED')) {
          if (p.state === 'REQUESTED') {
            expect(bytes.length, name).toBe(0);
            continue;
          }
          expect(kind, name).toBe(layout === 2 ? 'avro' : 'json');
          const m = decodeCommitMetadata(bytes, ctx);
          if (p.state === 'COMPLETED') completedCommits.set(p.requestedTime, m);
        } else if (p.action === 'compaction') {
          if (p.state === 'INFLIGHT') expect(bytes.length).toBe(0);
          else expect(decodeCompactionPlan(bytes, ctx).operations!.length).toBe(1);
        } else if (p.action === 'clean') {
          if (p.state === 'REQUESTED') expect(decodeCleanerPlan(bytes, ctx).policy).toBe('KEEP_LATEST_COMMITS');
          else if (p.state === 'COMPLETED') expect(decodeCleanMetadata(bytes, ctx).totalFilesDeleted).toBe(2);
          else expect(bytes.length).toBe(0);
        } else if (p.action === 'rollback') {
          if (p.state === 'REQUESTED') expect(decodeRollbackPlan(bytes, ctx).instantToRollback!.action).toBe('deltacommit');
          else if (p.state === 'COMPLETED') expect(decodeRollbackMetadata(bytes, ctx).commitsRollback).toHaveLength(1);
          else expect(bytes.length).toBe(0);
        } else {
          throw new Error(`unexpected instant file ${name}`);
        }
      }
      expect(completedCommits.size).toBe(6); // 5 deltacommits + 1 compaction commit
    });

    it('instant times are 17 digits, strictly increasing, before now; the read path sees the same timeline', async () => {
      const times = summary.instants.map((i) => i.requestedTime);
      expect(times.every((t) => /^\d{17}$/.test(t))).toBe(true);
      expect([...times].sort()).toEqual(times);
      expect(new Set(times).size).toBe(times.length);
      const t = await openTableAt(storage, dir);
      const tl = await t.timeline();
      expect(tl.instants.map((i) => [i.requestedTime, i.effectiveAction, i.state])).toEqual(
        summary.instants.map((i) => [i.requestedTime, i.action, i.state]),
      );
      if (layout === 2) expect(tl.instants.filter((i) => i.state === 'COMPLETED').map((i) => i.completionTime)).toEqual(summary.instants.filter((i) => i.state === 'COMPLETED').map((i) => i.completionTime));
    });

    it('every parquet file reads with hyparquet: meta columns, footer keys and bloom filter are right', async () => {
      const files = walk(dir).filter((p) => p.endsWith('.parquet'));
      expect(files.length).toBe(6); // B, C, compacted A, E twice, F of the stuck instant
      for (const f of files) {
        const bytes = new Uint8Array(readFileSync(f));
        const md = parquetMetadata(ab(bytes));
        const kv = new Map((md.key_value_metadata ?? []).map((k) => [k.key, k.value ?? '']));
        const rows = await parquetReadObjects({ file: ab(bytes), compressors });
        const name = f.slice(f.lastIndexOf('/') + 1);
        const partition = relative(dir, f).split('/')[0]!;
        expect(rows.length).toBe(Number(md.num_rows));
        expect(md.schema.slice(1, 6).map((e) => e.name)).toEqual(['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path', '_hoodie_file_name']);
        const bloom = HoodieBloomFilter.deserialize(kv.get('org.apache.hudi.bloomfilter')!, kv.get('hoodie_bloom_filter_type_code'));
        const keys = rows.map((r) => r._hoodie_record_key as string);
        for (const r of rows) {
          expect(r._hoodie_file_name).toBe(name);
          expect(r._hoodie_partition_path).toBe(partition);
          expect(r._hoodie_record_key).toBe(r.order_id);
          expect(`region=${r.region}`).toBe(partition);
          expect(bloom.mightContain(r._hoodie_record_key as string)).toBe(true);
        }
        expect(kv.get('hoodie_min_record_key')).toBe([...keys].sort()[0]);
        expect(kv.get('hoodie_max_record_key')).toBe([...keys].sort().at(-1));
        expect(JSON.parse(kv.get('parquet.avro.schema')!).fields[0].name).toBe('_hoodie_commit_time');
      }
    });

    it('every partition has a .hoodie_partition_metadata naming the first instant', async () => {
      for (const p of summary.partitions) {
        const pm = await readPartitionMetadata(storage, join(dir, p));
        expect(pm).toMatchObject({ format: 'text', commitTime: summary.instants[0]!.requestedTime, partitionDepth: 1 });
      }
    });

    it('every log file parses with the log reader, without corrupt blocks', async () => {
      const logs = walk(dir).filter((p) => /\/\.[^/]+\.log\.\d+_/.test(p));
      expect(logs.length).toBe(version === 6 ? 4 : 2);
      const types: string[] = [];
      for (const l of logs) {
        const { blocks } = await readLogFile(storage, l, { withRecords: true });
        for (const b of blocks) {
          expect(b.corrupt, l).toBeUndefined();
          types.push(b.type);
          if (b.type === 'AVRO_DATA_BLOCK') expect(b.records!.every((r) => r._hoodie_commit_time === b.header.INSTANT_TIME)).toBe(true);
          if (b.type === 'DELETE_BLOCK') expect(b.deletes).toEqual([{ recordKey: 'ord-apac-0004', partitionPath: 'region=apac', orderingVal: 0, orderingClass: 'Integer' }]);
        }
      }
      expect(types.sort()).toEqual(version === 6 ? ['AVRO_DATA_BLOCK', 'AVRO_DATA_BLOCK', 'COMMAND_BLOCK', 'DELETE_BLOCK'] : ['AVRO_DATA_BLOCK', 'DELETE_BLOCK']);
    });

    it('write stats match the files written (sizes, record counts, prevCommit "null" for creates)', async () => {
      let checked = 0;
      for (const [instant, m] of completedCommits) {
        for (const stats of Object.values(m.partitionToWriteStats)) {
          for (const s of stats) {
            const p = join(dir, s.path!);
            if (!existsSync(p)) continue; // cleaned later
            checked++;
            expect(statSync(p).size, s.path!).toBe(s.fileSizeInBytes);
            expect(s.totalWriteBytes).toBe(s.fileSizeInBytes);
            if (s.path!.endsWith('.parquet')) {
              const md = parquetMetadata(ab(new Uint8Array(readFileSync(p))));
              expect(Number(md.num_rows)).toBe(s.numWrites);
              if (m.operationType === 'COMPACT') expect(s.prevCommit).not.toBe('null');
              else expect(s.prevCommit).toBe('null');
              expect(s.path!).toContain(`_${instant}.parquet`);
            } else {
              const { blocks } = await readLogFile(storage, p, { withRecords: true });
              const mine = blocks.filter((b) => b.header.INSTANT_TIME === instant);
              expect(mine.reduce((n, b) => n + (b.records?.length ?? 0), 0)).toBe(s.numUpdateWrites);
              expect(mine.reduce((n, b) => n + (b.deletes?.length ?? 0), 0)).toBe(s.numDeletes);
              expect(s.logFiles).toContain(s.path!.split('/').pop());
            }
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(7);
    });

    it('planted: one fileId created (prevCommit "null") by two completed instants', () => {
      const creators = new Map<string, string[]>();
      for (const [instant, m] of completedCommits) {
        for (const stats of Object.values(m.partitionToWriteStats)) {
          for (const s of stats) if (s.prevCommit === 'null') creators.set(s.fileId, [...(creators.get(s.fileId) ?? []), instant]);
        }
      }
      const dup = [...creators].filter(([, is]) => is.length > 1);
      expect(dup).toHaveLength(1);
      const problem = summary.problems.find((p) => p.kind === 'fileid-collision')!;
      expect(dup[0]![0]).toBe(problem.fileId);
      expect(dup[0]![1]).toEqual(problem.instants);
      for (const rel of problem.paths) expect(existsSync(join(dir, rel))).toBe(true);
    });

    it('planted: stuck inflight deltacommit with a data file, a marker dir and no heartbeat', () => {
      const stuck = summary.instants.find((i) => i.state === 'INFLIGHT')!;
      const t = stuck.requestedTime;
      const files = readdirSync(timelineDir).filter((n) => n.startsWith(t));
      expect(files.sort()).toEqual([`${t}.deltacommit.inflight`, `${t}.deltacommit.requested`]);
      expect(existsSync(join(dir, '.hoodie', '.heartbeat', t))).toBe(false);
      expect(walk(join(dir, '.hoodie', '.temp', t)).map((p) => p.split('/').pop())).toEqual([
        `${summary.problems.find((p) => p.kind === 'orphan-data-file')!.paths[0]!.split('/').pop()}.marker.CREATE`,
      ]);
      expect(walk(dir).filter((p) => p.endsWith(`_${t}.parquet`))).toHaveLength(1);
      // older than triage's default --older-than of 1h (instant times are in the table's LOCAL zone)
      expect(NOW.getTime() - parseInstantTime(t, 'LOCAL')!.getTime()).toBeGreaterThan(3600_000);
      // only the stuck instant has markers left
      expect(readdirSync(join(dir, '.hoodie', '.temp'))).toEqual([t]);
    });

    it('planted: Flink leftovers, a pending compaction plan, a completed compaction, clean and rollback that deleted files', async () => {
      const us = readdirSync(join(dir, 'region=us'));
      expect(us.filter((n) => /^\.part-.*\.inprogress\./.test(n))).toHaveLength(1);
      expect(us.filter((n) => /^part-.*\.pending\./.test(n))).toHaveLength(1);
      const compactions = summary.instants.filter((i) => i.action === 'compaction');
      expect(compactions.map((c) => c.state)).toEqual(['COMPLETED', 'REQUESTED']);
      const pending = compactions[1]!.requestedTime;
      expect(readdirSync(timelineDir).filter((n) => n.startsWith(pending))).toEqual([`${pending}.compaction.requested`]);
      const plan = decodeCompactionPlan(readFileSync(join(timelineDir, `${pending}.compaction.requested`)), { path: pending });
      for (const op of plan.operations!) {
        expect(existsSync(join(dir, op.partitionPath!, op.dataFilePath!))).toBe(true);
        for (const l of op.deltaFilePaths!) expect(existsSync(join(dir, op.partitionPath!, l))).toBe(true);
      }
      const compacted = completedCommits.get(compactions[0]!.requestedTime)!;
      expect(compacted.compacted).toBe(true);
      expect(compacted.operationType).toBe('COMPACT');
      const cleanName = readdirSync(timelineDir).find((n) => /\.clean$/.test(n))!;
      const clean = decodeCleanMetadata(readFileSync(join(timelineDir, cleanName)), { path: cleanName });
      for (const pm of Object.values(clean.partitionMetadata)) {
        for (const f of pm.successDeleteFiles) expect(existsSync(join(dir, pm.partitionPath, f))).toBe(false);
      }
      const rbName = readdirSync(timelineDir).find((n) => /\.rollback$/.test(n))!;
      const rb = decodeRollbackMetadata(readFileSync(join(timelineDir, rbName)), { path: rbName });
      const failed = rb.commitsRollback[0]!;
      expect(readdirSync(timelineDir).filter((n) => n.startsWith(failed))).toEqual([]);
      for (const pm of Object.values(rb.partitionMetadata)) {
        expect(pm.successDeleteFiles.length).toBeGreaterThan(0);
        for (const f of pm.successDeleteFiles) expect(existsSync(f)).toBe(false);
        for (const f of Object.keys(pm.rollbackLogFiles ?? {})) {
          const { blocks } = await readLogFile(storage, f);
          expect(blocks[0]!.header).toMatchObject({ TARGET_INSTANT_TIME: failed, COMMAND_BLOCK_TYPE: '0' });
        }
      }
      expect(Object.keys(Object.values(rb.partitionMetadata)[0]!.rollbackLogFiles ?? {})).toHaveLength(version === 6 ? 1 : 0);
    });

    it('is deterministic for a given now and refuses to overwrite an existing table', async () => {
      const again = join(mkdtempSync(join(tmpdir(), 'tblcli-demo-')), 'demo_orders');
      const s2 = await generateDemoTable(storage, again, { tableVersion: version, now: NOW });
      expect(s2.instants).toEqual(summary.instants);
      expect(walk(again).map((p) => relative(again, p)).sort()).toEqual(walk(dir).map((p) => relative(dir, p)).sort());
      await expect(generateDemoTable(storage, dir, { tableVersion: version, now: NOW })).rejects.toThrow(/already holds a Hudi table/);
    });
  });
}
