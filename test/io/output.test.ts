import { describe, expect, it } from 'vitest';
import { makeTestIO, Output, systemIO } from '../../src/io/index.ts';
import { renderFlipTable, type ColumnSpec } from '../../src/render/index.ts';
import { TblError } from '../../src/errors/index.ts';

interface Instant {
  ts: string;
  action: string;
  requested: string;
}
const columns: ColumnSpec<Instant>[] = [
  { key: 'instant', header: 'Instant', value: (r) => r.ts },
  { key: 'action', header: 'Action', value: (r) => r.action },
  { key: 'requestedTime', header: 'Requested\nTime', value: (r) => r.requested },
];
const rows: Instant[] = [
  { ts: '20240101120000123', action: 'commit', requested: '01-01 12:00' },
  { ts: '20240101110000456', action: 'clean', requested: '01-01 11:00' },
];

const PLAIN = [
  '╔═══════════════════╤════════╤═════════════╗',
  '║ Instant           │ Action │ Requested   ║',
  '║                   │        │ Time        ║',
  '╠═══════════════════╪════════╪═════════════╣',
  '║ 20240101120000123 │ commit │ 01-01 12:00 ║',
  '╟───────────────────┼────────┼─────────────╢',
  '║ 20240101110000456 │ clean  │ 01-01 11:00 ║',
  '╚═══════════════════╧════════╧═════════════╝',
]
  .map((l) => `${l}\n`)
  .join('');

const ESC = '\u001b';

