// show logfile metadata / records over the fixture tables' real log files, and damaged copies.
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCtx } from '../../commands/main.ts';
import { logfileSpecs } from '../../commands/logfile.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { openTable, loadFileSystemView } from '../../src/table/index.ts';
import { mergeConfigFromProperties, mergeFileSlice } from '../../src/merge/index.ts';
import { avroToString, showLogFileMetadata, showLogFileRecords } from '../../src/views/logfile.ts';
import { globSegmentRegex, pathGlob } from '../../src/util/index.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table, tableFresh } from '../support/fixtures.ts';

interface CatBlock { offset: number; type: string; instant_time?: string; record_count?: number; header_keys: string[] }
interface CatLog { partition: string; name: string; file_id: string; blocks: CatBlock[] }

async function runSpec(name: string, opts: Record<string, unknown>) {
  const spec = logfileSpecs.find((s) => s.name === name)!;
  const t = makeTestIO({ tty: false });
  const ctx = makeCtx({ io: t.io, env: {}, stateDir: mkdtempSync(join(tmpdir(), 'tblcli-state-')) });
  const code = await spec.action(ctx, opts);
  return { code: code ?? 0, stdout: t.out(), stderr: t.err() };
}

const logTables = HAVE_FIXTURES ? allTableIds().filter((id) => (catalogTable(id).log_files as CatLog[]).length > 0) : [];

describe('pathGlob (partition globs: Hadoop segments plus **)', () => {
  it('matches one segment per * and any depth for **', () => {
    expect(pathGlob('*')('region=us')).toBe(true);
    expect(pathGlob('*')('2023/04/01')).toBe(false);
    expect(pathGlob('*/*/*')('2023/04/01')).toBe(true);
    expect(pathGlob('**')('2023/04/01')).toBe(true);
    expect(pathGlob('2023/**/12')('2023/04/01/12')).toBe(true);
    expect(pathGlob('region={us,eu}')('region=eu')).toBe(true);
    expect(pathGlob('region={us,eu}')('region=apac')).toBe(false);
  });
});

describe('globSegmentRegex (Hadoop glob)', () => {
  it('* matches dot files, ? one char, [..] classes, {a,b} alternatives', () => {
    expect(globSegmentRegex('*.log.*').test('.abc_1.log.1_0-1-2')).toBe(true);
    expect(globSegmentRegex('p?').test('p1')).toBe(true);
    expect(globSegmentRegex('p?').test('p12')).toBe(false);
    expect(globSegmentRegex('[!a]x').test('bx')).toBe(true);
    expect(globSegmentRegex('[!a]x').test('ax')).toBe(false);
    expect(globSegmentRegex('{a,bc}.log').test('bc.log')).toBe(true);
    expect(globSegmentRegex('{a,bc}.log').test('axlog')).toBe(false);
  });
});

describe('avroToString (GenericData.toString)', () => {
  it('records in schema order, doubles as Java prints them, escapes, nulls, maps', () => {
    const schema = {
      type: 'record',
      name: 'r',
      fields: [
        { name: 'b', type: 'double' },
        { name: 'a', type: ['null', 'string'] },
        { name: 'n', type: ['null', 'long'] },
        { name: 'm', type: { type: 'map', values: 'int' } },
      ],
    };
    expect(avroToString({ a: 'x"\n', b: 25, n: null, m: { k: 1 } }, schema as never)).toBe('{"b": 25.0, "a": "x\\"\\n", "n": null, "m": {"k": 1}}');
  });
});

