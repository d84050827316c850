// `tblcli browse` (src/render/ink) driven with ink-testing-library over real tables: frames asserted
// for navigation, drill-down, filters, search, the time view, doctor, help, resize and --watch.
import { afterEach, describe, expect, it } from 'vitest';
import React from 'react';
import { cleanup, render } from 'ink-testing-library';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAVE_FIXTURES, table, tableFresh } from '../support/fixtures.ts';
import { BrowseApp } from '../../src/render/ink/index.ts';
import { openTable } from '../../src/table/index.ts';
import { browseSource } from '../../src/views/browse.ts';
import { demoTable } from '../triage/support.ts';
import { runCli } from '../support/run-cli.ts';

const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const NOW = new Date('2026-01-01T12:00:00Z');

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));

type App = ReturnType<typeof render>;

/** Waits until the last frame satisfies `ok` (ink renders asynchronously; doctor reads the table). */
async function until(app: App, ok: (frame: string) => boolean, what: string, ms = 10_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const f = app.lastFrame() ?? '';
    if (ok(f)) return f;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
    await tick(20);
  }
}

/** Each key, then the frame it causes (a busy machine draws late; a key that changes nothing waits 2 s). */
async function press(app: App, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    const before = app.frames.length;
    app.stdin.write(k);
    const end = Date.now() + 2000;
    while (app.frames.length === before && Date.now() < end) await tick(10);
    await tick(40);
  }
}

const KEY = { down: '\u001b[B', up: '\u001b[A', enter: '\r', esc: '\u001b', backspace: '\u007f' };

function resize(app: App, columns: number, rows: number): void {
  Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true });
  app.stdout.emit('resize');
}

async function browse(path: string, opts: { watchMs?: number; columns?: number; rows?: number } = {}): Promise<App> {
  const t = await openTable(path);
  const app = render(React.createElement(BrowseApp, { source: browseSource(t, undefined, () => NOW), watchMs: opts.watchMs }));
  resize(app, opts.columns ?? 100, opts.rows ?? 24);
  await until(app, (f) => f.includes('instants ·'), 'the timeline');
  return app;
}

const lines = (f: string) => f.split('\n');
const statusLine = (f: string) => lines(f).at(-2)!;

afterEach(() => cleanup());

