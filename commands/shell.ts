// `tblcli` with no arguments on a terminal: hudi-cli's interactive shell (prompt `hudi->` /
// `hudi:<table>->`), with line history kept in the state dir.
import { createInterface } from 'node:readline';
import { mkdir, readFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ctx } from './context.ts';
import type { CommandSpec } from './spec.ts';
import { loadState } from './state.ts';
import { cachedDynamic, complete, tableDynamic, wordsOfLine } from './completion.ts';
import { allCommands } from './registry.ts';

import { tokenize } from './words.ts';

export { tokenize };

/** History never keeps a delegation token (issue 3: tokens appear nowhere). */
export function redactSecrets(line: string): string {
  return line.replace(/(--delegation-token(?:=|\s+))(\S+)/g, '$1***');
}

export function prompt(tableName: string | undefined): string {
  return tableName ? `hudi:${tableName}->` : 'hudi->';
}

/**
 * Tab in the shell: command words, the options of the command typed so far, instants and partitions
 * of the connected table (read once per table for the session).
 */
export function shellCompleter(ctx: Ctx, specs: CommandSpec[]): (line: string, done: (err: null, result: [string[], string]) => void) => void {
  const dynamic = cachedDynamic(tableDynamic(ctx), () => ctx.session?.path ?? '');
  return (line, done) => {
    const words = wordsOfLine(line, false);
    complete(words, specs, dynamic).then(
      // readline inserts a sole candidate as is: the space a shell adds after a finished word is ours
      (c) => done(null, [c.length === 1 && !/[=/]$/.test(c[0]!) ? [`${c[0]} `] : c, words[words.length - 1] ?? '']),
      () => done(null, [[], line]),
    );
  };
}

export async function runShell(ctx: Ctx, run: (argv: string[], ctx: Ctx) => Promise<number>): Promise<number> {
  const saved = await loadState(ctx.stateDir);
  ctx.session = { path: saved.path, tableName: saved.tableName };
  const historyFile = join(ctx.stateDir, 'history');
  let history: string[] = [];
  try {
    history = (await readFile(historyFile, 'utf8')).split('\n').filter(Boolean).reverse().slice(0, 1000);
  } catch {
    /* no history yet */
  }
  ctx.io.stderr('Welcome to tblcli, a hudi-cli compatible shell. Type help for commands, exit to quit.\n');
  const completer = shellCompleter(ctx, await allCommands());
  const rl = createInterface({ input: process.stdin, output: process.stdout, history, historySize: 1000, terminal: true, completer });
  let last = 0;
  const ask = () => {
    rl.setPrompt(prompt(ctx.session?.tableName));
    rl.prompt();
  };
  rl.on('SIGINT', () => {
    rl.write('', { ctrl: true, name: 'u' });
    ctx.io.stdout('\n');
    ask();
  });
  await mkdir(ctx.stateDir, { recursive: true }).catch(() => undefined);
  ask();
  for await (const line of rl) {
    const argv = tokenize(line.trim());
    if (argv.length > 0) {
      await appendFile(historyFile, `${redactSecrets(line.trim())}\n`).catch(() => undefined);
      if (argv[0] === 'exit' || argv[0] === 'quit') break;
      // paused while the command runs: a pager reads the keyboard then, not this prompt
      rl.pause();
      last = await run(argv[0] === 'help' ? ['--help', ...argv.slice(1)] : argv, ctx);
      rl.resume();
    }
    ask();
  }
  rl.close();
  return last === 130 ? 130 : 0;
}
