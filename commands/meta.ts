import { TblError } from '../src/errors/index.ts';
import type { CommandSpec } from './spec.ts';
// both already loaded by main.ts: static imports keep them in the start-up chunk
import { allCommands } from './registry.ts';
import { VERSION } from './version.ts';

export const metaSpecs: CommandSpec[] = [
  {
    name: 'completion',
    pager: false,
    summary: 'Print the shell completion script for bash, zsh or fish (commands, options, instants, partitions)',
    needsTable: false,
    args: ['<shell>'],
    async action(ctx, o) {
      const shell = String((o.args as string[])[0]);
      const c = await import('./completion.ts');
      if (!(c.SHELLS as readonly string[]).includes(shell)) throw new TblError('usage', `completion: unknown shell '${shell}' (use bash, zsh or fish)`);
      ctx.io.stdout(c.completionScript(shell as (typeof c.SHELLS)[number]));
    },
  },
  {
    name: 'man',
    pager: false,
    summary: 'Print the tblcli(1) manual page (roff)',
    needsTable: false,
    async action(ctx) {
      const { generateMan } = await import('./man.ts');
      ctx.io.stdout(await generateMan(await allCommands(), VERSION));
    },
  },
];
