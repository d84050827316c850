// The conformance commands over every fixture table, served through the test WebHDFS server (two
// ports, 307 redirects, paged listings): stdout must equal the local run byte for byte (only the
// table URI itself differs, in desc's first rows).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirname, relative } from 'node:path';
import { HAVE_FIXTURES, catalog, table } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';

const tables = HAVE_FIXTURES ? catalog().tables : [];
const COMMANDS = [
  ['commits', 'show', '--json'],
  ['commits', 'show', '--includeExtraMetadata', '--json'],
  ['timeline', 'show', 'active', '--limit', '-1', '--json'],
  ['timeline', 'show', 'active', '--show-rollback-info'],
  ['compactions', 'show', 'all', '--json'],
  ['desc', '--json'],
  ['show', 'fsview', 'all', '--json'],
];

describe.skipIf(!HAVE_FIXTURES)('conformance over WebHDFS', () => {
  let server: WebHdfsServer;
  let root: string;
  beforeAll(async () => {
    // every extracted table lives under the same cache directory: serve that
    root = dirname(dirname(table(tables[0]!.id)));
    for (const t of tables) table(t.id);
    server = await startWebHdfsServer({ root, pageSize: 7 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(tables.map((t) => [t.id]))('%s: same output as the local run', async (id) => {
    const local = table(id);
    const remote = server.uri(`/${relative(root, local)}`);
    for (const argv of COMMANDS) {
      const a = await runCli([...argv, '--path', local]);
      const b = await runCli([...argv, '--path', remote]);
      expect(b.exitCode, `${argv.join(' ')}: ${b.stderr}`).toBe(a.exitCode);
      const norm = (s: string) => s.split(remote).join('<table>').split(local).join('<table>').replace('"value":"webhdfs"', '"value":"file"');
      expect(norm(b.stdout), argv.join(' ')).toBe(norm(a.stdout));
      expect(b.stderr).toBe(a.stderr.split(local).join(remote));
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('WebHDFS failures through the CLI', () => {
  const id = 'sample_table/mor/parquet/v6_nonpartitioned_rollback';
  it('retries exhausted → one clear line naming the path and exception, exit 1; the token never printed, even with --debug', async () => {
    const local = table(id);
    const root = dirname(local);
    const server = await startWebHdfsServer({ root, faults: { standby: true } });
    try {
      const token = 'SECRET-TOKEN-9f8e7d';
      const r = await runCli(['commits', 'show', '--retries', '1', '--delegation-token', token, '--debug', '--path', server.uri(`/${relative(root, local)}`)]);
      expect(r.exitCode).toBe(1);
      const errorLine = r.stderr.split('\n').find((l) => l.startsWith('error: '));
      expect(errorLine, r.stderr).toMatch(/^error: .*v6_nonpartitioned_rollback.*(StandbyException|standby)/);
      expect(r.stderr).toContain('debug: webhdfs'); // --debug really was on
      expect(r.stdout + r.stderr).not.toContain(token);
    } finally {
      await server.close();
    }
  });

  it('403 AccessControlException → clear error, exit 1', async () => {
    const local = table(id);
    const root = dirname(local);
    const server = await startWebHdfsServer({ root, faults: { deny: ['/'] } });
    try {
      const r = await runCli(['commits', 'show', '--path', server.uri(`/${relative(root, local)}`)]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/AccessControlException|permission denied/);
    } finally {
      await server.close();
    }
  });
});
