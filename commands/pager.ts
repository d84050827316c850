// The pager, the way git does it: on a terminal, a command's stdout is collected and, when it is
// taller or wider than the screen, handed to $TBLCLI_PAGER, else $PAGER, else `less -FRSX` (with
// `--header` keeping FlipTable's header and first columns in view where the installed less has it).
// Pipes, files, --json/--format, `--no-pager`, and `TBLCLI_PAGER=` or `cat` write straight out, so
// FlipTable bytes never change. child_process is loaded only when a pager actually starts.
import type { IO } from '../src/io/index.ts';
import { Output } from '../src/io/index.ts';
import type { Ctx } from './context.ts';
import type { Opts } from './spec.ts';

export interface PagerCommand {
  /** a command line for the shell ($TBLCLI_PAGER / $PAGER), or the default less with its arguments */
  shell?: string;
  file?: string;
  args?: string[];
}

/** While a pager runs, Ctrl-C belongs to it (git ignores SIGINT then too). */
let active = 0;
export function pagerActive(): boolean {
  return active > 0;
}

/** Which pager, if any: none off a terminal, for machine formats, with --no-pager, or when set to '' / cat. */
export function pagerFor(io: IO, env: Record<string, string | undefined>, o: Opts): PagerCommand | undefined {
  if (!io.pager || o.pager === false) return undefined;
  if ((o.json !== undefined && o.json !== false) || (o.format !== undefined && o.format !== 'table')) return undefined;
  const chosen = env.TBLCLI_PAGER ?? env.PAGER;
  if (chosen !== undefined) {
    const c = chosen.trim();
    return c === '' || c === 'cat' ? undefined : { shell: c };
  }
  return { file: 'less', args: ['-FRSX'] };
}

/** Lines and widest line of what was written (ANSI SGR codes do not take room). */
export function measure(text: string): { lines: number; width: number } {
  let lines = 0;
  let width = 0;
  for (const line of text.split('\n')) {
    lines++;
    const w = [...line.replace(/\u001b\[[;\d]*m/g, '')].length;
    if (w > width) width = w;
  }
  if (text.endsWith('\n')) lines--;
  return { lines, width };
}

/** Whether the text fits the screen with a line to spare for the prompt. */
export function fits(text: string, columns: number, rows: number): boolean {
  const m = measure(text);
  return m.lines < rows && m.width <= columns;
}

/**
 * `less --header=L,C` for the first FlipTable in the text: L = the lines down to the header's
 * bottom rule, C = the columns through the first time/instant column (or the first column). Undefined
 * when there is no table.
 */
export function lessHeader(text: string): string | undefined {
  const lines = text.split('\n', 400);
  const top = lines.findIndex((l) => l.startsWith('╔'));
  if (top < 0) return undefined;
  const bottom = lines.findIndex((l, i) => i > top && l.startsWith('╠'));
  if (bottom < 0) return undefined;
  const header = lines.slice(top + 1, bottom).map((l) => l.replace(/\u001b\[[;\d]*m/g, ''));
  const rule = lines[top]!;
  const joints = [...rule].flatMap((c, i) => (c === '╤' ? [i] : []));
  if (joints.length === 0) return `${bottom + 1}`;
  const first = header[0] ?? '';
  const names = first.slice(1, -1).split('│').map((s) => s.trim());
  const joined = names.map((n, i) => [n, ...header.slice(1).map((h) => h.slice(1, -1).split('│')[i]?.trim() ?? '')].join(' '));
  let col = joined.slice(0, 3).findIndex((n) => /time|instant|commit/i.test(n));
  if (col < 0) col = 0;
  const width = col < joints.length ? joints[col]! + 1 : rule.length;
  return `${bottom + 1},${width}`;
}

let lessHasHeader: boolean | undefined;
/** less learnt --header in version 600. */
async function lessSupportsHeader(): Promise<boolean> {
  if (lessHasHeader === undefined) {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('less', ['--version'], { encoding: 'utf8', timeout: 2000 });
    const v = /less (\d+)/.exec(r.stdout ?? '');
    lessHasHeader = v !== null && Number(v[1]) >= 600;
  }
  return lessHasHeader;
}

/** Runs the pager on `text`; false when it could not be started (the caller then writes the text itself). */
async function page(cmd: PagerCommand, text: string, env: Record<string, string | undefined>): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  let args = cmd.args ?? [];
  if (cmd.file === 'less' && (await lessSupportsHeader())) {
    const h = lessHeader(text);
    if (h) args = [...args, `--header=${h}`];
  }
  const childEnv = { ...env, LESS: env.LESS ?? 'FRSX', LV: env.LV ?? '-c' } as NodeJS.ProcessEnv;
  const child = cmd.shell
    ? spawn(cmd.shell, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: childEnv })
    : spawn(cmd.file!, args, { stdio: ['pipe', 'inherit', 'inherit'], env: childEnv });
  const ignore = () => undefined;
  active++;
  process.on('SIGINT', ignore);
  try {
    return await new Promise<boolean>((resolve) => {
      let started = true;
      child.on('error', () => {
        started = false;
        resolve(false);
      });
      child.stdin!.on('error', ignore); // the reader quit early (q in less): not an error
      child.stdin!.end(text);
      child.on('close', () => resolve(started));
    });
  } finally {
    active--;
    process.removeListener('SIGINT', ignore);
  }
}

/**
 * Runs a command with its stdout collected while a pager may be wanted, then writes it out or pages
 * it. Whatever was written is shown even when the command fails (its error follows on stderr).
 */
export async function withPager(ctx: Ctx, o: Opts, run: () => Promise<number | void>): Promise<number | void> {
  const cmd = pagerFor(ctx.io, ctx.env, o);
  if (!cmd) return run();
  const io = ctx.io;
  const out = ctx.out;
  const chunks: string[] = [];
  const utf8 = new TextDecoder();
  const buffered: IO = Object.create(io, {
    stdout: { value: (s: string | Uint8Array) => void chunks.push(typeof s === 'string' ? s : utf8.decode(s, { stream: true })) },
  });
  ctx.io = buffered;
  ctx.out = new Output(buffered);
  try {
    return await run();
  } finally {
    ctx.io = io;
    ctx.out = out;
    const text = chunks.join('') + utf8.decode();
    if (text !== '') {
      if (fits(text, io.columns, io.rows) || !(await page(cmd, text, ctx.env))) io.stdout(text);
    }
  }
}
