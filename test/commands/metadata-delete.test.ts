// `metadata delete [--backup]` and `metadata delete-record-index [--backup]` (hudi-cli spellings,
// issue 14) on real tables: a dry run writes nothing; the real run clears
// hoodie.table.metadata.partitions (only record_index for the latter) before the directory is renamed
// to .hoodie/.metadata_<t> (byte for byte the old one) or deleted; readers and the next compaction
// follow the new state; a held lock refuses with exit 4 and no change.
import { cpSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { LOCKS_AND_HEARTBEATS, treeDigest } from '../support/files.ts';
import { runCli, runJson } from '../support/run-cli.ts';
import { HAVE_TRINO_V6, trinoV6Table } from '../support/trino.ts';

const V8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';

interface DeleteResult {
  target: string;
  dryRun: boolean;
  removedPath?: string;
  backupPath?: string;
  partitionsBefore: string[];
  partitionsAfter: string[];
  finishedCompactions: string[];
}

function trinoFresh(): string {
  const dest = join(mkdtempSync(join(tmpdir(), 'tblcli-trino-copy-')), 'hudi_multi_fg_pt_v6_mor');
  cpSync(trinoV6Table(), dest, { recursive: true });
  return dest;
}

const backups = (base: string, prefix: string) => readdirSync(join(base, '.hoodie')).filter((f) => f.startsWith(prefix));

describe.skipIf(!HAVE_FIXTURES)('metadata delete', () => {
  it('--dry-run reports and writes nothing; the real run clears the properties, then renames .hoodie/metadata', async () => {
    const base = tableFresh(V8);
    const before = treeDigest(base);
    const mdtBefore = treeDigest(join(base, '.hoodie', 'metadata'));
    const dry = await runJson<DeleteResult>(['metadata', 'delete', '--path', base, '--dry-run']);
    expect(dry).toMatchObject({ target: 'metadata-table', dryRun: true, partitionsAfter: [] });
    expect(dry.partitionsBefore).toEqual(['column_stats', 'files', 'partition_stats', 'record_index', 'secondary_index_rider_idx']);
    expect(dry.removedPath).toBe(join(base, '.hoodie', 'metadata'));
    expect(dry.backupPath).toMatch(/\/\.hoodie\/\.metadata_\d{17}$/);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(new Map([...before].filter(([k]) => !LOCKS_AND_HEARTBEATS.test(k))));
    const text = await runCli(['metadata', 'delete', '--path', base, '--dry-run']);
    expect(text.stdout).toMatch(/^Would clear hoodie\.table\.metadata\.partitions \(column_stats,files,.* -> <empty>\), then rename .*\/\.hoodie\/metadata to .*\/\.hoodie\/\.metadata_\d{17}\n$/);

    const r = await runCli(['metadata', 'delete', '--path', base]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [backup] = backups(base, '.metadata_');
    expect(r.stdout).toBe(`Metadata Table has been deleted and backed up to ${join(base, '.hoodie', backup!)}\n`);
    expect(existsSync(join(base, '.hoodie', 'metadata'))).toBe(false);
    expect(treeDigest(join(base, '.hoodie', backup!))).toEqual(mdtBefore);
    const t = await openTable(base);
    expect([t.config.metadataPartitions, t.config.metadataPartitionsInflight]).toEqual([[], []]);
    expect(t.config.props.get('hoodie.table.metadata.partitions')).toBe('');
    // readers see no metadata table; the next compaction writes none
    const lf = await runCli(['metadata', 'list-files', '--path', base]);
    expect(lf.exitCode).not.toBe(0);
    expect(lf.stderr).toContain('Metadata Table not enabled/initialized');
    await runJson(['compaction', 'schedule', '--path', base, '--strategy', 'all']);
    expect((await runJson<{ status: string }>(['compaction', 'run', '--path', base])).status).toBe('completed');
    expect(existsSync(join(base, '.hoodie', 'metadata'))).toBe(false);
    // a second delete finds nothing
    expect((await runCli(['metadata', 'delete', '--path', base])).stdout).toBe(`No Metadata Table in ${base}\n`);
  });

  it('--backup false deletes', async () => {
    const base = tableFresh(V8);
    const r = await runCli(['metadata', 'delete', '--path', base, '--backup', 'false']);
    expect(r.stdout).toBe(`Metadata Table has been deleted from ${join(base, '.hoodie', 'metadata')}\n`);
    expect(existsSync(join(base, '.hoodie', 'metadata'))).toBe(false);
    expect(backups(base, '.metadata_')).toEqual([]);
    expect((await openTable(base)).config.metadataPartitions).toEqual([]);
  });

  it('a held table lock: exit 4, nothing changed', async () => {
    const base = tableFresh(V8);
    writeFileSync(join(base, '.hoodie', '.aux', 'lock'), 'held');
    const before = treeDigest(base);
    for (const cmd of ['delete', 'delete-record-index']) {
      const r = await runCli(['metadata', cmd, '--path', base]);
      expect(r.exitCode, cmd).toBe(4);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(treeDigest(base)).toEqual(before);
  });
});

describe.skipIf(!HAVE_FIXTURES)('metadata delete-record-index', () => {
  it('record_index leaves the properties first, then its directory is renamed; the rest of the MDT stays in use', async () => {
    const base = tableFresh(V8);
    const rli = treeDigest(join(base, '.hoodie', 'metadata', 'record_index'));
    const dry = await runJson<DeleteResult>(['metadata', 'delete-record-index', '--path', base, '--dry-run']);
    expect(dry).toMatchObject({ target: 'record-index', dryRun: true, partitionsAfter: ['column_stats', 'files', 'partition_stats', 'secondary_index_rider_idx'] });
    expect(existsSync(join(base, '.hoodie', 'metadata', 'record_index'))).toBe(true);
    const r = await runCli(['metadata', 'delete-record-index', '--path', base]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [backup] = backups(base, '.metadata_record_index_');
    expect(r.stdout).toBe(`Record Index has been deleted from the Metadata Table and backed up to ${join(base, '.hoodie', backup!)}\n`);
    expect(treeDigest(join(base, '.hoodie', backup!))).toEqual(rli);
    expect(existsSync(join(base, '.hoodie', 'metadata', 'record_index'))).toBe(false);
    expect((await openTable(base)).config.metadataPartitions).toEqual(['column_stats', 'files', 'partition_stats', 'secondary_index_rider_idx']);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
    // the next compaction keeps the remaining MDT in step
    await runJson(['compaction', 'schedule', '--path', base, '--strategy', 'all']);
    expect((await runJson<{ status: string }>(['compaction', 'run', '--path', base])).status).toBe('completed');
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });

  it('--backup false deletes; then there is no record index, and the table is told so', async () => {
    const base = tableFresh(V8);
    const r = await runCli(['metadata', 'delete-record-index', '--path', base, '--backup', 'false']);
    expect(r.stdout).toBe('Record Index has been deleted from the Metadata Table\n');
    expect(existsSync(join(base, '.hoodie', 'metadata', 'record_index'))).toBe(false);
    expect(backups(base, '.metadata_')).toEqual([]);
    // (every fixture MDT has a record index: the one just dropped stands for a table without)
    const before = treeDigest(base);
    const none = await runCli(['metadata', 'delete-record-index', '--path', base]);
    expect([none.exitCode, none.stdout]).toEqual([0, `No Record Index in ${base}\n`]);
    expect(treeDigest(base, LOCKS_AND_HEARTBEATS)).toEqual(new Map([...before].filter(([k]) => !LOCKS_AND_HEARTBEATS.test(k))));
  });
});

describe.skipIf(!HAVE_TRINO_V6)('metadata delete-record-index on table version 6 (Trino, Hudi 0.15)', () => {
  it('drops record_index, keeps files and column_stats', async () => {
    const base = trinoFresh();
    const r = await runJson<DeleteResult>(['metadata', 'delete-record-index', '--path', base, '--backup', 'false']);
    expect(r.partitionsAfter).toEqual(['column_stats', 'files']);
    expect((await openTable(base)).config.metadataPartitions).toEqual(['column_stats', 'files']);
    expect(existsSync(join(base, '.hoodie', 'metadata', 'record_index'))).toBe(false);
    expect(await runJson(['metadata', 'validate-files', '--path', base])).toEqual([]);
  });
});
