// Metadata-table compaction against the real MDT compactions Hudi wrote (v8 8i3u1d, the v9 txns and
// trips tables, the Trino v6 table's three): on a copy rewound to just before Hudi scheduled it (the
// compaction and every later MDT instant removed with their files), tblcli decides to compact as
// Hudi's writer did, plans the same operations, and writes, per file group, a base HFile with Hudi's
// records (keys and value bytes, with Hudi's file name in `_hoodie_file_name`), file info, bloom
// filter and structure; the write stats agree. Hudi's own plan, left pending, is finished too.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HFileReader } from '../../src/hfile/index.ts';
import { decodeCommitMetadata, decodeCompactionPlan, type CompactionOperation, type WriteStat } from '../../src/metadata/index.ts';
import {
  compactMetadataTableIfDue,
  decideMdtCompaction,
  finishPendingMdtCompactions,
  mdtBaseFile,
  planMdtCompaction,
} from '../../src/mdt/compaction.ts';
import { decodeMetadataRecord, encodeMetadataRecord, mdtViewTimeline, mdtWriterSchema, validInstants, type MetadataRecord } from '../../src/mdt/index.ts';
import { buildFileSystemView, listPartitions } from '../../src/fs-view/index.ts';
import { LocalStorage } from '../../src/storage/index.ts';
import { openTable, openTableAt } from '../../src/table/index.ts';
import type { Instant } from '../../src/timeline/index.ts';
import { catalog, HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { structure } from '../support/hfile-structure.ts';
import { runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';

const storage = new LocalStorage();
const TRINO_AFTER_INIT = '00000000000000012001';
const OPTS = { clockSkewMs: 1 };

interface Case {
  name: string;
  /** the pristine table */
  src: () => string;
  /** Hudi's MDT compaction instant */
  instant: string;
  /** hoodie.metadata.compact.max.delta.commits the writer ran with */
  maxDeltaCommits: number;
}

function isDelta(i: Instant): boolean {
  return i.action === 'deltacommit' || i.effectiveAction === 'deltacommit';
}

async function compactionsOf(base: string): Promise<string[]> {
  const tl = await (await openTableAt(storage, join(base, '.hoodie', 'metadata'))).timeline();
  return tl.completed().filter((i) => i.action === 'commit').map((i) => i.requestedTime);
}

function cases(): Case[] {
  const out: Case[] = [];
  if (HAVE_FIXTURES) {
    for (const t of catalog().tables) {
      if (!(t as { metadata_table_exists?: boolean }).metadata_table_exists) continue;
      const dir = join(table(t.id), '.hoodie', 'metadata', '.hoodie', 'timeline');
      for (const f of readdirSync(dir)) {
        const m = /^(\d+)_\d+\.commit$/.exec(f);
        if (m) out.push({ name: `${t.id} ${m[1]}`, src: () => table(t.id), instant: m[1]!, maxDeltaCommits: 10 });
      }
    }
  }
  if (HAVE_TRINO_V6) {
    for (const f of readdirSync(join(trinoV6Table(), '.hoodie', 'metadata', '.hoodie'))) {
      const m = /^(\d+)\.commit$/.exec(f);
      // the Trino writer compacted after every deltacommit (hoodie.metadata.compact.max.delta.commits=1)
      if (m) out.push({ name: `trino hudi_multi_fg_pt_v6_mor ${m[1]}`, src: trinoV6Table, instant: m[1]!, maxDeltaCommits: 1 });
    }
  }
  return out;
}

function copyOf(src: string): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-mdtc-')), 'table');
  cpSync(src, dest, { recursive: true, preserveTimestamps: true });
  return dest;
}

const mdtDir = (base: string) => join(base, '.hoodie', 'metadata');

function partitionsOf(base: string): string[] {
  return readdirSync(mdtDir(base)).filter((d) => d !== '.hoodie' && !d.startsWith('.'));
}

/** Removes compaction `c`'s base files. */
function removeOutputs(base: string, c: string): void {
  for (const p of partitionsOf(base)) for (const f of readdirSync(join(mdtDir(base), p))) if (f.endsWith(`_${c}.hfile`)) rmSync(join(mdtDir(base), p, f));
}

/**
 * The MDT as it was when Hudi scheduled compaction `c`: `c` and every later MDT instant gone (v8/9:
 * also deltacommits that completed after `c`), with the files they wrote.
 */
async function rewind(base: string, c: string): Promise<void> {
  const mdt = await openTableAt(storage, mdtDir(base));
  const tl = await mdt.timeline();
  const gone = tl.instants.filter((i) => i.requestedTime >= c || (tl.layout === 2 && isDelta(i) && i.state === 'COMPLETED' && i.completionTime! > c));
  for (const i of gone) {
    if (isDelta(i) && i.state === 'COMPLETED') {
      const m = decodeCommitMetadata(await tl.read(i), { path: i.files.COMPLETED!.path });
      for (const s of Object.values(m.partitionToWriteStats).flat()) if (s.path) rmSync(join(mdtDir(base), s.path), { force: true });
    }
    if (i.action === 'commit' || isDelta(i) === false) removeOutputs(base, i.requestedTime);
    for (const f of Object.values(i.files)) if (f) rmSync(f.path);
  }
}

/** Base files of compaction `c` by file id. */
function outputs(base: string, c: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of partitionsOf(base)) for (const f of readdirSync(join(mdtDir(base), p))) if (f.endsWith(`_${c}.hfile`)) out.set(f.slice(0, f.indexOf('_')), join(mdtDir(base), p, f));
  return out;
}

