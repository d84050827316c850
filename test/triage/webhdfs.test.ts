// The scan over WebHDFS (the test server): the same findings as on the local file system, and exactly
// the requests the checks need (issue 22): the listing pages of every directory listed once, one OPEN
// per instant file whose contents a check reads, nothing per data file; 16 requests in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type RequestLog, type WebHdfsServer } from '../support/webhdfs-server.ts';
import { TableBuilder, stat } from './build.ts';
import { demoTable } from './support.ts';
import { zooTable } from './zoo.ts';

const NOW = new Date('2026-01-01T12:00:00Z');
const PAGE = 4;

/** Listing pages of a directory: one per PAGE entries, one for an empty or missing directory. */
function pages(dir: string): number {
  let n = 0;
  try {
    n = readdirSync(dir).length;
  } catch {
    return 1;
  }
  return Math.max(1, Math.ceil(n / PAGE));
}

/** `dir` and every directory below it, except those in `skip`. */
function dirsUnder(dir: string, skip: Set<string> = new Set()): string[] {
  let out = [dir];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !skip.has(p)) out = out.concat(dirsUnder(p, skip));
  }
  return out;
}

/**
 * The instant files a check must read, from the timeline's file names: every write (commit,
 * deltacommit, replacecommit: completed, else its inflight file, else the requested one), every
 * pending compaction/clustering plan (a layout-1 pending replacecommit is both: its plan and its
 * writer's workload), and for doctor and metrics the rollbacks (what they rolled back).
 */
function neededInstantFiles(timelineDir: string, layout: 1 | 2, command: string): string[] {
  const names = readdirSync(timelineDir).filter((n) => /^\d{17}/.test(n) && statSync(join(timelineDir, n)).isFile());
  const byTime = new Map<string, string[]>();
  for (const n of names) {
    const t = n.slice(0, 17);
    byTime.set(t, [...(byTime.get(t) ?? []), n]);
  }
  const completed = (n: string) => (layout === 2 ? /^\d{17}_\d+\.[a-z]+$/.test(n) : /^\d{17}\.[a-z]+$/.test(n));
  const action = (n: string) => n.split('.')[1]!;
  const out: string[] = [];
  for (const files of byTime.values()) {
    const done = files.find(completed);
    const writes = ['commit', 'deltacommit', 'replacecommit'];
    if (done) {
      if (writes.includes(action(done)) || (command !== 'collisions' && command !== 'orphans' && action(done) === 'rollback')) out.push(done);
      continue;
    }
    const inflight = files.find((n) => n.endsWith('.inflight'));
    const requested = files.find((n) => n.endsWith('.requested'))!;
    const a = action(requested);
    if (a === 'compaction' || a === 'clustering') out.push(requested);
    else if (a === 'replacecommit' && layout === 1) out.push(requested, ...(inflight ? [inflight] : []));
    else if (writes.includes(a)) out.push(inflight ?? requested);
  }
  return out.map((n) => join(timelineDir, n)).sort();
}

