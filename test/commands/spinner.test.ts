// The spinner for slow work (issue 19 §5): a timeline read that takes more than two seconds (here a
// WebHDFS server answering slowly) says what it is doing on a terminal's stderr, then clears itself;
// fast work and pipes show nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { dirname, relative } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { startWebHdfsServer, type WebHdfsServer } from '../support/webhdfs-server.ts';
import { makeCtx } from '../../commands/main.ts';
import { spin } from '../../commands/spinner.ts';
import { makeTestIO } from '../../src/io/index.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('spin', () => {
  it('appears only once the work is slow, redraws, and clears itself', async () => {
    const t = makeTestIO({ tty: true, columns: 80 });
    const v = await spin(makeCtx({ io: t.io, env: {} }), 'reading things', sleep(150).then(() => 42), { afterMs: 40, frameMs: 20 });
    expect(v).toBe(42);
    const frames = t.err().split('\r').filter(Boolean);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames[0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reading things \(0\.\d s\)\u001b\[K$/);
    expect(t.err().endsWith('\r\u001b[K')).toBe(true);
    expect(t.out()).toBe('');
  });
  it('fast work, or stderr not a terminal: nothing', async () => {
    const tty = makeTestIO({ tty: true });
    await spin(makeCtx({ io: tty.io, env: {} }), 'x', sleep(5), { afterMs: 40 });
    expect(tty.err()).toBe('');
    const pipe = makeTestIO();
    await spin(makeCtx({ io: pipe.io, env: {} }), 'x', sleep(100), { afterMs: 10 });
    expect(pipe.err()).toBe('');
  });
  it('a failure still clears the line and is passed on', async () => {
    const t = makeTestIO({ tty: true });
    await expect(spin(makeCtx({ io: t.io, env: {} }), 'x', sleep(60).then(() => Promise.reject(new Error('boom'))), { afterMs: 10 })).rejects.toThrow('boom');
    expect(t.err().endsWith('\r\u001b[K')).toBe(true);
  });
});

describe.skipIf(!HAVE_FIXTURES)('a slow WebHDFS timeline', () => {
  let server: WebHdfsServer | undefined;
  afterAll(async () => server?.close());
  it('on a terminal: "opening webhdfs://…", then "reading the timeline of webhdfs://…" on stderr; stdout as in a pipe', async () => {
    const local = table('quickstart_trips_table/mor/avro/v8_trips_8i3u1d');
    const root = dirname(local);
    server = await startWebHdfsServer({ root, faults: { delayMs: 2100 } }); // each request: 2.1 s
    const uri = server.uri(`/${relative(root, local)}`);
    const tty = await runCli(['timeline', 'show', 'active', '--path', uri], { tty: true });
    expect(tty.exitCode, tty.stderr).toBe(0);
    expect(tty.stderr).toContain(`opening ${uri} (2.`);
    expect(tty.stderr).toContain(`reading the timeline of ${uri} (`);
    expect(tty.stderr.endsWith('\r\u001b[K')).toBe(true);
    const piped = await runCli(['timeline', 'show', 'active', '--path', local]);
    expect(piped.stderr).toBe('');
    expect(tty.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toBe(piped.stdout);
  }, 120_000);
});
