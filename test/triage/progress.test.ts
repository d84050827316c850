// The scan's status line: only on a terminal, only after 2 s, at most every 200 ms, erased at the end;
// and a real scan reports its phases in order with counts that add up.
import { describe, expect, it } from 'vitest';
import { openTable } from '../../src/table/index.ts';
import { formatProgress, progressLine, scanTable, type ScanProgress } from '../../src/triage/index.ts';
import { runCli } from '../support/run-cli.ts';
import { zooTable } from './zoo.ts';

const p = (over: Partial<ScanProgress>): ScanProgress => ({ phase: 'listing', instantsRead: 4, instantsTotal: 4, dirs: 0, files: 0, partitions: 0, ...over });

describe('progress line', () => {
  it('quiet for 2 s, then throttled, then erased; never written when stderr is not a terminal', () => {
    let t = 0;
    const out: string[] = [];
    const line = progressLine({ isTTY: true, write: (s) => void out.push(s), now: () => t });
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
    line.done();
    const first = 'scanning: instants 4/4, listed 3 dirs, 1,234,567 files, 2 partitions';
    expect(out).toEqual([`\r${first}`, `\r${'scanning: reading instants 1/40'.padEnd(first.length)}`, `\r${' '.repeat(first.length)}\r`]);

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
