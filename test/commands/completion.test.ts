// Completion (issue 19 §4): the engine over the real command specs and a real table; Tab in the
// hudi-> shell; and each generated script run by its shell in a subprocess against the built CLI
// (bash with COMP_WORDS/COMP_LINE as bash sets them; zsh and fish when installed, skipped visibly
// otherwise).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_FIXTURES, table } from '../support/fixtures.ts';
import { makeCtx } from '../../commands/main.ts';
import { allCommands } from '../../commands/registry.ts';
import { cachedDynamic, complete, completionScript, tableDynamic, wordsOfLine, type Dynamic } from '../../commands/completion.ts';
import { shellCompleter } from '../../commands/shell.ts';
import { makeTestIO } from '../../src/io/index.ts';
import { runCli } from '../support/run-cli.ts';

const MOR8 = 'quickstart_trips_table/mor/avro/v8_trips_8i3u1d';
const INSTANTS = ['20251220210108078', '20251220210117766', '20251220210123755', '20251220210125441', '20251220210127080', '20251220210128625', '20251220210129235', '20251220210130911'];
const BIN = join(import.meta.dirname, '../../bin/tblcli.js');

function ctxFor(session?: string) {
  const t = makeTestIO();
  const ctx = makeCtx({ io: t.io, env: {}, stateDir: mkdtempSync(join(tmpdir(), 'tblcli-state-')) });
  if (session) ctx.session = { path: session };
  return ctx;
}

/** A Dynamic that must not be called: completing words and options never opens a table. */
const never: Dynamic = async (kind) => {
  throw new Error(`opened a table for ${kind}`);
};

describe('the engine', () => {
  it('command words, then the next word of multi-word commands', async () => {
    const specs = await allCommands();
    expect(await complete(['com'], specs, never)).toEqual(['commit', 'commits', 'compaction', 'compactions', 'completion']);
    expect(await complete(['compaction', 's'], specs, never)).toEqual(['schedule', 'scheduleAndExecute', 'show', 'showarchived']);
    expect(await complete(['timeline', 'show', ''], specs, never)).toEqual(['active', 'incomplete']);
    expect(await complete([''], specs, never)).toContain('browse');
    expect(await complete([''], specs, never)).not.toContain('__complete');
  });

  it('options of the command typed so far, without those already given', async () => {
    const specs = await allCommands();
    const opts = await complete(['commits', 'show', '--'], specs, never);
    expect(opts).toEqual(expect.arrayContaining(['--includeExtraMetadata', '--limit', '--sortBy', '--desc', '--path', '--json', '--no-pager']));
    expect(opts.every((o) => o.startsWith('--'))).toBe(true);
    expect(await complete(['commits', 'show', '--limit', '5', '--li'], specs, never)).toEqual([]);
    expect(await complete(['compaction', 'run', '--co'], specs, never)).toEqual(['--codec', '--compactionInstant', '--concurrency']);
  });

  it('option values: choices, true/false, nothing for a path or a number', async () => {
    const specs = await allCommands();
    expect(await complete(['commits', 'show', '--format', ''], specs, never)).toEqual(['csv', 'json', 'table', 'tsv']);
    expect(await complete(['metrics', '--format', ''], specs, never)).toEqual(['json', 'prometheus']);
    expect(await complete(['compaction', 'run', '--codec', 'S'], specs, never)).toEqual(['SNAPPY']);
    expect(await complete(['commits', 'show', '--desc', ''], specs, never)).toEqual(expect.arrayContaining(['true', 'false', '--limit']));
    expect(await complete(['commits', 'show', '--desc', 't'], specs, never)).toEqual(['true']);
    expect(await complete(['commits', 'show', '--limit', ''], specs, never)).toEqual([]);
    expect(await complete(['connect', '--path', ''], specs, never)).toEqual([]);
  });

  it.skipIf(!HAVE_FIXTURES)('instants for <instant> options and partitions for <partition> options, from the table the line names', async () => {
    const specs = await allCommands();
    const dyn = tableDynamic(ctxFor());
    const path = table(MOR8);
    expect(await complete(['commit', 'showfiles', '--path', path, '--commit', ''], specs, dyn)).toEqual(INSTANTS);
    expect(await complete(['compaction', 'show', '--path', path, '--instant', '2025122021012'], specs, dyn)).toEqual(INSTANTS.filter((i) => i.startsWith('2025122021012')));
    expect(await complete(['show', 'fsview', 'latest', '--path', path, '--partitionPath', 'city=s'], specs, dyn)).toEqual(['city=san_francisco', 'city=sao_paulo']);
    expect(await complete(['commits', 'show', '--path', path, '--partition', ''], specs, dyn)).toEqual(['city=chennai', 'city=san_francisco', 'city=sao_paulo']);
    // the connected table (the shell's session), and nothing at all without one
    expect(await complete(['clean', 'showpartitions', '--clean', ''], specs, tableDynamic(ctxFor(path)))).toEqual(INSTANTS);
    expect(await complete(['commit', 'showfiles', '--commit', ''], specs, tableDynamic(ctxFor()))).toEqual([]);
  });

  it('a line splits like the shell splits it; a trailing space starts a new word', () => {
    expect(wordsOfLine('tblcli commits show ', true)).toEqual(['commits', 'show', '']);
    expect(wordsOfLine(`tblcli connect --path '/a b/c`, true)).toEqual(['connect', '--path', '/a b/c']);
    expect(wordsOfLine('', false)).toEqual(['']);
  });

  it('dynamic values are read once per table and kind', async () => {
    let reads = 0;
    const dyn = cachedDynamic(async (kind, path) => {
      reads++;
      return [`${kind}:${path}`];
    });
    await dyn('instant', '/t');
    await dyn('instant', '/t');
    await dyn('partition', '/t');
    expect(reads).toBe(2);
  });
});

