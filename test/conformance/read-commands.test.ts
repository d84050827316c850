// Every remaining read command on every fixture table: exit 0 and what the files say.
import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, catalog, table, type CatalogTable } from '../support/fixtures.ts';
import { runCli, runJson } from '../support/run-cli.ts';

const tables = HAVE_FIXTURES ? catalog().tables : [];

interface CatInstant {
  ts: string;
  action: string;
  state: string;
  commitsRollback?: string[];
  totalFilesDeleted?: number;
}

describe.skipIf(!HAVE_FIXTURES)('read commands over the fixture tables', () => {
  describe.each(tables.map((t) => [t.id, t] as const))('%s', (id, t: CatalogTable) => {
    const instants = t.instants as CatInstant[];

    it('show rollbacks / show rollback list what each completed rollback rolled back', async () => {
      const rows = await runJson<Record<string, unknown>[]>(['show', 'rollbacks', '--limit', '-1', '--path', table(id)]);
      const rbs = instants.filter((i) => i.action === 'rollback' && i.state === 'COMPLETED');
      expect(rows.map((r) => [r.instant, r.rolledbackInstant])).toEqual(
        rbs.sort((a, b) => (a.ts < b.ts ? 1 : -1)).flatMap((i) => (i.commitsRollback ?? []).map((c) => [i.ts, c])),
      );
      for (const rb of rbs) {
        const files = await runJson<Record<string, unknown>[]>(['show', 'rollback', '--instant', rb.ts, '--limit', '-1', '--path', table(id)]);
        expect(files.filter((f) => f.succeeded === true).length).toBe(rb.totalFilesDeleted);
      }
    });

    it('cleans show, savepoints show, show restores: one row per completed instant of that action', async () => {
      const count = (a: string) => instants.filter((i) => i.action === a && i.state === 'COMPLETED').length;
      expect((await runJson<unknown[]>(['cleans', 'show', '--path', table(id)])).length).toBe(count('clean'));
      expect((await runJson<unknown[]>(['savepoints', 'show', '--path', table(id)])).length).toBe(count('savepoint'));
      expect((await runJson<unknown[]>(['show', 'restores', '--path', table(id)])).length).toBe(count('restore'));
    });

    it('fetch table schema names the columns the table was created with', async () => {
      const r = await runCli(['fetch', 'table', 'schema', '--path', table(id)]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.startsWith('Latest table schema {')).toBe(true);
      const schema = JSON.parse(r.stdout.slice('Latest table schema '.length)) as { fields: { name: string }[] };
      expect(schema.fields.map((f) => f.name)).toEqual(expect.arrayContaining(t.create_schema_fields as string[]));
    });

    it('commits compare with itself is 0 commits ahead; show_infights lists the pending write instants', async () => {
      const r = await runCli(['commits', 'compare', '--path', table(id), '--table', table(id)]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(`Source ${t.table_name} is ahead by 0 commits. Commits to catch up - []\n`);
      const inflight = await runCli(['commits', 'show_infights', '--path', table(id)]);
      expect(inflight.exitCode).toBe(0);
      if ((t.pending_instants as unknown[]).length === 0) expect(inflight.stdout).toBe('No inflight instants are found.\n');
    });

    it('stats wa, stats filesizes and show fsview latest run and agree with the base file count', async () => {
      expect((await runCli(['stats', 'wa', '--path', table(id)])).exitCode).toBe(0);
      const sizes = await runJson<Record<string, unknown>[]>(['stats', 'filesizes', '--path', table(id)]);
      expect(sizes[sizes.length - 1]!.commitTime).toBe('ALL');
      const partitions = t.partitions as string[];
      for (const p of partitions.slice(0, 2)) {
        const r = await runCli(['show', 'fsview', 'latest', '--partitionPath', p === '.' ? '' : p, '--json', '--path', table(id)]);
        expect(r.exitCode, r.stderr).toBe(0);
      }
    });
  });
});
