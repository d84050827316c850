// Completion from the command specs: command words, the options of the command typed so far, and
// option values — choices, true/false for [bool] options, the table's instants for <instant> options
// and its partitions for <partition> options (the only case a table is opened). One engine serves
// Tab in the hudi-> shell and the scripts of `tblcli completion bash|zsh|fish`, which call the
// hidden `tblcli __complete <shell> [--cur <word>] -- <line up to the cursor>`.
import { Output } from '../src/io/index.ts';
import type { Ctx } from './context.ts';
import { GLOBAL_OPTIONS, TABLE_OPTIONS, type CommandSpec, type OptionSpec } from './spec.ts';
import { tokenize } from './words.ts';
// already loaded by main.ts: a static import keeps it in the start-up chunk (an import() would split it out)
import { allCommands } from './registry.ts';

export type DynamicKind = 'instant' | 'partition';
/** Instants or partitions of the table the command line names (its --path, else the connected one). */
export type Dynamic = (kind: DynamicKind, path: string | undefined) => Promise<string[]>;

const longName = (o: OptionSpec): string => o.flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!;

function optionsOf(spec: CommandSpec): OptionSpec[] {
  const own = [...(spec.options ?? []), ...(spec.table ? TABLE_OPTIONS(spec.table.limit) : [])];
  const taken = new Set(own.map(longName));
  return [...own, ...GLOBAL_OPTIONS.filter((o) => !taken.has(longName(o)))];
}