describe.skipIf(!HAVE_FIXTURES)('Tab in the hudi-> shell', () => {
  it('completes commands, options and the connected table\'s instants (replacing the word typed)', async () => {
    const ctx = ctxFor(table(MOR8));
    const tab = shellCompleter(ctx, await allCommands());
    const press = (line: string) => new Promise<[string[], string]>((r) => tab(line, (_e, res) => r(res)));
    // a sole candidate comes with the space a shell adds after a finished word
    expect(await press('time')).toEqual([['timeline '], 'time']);
    expect(await press('show fsview latest --partitionPath city=san_f')).toEqual([['city=san_francisco '], 'city=san_f']);
    expect(await press('commit showfiles --co')).toEqual([['--commit', '--concurrency'], '--co']);
    expect(await press('commit showfiles --commit 2025122021013')).toEqual([['20251220210130911 '], '2025122021013']);
    expect((await press('commit showfiles --commit '))[0]).toEqual(INSTANTS);
  });
});

describe('tblcli completion', () => {
  it('prints a script per shell; an unknown shell is a usage error', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await runCli(['completion', shell]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(completionScript(shell as 'bash'));
      expect(r.stdout).toContain('tblcli __complete');
    }
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("unknown shell 'tcsh'");
  });
});

const has = (sh: string) => spawnSync('sh', ['-c', `command -v ${sh}`]).status === 0;
const built = existsSync(BIN) && existsSync(join(import.meta.dirname, '../../dist/tblcli.js'));
if (!built) console.warn('[tblcli tests] dist/ is not built (npm run build): the completion scripts are not run');

/** A directory with a `tblcli` on it that runs the built CLI, and a private state dir. */
function shim(): { env: NodeJS.ProcessEnv; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tblcli-shim-'));
  writeFileSync(join(dir, 'tblcli'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(dir, 'tblcli'), 0o755);
  return { dir, env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, TBLCLI_STATE_DIR: join(dir, 'state') } };
}

describe.skipIf(!built || !HAVE_FIXTURES)('the generated scripts in their shells', () => {
  it.skipIf(!has('bash'))('bash: COMP_WORDS / COMP_CWORD / COMP_LINE as bash sets them, = splitting the current word', () => {
    const { dir, env } = shim();
    writeFileSync(join(dir, 'tblcli.bash'), completionScript('bash'));
    const path = table(MOR8);
    const run = (words: string[], cword = words.length - 1) => {
      const line = words.join(' ').replace(/ = ?/g, '='); // what was typed: bash broke the word at '='
      const script = `source ${JSON.stringify(join(dir, 'tblcli.bash'))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${cword}
COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}
_tblcli_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['--norc', '-c', script], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(run(['tblcli', 'comp'])).toEqual(['compaction', 'compactions', 'completion']);
    expect(run(['tblcli', 'commit', 'showfiles', '--co'])).toEqual(['--commit', '--concurrency']);
    expect(run(['tblcli', 'commit', 'showfiles', '--path', path, '--commit', '2025122021013'])).toEqual(['20251220210130911']);
    // bash splits "city=s" into city, =, s: only what follows the break is replaced
    expect(run(['tblcli', 'show', 'fsview', 'latest', '--path', path, '--partitionPath', 'city', '=', 's'])).toEqual(['san_francisco', 'sao_paulo']);
    // the complete line a user sees: the script asks with the line, not the broken words
    const complete = spawnSync('bash', ['--norc', '-c', `source ${JSON.stringify(join(dir, 'tblcli.bash'))}; complete -p tblcli`], { env, encoding: 'utf8' });
    expect(complete.stdout.trim()).toBe('complete -o default -F _tblcli_complete tblcli');
  });

  it.skipIf(!has('zsh'))('zsh: the completion function hands $LBUFFER over and compadds the answer', () => {
    const { dir, env } = shim();
    writeFileSync(join(dir, '_tblcli'), completionScript('zsh'));
    const path = table(MOR8);
    const run = (lbuffer: string) => {
      const script = `compdef() { : }; compadd() { shift 2; printf '%s\\n' "$@"; }; _files() { print FILES; }
source ${JSON.stringify(join(dir, '_tblcli'))}
LBUFFER=${JSON.stringify(lbuffer)}; _tblcli`;
      const r = spawnSync('zsh', ['-f', '-c', script], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(run('tblcli timeline show ')).toEqual(expect.arrayContaining(['active', 'incomplete']));
    expect(run(`tblcli show fsview latest --path ${path} --partitionPath city=s`)).toEqual(['city=san_francisco', 'city=sao_paulo']);
    expect(run('tblcli connect --path ')).toEqual(['FILES']);
  });

  it.skipIf(!has('fish'))('fish: complete -C over the sourced script', () => {
    const { dir, env } = shim();
    writeFileSync(join(dir, 'tblcli.fish'), completionScript('fish'));
    const path = table(MOR8);
    const run = (line: string) => {
      const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(join(dir, 'tblcli.fish'))}; complete -C ${JSON.stringify(line)}`], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
    };
    expect(run('tblcli comp')).toEqual(['compaction', 'compactions', 'completion']);
    expect(run(`tblcli commit showfiles --path ${path} --commit 2025122021013`)).toEqual(['20251220210130911']);
  });
});

for (const sh of ['bash', 'zsh', 'fish']) if (!has(sh)) console.warn(`[tblcli tests] ${sh} is not installed: its completion script is not run`);
