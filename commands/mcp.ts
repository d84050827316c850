// `tblcli mcp`: the table tools for AI assistants (Model Context Protocol over stdio). The server and the
// SDK load only here, so the CLI's start-up is unchanged.
import type { CommandSpec } from './spec.ts';

export const mcpSpecs: CommandSpec[] = [
  {
    name: 'mcp',
    summary: 'Serve the table tools to an AI assistant over the Model Context Protocol (stdio); read-only unless --allow-writes',
    needsTable: false,
    options: [{ flags: '--allow-writes', description: 'also offer the mutating tools (each runs its dry run first and executes only with the single-use token that returns)' }],
    async action(ctx, o) {
      const [{ serveMcp, storageArgvOf }, { runArgv }] = await Promise.all([import('./mcp/server.ts'), import('./main.ts')]);
      return serveMcp(ctx, runArgv, { allowWrites: o.allowWrites === true, path: o.path as string | undefined, storageArgv: storageArgvOf(o) });
    },
  },
];