async function statsOf(base: string, c: string): Promise<Map<string, WriteStat>> {
  const tl = await (await openTableAt(storage, mdtDir(base))).timeline();
  const i = tl.find(c).find((x) => x.state === 'COMPLETED')!;
  const m = decodeCommitMetadata(await tl.read(i), { path: i.files.COMPLETED!.path });
  return new Map(Object.values(m.partitionToWriteStats).flat().map((s) => [s.fileId, s]));
}

async function recordsOf(path: string): Promise<{ reader: HFileReader; schema: string; raw: { key: string; value: Uint8Array }[]; records: MetadataRecord[] }> {
  const reader = await HFileReader.open(storage, path);
  const schema = reader.avroSchemaJson!;
  const raw = await reader.readAll();
  return { reader, schema, raw, records: raw.map((r) => decodeMetadataRecord(r.key, r.value, schema, path)) };
}

const STAT_FIELDS = [
  'numWrites',
  'numDeletes',
  'numUpdateWrites',
  'numInserts',
  'totalLogRecords',
  'totalLogFilesCompacted',
  'totalLogSizeCompacted',
  'totalUpdatedRecordsCompacted',
  'totalLogBlocks',
  'totalRollbackBlocks',
  'totalCorruptLogBlock',
  'prevCommit',
  'partitionPath',
] as const;

