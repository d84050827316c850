// `timeline show active --chart` (issue 19 §3): the time view as text, fitted to the width in a pipe
// too, golden at 80 and 120 columns; lanes from a greedy interval packing.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { makeCtx, runArgv } from '../../commands/main.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { assignLanes, humanDuration, renderTimeChart } from '../../src/render/time-chart.ts';
import { demoTable } from '../triage/support.ts';

const G = (name: string) => join(import.meta.dirname, 'golden', 'chart', name);
const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const NOW = new Date('2026-01-01T12:00:00Z');

async function chart(argv: string[], columns: number, tty = false) {
  const t = makeTestIO({ tty, columns });
  const code = await runArgv(argv, makeCtx({ io: t.io, env: {}, now: () => NOW, stateDir: '/nonexistent-state' }));
  expect(code, t.err()).toBe(0);
  return t.out();
}

describe('time chart', () => {
  it('lanes: an instant that starts before another ends gets the next free lane', () => {
    const b = (s: number, e: number) => ({ labels: [], startMs: s, endMs: e, pending: false });
    expect(assignLanes([b(0, 10), b(5, 20), b(10, 12), b(11, 30), b(25, 26)])).toEqual([1, 2, 1, 3, 1]);
    expect(assignLanes([{ labels: [], startMs: undefined, endMs: undefined, pending: false }, b(0, 1)])).toEqual([0, 1]);
  });
  it('durations read like a person says them', () => {
    expect([850, 12_340, 245_000, 7_800_000, 200_000_000].map(humanDuration)).toEqual(['850 ms', '12.3 s', '4 m 05 s', '2 h 10 m', '2 d 7 h']);
  });
  it('a pending bar runs to now in ▒, every line exactly the width', () => {
    const c = renderTimeChart(
      [
        { labels: ['1', 'commit', 'COMPLETED'], startMs: 0, endMs: 50_000, pending: false },
        { labels: ['2', 'compaction', 'INFLIGHT'], startMs: 40_000, endMs: 100_000, pending: true },
      ],
      { width: 70, labelHeaders: ['Instant', 'Action', 'State'], formatTime: (ms) => `t${ms / 1000}` },
    );
    expect(c.lanes).toEqual([1, 2]);
    for (const l of c.rows) expect([...l].length).toBe(70);
    expect(c.rows[1]).toMatch(/1 m 00 s\+ +│ +▒+│$/);
    expect(c.header[0]).toMatch(/│t0 ─+ t100$/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('timeline show active --chart', () => {
  it('golden at 80 and 120 columns, piped (the same rows as the table: --limit, --sortBy)', async () => {
    for (const columns of [80, 120]) {
      const out = await chart(['timeline', 'show', 'active', '--chart', '--path', table(MOR8)], columns);
      for (const l of out.trimEnd().split('\n')) expect([...l].length, l).toBeLessThanOrEqual(columns);
      expect(out).not.toMatch(/\u001b\[/);
      await expect(out).toMatchFileSnapshot(G(`mor8.${columns}.txt`));
    }
    const two = await chart(['timeline', 'show', 'active', '--chart', '--limit', '2', '--sortBy', 'Instant', '--desc', '--path', table(MOR8)], 100);
    expect(two.split('\n').filter((l) => /^\d/.test(l)).map((l) => l.split(/ +/)[1])).toEqual(['20251220210130911', '20251220210129235']);
    // --json wins over --chart
    expect(JSON.parse(await chart(['timeline', 'show', 'active', '--chart', '--json', '--path', table(MOR8)], 100))).toHaveLength(8);
  });

  it('pending instants of the demo table run to now, in lanes of their own', async () => {
    const { dir } = await demoTable(8, NOW);
    const out = await chart(['timeline', 'show', 'active', '--chart', '--limit', '-1', '--path', dir], 120);
    const rows = out.split('\n').filter((l) => /^\d/.test(l));
    expect(rows).toHaveLength(10);
    const pending = rows.filter((l) => l.includes('▒'));
    expect(pending.map((l) => l.split(/ +/)[2])).toEqual(['compaction', 'deltacommit']);
    for (const l of pending) expect(l).toMatch(/\+ +│ *▒+│$/); // to now: the right edge
    expect(new Set(pending.map((l) => l.split(/ +/)[0])).size).toBe(2);
  });
});
