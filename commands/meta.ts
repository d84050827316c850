import type { CommandSpec } from './spec.ts';
// both already loaded by main.ts: static imports keep them in the start-up chunk
import { allCommands } from './registry.ts';
import { VERSION } from './version.ts';

export const metaSpecs: CommandSpec[] = [
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
