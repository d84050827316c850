// The pager (commands/pager.ts): which one, when, and that what it receives is the exact FlipTable a
// pipe gets. A real pager process is started through the shell (`TBLCLI_PAGER='cat > file'`); the
// real less on a real terminal is exercised by test/commands/tmux.test.ts.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { makeCtx, runArgv } from '../../commands/main.ts';
import { fits, lessHeader, measure, pagerFor } from '../../commands/pager.ts';
import { makeTestIO } from '../../src/io/index.ts';

const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';

describe('pagerFor', () => {
  const tty = makeTestIO({ tty: true, pager: true }).io;
  it('TBLCLI_PAGER, then PAGER, then less -FRSX', () => {
    expect(pagerFor(tty, { TBLCLI_PAGER: 'most', PAGER: 'more' }, {})).toEqual({ shell: 'most' });
    expect(pagerFor(tty, { PAGER: 'more -s' }, {})).toEqual({ shell: 'more -s' });
    expect(pagerFor(tty, {}, {})).toEqual({ file: 'less', args: ['-FRSX'] });
  });
  it('off with TBLCLI_PAGER= or cat (even when PAGER is set), --no-pager, --json, --format, or off a terminal', () => {
    expect(pagerFor(tty, { TBLCLI_PAGER: '', PAGER: 'less' }, {})).toBeUndefined();
    expect(pagerFor(tty, { TBLCLI_PAGER: 'cat' }, {})).toBeUndefined();
    expect(pagerFor(tty, { PAGER: ' cat ' }, {})).toBeUndefined();
    expect(pagerFor(tty, {}, { pager: false })).toBeUndefined();
    expect(pagerFor(tty, {}, { json: true })).toBeUndefined();
    expect(pagerFor(tty, {}, { json: 'a,b' })).toBeUndefined();
    expect(pagerFor(tty, {}, { format: 'csv' })).toBeUndefined();
    expect(pagerFor(tty, {}, { format: 'table' })).toEqual({ file: 'less', args: ['-FRSX'] });
    expect(pagerFor(makeTestIO({ tty: false }).io, {}, {})).toBeUndefined();
    // a terminal of in-memory IO that did not ask for a pager (every other test)
    expect(pagerFor(makeTestIO({ tty: true }).io, {}, {})).toBeUndefined();
  });
});

describe('fits', () => {
  it('counts lines and visible width (ANSI codes take no room, a final newline ends the last line)', () => {
    expect(measure('ab\ncde\n')).toEqual({ lines: 2, width: 3 });
    expect(measure('\u001b[1mabc\u001b[22m\n')).toEqual({ lines: 1, width: 3 });
    expect(measure('║ é ║\n')).toEqual({ lines: 1, width: 5 });
    expect(fits('x\n'.repeat(23), 80, 24)).toBe(true);
    expect(fits('x\n'.repeat(24), 80, 24)).toBe(false);
    expect(fits(`${'x'.repeat(81)}\n`, 80, 24)).toBe(false);
  });
});

describe('lessHeader', () => {
  it('freezes the header lines and the columns through the first time column', () => {
    const t = ['╔═════╤═══════════╤════╗', '║ No. │ Instant   │ A  ║', '║     │           │    ║', '╠═════╪═══════════╪════╣', '║ 1   │ 2025      │ x  ║', ''].join('\n');
    expect(lessHeader(t)).toBe('4,19');
    const c = ['note', '╔═══════════╤═════╗', '║ CommitTime│ B   ║', '╠═══════════╪═════╣', ''].join('\n');
    expect(lessHeader(c)).toBe('4,13');
    expect(lessHeader('╔═════╗\n║ a   ║\n╠═════╣\n')).toBe('3');
    expect(lessHeader('no table here\n')).toBeUndefined();
  });
});

describe.skipIf(!HAVE_FIXTURES)('a command on a terminal', () => {
  async function run(argv: string[], env: Record<string, string>, rows = 10) {
    const t = makeTestIO({ tty: true, pager: true, rows, columns: 200 });
    const code = await runArgv(argv, makeCtx({ io: t.io, env, stateDir: '/nonexistent-state' }));
    return { code, out: t.out(), err: t.err() };
  }
  async function piped(argv: string[]) {
    const t = makeTestIO();
    await runArgv(argv, makeCtx({ io: t.io, env: {}, stateDir: '/nonexistent-state' }));
    return t.out();
  }
  const argv = () => ['timeline', 'show', 'active', '--path', table(MOR8)];

  it('taller than the screen: the pager gets the FlipTable byte for byte, stdout nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pager-'));
    const file = join(dir, 'paged.txt');
    const r = await run(argv(), { TBLCLI_PAGER: `cat > '${file}'` });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(await piped(argv()));
  });

  it('that fits the screen, or with --no-pager / --json / TBLCLI_PAGER=: written straight out, no pager started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pager-'));
    const file = join(dir, 'paged.txt');
    const env = { TBLCLI_PAGER: `cat > '${file}'` };
    const expected = await piped(argv());
    expect((await run(argv(), env, 60)).out).toBe(expected);
    expect((await run([...argv(), '--no-pager'], env)).out).toBe(expected);
    expect(JSON.parse((await run([...argv(), '--json'], env)).out)).toHaveLength(8);
    expect((await run(argv(), { TBLCLI_PAGER: '', PAGER: `cat > '${file}'` })).out).toBe(expected);
    expect(existsSync(file)).toBe(false);
  });

  it('a pager that cannot start: the output is written out as is', async () => {
    const r = await run(argv(), { TBLCLI_PAGER: 'exit 127 #' });
    // the shell started, so the text went to it; a missing binary behaves the same through the shell
    expect(r.code).toBe(0);
    const t = makeTestIO({ tty: true, pager: true, rows: 5, columns: 200 });
    const ctx = makeCtx({ io: t.io, env: { PATH: '/nonexistent' }, stateDir: '/nonexistent-state' });
    expect(await runArgv(argv(), ctx)).toBe(0);
    expect(t.out()).toBe(await piped(argv()));
  });
});
