// The scan over WebHDFS (the test server): the same findings as on the local file system, each
// directory listed once and each instant file read once, listings 16 at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { relative } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';
import { zooTable } from './zoo.ts';

const NOW = new Date('2026-01-01T12:00:00Z');

describe('triage over WebHDFS', () => {
  let server: WebHdfsServer;
  beforeAll(async () => {
    server = await startWebHdfsServer({ root: tmpdir(), pageSize: 4 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each([6, 8] as const)('zoo table v%i: same output as locally; one LISTSTATUS pass per directory, one OPEN per file', async (version) => {
    const dir = await zooTable(version, NOW);
    const uri = server.uri(`/${relative(tmpdir(), dir)}`);
    for (const argv of [['collisions', '--json'], ['collisions', '--bucket-index', '4', '--json'], ['orphans', '--json'], ['doctor', '--json'], ['metrics', '--format', 'json']]) {
      const local = await runCli([...argv, '--path', dir], { now: NOW });
      server.requests.length = 0;
      server.stats.maxInFlight = 0;
      const remote = await runCli([...argv, '--path', uri, '--user', 'tblcli'], { now: NOW });
      expect(remote.exitCode, remote.stderr).toBe(local.exitCode);
      expect(remote.stdout.replaceAll(uri, '<table>')).toBe(local.stdout.replaceAll(dir, '<table>'));
      const opens = server.requests.filter((q) => q.server === 'nn' && q.op === 'OPEN').map((q) => q.path);
      expect(opens.length, argv.join(' ')).toBeGreaterThan(0);
      expect(new Set(opens).size, `${argv.join(' ')}: a file read twice`).toBe(opens.length);
      // LISTSTATUS_BATCH pages of one directory go one after another (startAfter): count the first pages
      const firstPages = server.requests.filter((q) => q.op === 'LISTSTATUS_BATCH' && !q.query.startAfter).map((q) => q.path);
      const bucketRelist = argv.includes('--bucket-index') ? 1 : 0;
      if (!bucketRelist) expect(new Set(firstPages).size, `${argv.join(' ')}: a directory listed twice`).toBe(firstPages.length);
      expect(server.stats.maxInFlight).toBeGreaterThan(1);
    }
  });
});
