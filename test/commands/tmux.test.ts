// Screenshots from a real terminal (issue 19 acceptance): the built CLI runs in tmux at 80×24 and
// 120×40 — doctor and orphans (through the pager when taller than the screen), commits show through
// less, and browse (list, time view, a drill-down) — and capture-pane's text is compared with
// goldens under golden/tmux/. The clock is pinned with TBLCLI_NOW and the demo table's file times,
// the table path is masked. Skipped, visibly, without tmux or a built dist/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { demoTable } from '../triage/support.ts';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/tblcli.js');
const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
const BUILT = existsSync(join(ROOT, 'dist/tblcli.js'));
if (!HAVE_TMUX) console.warn('[tblcli tests] tmux is not installed: the terminal screenshots are not taken (apt-get install tmux)');
else if (!BUILT) console.warn('[tblcli tests] dist/ is not built (npm run build): the terminal screenshots are not taken');

const G = (name: string) => join(import.meta.dirname, 'golden', 'tmux', name);
const NOW = new Date('2026-01-01T12:00:00Z');
const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const SOCKET = `tblcli-test-${process.pid}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// one idle session keeps this test's tmux server up between screenshots (a server whose last session
// ends exits, and a new-session racing that exit fails)
beforeAll(() => {
  if (HAVE_TMUX && BUILT) tmux('new-session', '-d', '-s', 'keep', 'sleep 3600');
});
afterAll(() => {
  if (HAVE_TMUX) spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
});

let session = 0;

/**
 * Runs `argv` (tblcli's arguments) in a fresh tmux window of the given size, waits until the screen
 * shows `ready` and stops changing, sends each of `keys` (waiting for its `until`), and returns the
 * screen as text.
 */
async function screenshot(argv: string[], size: [number, number], opts: { env?: Record<string, string>; ready: string; keys?: { key: string; until: string }[]; mask?: string }): Promise<string> {
  const name = `s${session++}`;
  const env = { TBLCLI_NOW: NOW.toISOString(), TBLCLI_STATE_DIR: mkdtempSync(join(tmpdir(), 'tblcli-state-')), TZ: 'UTC', TERM: 'xterm-256color', LANG: 'C.UTF-8', ...opts.env };
  const cmd = `${[process.execPath, BIN, ...argv].map((a) => `'${a}'`).join(' ')}; echo "[exit $?]"; sleep 600`;
  tmux('new-session', '-d', '-s', name, '-x', String(size[0]), '-y', String(size[1]), ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), cmd);
  const capture = () => tmux('capture-pane', '-p', '-t', name);
  const settle = async (want: string) => {
    const end = Date.now() + 20_000;
    let last = '';
    for (;;) {
      const now = capture();
      if (now.includes(want) && now === last) return now;
      if (Date.now() > end) throw new Error(`screen never showed ${JSON.stringify(want)}:\n${now}`);
      last = now;
      await sleep(250);
    }
  };
  try {
    let screen = await settle(opts.ready);
    for (const k of opts.keys ?? []) {
      tmux('send-keys', '-t', name, k.key);
      screen = await settle(k.until);
    }
    // trailing blank rows depend on nothing but the window height
    const text = screen.replace(/\n+$/, '\n');
    return opts.mask ? text.split(opts.mask).join('<table>') : text;
  } finally {
    tmux('kill-session', '-t', name);
  }
}

function pinTimes(dir: string, at: Date): void {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) pinTimes(p, at);
    utimesSync(p, at, at);
  }
}

let demo: Promise<string> | undefined;
const pinnedDemo = () =>
  (demo ??= demoTable(8, NOW).then(({ dir }) => {
    pinTimes(dir, new Date(NOW.getTime() - 2 * 3600_000));
    return dir;
  }));

const SIZES: [number, number][] = [
  [80, 24],
  [120, 40],
];

describe.skipIf(!HAVE_TMUX || !BUILT || !HAVE_FIXTURES)('screens in tmux', () => {
  for (const size of SIZES) {
    const tag = `${size[0]}x${size[1]}`;

    it(`doctor at ${tag} (the pager holds what does not fit)`, async () => {
      const dir = await pinnedDemo();
      const shot = await screenshot(['doctor', '--path', dir], size, { ready: 'pending-instants', mask: dir });
      expect(shot).toContain('Overall: error');
      await expect(shot).toMatchFileSnapshot(G(`doctor.${tag}.txt`));
    });

    it(`orphans at ${tag}`, async () => {
      const dir = await pinnedDemo();
      const shot = await screenshot(['orphans', '--path', dir], size, { ready: 'Severity', mask: dir });
      await expect(shot).toMatchFileSnapshot(G(`orphans.${tag}.txt`));
    });

    it(`commits show through less at ${tag}: chopped to the width, the first screen, q quits`, async () => {
      const shot = await screenshot(['commits', 'show', '--path', table(MOR8)], size, { ready: 'CommitTime' });
      const lines = shot.trimEnd().split('\n');
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(size[0]);
      expect(lines[0]!.startsWith('╔═')).toBe(true);
      await expect(shot).toMatchFileSnapshot(G(`commits-show.${tag}.txt`));
    });

    it(`browse at ${tag}: the list, the time view, a commit's partitions`, async () => {
      const env = { TBLCLI_PATH: table(MOR8) };
      const list = await screenshot(['browse'], size, { env, ready: '8/8 instants' });
      await expect(list).toMatchFileSnapshot(G(`browse.${tag}.txt`));
      const time = await screenshot(['browse'], size, { env, ready: '8/8 instants', keys: [{ key: 't', until: 'Lane' }] });
      await expect(time).toMatchFileSnapshot(G(`browse-time.${tag}.txt`));
      const drill = await screenshot(['browse'], size, { env, ready: '8/8 instants', keys: [{ key: 'Enter', until: ': partitions' }] });
      await expect(drill).toMatchFileSnapshot(G(`browse-drill.${tag}.txt`));
    });
  }

  it('Tab in the hudi-> shell completes commands, options and the connected table\'s instants', async () => {
    const env = { TBLCLI_PATH: table(MOR8) };
    const shot = await screenshot([], [80, 24], {
      env,
      ready: 'hudi->',
      keys: [
        { key: 'time', until: 'hudi->time' },
        { key: 'Tab', until: 'hudi->timeline' },
        { key: 's', until: 'hudi->timeline s' },
        { key: 'Tab', until: 'hudi->timeline show' },
        { key: 'a', until: 'hudi->timeline show a' },
        { key: 'Tab', until: 'hudi->timeline show active' },
        { key: 'Enter', until: 'No.' },
      ],
    });
    expect(shot).toContain('hudi->timeline show active');
    const commits = await screenshot([], [80, 24], {
      env,
      ready: 'hudi->',
      keys: [
        { key: 'commit showfiles --co', until: 'showfiles --co' },
        { key: 'Tab', until: 'showfiles --co' },
        { key: 'Tab', until: '--concurrency' },
        { key: 'mmit 2025122021012', until: '2025122021012' },
        { key: 'Tab', until: '2025122021012' },
        { key: 'Tab', until: '20251220210129235' },
      ],
    });
    // two candidates for --co are listed on the second Tab; the instants under 2025122021012 too
    expect(commits).toMatch(/--commit +--concurrency/);
    expect(commits).toMatch(/20251220210123755 +20251220210125441 +20251220210127080 +20251220210128625\s+20251220210129235/);
    await expect(commits).toMatchFileSnapshot(G('shell-tab.80x24.txt'));
  });

  it('q leaves browse and the terminal as it was (alternate screen); CI=true in the environment changes nothing', async () => {
    // ink takes CI=true for "no terminal" and would draw only the last frame
    const shot = await screenshot(['browse'], [80, 24], { env: { TBLCLI_PATH: table(MOR8), CI: 'true' }, ready: '8/8 instants', keys: [{ key: 'q', until: '[exit 0]' }] });
    expect(shot.trim()).toBe('[exit 0]');
  });
});
