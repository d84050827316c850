// Progress on long work (issue 19 §5): a bar on a terminal's stderr redrawn at most a few times a
// second, plain lines with --verbose in a pipe, nothing in cron; stdout stays data. A real compaction
// of a real table runs under a fake terminal.
import { describe, expect, it } from 'vitest';
import { HAVE_FIXTURES, tableFresh } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { makeCtx } from '../../commands/main.ts';
import { progressFor } from '../../commands/progress.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { eta, progressBar, shortBytes, shortCount } from '../../src/render/progress.ts';

describe('the progress line', () => {
  const s = { label: 'compaction 20260101000000000', done: 3, total: 10, unit: 'file groups', records: 1_234_567, bytes: 45_300_000, elapsedMs: 30_000 };
  it('shows done/total, records, bytes, rate and ETA, within the width', () => {
    const bar = progressBar(s, 120);
    expect(bar).toBe('compaction 20260101000000000 ▕██████░░░░░░░░░░░░░░▏ 3/10 file groups · 1.2M records · 45 MB · 1.5 MB/s · ETA 1 m 10 s');
    // narrower: the label goes first, then the bar
    expect(progressBar(s, 100)).toBe('▕██████░░░░░░░░░░░░░░▏ 3/10 file groups · 1.2M records · 45 MB · 1.5 MB/s · ETA 1 m 10 s');
    expect(progressBar(s, 80)).toBe('3/10 file groups · 1.2M records · 45 MB · 1.5 MB/s · ETA 1 m 10 s');
    for (const w of [60, 80, 100, 120]) expect([...progressBar(s, w)].length).toBeLessThanOrEqual(w);
    expect(eta(s)).toBe(70_000);
    expect(eta({ ...s, done: 0 })).toBeUndefined();
    expect([shortCount(999), shortCount(12_345), shortBytes(512), shortBytes(2_500_000_000)]).toEqual(['999', '12k', '512 B', '2.5 GB']);
  });

  it('redraws at most four times a second however fast steps come, and clears itself', () => {
    const t = makeTestIO({ tty: true, columns: 100 });
    let clock = 0;
    const p = progressFor(makeCtx({ io: t.io, env: {} }), 'job', { verbose: false, now: () => clock });
    p.start(100, 'items');
    for (let i = 0; i < 100; i++) {
      clock += 10; // 100 steps in one second
      p.step(10, 1000);
    }
    p.end();
    const draws = t.err().split('\r').filter((x) => x.includes('▕'));
    expect(draws.length).toBeGreaterThanOrEqual(3);
    expect(draws.length).toBeLessThanOrEqual(1 + 4 + 1); // the first, ≤ 4 in the second, the last
    expect(draws.at(-1)).toContain('100/100 items');
    expect(t.err().endsWith('\r\u001b[K')).toBe(true);
    expect(t.out()).toBe('');
  });
});

describe.skipIf(!HAVE_FIXTURES)('compaction run', () => {
  async function scheduled(): Promise<string> {
    const base = tableFresh('quickstart_trips_table/mor/avro/v6_trips_8i1u');
    expect((await runCli(['compaction', 'schedule', '--path', base, '--strategy', 'all'])).exitCode).toBe(0);
    return base;
  }

  it('on a terminal: a bar on stderr, gone at the end; stdout untouched', async () => {
    const base = await scheduled();
    const r = await runCli(['compaction', 'run', '--path', base], { tty: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\r▕░{20}▏ 0\/\d+ file groups · 0 records/);
    expect(r.stderr).toMatch(/\r▕█{20}▏ (\d+)\/\1 file groups · [\d.]+k? records · [\d.]+ [kM]B/);
    expect(r.stderr).toContain('\r\u001b[K');
    expect(r.stdout).toBe('');
  });

  it('--verbose in a pipe: plain progress lines; without it (cron) nothing at all', async () => {
    const base = await scheduled();
    const quiet = await runCli(['compaction', 'run', '--path', await scheduled()]);
    expect([quiet.exitCode, quiet.stderr, quiet.stdout]).toEqual([0, '', '']);
    const r = await runCli(['compaction', 'run', '--path', base, '--verbose']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^compaction \d{17}: 0\/(\d+) file groups, 0 records, 0 B, 0 B\/s, elapsed 0 ms$/);
    const total = Number(/0\/(\d+)/.exec(lines[0]!)![1]);
    expect(lines.filter((l) => l.startsWith('wrote '))).toHaveLength(total);
    expect(lines.filter((l) => /^compaction \d{17}: \d+\/\d+ file groups/.test(l))).toHaveLength(total + 1);
    expect(lines.at(-1)).toMatch(/^Compaction successfully completed for \d{17}: \d+ file group\(s\), \d+ records, \d+ bytes in \d+ ms$/);
    expect(r.stderr).not.toMatch(/\u001b|\r/);
  });
});
