// tblcli's own commands (doctor, orphans, collisions, service summaries) for a person: on a terminal a
// cli-table3 box fitted to the screen (cells word-wrapped, no column wider than it needs) or a
// checklist, severity in colour (chalk, level decided by IO: NO_COLOR/FORCE_COLOR); in a pipe plain
// aligned columns, one line per row, for grep and awk. Empty cells are '-'. Loaded only by the
// commands that render this way (cli-table3 and chalk are not start-up cost).
import Table from 'cli-table3';
import { Chalk, type ChalkInstance } from 'chalk';
import type { Tone } from '../table-model.ts';
import type { CheckItem, IntroLine } from '../person-model.ts';
import { width, wrapText } from '../wrap.ts';

export { wrapText };

export interface PersonStyle {
  color: boolean;
}

function painter(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export function paintTone(c: ChalkInstance, tone: Tone | undefined, s: string): string {
  if (tone === 'good') return c.green(s);
  if (tone === 'info') return c.cyan(s);
  if (tone === 'warn') return c.yellow(s);
  if (tone === 'bad') return c.red.bold(s);
  if (tone === 'dim') return c.dim(s);
  return s;
}

/** Column widths (content only) that fit `total` columns of screen: the widest columns give way first. */
export function fitWidths(natural: number[], minimum: number[], total: number): number[] {
  const w = [...natural];
  let sum = w.reduce((a, b) => a + b, 0);
  while (sum > total) {
    let widest = -1;
    for (let i = 0; i < w.length; i++) if (w[i]! > minimum[i]! && (widest < 0 || w[i]! > w[widest]!)) widest = i;
    if (widest < 0) break; // cannot fit: the terminal wraps what is left
    w[widest]!--;
    sum--;
  }
  return w;
}

const empty = (s: string): string => (s === '' || s === 'null' ? '-' : s);

const MAX_ROW_LINES = 6;

/**
 * A box table fitted to `columns`: headers bold, cells toned, empty cells '-'. When the columns
 * cannot fit, or a row would wrap over more than MAX_ROW_LINES lines, one record per row instead.
 */
export function renderFitted(headers: string[], cells: string[][], tones: (Tone | undefined)[][], columns: number, style: PersonStyle): string {
  const c = painter(style.color);
  const n = headers.length;
  const text = cells.map((row) => row.map(empty));
  const natural = headers.map((h, i) => Math.max(...h.split('\n').map(width), ...text.map((r) => Math.max(...r[i]!.split('\n').map(width)))));
  const minimum = headers.map((h, i) => Math.min(natural[i]!, Math.max(6, ...h.split(/\s+/).map(width))));
  // each column has a space either side and a border on its left, plus the last border
  const room = columns - 3 * n - 1;
  if (minimum.reduce((a, b) => a + b, 0) > room) return renderRecords(headers, text, tones, columns, c);
  const widths = fitWidths(natural, minimum, room);
  // a box whose rows wrap into a tall thin column of words reads worse than one record per row
  const tallest = Math.max(0, ...text.map((row) => Math.max(...row.map((cell, i) => wrapText(cell, widths[i]!).length))));
  if (tallest > MAX_ROW_LINES) return renderRecords(headers, text, tones, columns, c);
  const table = new Table({
    head: headers.map((h, i) => c.bold(wrapText(h.replace(/\n/g, ' '), widths[i]!).join('\n'))),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
  });
  for (let r = 0; r < text.length; r++) {
    table.push(text[r]!.map((cell, i) => wrapText(cell, widths[i]!).map((l) => paintTone(c, tones[r]?.[i], l)).join('\n')));
  }
  if (text.length === 0) table.push([{ colSpan: n, content: c.dim('(none)') }]);
  return `${table.toString()}\n`;
}

/**
 * Too many columns for the screen (orphans' eleven at 80 columns): each row as a record, one
 * `Header  value` line per column (psql's \\x), values wrapped beside their header.
 */
function renderRecords(headers: string[], text: string[][], tones: (Tone | undefined)[][], columns: number, c: ChalkInstance): string {
  const names = headers.map((h) => h.replace(/\n/g, ' '));
  const nameW = Math.max(...names.map(width));
  const room = Math.max(10, columns - nameW - 2);
  const out: string[] = [];
  if (text.length === 0) out.push(c.dim('(none)'));
  text.forEach((row, r) => {
    const title = `── ${r + 1}/${text.length} `;
    out.push(c.dim(title + '─'.repeat(Math.max(0, columns - width(title)))));
    row.forEach((cell, i) => {
      const lines = wrapText(cell, room);
      out.push(`${c.bold(names[i]!.padEnd(nameW))}  ${paintTone(c, tones[r]?.[i], lines[0]!)}`);
      for (const l of lines.slice(1)) out.push(`${' '.repeat(nameW + 2)}${paintTone(c, tones[r]?.[i], l)}`);
    });
  });
  return out.map((l) => `${l}\n`).join('');
}

/** Plain aligned columns for pipes: a header line, then one line per row; newlines in a cell become spaces. */
export function renderAligned(headers: string[], cells: string[][]): string {
  const flat = (s: string) => s.replace(/\s*\n\s*/g, ' ');
  const head = headers.map(flat);
  const rows = cells.map((r) => r.map((s) => empty(flat(s))));
  const widths = head.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i]!))));
  const line = (r: string[]) => r.map((s, i) => (i === r.length - 1 ? s : s + ' '.repeat(widths[i]! - width(s)))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

const MARK: Record<Tone, string> = { good: '✓', info: 'i', warn: '!', bad: '✗', dim: '·' };

/**
 * A checklist (brew doctor, flutter doctor): one line per check with its mark and summary, the next
 * step and the details indented below. On a terminal wrapped to `columns` with a coloured mark;
 * in a pipe one unwrapped line each, the severity spelled out.
 */
export function renderChecklist(items: CheckItem[], opts: { tty: boolean; columns: number; color: boolean }): string {
  const c = painter(opts.color);
  const nameW = Math.max(...items.map((i) => width(i.name)), 0);
  const out: string[] = [];
  if (!opts.tty) {
    const wordW = Math.max(...items.map((i) => width(i.word)), 0);
    for (const i of items) {
      out.push(`${i.word.padEnd(wordW)}  ${i.name.padEnd(nameW)}  ${i.summary}`);
      const indent = ' '.repeat(wordW + 2);
      if (i.next && i.next !== '-') out.push(`${indent}next: ${i.next}`);
      for (const d of i.details) out.push(`${indent}- ${d}`);
    }
    return out.map((l) => `${l}\n`).join('');
  }
  const lead = 2 + nameW + 2; // "✓ " + name + gap
  const room = Math.max(20, opts.columns - lead);
  for (const i of items) {
    const summary = wrapText(i.summary, room);
    out.push(`${paintTone(c, i.tone, MARK[i.tone])} ${c.bold(i.name.padEnd(nameW))}  ${summary[0] ?? ''}`);
    for (const l of summary.slice(1)) out.push(`${' '.repeat(lead)}${l}`);
    const sub = ' '.repeat(lead);
    if (i.next && i.next !== '-') {
      const next = wrapText(i.next, room - 2);
      out.push(`${sub}${paintTone(c, i.tone, '→')} ${next[0]}`);
      for (const l of next.slice(1)) out.push(`${sub}  ${l}`);
    }
    for (const d of i.details) {
      const lines = wrapText(d, room - 2);
      out.push(`${sub}${c.dim('·')} ${c.dim(lines[0]!)}`);
      for (const l of lines.slice(1)) out.push(`${sub}  ${c.dim(l)}`);
    }
  }
  return out.map((l) => `${l}\n`).join('');
}

/**
 * Lines above a checklist, wrapped to the screen with a hanging indent on a terminal. A line that
 * must not be wrapped (a path: the terminal wraps it or a pager scrolls it) is given as
 * `{ text, tty, wrap: false }`, where `tty` is how it reads on a terminal.
 */
export function renderWrapped(lines: IntroLine[], opts: { tty: boolean; columns: number }): string {
  if (!opts.tty) return lines.map((l) => `${typeof l === 'string' ? l : l.text}\n`).join('');
  return lines
    .flatMap((l) => (typeof l === 'string' ? wrapText(l, opts.columns - 2).map((x, i) => (i === 0 ? x : `  ${x}`)) : (l.tty ?? l.text).split('\n')))
    .map((l) => `${l}\n`)
    .join('');
}
