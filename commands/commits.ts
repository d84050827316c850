import { TblError } from '../src/errors/index.ts';
import type { CommandSpec } from './spec.ts';
import { parseBool, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, tableAction, wantsJson } from './shared.ts';

const includeArchived = {
  flags: '--includeArchivedTimeline [bool]',
  description: 'include archived commits as well',
  default: false,
  parse: parseBool,
};

export const commitSpecs: CommandSpec[] = [
  {
    name: 'commits show',
    summary: 'Show the commits',
    table: { limit: -1 },
    options: [
      { flags: '--includeExtraMetadata [bool]', description: 'one row per write stat', default: false, parse: parseBool },
      { flags: '--partition <partition>', description: 'only write stats of this partition (with --includeExtraMetadata)' },
      includeArchived,
    ],
    jsonFields: async () => (await import('../src/views/commits.ts')).commitColumns.map((c) => c.key),
    action: tableAction(async (table, o) =>
      (await import('../src/views/commit-results.ts')).commitsShow(table, {
        extra: o.includeExtraMetadata === true,
        partition: o.partition as string | undefined,
        archived: o.includeArchivedTimeline === true,
        limitHint: o.sortBy ? undefined : (o.limit as number),
      }),
    ),
  },
  {
    name: 'commit showpartitions',
    summary: 'Show partition level details of a commit',
    jsonFields: async () => (await import('../src/views/commits.ts')).commitPartitionColumns.map((c) => c.key),
    table: { limit: -1 },
    options: [{ flags: '--commit <instant>', description: 'commit to show (required)' }, includeArchived],
    action: tableAction(async (table, o) =>
      (await import('../src/views/commit-results.ts')).commitShowPartitions(table, requireOpt(o, 'commit'), o.includeArchivedTimeline === true),
    ),
  },
  {
    name: 'commit showfiles',
    summary: 'Show file level details of a commit',
    jsonFields: async () => (await import('../src/views/commits.ts')).commitFileColumns.map((c) => c.key),
    table: { limit: -1 },
    options: [{ flags: '--commit <instant>', description: 'commit to show (required)' }, includeArchived],
    action: tableAction(async (table, o) =>
      (await import('../src/views/commit-results.ts')).commitShowFiles(table, requireOpt(o, 'commit'), o.includeArchivedTimeline === true),
    ),
  },
  {
    name: 'commit show_write_stats',
    summary: 'Show write stats of a commit',
    jsonFields: async () => (await import('../src/views/commits.ts')).commitWriteStatsColumns.map((c) => c.key),
    table: { limit: -1 },
    options: [{ flags: '--commit <instant>', description: 'commit to show (required)' }, includeArchived],
    action: tableAction(async (table, o) =>
      (await import('../src/views/commit-results.ts')).commitShowWriteStats(table, requireOpt(o, 'commit'), o.includeArchivedTimeline === true),
    ),
  },
  {
    name: 'commits show_infights',
    aliases: ['commits show_inflights'],
    summary: 'Show inflight instants that are left longer than a certain duration',
    jsonFields: async () => (await import('../src/views/timeline.ts')).inflightColumns.map((c) => c.key),
    options: [{ flags: '--durationInMins <mins>', description: 'minimum age in minutes', default: 0, parse: parseIntOpt }],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/commit-results.ts');
      const r = await v.commitsShowInflights(table, o.durationInMins as number, ctx.now());
      if (r.rows.length === 0 && !wantsJson(o)) {
        ctx.out.text('No inflight instants are found.');
        return;
      }
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
  {
    name: 'commits compare',
    summary: 'Compare commits with another Hoodie table',
    jsonFields: async () => ['source', 'target', 'sourceLatestCommit', 'targetLatestCommit', 'behind', 'commitsToCatchUp', 'message'],
    options: [
      { flags: '--path <path>', description: 'path of the table to compare to (required)' },
      { flags: '--table <path>', description: 'the source table (default: TBLCLI_PATH or the connected table)' },
    ],
    async action(ctx, o) {
      const source = await openFromOpts(ctx, o, 'table');
      const target = await openFromOpts(ctx, { ...o, table: requireOpt(o, 'path') }, 'table');
      const v = await import('../src/views/commit-results.ts');
      const r = await v.commitsCompare(source, target);
      if (wantsJson(o)) ctx.out.json(r);
      else ctx.out.text(r.message);
    },
  },
];

export function requireOpt(o: Record<string, unknown>, name: string): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '') {
    throw new TblError('usage', `missing required option '--${name}'`);
  }
  return v;
}