describe('triage over WebHDFS', () => {
  let server: WebHdfsServer;
  beforeAll(async () => {
    server = await startWebHdfsServer({ root: tmpdir(), pageSize: PAGE });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each([6, 8] as const)('zoo table v%i: same output as locally; the listing pages and one OPEN per instant needed, nothing else', async (version) => {
    const dir = await zooTable(version, NOW);
    const layout = version === 8 ? 2 : 1;
    const meta = join(dir, '.hoodie');
    const timelineDir = layout === 2 ? join(meta, 'timeline') : meta;
    const hdfs = (p: string) => `/${relative(tmpdir(), p)}`;
    const uri = server.uri(hdfs(dir));
    for (const argv of [['collisions', '--json'], ['orphans', '--json'], ['doctor', '--json'], ['metrics', '--format', 'json']]) {
      const local = await runCli([...argv, '--path', dir], { now: NOW });
      server.requests.length = 0;
      server.stats.maxInFlight = 0;
      const remote = await runCli([...argv, '--path', uri, '--user', 'tblcli'], { now: NOW });
      const what = `${argv.join(' ')} v${version}`;
      expect(remote.exitCode, remote.stderr).toBe(local.exitCode);
      expect(remote.stdout.replaceAll(uri, '<table>')).toBe(local.stdout.replaceAll(dir, '<table>'));

      const nn = server.requests.filter((q) => q.server === 'nn');
      const ops = (op: string) => nn.filter((q) => q.op === op);
      // listings: the data directories (the whole tree outside .hoodie), the timeline, heartbeats and markers
      const listed = [...dirsUnder(dir, new Set([meta])), timelineDir, join(meta, '.heartbeat'), ...dirsUnder(join(meta, '.temp'))];
      const listing = ops('LISTSTATUS_BATCH');
      const count = (qs: RequestLog[]) => {
        const m = new Map<string, number>();
        for (const q of qs) m.set(q.path, (m.get(q.path) ?? 0) + 1);
        return [...m].sort();
      };
      expect(count(listing), `${what}: listing pages`).toEqual(listed.map((d) => [hdfs(d), pages(d)] as [string, number]).sort());
      // reads: hoodie.properties and each instant file a check needs, once
      const opens = ops('OPEN').map((q) => q.path).sort();
      expect(opens, `${what}: OPENs`).toEqual([hdfs(join(meta, 'hoodie.properties')), ...neededInstantFiles(timelineDir, layout, argv[0]!).map(hdfs)].sort());
      // doctor and metrics probe for the metadata table; nothing else is asked file by file
      expect(ops('GETFILESTATUS').map((q) => q.path), what).toEqual(argv[0] === 'doctor' || argv[0] === 'metrics' ? [hdfs(join(meta, 'metadata', '.hoodie', 'hoodie.properties'))] : []);
      expect(nn.length, `${what}: only listings, OPENs and the probe`).toBe(listing.length + opens.length + ops('GETFILESTATUS').length);
      expect(server.requests.filter((q) => q.server === 'dn').length, `${what}: one datanode read per OPEN`).toBe(opens.length);
    }
    // a bucket-index finding names the files of its partition: those partitions are listed again
    const argv = ['collisions', '--bucket-index', '4', '--json'];
    const local = await runCli([...argv, '--path', dir], { now: NOW });
    server.requests.length = 0;
    const remote = await runCli([...argv, '--path', uri, '--user', 'tblcli'], { now: NOW });
    expect(remote.stdout.replaceAll(uri, '<table>')).toBe(local.stdout.replaceAll(dir, '<table>'));
    const opens = server.requests.filter((q) => q.server === 'nn' && q.op === 'OPEN').map((q) => q.path);
    expect(new Set(opens).size, 'an instant file read twice').toBe(opens.length);
  });
});

describe('triage over WebHDFS at 5 ms a request', () => {
  let server: WebHdfsServer;
  beforeAll(async () => {
    server = await startWebHdfsServer({ root: tmpdir(), faults: { delayMs: 5 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('24 partitions and 24 commits: 16 requests in flight, same report as locally', async () => {
    const { dir } = await demoTable(8, NOW);
    const b = await TableBuilder.open(dir, NOW);
    for (let p = 0; p < 24; p++) {
      const part = `region=x${String(p).padStart(2, '0')}`;
      const fileId = `${String(p).padStart(8, '0')}-aaaa-4bbb-8ccc-000000000000-0`;
      const rt = b.t(100 - p);
      const rel = await b.base(part, fileId, rt, [`ord-${p}`]);
      writeFileSync(join(dir, part, '.hoodie_partition_metadata'), `commitTime=${rt}\npartitionDepth=1\n`);
      await b.commit('deltacommit', rt, b.t(99.5 - p), [stat(rel, fileId, part, null)]);
    }
    const uri = server.uri(`/${relative(tmpdir(), dir)}`);
    const local = await runCli(['doctor', '--json', '--path', dir], { now: NOW });
    server.requests.length = 0;
    server.stats.maxInFlight = 0;
    const remote = await runCli(['doctor', '--json', '--path', uri, '--user', 'tblcli'], { now: NOW });
    expect(remote.exitCode, remote.stderr).toBe(local.exitCode);
    expect(remote.stdout.replaceAll(uri, '<table>')).toBe(local.stdout.replaceAll(dir, '<table>'));
    expect(JSON.parse(local.stdout).table.partitions).toBe(27);
    expect(server.stats.maxInFlight).toBeGreaterThanOrEqual(16);
  });
});
