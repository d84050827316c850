// The scan's status line: only on a terminal, only after 2 s, at most every 200 ms, erased at the end;
// and a real scan reports its phases in order with counts that add up.
import { afterAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { relative } from 'node:path';
import { openTable } from '../../src/table/index.ts';
import { formatProgress, progressLine, scanTable, type ScanProgress } from '../../src/triage/index.ts';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';
import { zooTable } from './zoo.ts';

const p = (over: Partial<ScanProgress>): ScanProgress => ({ phase: 'listing', instantsRead: 4, instantsTotal: 4, dirs: 0, files: 0, partitions: 0, ...over });

describe('progress line', () => {
  it('quiet for 2 s, then throttled, then erased; never written when stderr is not a terminal', () => {
    let t = 0;
    const out: string[] = [];
    const line = progressLine({ isTTY: true, columns: 100, write: (s) => void out.push(s), now: () => t });
    line.update(p({ dirs: 1, files: 10 }));
    t = 1999;
    line.update(p({ dirs: 2, files: 20 }));
    expect(out).toEqual([]);
    t = 2000;
    line.update(p({ dirs: 3, files: 1234567, partitions: 2 }));
    t = 2100;
    line.update(p({ dirs: 4 }));
    t = 2200;
    line.update(p({ phase: 'instants', instantsRead: 1, instantsTotal: 40 }));
    t = 4400;
    line.update(p({ phase: 'instants', instantsRead: 10, instantsTotal: 40, dirs: 120, files: 240000 }));
    line.done();
    expect(out).toEqual([
      '\rscanning: instants 4/4, listed 3 dirs, 1,234,567 files, 2 partitions\u001b[K',
      // while the instants are read: the terminal's progress bar, with what the worker has listed so far
      '\rscanning ▕█░░░░░░░░░░░░░░░░░░░▏ 1/40 instants · ETA 1 m 25 s\u001b[K',
      '\rscanning ▕█████░░░░░░░░░░░░░░░▏ 10/40 instants · listed 120 dirs, 240,000 files · ETA 13.2 s\u001b[K',
      '\r\u001b[K',
    ]);
    // fitted to the terminal
    expect([...formatProgress(p({ dirs: 3, files: 1234567, partitions: 2 }), { width: 40 })].length).toBe(40);
    expect(formatProgress(p({ phase: 'instants', instantsRead: 1, instantsTotal: 40 }), { width: 30, elapsedMs: 2000 })).toBe('1/40 instants · ETA 1 m 18 s');

    const quiet: string[] = [];
    const off = progressLine({ isTTY: false, write: (s) => void quiet.push(s), now: () => (t += 5000) });
    off.update(p({}));
    off.update(p({}));
    off.done();
    expect(quiet).toEqual([]);
    expect(formatProgress(p({ phase: 'timeline', instantsTotal: 0 }))).toBe('scanning: reading timeline');
  });

  it('a scan reports timeline → instants → listing → markers, ending with the listing totals', async () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const dir = await zooTable(8, now);
    const seen: ScanProgress[] = [];
    const scan = await scanTable(await openTable(dir), { now, onProgress: (x) => void seen.push({ ...x }) });
    const phases = seen.map((x) => x.phase).filter((x, i, a) => x !== a[i - 1]);
    expect(phases).toEqual(['timeline', 'instants', 'listing', 'markers']);
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ files: scan.fileCount, partitions: scan.partitions.length, instantsRead: scan.reads.instants, instantsTotal: scan.reads.instants });
    // a short scan on a terminal writes no status line
    const r = await runCli(['doctor', '--path', dir], { now, tty: true });
    expect(r.stderr).not.toContain('scanning:');
  });
});

describe('a slow scan on a terminal', () => {
  let server: WebHdfsServer | undefined;
  afterAll(async () => server?.close());
  it('doctor over a WebHDFS server answering in 300 ms: the status line on stderr, erased at the end; the same report as in a pipe', async () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const dir = await zooTable(8, now);
    server = await startWebHdfsServer({ root: tmpdir(), faults: { delayMs: 300 } });
    const uri = server.uri(`/${relative(tmpdir(), dir)}`);
    const tty = await runCli(['doctor', '--json', '--path', uri, '--user', 'tblcli'], { now, tty: true });
    expect(tty.exitCode, tty.stderr).toBe(0);
    const lines = tty.stderr.split('\r').filter(Boolean);
    expect(lines.some((l) => l.startsWith('scanning')), tty.stderr).toBe(true);
    expect(tty.stderr.endsWith('\r\u001b[K')).toBe(true);
    const piped = await runCli(['doctor', '--json', '--path', uri, '--user', 'tblcli'], { now });
    expect(piped.stderr).toBe('');
    expect(JSON.parse(tty.stdout)).toEqual(JSON.parse(piped.stdout)); // a terminal gets it indented
  }, 60_000);
});
