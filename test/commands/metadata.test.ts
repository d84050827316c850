// metadata list-partitions | list-files | stats | validate-files | timeline show over the fixture tables.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCtx } from '../../commands/main.ts';
import { metadataSpecs } from '../../commands/metadata.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { openTable } from '../../src/table/index.ts';
import {
  isDataFileName,
  metadataListFiles,
  metadataListPartitions,
  metadataStats,
  metadataTimelineShow,
  metadataValidateFiles,
} from '../../src/views/metadata.ts';
import { HAVE_FIXTURES, allTableIds, catalogTable, table, tableFresh } from '../support/fixtures.ts';

interface CatFile { partition: string; name: string; bytes: number; instant?: string; base_instant?: string }

async function runSpec(name: string, opts: Record<string, unknown>) {
  const spec = metadataSpecs.find((s) => s.name === name)!;
  const t = makeTestIO({ tty: false });
  const ctx = makeCtx({ io: t.io, env: {}, stateDir: mkdtempSync(join(tmpdir(), 'tblcli-state-')) });
  const code = await spec.action(ctx, opts);
  return { code: code ?? 0, stdout: t.out(), stderr: t.err() };
}

const mdtTables = HAVE_FIXTURES ? allTableIds().filter((id) => catalogTable(id).metadata_table_exists === true) : [];

/** Files the catalog lists whose writing instant never completed: on storage, not in the metadata table. */
function uncommitted(id: string): string[] {
  const t = catalogTable(id);
  const completed = new Set((t.instants as { ts: string; state: string }[]).filter((i) => i.state === 'COMPLETED').map((i) => i.ts));
  return [...(t.base_files as CatFile[]), ...(t.log_files as CatFile[])]
    .filter((f) => {
      const inst = f.instant ?? f.base_instant;
      return inst !== undefined && !completed.has(inst);
    })
    .map((f) => `${f.partition}|${f.name}`)
    .sort();
}

describe('isDataFileName (FSUtils.getAllDataFilesInPartition)', () => {
  it('base-file extensions and log names count; partition metafiles and others do not', () => {
    expect(isDataFileName('a_1-0-1_20240101000000000.parquet')).toBe(true);
    expect(isDataFileName('.a_20240101000000000.log.1_1-0-1')).toBe(true);
    expect(isDataFileName('x.hfile')).toBe(true);
    expect(isDataFileName('.hoodie_partition_metadata')).toBe(false);
    expect(isDataFileName('.hoodie_partition_metadata.parquet')).toBe(true); // Java counts it too (a .parquet)
    expect(isDataFileName('notes.txt')).toBe(false);
  });
});

describe.skipIf(!HAVE_FIXTURES)('metadata validate-files agrees with the listing on every fixture table with a metadata table', () => {
  it('there are such tables', () => expect(mdtTables.length).toBeGreaterThan(10));
  for (const id of mdtTables) {
    it(`${id}: differences are exactly the files of uncommitted instants; verbose lists every data file`, async () => {
      const t = await openTable(table(id));
      const r = await metadataValidateFiles(t, false);
      expect(r.fsPartitions).toEqual(r.metadataPartitions);
      const diffs = r.rows.map((x) => `${x.partition}|${x.fileName}`).sort();
      expect(diffs).toEqual(uncommitted(id));
      for (const row of r.rows) expect([row.presentInFs, row.presentInMetadata]).toEqual([true, false]);
      const v = await metadataValidateFiles(t, true);
      const cat = catalogTable(id);
      const all = [...(cat.base_files as CatFile[]), ...(cat.log_files as CatFile[])].filter((f) => isDataFileName(f.name));
      expect(v.rows.length).toBe(all.length + v.rows.filter((x) => x.fileName.startsWith('.hoodie_partition_metadata')).length);
      for (const row of v.rows.filter((x) => x.presentInFs && x.presentInMetadata)) expect(row.fsSize).toBe(row.metadataSize);
    });
  }

  it('a file deleted behind the metadata table and a stray file → both reported, exit code 0, warnings on stderr', async () => {
    const id = 'sample_table/cow/v9_txns_simple_meta';
    const base = tableFresh(id);
    const files = catalogTable(id).base_files as CatFile[];
    const gone = files.find((f) => !uncommitted(id).includes(`${f.partition}|${f.name}`))!;
    rmSync(join(base, gone.partition, gone.name));
    writeFileSync(join(base, gone.partition, 'stray_1-0-1_20990101000000000.parquet'), 'x');
    const r = await runSpec('metadata validate-files', { path: base, json: true });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows).toContainEqual({ partition: gone.partition, fileName: gone.name, presentInFs: false, presentInMetadata: true, fsSize: 0, metadataSize: gone.bytes });
    expect(rows).toContainEqual({ partition: gone.partition, fileName: 'stray_1-0-1_20990101000000000.parquet', presentInFs: true, presentInMetadata: false, fsSize: 1, metadataSize: 0 });
    expect(r.stderr).toContain(`warning: Metadata file not found in FS: ${gone.partition}/${gone.name}`);
    const text = await runSpec('metadata validate-files', { path: base });
    expect(text.stdout).toContain('║ Partition');
    expect(text.stdout).toContain('│ File Name');
    expect(text.stdout).toContain('│  Is Present in FS  │  Is Present in Metadata │  FS size │  Metadata size ║');
  });
});