describe.skipIf(!HAVE_FIXTURES)('browse', () => {
  it('lists the timeline in one screen of 24 rows, the cursor moves, the status line names the command', async () => {
    const app = await browse(table(MOR8));
    const f = app.lastFrame()!;
    expect(lines(f)).toHaveLength(23);
    expect(f).toContain('v8_trips_8i3u1d (MERGE_ON_READ, v8) · 8/8 instants · state:all action:all');
    expect(f).toMatch(/Instant +Action +State +Requested +Completed +Duration/);
    expect(f).toMatch(/20251220210108078 +deltacommit +COMPLETED +12-20 21:01:08/);
    expect(statusLine(f)).toBe('$ tblcli commit showfiles --commit 20251220210108078');
    await press(app, 'j', KEY.down);
    expect(statusLine(app.lastFrame()!)).toBe('$ tblcli commit showfiles --commit 20251220210123755');
    await press(app, KEY.up);
    expect(statusLine(app.lastFrame()!)).toBe('$ tblcli timeline show active --limit -1'); // the indexing instant
    await press(app, 'G');
    expect(statusLine(app.lastFrame()!)).toContain('20251220210130911');
    await press(app, 'g');
    expect(statusLine(app.lastFrame()!)).toContain('20251220210108078');
  });

  it('Enter drills into a commit: partitions → files → write stat; Esc goes back up', async () => {
    const app = await browse(table(MOR8));
    await press(app, KEY.enter);
    let f = await until(app, (x) => x.includes(': partitions'), 'partitions');
    expect(f).toContain('deltacommit 20251220210108078: partitions');
    expect(f).toMatch(/city=san_francisco +1 +0/);
    expect(statusLine(f)).toBe('$ tblcli commit showpartitions --commit 20251220210108078');
    await press(app, KEY.enter);
    f = await until(app, (x) => x.includes('files in city=san_francisco'), 'files');
    expect(f).toMatch(/Partition Path +FileId/);
    await press(app, KEY.enter);
    f = await until(app, (x) => x.includes('write stat'), 'a write stat');
    expect(f).toMatch(/Field +Value/);
    expect(f).toMatch(/Total Records Written +\d+/);
    await press(app, KEY.esc, KEY.esc);
    f = await until(app, (x) => x.includes(': partitions'), 'back to partitions');
    await press(app, KEY.esc);
    f = await until(app, (x) => x.includes('8/8 instants') && !x.includes(': partitions'), 'back to the list');
    expect(f).toContain('20251220210130911');
  });

  it('Enter on a completed compaction shows its plan operations', async () => {
    const app = await browse(table(MOR8));
    await press(app, '/', ...'129235', KEY.enter);
    expect(app.lastFrame()).toContain(' /129235 ');
    await press(app, KEY.enter);
    const f = await until(app, (x) => x.includes('plan operations'), 'the plan');
    expect(f).toContain('compaction 20251220210129235: plan operations');
    expect(statusLine(f)).toBe('$ tblcli compaction show --instant 20251220210129235');
  });

  it('filters by action (a) and state (s); search (/) jumps, n finds the next match, Esc clears', async () => {
    const app = await browse(table(MOR8));
    await press(app, 'a');
    let f = app.lastFrame()!;
    expect(f).toContain('1/8 instants · state:all action:compaction');
    await press(app, 'a');
    expect(app.lastFrame()).toContain('6/8 instants · state:all action:deltacommit');
    await press(app, 'a', 'a');
    expect(app.lastFrame()).toContain('8/8 instants · state:all action:all');
    await press(app, 's');
    f = app.lastFrame()!;
    expect(f).toContain('0/8 instants · state:pending');
    expect(statusLine(f)).toBe('no instants match the filters');
    await press(app, 's');
    expect(app.lastFrame()).toContain('8/8 instants · state:completed');
    await press(app, 's', '/', ...'2101', KEY.backspace, ...'12', KEY.enter);
    expect(statusLine(app.lastFrame()!)).toContain('20251220210123755');
    await press(app, 'n');
    expect(statusLine(app.lastFrame()!)).toContain('20251220210125441');
    await press(app, '/', ...'nope', KEY.enter);
    expect(statusLine(app.lastFrame()!)).toBe('no instant matches nope');
    await press(app, KEY.esc);
    expect(app.lastFrame()).not.toContain('/nope');
  });

  it('t draws the time view with lanes; d shows doctor findings; ? help; q quits', async () => {
    const app = await browse(table(MOR8));
    await press(app, 't');
    let f = app.lastFrame()!;
    expect(f).toMatch(/Lane +Instant +Action +State +Duration +│21:01:08 ─+ 21:01:31/);
    expect(f).toMatch(/^ {2}1 +20251220210108078 +deltacommit +COMPLETED +1\.5 s +│█+ +│$/m);
    await press(app, 'd');
    f = await until(app, (x) => x.includes('file-group-size'), 'doctor');
    expect(f).toContain('doctor: findings for this table');
    expect(f).toContain('Overall: info   $ tblcli doctor');
    await press(app, KEY.esc);
    expect(app.lastFrame()).toMatch(/Lane +Instant/);
    await press(app, '?');
    expect(app.lastFrame()).toContain('tblcli browse: the timeline of one table, read-only');
    await press(app, 'x', 't');
    expect(app.lastFrame()).toMatch(/Requested +Completed/);
    await press(app, 'q');
    await tick(50);
    const frames = app.frames.length;
    await press(app, 'j');
    expect(app.frames.length).toBe(frames); // unmounted: no more frames
  });

  it('redraws at the new size on resize (80×24, 120×40, 60×12), never wider than the screen', async () => {
    const app = await browse(table(MOR8), { columns: 120, rows: 40 });
    let f = app.lastFrame()!;
    expect(lines(f)).toHaveLength(39);
    expect(f).toContain('Duration');
    resize(app, 80, 24);
    f = await until(app, (x) => lines(x).length === 23, '24 rows');
    for (const l of lines(f)) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(f).not.toContain('Duration'); // the last column gives way at 80
    resize(app, 60, 12);
    f = await until(app, (x) => lines(x).length === 11, '12 rows');
    for (const l of lines(f)) expect([...l].length, l).toBeLessThanOrEqual(60);
    await press(app, 'G');
    expect(app.lastFrame()).toContain('20251220210130911'); // scrolled to keep the cursor in view
  });

  it('a table with stuck instants: pending filter, doctor marks the instants it names with !', async () => {
    const { dir } = await demoTable(8, NOW);
    const app = await browse(dir);
    await press(app, 's');
    let f = app.lastFrame()!;
    expect(f).toContain('2/10 instants · state:pending');
    expect(statusLine(f)).toMatch(/^\$ tblcli compaction run --instant \d{17}$/);
    await press(app, 'd');
    await until(app, (x) => x.includes('pending-instants'), 'doctor');
    await press(app, 'G');
    expect(app.lastFrame()).toContain('Overall: error');
    await press(app, KEY.esc);
    f = app.lastFrame()!;
    expect(f.split('\n').filter((l) => l.startsWith('!'))).toHaveLength(2);
  });

  it('--watch re-reads the timeline: a new instant appears without a key', async () => {
    const dir = tableFresh(MOR8);
    const app = await browse(dir, { watchMs: 100 });
    writeFileSync(join(dir, '.hoodie', 'timeline', '20260101115900000.commit.requested'), '');
    const f = await until(app, (x) => x.includes('9/9 instants'), 'the new instant');
    expect(f).toMatch(/20260101115900000 +commit +REQUESTED/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('browse off a terminal', () => {
  it('is a usage error pointing at --chart', async () => {
    const r = await runCli(['browse', '--path', table(MOR8)]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('browse needs a terminal');
    expect(r.stderr).toContain('timeline show active --chart');
    expect(r.stdout).toBe('');
  });
});
