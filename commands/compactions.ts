import type { CommandSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions } from './shared.ts';
import { requireOpt } from './commits.ts';

export const compactionSpecs: CommandSpec[] = [
  {
    name: 'compactions show all',
    summary: 'Shows all compactions that are in active timeline',
    table: { limit: -1 },
    options: [{ flags: '--includeExtraMetadata [bool]', description: 'add the plan extra metadata column', default: false, parse: parseBool }],
    jsonFields: async () => (await import('../src/views/compactions.ts')).compactionColumns(true).map((c) => c.key),
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/service-results.ts');
      const r = await v.compactionsShowAll(table, o.includeExtraMetadata === true);
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
  {
    name: 'compaction show',
    summary: 'Shows compaction details for a specific compaction instant',
    table: { limit: -1 },
    options: [
      { flags: '--instant <instant>', description: 'compaction instant time (required)' },
      { flags: '--partition <partition>', description: 'only operations of this partition' },
    ],
    jsonFields: async () => (await import('../src/views/compactions.ts')).compactionPlanColumns.map((c) => c.key),
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/service-results.ts');
      const r = await v.compactionShow(table, requireOpt(o, 'instant'), o.partition as string | undefined);
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
];