describe.skipIf(!HAVE_FIXTURES)('metadata list-partitions / list-files / stats / timeline', () => {
  const id = 'sample_table/cow/v9_txns_simple_meta';
  it('list-partitions: the catalog partitions in reverse order', async () => {
    const r = await metadataListPartitions(await openTable(table(id)));
    expect(r.rows).toEqual([...(catalogTable(id).partitions as string[])].sort().reverse());
  });

  it('list-files: committed files of the partition, name descending, StoragePathInfo rendering', async () => {
    const t = await openTable(table(id));
    const p = (catalogTable(id).partitions as string[])[0]!;
    const r = await metadataListFiles(t, p);
    const expected = (catalogTable(id).base_files as CatFile[])
      .concat(catalogTable(id).log_files as CatFile[])
      .filter((f) => f.partition === p && !uncommitted(id).includes(`${f.partition}|${f.name}`))
      .map((f) => f.name)
      .sort()
      .reverse();
    expect(r.rows.map((x) => x.path.slice(x.path.lastIndexOf('/') + 1))).toEqual(expected);
    const out = await runSpec('metadata list-files', { path: table(id), partition: p });
    expect(out.stdout).toContain(`StoragePathInfo{path=`);
    expect(out.stdout).toMatch(/, length=\d+, isDirectory=false, blockReplication=0, blockSize=33554432, modificationTime=0}/);
    const json = JSON.parse((await runSpec('metadata list-files', { path: table(id), partition: p, json: true })).stdout) as { filePath: string }[];
    expect(json[0]!.filePath.endsWith(expected[0]!)).toBe(true);
    await expect(metadataListFiles(t, 'no_such_partition')).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('stats: hudi-cli keys, files partition counts', async () => {
    const r = await metadataStats(await openTable(table(id)));
    expect(r.rows).toContainEqual(['files.baseFileCount', '1']);
    expect(r.rows).toContainEqual(['partitionCount', '3']);
    const out = await runSpec('metadata stats', { path: table(id) });
    expect(out.stdout).toContain('║ stat key');
  });

  it('timeline show active: the metadata table instants, same columns as timeline show', async () => {
    const t = await openTable(table(id));
    const r = await metadataTimelineShow(t, { incomplete: false, rollbackInfo: false, seconds: false });
    const mdt = catalogTable(id).metadata_table as { completed_by_action: Record<string, number> };
    const completed = Object.values(mdt.completed_by_action).reduce((a, b) => a + b, 0);
    expect(r.rows.filter((x: { instant: { state: string } }) => x.instant.state === 'COMPLETED')).toHaveLength(completed);
    expect(r.columns.map((c) => c.header)).toEqual(['Instant', 'Action', 'State', 'Requested\nTime', 'Inflight\nTime', 'Completed\nTime']);
    const out = await runSpec('metadata timeline show active', { path: table(id), json: true, limit: 10 });
    const rows = JSON.parse(out.stdout) as { no: number; action: string }[];
    expect(rows[0]!.no).toBe(1);
    expect(rows.every((x) => x.action === 'deltacommit' || x.action === 'commit' || x.action === 'rollback' || x.action === 'compaction' || x.action === 'clean')).toBe(true);
  });

  it('a table without a metadata table → not-found naming .hoodie/metadata', async () => {
    const t = await openTable(table('sample_table/cow/v6_nonpartitioned'));
    await expect(metadataListPartitions(t)).rejects.toMatchObject({ kind: 'not-found', message: expect.stringContaining('.hoodie/metadata') });
    await expect(metadataTimelineShow(t, { incomplete: true, rollbackInfo: false, seconds: false })).rejects.toMatchObject({ kind: 'not-found' });
  });
});