/** Our compaction `ours` of `base` against Hudi's `c` of `pristine`, file group by file group. */
async function compareWithHudi(pristine: string, c: string, base: string, ours: string): Promise<void> {
  const version = (await openTable(pristine)).config.version;
  const hudi = outputs(pristine, c);
  const mine = outputs(base, ours);
  expect([...mine.keys()].sort()).toEqual([...hudi.keys()].sort());
  const hudiStats = await statsOf(pristine, c);
  const myStats = await statsOf(base, ours);
  for (const [fileId, hudiPath] of hudi) {
    const h = await recordsOf(hudiPath);
    const m = await recordsOf(mine.get(fileId)!);
    const hudiName = hudiPath.split('/').pop()!;
    expect(m.schema, fileId).toBe(h.schema);
    expect(m.raw.map((r) => r.key), fileId).toEqual(h.raw.map((r) => r.key));
    // the value bytes, with Hudi's file name in _hoodie_file_name: every field, map order included
    const schema = mdtWriterSchema(m.schema);
    const renamed = m.records.map((r) => ({ ...r, meta: { ...r.meta!, fileName: hudiName } }));
    expect(renamed.map(show), fileId).toEqual(h.records.map(show));
    const bytes = renamed.map((r) => Buffer.from(encodeMetadataRecord(r, schema)).toString('hex'));
    expect(bytes, fileId).toEqual(h.raw.map((r) => Buffer.from(r.value).toString('hex')));
    for (const k of ['schema', 'bloomFilterTypeCode', 'minRecordKey', 'maxRecordKey']) expect(m.reader.fileInfoString(k), `${fileId} ${k}`).toBe(h.reader.fileInfoString(k));
    // 1.1's own writer also names an empty file's last key; HBase's (ours) does not
    const hbaseKeys = (r: HFileReader) => [...r.fileInfo.keys()].filter((x) => !(x === 'hfile.LASTKEY' && r.trailer.entryCount === 0)).sort();
    expect(hbaseKeys(m.reader), fileId).toEqual(hbaseKeys(h.reader));
    expect(Buffer.from((await m.reader.metaBlock('bloomFilter'))!).equals(Buffer.from((await h.reader.metaBlock('bloomFilter'))!)), `${fileId} bloom filter`).toBe(true);
    // the same records under Hudi's name make Hudi's file, block for block
    // (1.1 writes its own HFile variant — minor version 0, no checksums, short keys — tblcli HBase's, §5.9)
    const rewritten = mdtBaseFile(renamed.map(({ meta: _m, ...r }) => r as MetadataRecord), schema, hudiName, version);
    if (h.reader.trailer.minorVersion === 3) expect(structure(rewritten, true), fileId).toEqual(structure(new Uint8Array(readFileSync(hudiPath)), true));
    else expect([m.reader.trailer.entryCount, m.reader.trailer.metaIndexCount, m.reader.trailer.compression]).toEqual([h.reader.trailer.entryCount, h.reader.trailer.metaIndexCount, h.reader.trailer.compression]);
    const hs = hudiStats.get(fileId)!;
    const ms = myStats.get(fileId)!;
    // the lance tables' 1.1 writer counted totalLogSizeCompacted otherwise (not the plan's log sizes, as every other fixture)
    const fields = STAT_FIELDS.filter((f) => !(f === 'totalLogSizeCompacted' && pristine.includes('lance')));
    expect(Object.fromEntries(fields.map((f) => [f, ms[f]])), fileId).toEqual(Object.fromEntries(fields.map((f) => [f, hs[f]])));
    expect(ms.path).toBe(`${hs.partitionPath}/${mine.get(fileId)!.split('/').pop()}`);
    expect(ms.fileSizeInBytes).toBe(readFileSync(mine.get(fileId)!).length);
  }
}

/** A record as JSON, maps as entry lists (their order is part of the bytes). */
function show(r: MetadataRecord): string {
  return JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}

function opKey(o: CompactionOperation): string {
  return JSON.stringify([o.partitionPath, o.fileId, o.baseInstantTime, o.dataFilePath, o.deltaFilePaths, o.metrics]);
}

