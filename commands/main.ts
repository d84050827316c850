// Entry point: builds commander from the command registry, maps errors to exit codes in one place.
import { Command, CommanderError, Option } from 'commander';
import { exitCodeFor, formatError, TblError, EXIT } from '../src/errors/index.ts';
import { Output, systemIO } from '../src/io/index.ts';
import type { Ctx } from './context.ts';
import { GLOBAL_OPTIONS, TABLE_OPTIONS, type CommandSpec, type OptionSpec, type Opts } from './spec.ts';
import { defaultStateDir } from './state.ts';
import { commandsFor } from './registry.ts';
import { stdStream } from './stdio.ts';
import { mapStack } from './stack.ts';
import { pagerActive, withPager } from './pager.ts';
import { VERSION } from './version.ts';

export { VERSION };
export { outputSettled } from './stdio.ts';

function addOption(cmd: Command, o: OptionSpec): void {
  const opt = new Option(o.flags, o.description);
  if (o.parse) {
    const parse = o.parse;
    opt.argParser((v: string, prev: unknown) => {
      try {
        return parse(v, prev);
      } catch (e) {
        throw new TblError('usage', `option '${o.flags.split(' ')[0]}': ${(e as Error).message}`);
      }
    });
  }
  if (o.default !== undefined) opt.default(o.default);
  cmd.addOption(opt);
}

function leaf(program: Command, words: string[]): Command {
  let cur = program;
  for (const w of words.slice(0, -1)) {
    const existing = cur.commands.find((c) => c.name() === w);
    cur = existing ?? cur.command(w).description(`${w} commands`);
  }
  return cur.command(words[words.length - 1]!);
}

export function buildProgram(ctx: Ctx, onAction: (p: Promise<number | void>) => void, argv: string[] = [], specs: CommandSpec[] = []): Command {
  const program = new Command('tblcli')
    .description('Fast, JVM-free administration for Apache Hudi tables (hudi-cli compatible)')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  const register = (spec: CommandSpec, name: string) => {
    const cmd = leaf(program, name.split(' ')).description(spec.summary).exitOverride();
    cmd.configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
    for (const o of spec.options ?? []) addOption(cmd, o);
    if (spec.table) for (const o of TABLE_OPTIONS(spec.table.limit)) addOption(cmd, o);
    const taken = new Set(cmd.options.map((o) => o.long));
    for (const o of GLOBAL_OPTIONS) if (!taken.has(o.flags.split(/[ ,]/)[0])) addOption(cmd, o);
    for (const a of spec.args ?? []) cmd.argument(a);
    cmd.action((...a: unknown[]) => {
      const o = { ...(a[a.length - 2] as Opts), args: a.slice(0, -2) };
      onAction(spec.pager === false ? spec.action(ctx, o) : withPager(ctx, o, () => spec.action(ctx, o)));
    });
  };
  for (const spec of selectSpecs(specs, argv)) {
    register(spec, spec.name);
    for (const a of spec.aliases ?? []) register(spec, a);
  }
  return program;
}

/**
 * Only the commands this command line can name are registered: building all ~60 commander
 * subtrees costs more than the rest of start-up. Help, no command, or an unknown command get all
 * of them (for the full help and commander's suggestions); `--version` alone gets none.
 */
export function selectSpecs(all: CommandSpec[], argv: string[]): CommandSpec[] {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  if (words.length === 0) return argv.length > 0 && argv.every((a) => a === '--version' || a === '-V') ? [] : all;
  const matches = all.filter((s) =>
    [s.name, ...(s.aliases ?? [])].some((n) => {
      const parts = n.split(' ');
      return parts.every((p, i) => i >= words.length || parts[i] === words[i]) && parts[0] === words[0];
    }),
  );
  return matches.length > 0 ? matches : all;
}

export interface MainOverrides {
  io?: Ctx['io'];
  env?: Ctx['env'];
  cwd?: string;
  now?: () => Date;
  stateDir?: string;
  session?: Ctx['session'];
}

/** TBLCLI_NOW (an ISO time): the clock for reproducible output (screenshots, goldens), like SOURCE_DATE_EPOCH. */
function fixedNow(env: Record<string, string | undefined>): (() => Date) | undefined {
  const v = env.TBLCLI_NOW;
  if (!v) return undefined;
  const d = new Date(v);
  // thrown when a command asks the time: a one-line usage error like any bad input
  return () => {
    if (Number.isNaN(d.getTime())) throw new TblError('usage', `TBLCLI_NOW must be an ISO date-time, got '${v}'`);
    return new Date(d);
  };
}

export function makeCtx(o: MainOverrides = {}): Ctx {
  const io = o.io ?? systemIO(o.env ?? process.env, { out: stdStream(1), err: stdStream(2) });
  const env = o.env ?? process.env;
  return {
    io,
    out: new Output(io),
    env,
    cwd: o.cwd ?? process.cwd(),
    now: o.now ?? fixedNow(env) ?? (() => new Date()),
    stateDir: o.stateDir ?? defaultStateDir(env),
    session: o.session,
  };
}

/** Runs one command line; returns the exit code (never calls process.exit). */
export async function runArgv(argv: string[], ctx: Ctx): Promise<number> {
  const debug = argv.includes('--debug') || ctx.env.TBLCLI_DEBUG === '1';
  let pending: Promise<number | void> | undefined;
  if (argv[0] === '__complete') return (await import('./completion.ts')).runComplete(argv.slice(1), ctx);
  try {
    const program = buildProgram(
      ctx,
      (p) => {
        pending = p;
      },
      argv,
      await commandsFor(argv),
    );
    await program.parseAsync(argv, { from: 'user' });
    if (!pending) return EXIT.ok;
    const code = await pending;
    return typeof code === 'number' ? code : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      if (e.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      // commander already printed its message; unknown/missing things are usage errors
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    ctx.io.stderr(`${formatError(e, debug, mapStack)}\n`);
    return exitCodeFor(e);
  }
}

export async function main(argv: string[], overrides: MainOverrides = {}): Promise<number> {
  const ctx = makeCtx(overrides);
  if (argv.length === 0 && ctx.io.isStdoutTTY && process.stdin.isTTY) {
    const { runShell } = await import('./shell.ts');
    return runShell(ctx, runArgv);
  }
  if (argv.length === 0) argv = ['--help'];
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<number>((resolve) => {
    onSigint = () => {
      // Ctrl-C belongs to the pager while it runs
      if (pagerActive()) return void process.once('SIGINT', onSigint!);
      // a command supervising an engine forwards the signal and returns 130 once the engine is down
      void import('../src/util/interrupt.ts').then(({ interruptsOwned }) => {
        if (interruptsOwned()) return;
        ctx.io.stderr('interrupted\n');
        resolve(EXIT.interrupted);
      });
    };
    process.on('SIGINT', onSigint);
  });
  try {
    return await Promise.race([runArgv(argv, ctx), interrupted]);
  } finally {
    if (onSigint) process.removeListener('SIGINT', onSigint);
  }
}