describe.skipIf(!HAVE_FIXTURES)('show logfile metadata: the blocks catalog.json records', () => {
  it('there are fixture tables with log files', () => expect(logTables.length).toBeGreaterThan(10));
  for (const id of logTables) {
    it(`${id}: one row per block with its instant, type, record count and header keys`, async () => {
      const logs = catalogTable(id).log_files as CatLog[];
      const t = await openTable(table(id));
      for (const partition of [...new Set(logs.map((l) => l.partition))]) {
        const pattern = partition === '' ? '.*.log.*' : `${partition}/.*.log.*`;
        const r = await showLogFileMetadata(t, pattern);
        expect(r.warnings).toEqual([]);
        const got = r.rows
          .map((row) => [row.filePath, row.offset, row.blockType, row.instantTime, row.recordCount, Object.keys(JSON.parse(row.headerMetadata)).sort()])
          .sort((a, b) => (`${a[0]}${String(a[1]).padStart(9)}` < `${b[0]}${String(b[1]).padStart(9)}` ? -1 : 1));
        const want = logs
          .filter((l) => l.partition === partition)
          .flatMap((l) =>
            l.blocks.map((b) => [
              partition === '' ? l.name : `${partition}/${l.name}`,
              b.offset,
              b.type,
              b.instant_time,
              b.type.endsWith('DATA_BLOCK') ? (b.record_count ?? expect.any(Number)) : 0,
              [...b.header_keys].sort(),
            ]),
          )
          .sort((a, b) => (`${a[0]}${String(a[1]).padStart(9)}` < `${b[0]}${String(b[1]).padStart(9)}` ? -1 : 1));
        expect(got).toEqual(want);
      }
    });
  }

  it('parquet data blocks: record count = rows of the embedded parquet file (counted, not taken from a header)', async () => {
    const id = 'sample_table/mor/parquet/v6_nonpartitioned';
    const r = await showLogFileMetadata(await openTable(table(id)), '.*.log.*');
    const data = r.rows.filter((x) => x.blockType === 'PARQUET_DATA_BLOCK');
    expect(data.length).toBeGreaterThan(0);
    for (const d of data) expect(d.recordCount).toBeGreaterThan(0);
  });

  it('the command prints the hudi-cli headers; no match → not-found error naming the pattern', async () => {
    const id = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
    const ok = await runSpec('show logfile metadata', { path: table(id), logFilePathPattern: 'city=san_francisco/.*.log.*', json: true });
    expect(ok.code).toBe(0);
    const rows = JSON.parse(ok.stdout) as Record<string, unknown>[];
    expect(Object.keys(rows[0]!)).toEqual(['filePath', 'instantTime', 'recordCount', 'blockType', 'headerMetadata', 'footerMetadata']);
    expect(rows[0]!.blockType).toBe('AVRO_DATA_BLOCK');
    const tableOut = await runSpec('show logfile metadata', { path: table(id), logFilePathPattern: 'city=san_francisco/.*.log.*' });
    expect(tableOut.stdout).toContain('║ File Path');
    expect(tableOut.stdout).toContain('│ InstantTime       │ RecordCount │ BlockType');
    await expect(runSpec('show logfile metadata', { path: table(id), logFilePathPattern: 'nope/*.log*' })).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('nope/*.log*'),
    });
  });
});

describe.skipIf(!HAVE_FIXTURES)('damaged log files: reported with their offset, the scan continues, exit code 0', () => {
  it('garbage in the middle and a truncated tail → CORRUPT_BLOCK rows + warnings with offsets, good blocks still listed', async () => {
    const id = 'sample_table/mor/parquet/v6_nonpartitioned_rollback';
    const base = tableFresh(id);
    const logs = catalogTable(id).log_files as CatLog[];
    const src = join(base, logs[0]!.name);
    const good = readFileSync(src);
    const damagedName = `${logs[0]!.name.replace(/\.log\.\d+_/, '.log.99_')}`;
    const garbage = Buffer.from('garbage garbage garbage');
    writeFileSync(join(base, damagedName), Buffer.concat([good, garbage, good, good.subarray(0, 40)]));
    const r = await runSpec('show logfile metadata', { path: base, logFilePathPattern: damagedName, json: true });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { instantTime: string; blockType: string }[];
    const types = rows.map((x) => x.blockType);
    expect(types.filter((x) => x === 'CORRUPT_BLOCK')).toHaveLength(2);
    expect(rows.filter((x) => x.blockType === 'CORRUPT_BLOCK').map((x) => x.instantTime).sort()).toEqual(['corrupt_block_1', 'corrupt_block_2']);
    expect(types.filter((x) => x !== 'CORRUPT_BLOCK')).toHaveLength(logs[0]!.blocks.length);
    expect(r.stderr).toMatch(new RegExp(`warning: .*${damagedName.replace(/[.]/g, '\\.')}: block at offset 0: corrupt`));
    expect(r.stderr).toMatch(new RegExp(`block at offset ${good.length * 2 + garbage.length}: corrupt`));
    // records without --merge carry on past the corrupt regions too
    const rec = await runSpec('show logfile records', { path: base, logFilePathPattern: damagedName, limit: -1, json: true });
    expect(rec.code).toBe(0);
    expect(rec.stderr).toContain('corrupt');
  });
});

