// tblcli's own commands for a person (issue 19 §2): on a terminal a box fitted to the width, records
// when even that cannot fit, doctor as a checklist, '-' for empty cells; in a pipe plain aligned text;
// --json untouched. Goldens at 80 and 120 columns and piped, over the demo table with its planted
// problems (file times pinned, so ages are stable).
import { describe, expect, it } from 'vitest';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { makeCtx, runArgv } from '../../commands/main.ts';
import { Output, makeTestIO } from '../../src/io/index.ts';
import { fitWidths, renderAligned, renderFitted, wrapText } from '../../src/render/tty/person.ts';
import { openTable } from '../../src/table/index.ts';
import { doctor, scanTable } from '../../src/triage/index.ts';
import { doctorChecklist, doctorIntro } from '../../src/views/triage.ts';
import { demoTable } from '../triage/support.ts';

const G = (name: string) => join(import.meta.dirname, 'golden', 'person', name);
const NOW = new Date('2026-01-01T12:00:00Z');

function pinTimes(dir: string, at: Date): void {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) pinTimes(p, at);
    utimesSync(p, at, at);
  }
}

let demo: Promise<string> | undefined;
function pinnedDemo(): Promise<string> {
  demo ??= demoTable(8, NOW).then(({ dir }) => {
    pinTimes(dir, new Date(NOW.getTime() - 2 * 3600_000));
    return dir;
  });
  return demo;
}

async function cli(argv: string[], io: { tty: boolean; columns?: number; color?: boolean }) {
  const t = makeTestIO({ tty: io.tty, columns: io.columns ?? 100, color: io.color ?? false });
  const code = await runArgv(argv, makeCtx({ io: t.io, env: {}, now: () => NOW, stateDir: '/nonexistent-state' }));
  return { code, out: t.out(), err: t.err() };
}

describe('layout helpers', () => {
  it('wrapText breaks at spaces, long words after / , = _ -, and never past the width', () => {
    expect(wrapText('the quick brown fox', 9)).toEqual(['the quick', 'brown fox']);
    expect(wrapText('region=eu/abc-def_0-1-2_20250101.parquet', 12)).toEqual(['region=eu/', 'abc-def_0-1-', '2_20250101.', 'parquet']);
    expect(wrapText('aaaaaaaaaa', 4)).toEqual(['aaaa', 'aaaa', 'aa']);
    for (const w of [5, 8, 13]) for (const l of wrapText('a,b,c 20251220210129235,20251220210130911 x', w)) expect(l.length).toBeLessThanOrEqual(w);
  });
  it('fitWidths takes from the widest column first and stops at the minimums', () => {
    expect(fitWidths([10, 40, 5], [6, 6, 5], 55)).toEqual([10, 40, 5]);
    expect(fitWidths([10, 40, 5], [6, 6, 5], 35)).toEqual([10, 20, 5]);
    expect(fitWidths([30, 30], [6, 6], 20)).toEqual([10, 10]);
    expect(fitWidths([30, 30], [20, 20], 20)).toEqual([20, 20]);
  });
  it('empty cells read "-" on a terminal and in a pipe, and a fitted box never exceeds the width', () => {
    expect(renderAligned(['A', 'B'], [['x', 'null'], ['', 'y']])).toBe('A  B\nx  -\n-  y\n');
    const box = renderFitted(['Name', 'Text'], [['a', 'null'], ['b', 'word '.repeat(40)]], [], 50, { color: false });
    for (const line of box.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(50);
    expect(box).toMatch(/│ a +│ - +│/);
  });
});

describe('own commands over the demo table', () => {
  const cases: [string, string[]][] = [
    ['orphans', ['orphans']],
    ['collisions', ['collisions']],
  ];
  for (const [name, argv] of cases) {
    it(`${name}: fitted at 80 and 120 columns, plain in a pipe, --json as before`, async () => {
      const dir = await pinnedDemo();
      const args = [...argv, '--path', dir];
      for (const columns of [80, 120]) {
        const r = await cli(args, { tty: true, columns });
        expect(r.code, r.err).toBe(0);
        for (const line of r.out.trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(columns);
        await expect(r.out).toMatchFileSnapshot(G(`${name}.${columns}.txt`));
      }
      const piped = await cli(args, { tty: false });
      expect(piped.out).not.toMatch(/\u001b\[|(^|  )null(  |$)/m);
      expect(piped.out.split('\n')[0]).toMatch(/^Severity +Kind +/);
      await expect(piped.out).toMatchFileSnapshot(G(`${name}.piped.txt`));
      const json = JSON.parse((await cli([...args, '--json'], { tty: true })).out) as Record<string, unknown>[];
      expect(json.length).toBeGreaterThan(0);
      expect(JSON.parse((await cli([...args, '--json'], { tty: false })).out)).toEqual(json);
    });
  }

  it('severities in colour only on a colour terminal', async () => {
    const dir = await pinnedDemo();
    const colour = await cli(['collisions', '--path', dir], { tty: true, columns: 120, color: true });
    expect(colour.out).toContain('\u001b[31m\u001b[1merror');
    expect((await cli(['collisions', '--path', dir], { tty: true, columns: 120, color: false })).out).not.toMatch(/\u001b\[/);
  });

  it('doctor: a checklist with the next step and details below each check; one line per item in a pipe', async () => {
    const dir = await pinnedDemo();
    const report = await doctor(await scanTable(await openTable(dir), { now: NOW }));
    // the table's temp path would change the wrapping: show a fixed one
    report.table.basePath = '/data/warehouse/demo_orders';
    for (const [mode, tty, columns] of [['80', true, 80], ['120', true, 120], ['piped', false, 100]] as const) {
      const t = makeTestIO({ tty, columns });
      await new Output(t.io).checklist(doctorIntro(report), doctorChecklist(report.checks));
      if (tty) for (const line of t.out().trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(columns);
      await expect(t.out()).toMatchFileSnapshot(G(`doctor.${mode}.txt`));
    }
    const r = await cli(['doctor', '--path', dir], { tty: false });
    expect(r.out).toContain('Overall: error');
    expect(r.out).toMatch(/^error +collisions +/m);
    expect(r.out).toMatch(/^ +next: /m);
  });
});