function valueKind(o: OptionSpec): DynamicKind | 'bool' | 'choices' | 'none' | undefined {
  if (o.choices) return 'choices';
  if (/\[bool\]/.test(o.flags)) return 'bool';
  if (/<instant>/.test(o.flags)) return 'instant';
  if (/<partition>/.test(o.flags)) return 'partition';
  if (/[<[]/.test(o.flags)) return 'none'; // a path, a number, a duration: the shell's own (file) completion
  return undefined; // a flag without a value
}

/**
 * Candidates for the last of `words` (the word being typed, '' after a space), given the words
 * before it (no program name). Sorted, unique, each starting with the word typed.
 */
export async function complete(words: string[], specs: CommandSpec[], dynamic: Dynamic): Promise<string[]> {
  const cur = words[words.length - 1] ?? '';
  const before = words.slice(0, -1);
  const names = specs.filter((s) => !s.hidden).flatMap((s) => [s.name, ...(s.aliases ?? [])].map((n) => ({ spec: s, words: n.split(' ') })));
  const cmdWords: string[] = [];
  for (const w of before) {
    if (w.startsWith('-')) break;
    cmdWords.push(w);
  }
  const matching = names.filter((n) => cmdWords.every((w, i) => n.words[i] === w));
  const exact = matching.find((n) => n.words.length === cmdWords.length);
  const out = new Set<string>();
  const add = (xs: Iterable<string>) => {
    for (const x of xs) if (x.startsWith(cur)) out.add(x);
  };
  if (!exact || (before.length === cmdWords.length && !cur.startsWith('-'))) {
    // still naming the command: the next word of every command that starts with the words so far
    if (before.length === cmdWords.length) add(matching.filter((n) => n.words.length > cmdWords.length).map((n) => n.words[cmdWords.length]!));
    if (!exact) return [...out].sort();
  }
  const opts = optionsOf(exact.spec);
  const prev = before[before.length - 1];
  const prevOpt = prev?.startsWith('--') ? opts.find((o) => longName(o) === prev) : undefined;
  const kind = prevOpt ? valueKind(prevOpt) : undefined;
  if (prevOpt && kind !== undefined) {
    if (kind === 'choices') add(prevOpt.choices!);
    else if (kind === 'bool') add(['true', 'false']);
    else if (kind === 'instant' || kind === 'partition') {
      const at = before.indexOf('--path');
      add(await dynamic(kind, at >= 0 ? before[at + 1] : undefined));
    }
    // a required value: nothing but the value may follow
    if (kind !== 'bool' || (cur !== '' && !cur.startsWith('-'))) return [...out].sort();
  }
  if (cur === '' || cur.startsWith('-')) {
    const used = new Set(before.filter((w) => w.startsWith('--')));
    add(opts.map(longName).filter((n) => !used.has(n)));
  }
  return [...out].sort();
}

/** The words of a command line up to the cursor, the program name dropped; '' last after a space. */
export function wordsOfLine(line: string, dropProgram: boolean): string[] {
  const words = tokenize(line);
  if (/\s$/.test(line) || words.length === 0) words.push('');
  return dropProgram ? words.slice(1) : words;
}

/** Dynamic values read once per table and kind (the shell keeps one of these for the session). */
export function cachedDynamic(read: Dynamic, connected: () => string = () => ''): Dynamic {
  const cache = new Map<string, Promise<string[]>>();
  return (kind, path) => {
    const key = `${kind}\0${path ?? `connected:${connected()}`}`;
    let p = cache.get(key);
    if (!p) {
      p = read(kind, path).catch(() => {
        cache.delete(key);
        return [];
      });
      cache.set(key, p);
    }
    return p;
  };
}

/** Reads instants/partitions of the table named by `path` (or the connected one). Failures complete nothing. */
export function tableDynamic(ctx: Ctx): Dynamic {
  return async (kind, path) => {
    try {
      const { openFromOpts } = await import('./shared.ts');
      // a table's warnings are no business of a completion
      const io = Object.create(ctx.io, { stderr: { value: () => undefined } }) as Ctx['io'];
      const quiet: Ctx = { ...ctx, io, out: new Output(io) };
      const table = await openFromOpts(quiet, path ? { path } : {});
      return (await import('../src/views/completion.ts')).completionValues(table, kind);
    } catch {
      return [];
    }
  };
}

const CACHE_MS = 60_000;

/**
 * The scripts' dynamic values, cached for a minute in the state dir: each Tab is a new process, and
 * listing a big table's partitions over WebHDFS should not happen on every key press.
 */
function fileCachedDynamic(ctx: Ctx): Dynamic {
  const read = tableDynamic(ctx);
  return async (kind, path) => {
    const { readFile, writeFile, mkdir } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const file = join(ctx.stateDir, 'completion-cache.json');
    const key = `${kind} ${path ?? `connected:${ctx.env.TBLCLI_PATH ?? ''}`}`;
    let cache: Record<string, { at: number; values: string[] }> = {};
    try {
      cache = JSON.parse(await readFile(file, 'utf8')) as typeof cache;
    } catch {
      /* no cache yet */
    }
    const now = Date.now();
    const hit = cache[key];
    if (hit && now - hit.at < CACHE_MS && now >= hit.at) return hit.values;
    const values = await read(kind, path);
    for (const k of Object.keys(cache)) if (now - cache[k]!.at >= CACHE_MS) delete cache[k];
    cache[key] = { at: now, values };
    await mkdir(ctx.stateDir, { recursive: true }).catch(() => undefined);
    await writeFile(file, JSON.stringify(cache)).catch(() => undefined);
    return values;
  };
}

/** `tblcli __complete <shell> [--cur <word>] -- <line>`: one candidate per line on stdout. */
export async function runComplete(argv: string[], ctx: Ctx): Promise<number> {
  const dash = argv.indexOf('--');
  const head = dash >= 0 ? argv.slice(0, dash) : argv;
  const line = dash >= 0 ? argv.slice(dash + 1).join(' ') : '';
  const curAt = head.indexOf('--cur');
  const bashCur = curAt >= 0 ? (head[curAt + 1] ?? '') : undefined;
  const words = wordsOfLine(line, true);
  let out = await complete(words, await allCommands(), fileCachedDynamic(ctx));
  // bash replaces only what follows its last word break (= and : split a word there)
  const typed = words[words.length - 1] ?? '';
  if (bashCur !== undefined && typed.endsWith(bashCur)) out = out.map((c) => c.slice(typed.length - bashCur.length));
  if (out.length > 0) ctx.io.stdout(`${out.join('\n')}\n`);
  return 0;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The completion script for a shell; each asks `tblcli __complete` for the candidates. */
export function completionScript(shell: (typeof SHELLS)[number], program = 'tblcli'): string {
  if (shell === 'bash') {
    return `# ${program} completion for bash. Load it with
#   eval "$(${program} completion bash)"            (in ~/.bashrc), or save it as
#   ~/.local/share/bash-completion/completions/${program}
_${program}_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(${program} __complete bash --cur "\${COMP_WORDS[COMP_CWORD]}" -- "\${COMP_LINE:0:COMP_POINT}" 2>/dev/null))
}
complete -o default -F _${program}_complete ${program}
`;
  }
  if (shell === 'zsh') {
    return `#compdef ${program}
# ${program} completion for zsh. Save it as _${program} in a directory of $fpath, or load it with
#   eval "$(${program} completion zsh)"            (in ~/.zshrc, after compinit)
_${program}() {
  local -a candidates
  candidates=("\${(@f)$(${program} __complete zsh -- "$LBUFFER" 2>/dev/null)}")
  if (( \${#candidates[@]} == 0 )) || [[ -z "\${candidates[1]}" ]]; then
    _files
  else
    compadd -Q -- "\${candidates[@]}"
  fi
}
if [[ "\${funcstack[1]}" == "_${program}" ]]; then _${program} "$@"; else compdef _${program} ${program}; fi
`;
  }
  return `# ${program} completion for fish. Save it as ~/.config/fish/completions/${program}.fish, or load it with
#   ${program} completion fish | source
complete -c ${program} -f -a '(${program} __complete fish -- (commandline -cp) 2>/dev/null)'
`;
}