describe.skipIf(cases().length === 0)('metadata-table compaction = Hudi’s on the same inputs', () => {
  it('finds the fixtures’ MDT compactions', () => {
    const names = cases().map((c) => c.name);
    expect(names.some((n) => n.includes('v8_trips_8i3u1d'))).toBe(HAVE_FIXTURES);
    expect(names.filter((n) => n.startsWith('trino')).length).toBe(HAVE_TRINO_V6 ? 3 : 0);
  });

  it.each(cases().map((c) => [c.name, c] as const))('%s', async (_n, k) => {
    const pristine = k.src();
    const base = copyOf(pristine);
    await rewind(base, k.instant);
    const data = await openTable(base);
    const mdt = await openTableAt(storage, mdtDir(base));
    const [dataTl, mdtTl] = [await data.timeline(), await mdt.timeline()];

    // Hudi's writer compacted at exactly this count; one more would not have
    const decision = decideMdtCompaction(data, mdt, dataTl, mdtTl, k.maxDeltaCommits, new Date());
    expect('instant' in decision, JSON.stringify(decision)).toBe(true);
    const lastCompaction = (await compactionsOf(base)).at(-1) ?? '';
    const since = mdtTl.instants.filter(isDelta).filter((i) => i.requestedTime > lastCompaction).length;
    expect(since).toBeGreaterThanOrEqual(k.maxDeltaCommits);
    expect('reason' in decideMdtCompaction(data, mdt, dataTl, mdtTl, since + 1, new Date())).toBe(true);
    if (data.config.version < 8) expect(decision).toEqual({ instant: k.instant, fresh: false });

    // the same plan: Hudi's operations, in any order
    const hudiTl = await (await openTableAt(storage, mdtDir(pristine))).timeline();
    const hi = hudiTl.find(k.instant).find((i) => i.files.REQUESTED)!;
    const hudiPlan = decodeCompactionPlan(await hudiTl.read(hi, 'REQUESTED'), { path: hi.files.REQUESTED!.path });
    const m = { data, mdt, dataTimeline: dataTl, mdtTimeline: mdtTl, validInstants: validInstants(dataTl, mdtTl), warnings: [] };
    const parts = (await listPartitions(storage, mdt.basePath)).map((p) => p.partition);
    const view = await buildFileSystemView(storage, mdt.basePath, await mdtViewTimeline(m), { partitions: parts });
    const plan = planMdtCompaction(view.latestFileSlices(), k.instant, mdtTl.layout)!;
    const ours = plan.operations!.map(opKey);
    const theirs = hudiPlan.operations!.map(opKey);
    if (k.instant === TRINO_AFTER_INIT) {
      // 0.15 compacted right after initialising column_stats and record_index with a view from before
      // them: its plan has `files` only; ours adds their groups, each an 80-byte init log (no output)
      expect(ours).toEqual(expect.arrayContaining(theirs));
      for (const o of plan.operations!.filter((x) => !theirs.includes(opKey(x)))) {
        expect([o.dataFilePath, o.deltaFilePaths!.length, o.metrics!.TOTAL_LOG_FILES_SIZE]).toEqual([null, 1, 80]);
      }
    } else expect(ours.sort()).toEqual(theirs.sort());

    // compacted by tblcli: Hudi's records, file for file
    const r = await compactMetadataTableIfDue(data, { ...OPTS, maxDeltaCommits: k.maxDeltaCommits });
    expect(r.result, r.reason).toBeDefined();
    if (data.config.version < 8) expect(r.result!.instant).toBe(k.instant);
    await compareWithHudi(pristine, k.instant, base, r.result!.instant);
    const after = await (await openTableAt(storage, mdtDir(base))).timeline();
    expect(after.find(r.result!.instant).map((i) => [i.action, i.state])).toEqual([['commit', 'COMPLETED']]);
    expect(after.pending()).toEqual([]);
    expect(existsSync(join(mdtDir(base), '.hoodie', '.temp', r.result!.instant))).toBe(false);
  });

  it.each(cases().map((c) => [c.name, c] as const))('%s: Hudi’s own plan, left pending, is finished', async (_n, k) => {
    const pristine = k.src();
    const base = copyOf(pristine);
    const tl = await (await openTableAt(storage, mdtDir(base))).timeline();
    const i = tl.find(k.instant).find((x) => x.state === 'COMPLETED')!;
    rmSync(i.files.COMPLETED!.path);
    removeOutputs(base, k.instant);
    const validBefore = await runJson(['metadata', 'validate-files', '--path', pristine]);
    const done = await finishPendingMdtCompactions(await openTable(base), OPTS);
    expect(done.map((d) => [d.instant, d.resumed])).toEqual([[k.instant, true]]);
    await compareWithHudi(pristine, k.instant, base, k.instant);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual(validBefore);
  });
});
