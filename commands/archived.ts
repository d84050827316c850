// Archived-timeline commands: commits showarchived, compactions showarchived, compaction showarchived,
// show archived commits, show archived commit stats.
import type { CommandSpec } from './spec.ts';
import { compactionPlanSpec } from './compactions.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions, tableAction } from './shared.ts';

const window = [
  { flags: '--startTs <instant>', description: 'start time for commits (exclusive), default: now - 10 days' },
  { flags: '--endTs <instant>', description: 'end time for commits (inclusive), default: now - 1 day' },
];

export const archivedSpecs: CommandSpec[] = [
  {
    name: 'commits showarchived',
    aliases: ['commits show archived'],
    summary: 'Show the archived commits',
    table: { limit: -1 },
    options: [
      { flags: '--includeExtraMetadata [bool]', description: 'one row per write stat', default: false, parse: parseBool },
      ...window,
      { flags: '--partition <partition>', description: 'only write stats of this partition (with --includeExtraMetadata)' },
    ],
    jsonFields: async () => (await import('../src/views/commits.ts')).commitColumns.map((c) => c.key),
    action: tableAction(async (table, o, ctx) =>
      (await import('../src/views/archived-views.ts')).commitsShowArchived(table, {
        extra: o.includeExtraMetadata === true,
        partition: o.partition as string | undefined,
        startTs: o.startTs as string | undefined,
        endTs: o.endTs as string | undefined,
        now: ctx.now(),
      }),
    ),
  },
  {
    name: 'compactions showarchived',
    summary: 'Shows compaction details for specified time window',
    table: { limit: -1 },
    options: [{ flags: '--includeExtraMetadata [bool]', description: 'add the plan extra metadata column', default: false, parse: parseBool }, ...window],
    jsonFields: async () => (await import('../src/views/compactions.ts')).compactionColumns(false).map((c) => c.key),
    action: tableAction(async (table, o, ctx) =>
      (await import('../src/views/archived-views.ts')).compactionsShowArchived(table, {
        extra: o.includeExtraMetadata === true,
        startTs: o.startTs as string | undefined,
        endTs: o.endTs as string | undefined,
        now: ctx.now(),
      }),
    ),
  },
  compactionPlanSpec('compaction showarchived', async (table, instant, partition) =>
    (await import('../src/views/archived-views.ts')).compactionShowArchived(table, instant, partition),
  ),
  {
    name: 'show archived commits',
    summary: 'Read commits from archived files and show details',
    table: { limit: 10 },
    options: [{ flags: '--skipMetadata [bool]', description: 'skip the CommitDetails column', default: true, parse: parseBool }],
    jsonFields: async () => (await import('../src/views/archived-views.ts')).archivedCommitColumns(true).map((c) => c.key),
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/archived-views.ts');
      ctx.out.info(`===============> Showing only ${o.limit as number} archived commits <===============`);
      const r = await v.showArchivedCommits(table, o.skipMetadata !== false);
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
  {
    name: 'show archived commit stats',
    summary: 'Read commits from archived files and show file group details',
    table: { limit: 10 },
    options: [
      {
        flags: '--archiveFolderPattern <glob>',
        description: 'legacy (log-format) archive files, a glob relative to .hoodie; default: the table\'s archived timeline',
        default: '',
      },
    ],
    jsonFields: async () => (await import('../src/views/archived-views.ts')).archivedStatColumns.map((c) => c.key),
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/archived-views.ts');
      ctx.out.info(`===============> Showing only ${o.limit as number} archived commits <===============`);
      const r = await v.showArchivedCommitStats(table, (o.archiveFolderPattern as string) ?? '');
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
];
