import { describe, expect, it } from 'vitest';
import { LocalStorage } from '../../src/storage/index.ts';
import { buildFileSystemView, type FileSlice } from '../../src/fs-view/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table } from '../support/fixtures.ts';
import { loadTestTimeline } from './support/view-timeline.ts';

const storage = new LocalStorage();

interface CatFile { partition: string; name: string; file_id: string; instant?: string; base_instant?: string }
interface CatInstant { ts: string; action: string; completion_time?: string; partitionToReplaceFileIds?: Record<string, string[]> }

/** Latest slices as the catalog's own file lists and commit metadata say (independent of our listing). */
function expectedLatest(id: string): Map<string, { base?: string; logs: string[] }> {
  const t = catalogTable(id);
  const instants = t.instants as CatInstant[];
  const replaced = new Set<string>();
  for (const i of instants) for (const [p, ids] of Object.entries(i.partitionToReplaceFileIds ?? {})) for (const f of ids) replaced.add(`${p}/${f}`);
  const completion = new Map(instants.map((i) => [i.ts, i.completion_time]));
  const out = new Map<string, { base?: string; logs: string[] }>();
  const bases = (t.base_files as CatFile[]).filter((b) => !replaced.has(`${b.partition}/${b.file_id}`));
  for (const b of bases) {
    const k = `${b.partition}/${b.file_id}`;
    const cur = out.get(k);
    if (!cur || cur.base! < b.instant!) out.set(k, { base: b.instant!, logs: [] });
  }
  for (const l of t.log_files as CatFile[]) {
    const k = `${l.partition}/${l.file_id}`;
    if (replaced.has(k)) continue;
    const slice = out.get(k) ?? { logs: [] };
    out.set(k, slice);
    const joins = t.timeline_layout_version === 2
      ? slice.base === undefined || completion.get(l.base_instant!)! >= slice.base
      : slice.base === undefined || l.base_instant === slice.base;
    if (joins) slice.logs.push(l.name);
  }
  for (const v of out.values()) v.logs.sort();
  return out;
}

function summary(slices: FileSlice[]): Map<string, { base?: string; logs: string[] }> {
  return new Map(slices.map((s) => [`${s.partition}/${s.fileId}`, { base: s.baseFile?.instant, logs: s.logFiles.map((l) => l.name).sort() }]));
}

async function viewOf(id: string, opts: Parameters<typeof buildFileSystemView>[3] = {}) {
  const base = table(id);
  return buildFileSystemView(storage, base, await loadTestTimeline(base), opts);
}

describe.skipIf(!HAVE_FIXTURES)('buildFileSystemView over every fixture table', () => {
  for (const id of HAVE_FIXTURES ? allTableIds() : []) {
    it(`${id}: latest slices = catalog's latest base per live file group (+ its logs)`, async () => {
      const view = await viewOf(id);
      const got = summary(view.latestFileSlices());
      const want = expectedLatest(id);
      expect(Object.fromEntries(got)).toEqual(Object.fromEntries(want));
      expect(view.partitions()).toEqual([...(catalogTable(id).partitions as string[])].sort());
      // every listed data file is either in some slice or excluded with a reason
      const inView = new Set(view.allFileGroups().flatMap((g) => g.slices.flatMap((s) => [s.baseFile?.name, ...s.logFiles.map((l) => l.name)])));
      const excluded = new Set(view.excludedFiles().map((e) => e.name));
      const t = catalogTable(id);
      for (const f of [...(t.base_files as CatFile[]), ...(t.log_files as CatFile[])]) {
        expect(inView.has(f.name) || excluded.has(f.name), f.name).toBe(true);
      }
    });
  }
});