describe('Output.table', () => {
  it('piped (not a TTY) → FlipTable bytes, no ANSI even with colour enabled', () => {
    const t = makeTestIO({ tty: false, color: true });
    new Output(t.io).table(columns, rows, {});
    expect(t.out()).toBe(PLAIN);
    expect(t.err()).toBe('');
  });

  it('TTY without colour → the same FlipTable bytes', () => {
    const t = makeTestIO({ tty: true, color: false });
    new Output(t.io).table(columns, rows, {});
    expect(t.out()).toBe(PLAIN);
  });

  it('TTY with colour → bold header lines, alignment unchanged', () => {
    const t = makeTestIO({ tty: true, color: true });
    new Output(t.io).table(columns, rows, {});
    expect(t.out()).toContain(`║ ${ESC}[1mInstant${ESC}[22m           │ ${ESC}[1mAction${ESC}[22m │ ${ESC}[1mRequested${ESC}[22m   ║\n`);
    expect(t.out()).toContain(`║                   │        │ ${ESC}[1mTime${ESC}[22m        ║\n`);
    expect(t.out().replace(/\u001b\[\d+m/g, '')).toBe(PLAIN);
  });

  it('sort/limit/rowNumbers flow through', () => {
    const t = makeTestIO();
    new Output(t.io).table(columns, rows, { sortBy: 'Instant', limit: 1, rowNumbers: true });
    expect(t.out()).toBe(
      renderFlipTable(['No.', 'Instant', 'Action', 'Requested\nTime'], [['1', '20240101110000456', 'clean', '01-01 11:00']]),
    );
  });

  it('headerOnly → header box and (empty) row', () => {
    const t = makeTestIO();
    new Output(t.io).table(columns, rows, { headerOnly: true });
    expect(t.out()).toContain('║ (empty)');
    expect(t.out()).toBe(renderFlipTable(['Instant', 'Action', 'Requested\nTime'], []));
  });

  it('bad sortBy → throws usage error, prints nothing', () => {
    const t = makeTestIO();
    expect(() => new Output(t.io).table(columns, rows, { sortBy: 'instant time' })).toThrow(TblError);
    expect(t.out()).toBe('');
  });

  it('--format csv → header line (multi-line header joined by a space) and converted cells', () => {
    const t = makeTestIO({ tty: true, color: true });
    new Output(t.io).table(columns, rows, { format: 'csv' });
    expect(t.out()).toBe(
      'Instant,Action,Requested Time\n20240101120000123,commit,01-01 12:00\n20240101110000456,clean,01-01 11:00\n',
    );
  });

  it('--format tsv → tab separated with header', () => {
    const t = makeTestIO();
    new Output(t.io).table(columns, rows, { format: 'tsv', limit: 1 });
    expect(t.out()).toBe('Instant\tAction\tRequested Time\n20240101120000123\tcommit\t01-01 12:00\n');
  });

  it('--json piped → compact raw JSON, one line', () => {
    const t = makeTestIO({ tty: false, color: true });
    new Output(t.io).table(columns, rows, { json: true, limit: 1 });
    expect(t.out()).toBe('[{"instant":"20240101120000123","action":"commit","requestedTime":"01-01 12:00"}]\n');
  });

  it('--json on a TTY → pretty; --json=fields selects; --format json is the same as --json', () => {
    const t = makeTestIO({ tty: true });
    new Output(t.io).table(columns, rows, { json: ['action'] });
    expect(t.out()).toBe('[\n  {\n    "action": "commit"\n  },\n  {\n    "action": "clean"\n  }\n]\n');
    const u = makeTestIO();
    new Output(u.io).table(columns, rows, { format: 'json' });
    const v = makeTestIO();
    new Output(v.io).table(columns, rows, { json: true });
    expect(u.out()).toBe(v.out());
  });

  it('--json wins over --format csv; json: false falls back to the format', () => {
    const t = makeTestIO();
    new Output(t.io).table(columns, rows, { json: true, format: 'csv' });
    expect(t.out().startsWith('[{')).toBe(true);
    const u = makeTestIO();
    new Output(u.io).table(columns, rows, { json: false, format: 'tsv' });
    expect(u.out().startsWith('Instant\t')).toBe(true);
  });

  it('--json with an unknown field → usage error listing fields', () => {
    const t = makeTestIO();
    expect(() => new Output(t.io).table(columns, rows, { json: ['nope'] })).toThrow(
      "Unknown JSON field 'nope'. Available fields: instant, action, requestedTime",
    );
  });
});

describe('Output messages', () => {
  it('json(value) → pretty on a TTY, compact piped', () => {
    const a = makeTestIO({ tty: true });
    new Output(a.io).json({ name: 't', version: 6 });
    expect(a.out()).toBe('{\n  "name": "t",\n  "version": 6\n}\n');
    const b = makeTestIO();
    new Output(b.io).json({ name: 't', version: 6 });
    expect(b.out()).toBe('{"name":"t","version":6}\n');
  });

  it('text → stdout with exactly one trailing newline', () => {
    const t = makeTestIO();
    const o = new Output(t.io);
    o.text('Metadata for table t loaded');
    o.text('done\n');
    expect(t.out()).toBe('Metadata for table t loaded\ndone\n');
    expect(t.err()).toBe('');
  });

  it('info → stderr only on a TTY', () => {
    const piped = makeTestIO();
    new Output(piped.io).info('Showing 2 of 9');
    expect(piped.err()).toBe('');
    expect(piped.out()).toBe('');
    const tty = makeTestIO({ tty: true });
    new Output(tty.io).info('Showing 2 of 9');
    expect(tty.err()).toBe('Showing 2 of 9\n');
    expect(tty.out()).toBe('');
  });

  it('warn → stderr always, "warning: " prefix, colour only on a colour TTY', () => {
    const piped = makeTestIO({ color: true });
    new Output(piped.io).warn('table is locked');
    expect(piped.err()).toBe('warning: table is locked\n');
    const tty = makeTestIO({ tty: true, color: true });
    new Output(tty.io).warn('table is locked');
    expect(tty.err()).toBe(`${ESC}[33mwarning:${ESC}[39m table is locked\n`);
  });
});

describe('IO', () => {
  it('makeTestIO defaults → not a TTY, 100 columns, no colour', () => {
    const { io } = makeTestIO();
    expect([io.isStdoutTTY, io.isStderrTTY, io.columns, io.colorEnabled]).toEqual([false, false, 100, false]);
  });

  it('systemIO: TBLCLI_FORCE_TTY forces TTY and width; NO_COLOR beats FORCE_COLOR', () => {
    const forced = systemIO({ TBLCLI_FORCE_TTY: '120', TERM: 'xterm' });
    expect([forced.isStdoutTTY, forced.isStderrTTY, forced.columns, forced.colorEnabled]).toEqual([true, true, 120, true]);
    expect(systemIO({ TBLCLI_FORCE_TTY: '1', NO_COLOR: '1', FORCE_COLOR: '1' }).colorEnabled).toBe(false);
    expect(systemIO({ TBLCLI_FORCE_TTY: '1', TERM: 'dumb' }).colorEnabled).toBe(false);
    expect(systemIO({ TBLCLI_FORCE_TTY: '1', TERM: 'dumb', FORCE_COLOR: '1' }).colorEnabled).toBe(true);
    expect(systemIO({ TBLCLI_FORCE_TTY: 'false' }).isStdoutTTY).toBe(process.stdout.isTTY === true);
  });

  it.skipIf(process.stdout.isTTY === true)('systemIO piped (vitest fork stdout is not a TTY) → no colour unless FORCE_COLOR; Output still plain', () => {
    const io = systemIO({ TERM: 'xterm', COLUMNS: '77' });
    expect([io.isStdoutTTY, io.colorEnabled, io.columns]).toEqual([false, false, 77]);
    const forced = systemIO({ FORCE_COLOR: '1' });
    expect(forced.colorEnabled).toBe(true);
    let out = '';
    new Output({ ...forced, stdout: (s) => void (out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')) }).table(columns, rows, {});
    expect(out).toBe(PLAIN);
  });
});
