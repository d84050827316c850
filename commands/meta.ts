import type { CommandSpec } from './spec.ts';

export const metaSpecs: CommandSpec[] = [
  {
    name: 'man',
    summary: 'Print the tblcli(1) manual page (roff)',
    needsTable: false,
    async action(ctx) {
      const [{ generateMan }, { allCommands }, { VERSION }] = await Promise.all([
        import('./man.ts'),
        import('./registry.ts'),
        import('./version.ts'),
      ]);
      ctx.io.stdout(await generateMan(await allCommands(), VERSION));
    },
  },
];
