// Whole-CLI runs of the log-file, archived and metadata commands (needs logfileSpecs, archivedSpecs and
// metadataSpecs in commands/registry.ts).
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../support/run-cli.ts';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';

describe.skipIf(!HAVE_FIXTURES)('tblcli show logfile … / metadata … / show archived … (registered commands)', () => {
  const mor = 'quickstart_trips_table/mor/avro/v6_trips_8i1u';
  const mdt = 'sample_table/cow/v9_txns_simple_meta';

  it('show logfile metadata --logFilePathPattern → hudi-cli table; --json fields', async () => {
    const r = await runCli(['show', 'logfile', 'metadata', '--path', table(mor), '--logFilePathPattern', 'city=san_francisco/.*.log.*']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/║ File Path +│ InstantTime +│ RecordCount │ BlockType +│ HeaderMetadata/);
    const rows = await runJson<{ blockType: string }[]>(['show', 'logfile', 'metadata', '--path', table(mor), '--logFilePathPattern', 'city=san_francisco/.*.log.*']);
    expect(rows.map((x) => x.blockType)).toContain('AVRO_DATA_BLOCK');
  });

  it('show logfile records: --limit, --mergeRecords and its alias --merge', async () => {
    const base = ['show', 'logfile', 'records', '--path', table(mor), '--logFilePathPattern', 'city=san_francisco/.*.log.*'];
    const plain = await runJson<{ records: string }[]>([...base, '--limit', '1']);
    expect(plain).toHaveLength(1);
    expect(plain[0]!.records.startsWith('{"_hoodie_commit_time": ')).toBe(true);
    const merged = await runJson<{ records: string }[]>([...base, '--mergeRecords', 'true']);
    expect(await runJson([...base, '--merge'])).toEqual(merged);
    const missing = await runCli(['show', 'logfile', 'records', '--path', table(mor)]);
    expect(missing.exitCode).toBe(2);
  });

  it('metadata list-partitions / validate-files / timeline show active', async () => {
    expect(await runJson<{ partition: string }[]>(['metadata', 'list-partitions', '--path', table(mdt)])).toHaveLength(3);
    const v = await runCli(['metadata', 'validate-files', '--path', table(mdt), '--verbose']);
    expect(v.exitCode).toBe(0);
    expect(v.stdout).toContain(' Is Present in FS ');
    const tl = await runJson<{ no: number }[]>(['metadata', 'timeline', 'show', 'active', '--path', table(mdt)]);
    expect(tl.length).toBeGreaterThan(0);
    expect(tl.length).toBeLessThanOrEqual(10);
    const none = await runCli(['metadata', 'stats', '--path', table('sample_table/cow/v6_nonpartitioned')]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain('.hoodie/metadata');
  });

  it('show archived commits / commit stats, commits showarchived on a table without archive → empty, exit 0', async () => {
    for (const argv of [['show', 'archived', 'commits'], ['show', 'archived', 'commit', 'stats'], ['commits', 'showarchived'], ['compactions', 'showarchived']]) {
      const r = await runCli([...argv, '--path', table(mor), '--json']);
      expect(r.exitCode, argv.join(' ')).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
    }
  });
});