describe.skipIf(!HAVE_FIXTURES)('show logfile records', () => {
  it('without merge: records of the data blocks, newest file first, limited', async () => {
    const id = 'sample_table/mor/avro/v9_txns_simple_meta';
    const t = await openTable(table(id));
    const logs = catalogTable(id).log_files as CatLog[];
    const totals = new Map<string, number>();
    for (const l of logs) for (const b of l.blocks) if (b.type === 'AVRO_DATA_BLOCK') totals.set(l.partition, (totals.get(l.partition) ?? 0) + (b.record_count ?? 0));
    for (const [p, total] of totals) {
      const all = await showLogFileRecords(t, `${p}/.*.log.*`, { limit: -1, merge: false });
      expect(all.rows, p).toHaveLength(total);
      const one = await showLogFileRecords(t, `${p}/.*.log.*`, { limit: 1, merge: false });
      expect(one.rows).toHaveLength(1);
      expect(one.title).toBe('===============> Showing only 1 records <===============');
      const s = avroToString(one.rows[0]!.record, one.rows[0]!.schema);
      expect(s.startsWith('{"_hoodie_commit_time": "')).toBe(true);
      expect(s).toContain(`"_hoodie_partition_path": "${p}"`);
    }
  });

  // lance base files cannot be read; their logs are covered by the metadata test above
  const mor = HAVE_FIXTURES ? logTables.filter((id) => !id.includes('lance')) : [];
  for (const id of mor) {
    it(`${id}: --merge of each slice's logs equals the merged snapshot rows of the keys the logs hold`, async () => {
      const t = await openTable(table(id));
      const view = await loadFileSystemView(t);
      const config = mergeConfigFromProperties(Object.fromEntries(t.config.props));
      let checked = 0;
      for (const s of view.allFileGroups().flatMap((g) => g.slices)) {
        if (s.logFiles.length === 0) continue;
        const names = s.logFiles.map((l) => l.name);
        const pattern = `${s.partition === '' ? '' : `${s.partition}/`}${names.length === 1 ? names[0] : `{${names.join(',')}}`}`;
        const merged = await showLogFileRecords(t, pattern, { limit: -1, merge: true });
        const one = { partition: s.partition, fileId: s.fileId, baseFile: s.baseFile };
        const snapshot = await mergeFileSlice(t.storage, { ...one, logFiles: s.logFiles }, { config, isValidInstant: view.isCommitted });
        const base = await mergeFileSlice(t.storage, { ...one, logFiles: [] }, { config, isValidInstant: view.isCommitted });
        const snapByKey = new Map(snapshot.keys.map((k, i) => [k, snapshot.rows[i]!]));
        const baseByKey = new Map(base.keys.map((k, i) => [k, base.rows[i]!]));
        for (const row of merged.rows) {
          const key = String(row.record._hoodie_record_key ?? '');
          if (config.finalMerge === 'commit' || !baseByKey.has(key)) expect(snapByKey.get(key), key).toEqual(row.record);
          else expect([row.record, baseByKey.get(key)]).toContainEqual(snapByKey.get(key));
        }
        // every snapshot row is either untouched base or one of the merged log rows
        const logKeys = new Set(merged.rows.map((r) => String(r.record._hoodie_record_key ?? '')));
        for (const k of snapshot.keys) if (!logKeys.has(k)) expect(snapByKey.get(k)).toEqual(baseByKey.get(k));
        checked++;
      }
      // tables whose log files all sit in replaced (clustered/overwritten) file groups have nothing to merge
      const replacedLogs = view.excludedFiles().filter((f) => f.reason === 'replaced' && f.name.includes('.log.'));
      expect(checked + replacedLogs.length).toBeGreaterThan(0);
    });
  }

  it('--merge over two file groups → usage error', async () => {
    const id = 'sample_table/mor/avro/v9_txns_simple_meta';
    const logs = catalogTable(id).log_files as CatLog[];
    const parts = [...new Set(logs.map((l) => l.file_id))];
    if (parts.length < 2) return;
    const t = await openTable(table(id));
    await expect(showLogFileRecords(t, '*/.*.log.*', { limit: 10, merge: true })).rejects.toMatchObject({ kind: 'usage' });
  });
});
