// Conformance over every real table in ../shared/fixtures/hudi-rs: what the CLI reports must equal
// what catalog.json (written from the files themselves) records. Expectations come from the
// catalog, never from our own output.
import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, catalog, table, type CatalogTable } from '../support/fixtures.ts';
import { runJson } from '../support/run-cli.ts';

interface CatInstant {
  ts: string;
  action: string;
  effective_action: string;
  state: string;
  completion_time?: string;
  operation_type?: string;
  write_stats?: number;
  numWrites?: number;
  numInserts?: number;
  numUpdateWrites?: number;
  numDeletes?: number;
  partitions_written?: string[];
  file_ids?: string[];
  commitsRollback?: string[];
}

const COMMIT_ACTIONS = ['commit', 'deltacommit', 'replacecommit'];
const tables = HAVE_FIXTURES ? catalog().tables : [];

function instantsOf(t: CatalogTable): CatInstant[] {
  return t.instants as CatInstant[];
}

describe.skipIf(!HAVE_FIXTURES)('conformance over the hudi-rs fixture tables', () => {
  it('covers all 47 tables, every layout and metadata format', () => {
    expect(tables).toHaveLength(47);
    const versions = new Set(tables.map((t) => t.table_version));
    expect([...versions].sort()).toEqual([6, 8, 9]);
  });

  describe.each(tables.map((t) => [t.id, t] as const))('%s', (id, t) => {
    it('commits show --json lists the completed commits newest first with their totals', async () => {
      const rows = await runJson<Record<string, unknown>[]>(['commits', 'show', '--path', table(id)]);
      const expected = instantsOf(t)
        .filter((i) => i.state === 'COMPLETED' && COMMIT_ACTIONS.includes(i.action))
        .sort((a, b) => (a.ts < b.ts ? 1 : -1));
      expect(rows.map((r) => r.commitTime)).toEqual(expected.map((i) => i.ts));
      rows.forEach((r, n) => {
        const e = expected[n]!;
        expect(r.totalRecordsWritten, `${e.ts} numWrites`).toBe(e.numWrites);
        expect(r.totalUpdateRecordsWritten, `${e.ts} numUpdateWrites`).toBe(e.numUpdateWrites);
        expect(r.totalPartitionsWritten, `${e.ts} partitions`).toBe(e.partitions_written?.length);
        expect(r.totalErrors).toBe(0);
        expect(Number(r.totalFilesAdded) + Number(r.totalFilesUpdated), `${e.ts} write stats`).toBe(e.write_stats);
      });
    });

    it('commits show --includeExtraMetadata --json has one row per write stat with the right file ids', async () => {
      const rows = await runJson<Record<string, unknown>[]>(['commits', 'show', '--includeExtraMetadata', '--path', table(id)]);
      const expected = instantsOf(t).filter((i) => i.state === 'COMPLETED' && COMMIT_ACTIONS.includes(i.action));
      expect(rows.length).toBe(expected.reduce((s, i) => s + (i.write_stats ?? 0), 0));
      for (const e of expected) {
        const mine = rows.filter((r) => r.instant === e.ts);
        expect(new Set(mine.map((r) => r.fileId)), e.ts).toEqual(new Set(e.file_ids));
        expect(mine.reduce((s, r) => s + Number(r.numInserts), 0), `${e.ts} inserts`).toBe(e.numInserts);
        expect(mine.reduce((s, r) => s + Number(r.numDeletes), 0), `${e.ts} deletes`).toBe(e.numDeletes);
        if (mine.length > 0) expect(new Set(mine.map((r) => r.action))).toEqual(new Set([e.action]));
      }
    });

    it('timeline show active --json lists every instant in timeline order with its state', async () => {
      const rows = await runJson<Record<string, unknown>[]>(['timeline', 'show', 'active', '--limit', '-1', '--path', table(id)]);
      const expected = [
        ...instantsOf(t).map((i) => ({ ts: i.ts, action: i.action, state: i.state })),
        ...(t.pending_instants as { ts: string; action: string; state: string }[]).map((p) => ({
          ts: p.ts,
          action: p.action,
          state: p.state,
        })),
      ].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
      expect(rows.map((r) => [r.instant, r.action, r.state])).toEqual(expected.map((e) => [e.ts, e.action, e.state]));
      expect(rows.map((r) => r.no)).toEqual(rows.map((_, n) => n + 1));
      for (const r of rows) if (r.state === 'COMPLETED') expect(r.completedTime).not.toBeNull();
    });

    it('compactions show all --json lists the compaction plans (MOR) or refuses (COW)', async () => {
      if (t.table_type === 'COPY_ON_WRITE') {
        const { runCli } = await import('../support/run-cli.ts');
        const r = await runCli(['compactions', 'show', 'all', '--json', '--path', table(id)]);
        expect(r.exitCode).toBe(1);
        expect(r.stderr).toContain('Compactions can only be run for table type : MERGE_ON_READ');
        return;
      }
      const rows = await runJson<Record<string, unknown>[]>(['compactions', 'show', 'all', '--path', table(id)]);
      const expected = instantsOf(t)
        .filter((i) => i.effective_action === 'compaction')
        .map((i) => i.ts)
        .sort()
        .reverse();
      expect(rows.map((r) => r.compactionInstantTime)).toEqual(expected);
      for (const r of rows) {
        expect(r.state).toBe('COMPLETED');
        const fileIds = instantsOf(t).find((i) => i.ts === r.compactionInstantTime)!.file_ids!;
        expect(r.totalFileIdsToBeCompacted).toBe(fileIds.length);
      }
    });

    it('desc --json shows base path, meta path and every hoodie.properties entry', async () => {
      const base = table(id);
      const rows = await runJson<{ property: string; value: string }[]>(['desc', '--path', base]);
      expect(rows.slice(0, 3)).toEqual([
        { property: 'basePath', value: base },
        { property: 'metaPath', value: `${base}/.hoodie` },
        { property: 'fileSystem', value: 'file' },
      ]);
      const props = Object.fromEntries(rows.slice(3).map((r) => [r.property, r.value]));
      // the catalog leaves out the (long) create schema; check it parses as an Avro record instead
      const schema = props['hoodie.table.create.schema'];
      delete props['hoodie.table.create.schema'];
      expect(props).toEqual(t.properties);
      if (schema !== undefined) {
        expect(JSON.parse(schema).type).toBe('record');
        expect(JSON.parse(schema).fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(t.create_schema_fields as string[]));
      }
      expect(props['hoodie.table.name']).toBe(t.table_name);
    });
  });
});