describe.skipIf(!HAVE_FIXTURES)('file slices asserted by upstream tests', () => {
  it('v6_nonpartitioned: latest, as of 20240418173551905, as of 19700101000000', async () => {
    const id = 'sample_table/cow/v6_nonpartitioned';
    const names = async (o = {}) => (await viewOf(id, o)).latestFileSlices().map((s) => s.baseFile!.name);
    expect(await names()).toEqual(['a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet']);
    expect(await names({ maxInstant: '20240418173551905' })).toEqual(['a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet']);
    expect(await names({ maxInstant: '19700101000000' })).toEqual([]);
    expect((await viewOf(id)).partitions()).toEqual(['']);
  });

  it('cow v6 overwritetable: exactly 1 slice (ebcb261d…) after replacecommit pruning', async () => {
    const v = await viewOf('sample_table/cow/v6_simplekeygen_nonhivestyle_overwritetable');
    expect(v.latestFileSlices().map((s) => s.fileId)).toEqual(['ebcb261d-62d3-4895-90ec-5b3c9622dff4-0']);
    expect(v.excludedFiles().filter((e) => e.reason === 'replaced').length).toBeGreaterThan(0);
  });

  it('mor v6 overwritetable: as of 20250121000656060 3 slices with the 10/ log; as of the replacecommit 1 slice', async () => {
    const id = 'sample_table/mor/parquet/v6_simplekeygen_nonhivestyle_overwritetable';
    const before = (await viewOf(id, { maxInstant: '20250121000656060' })).latestFileSlices();
    expect(before).toHaveLength(3);
    const p10 = before.find((s) => s.partition === '10')!;
    expect(p10.baseFile!.name).toBe('92e64357-e4d1-4639-a9d3-c3535829d0aa-0_1-53-79_20250121000647668.parquet');
    expect(p10.logFiles.map((l) => l.name)).toEqual(['.92e64357-e4d1-4639-a9d3-c3535829d0aa-0_20250121000647668.log.1_0-73-101']);
    expect(before.find((s) => s.partition === '20')!.fileId).toBe('d49ae379-4f20-4549-8e23-a5f9604412c0-0');
    expect(before.find((s) => s.partition === '30')!.logFiles).toEqual([]);
    expect((await viewOf(id, { maxInstant: '20250121000702475' })).latestFileSlices()).toHaveLength(1);
  });

  it('v9_txns_simple_overwrite: slices per partition latest {1,1,1}, as of commits[1] {apac:1, eu:2, us:2}', async () => {
    const id = 'sample_table/cow/v9_txns_simple_overwrite';
    const count = (slices: FileSlice[]) => slices.reduce<Record<string, number>>((m, s) => ({ ...m, [s.partition]: (m[s.partition] ?? 0) + 1 }), {});
    expect(count((await viewOf(id)).latestFileSlices())).toEqual({ apac: 1, eu: 1, us: 1 });
    const tl = await loadTestTimeline(table(id));
    const commits = tl.completedInstants.filter((i) => i.action === 'commit');
    expect(count((await viewOf(id, { maxInstant: commits[1]!.requestedTime })).latestFileSlices())).toEqual({ apac: 1, eu: 2, us: 2 });
  });

  it('v8_trips_8i3u1d: layout-2 slicing puts the post-compaction log on the compacted base', async () => {
    const v = await viewOf('quickstart_trips_table/mor/avro/v8_trips_8i3u1d');
    const latest = v.latestFileSlices();
    expect(latest.map((s) => s.partition)).toEqual(['city=chennai', 'city=san_francisco', 'city=sao_paulo']);
    for (const s of latest) expect(s.baseFile!.instant).toBe('20251220210129235');
    expect(latest[2]!.logFiles.map((l) => l.name)).toEqual(['.8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-1139-3316']);
    const chennai = v.allFileGroups('city=chennai')[0]!;
    expect(chennai.slices.map((s) => [s.baseFile!.name, s.logFiles.map((l) => l.name)])).toEqual([
      ['6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet', [
        '.6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_20251220210127080.log.1_0-1072-3078',
        '.6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_20251220210128625.log.1_0-1097-3150',
      ]],
      ['6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_0-1112-3190_20251220210129235.parquet', []],
    ]);
  });
});
