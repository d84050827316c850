// metadata list-partitions | list-files | stats | validate-files | timeline show active|incomplete.
// validate-files exits 0 whatever it finds (hudi-cli prints the differences as a table); each
// difference is also a warning on stderr.
import type { CommandSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions } from './shared.ts';

function timelineSpec(name: string, incomplete: boolean, summary: string): CommandSpec {
  return {
    name,
    summary,
    table: { limit: 10 },
    options: [
      { flags: '--show-rollback-info [bool]', description: 'show what each rollback rolls back', default: false, parse: parseBool },
      { flags: '--show-time-seconds [bool]', description: 'show seconds in the file modification times', default: false, parse: parseBool },
    ],
    jsonFields: async () => ['no', ...(await import('../src/views/timeline.ts')).timelineColumns(false).map((c) => c.key)],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/metadata.ts');
      const r = await v.metadataTimelineShow(table, {
        incomplete,
        rollbackInfo: o.showRollbackInfo === true,
        seconds: o.showTimeSeconds === true,
      });
      ctx.out.table(r.columns, r.rows, { ...outputOptions(o), rowNumbers: true });
    },
  };
}

// hudi-cli prints these tables with limit Integer.MAX_VALUE and no sort options
const plain = (o: Record<string, unknown>) => ({ ...outputOptions(o), limit: undefined, sortBy: undefined, desc: false, headerOnly: false });

export const metadataSpecs: CommandSpec[] = [
  {
    name: 'metadata list-partitions',
    summary: 'List all partitions from metadata',
    jsonFields: async () => ['partition'],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await import('../src/views/metadata.ts')).metadataListPartitions(table);
      for (const w of r.warnings) ctx.out.warn(w);
      ctx.out.table(r.columns, r.rows, plain(o));
    },
  },
  {
    name: 'metadata list-files',
    summary: 'Print a list of all files in a partition from the metadata',
    options: [{ flags: '--partition <partition>', description: 'name of the partition to list files ("" for a non-partitioned table)', default: '' }],
    jsonFields: async () => ['filePath'],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await import('../src/views/metadata.ts')).metadataListFiles(table, (o.partition as string) ?? '');
      for (const w of r.warnings) ctx.out.warn(w);
      ctx.out.table(r.columns, r.rows, plain(o));
    },
  },
  {
    name: 'metadata stats',
    summary: 'Print stats about the metadata',
    jsonFields: async () => ['statKey', 'statValue'],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await import('../src/views/metadata.ts')).metadataStats(table);
      ctx.out.table(r.columns, r.rows, plain(o));
    },
  },
  {
    name: 'metadata validate-files',
    summary: 'Validate all files in all partitions from the metadata',
    options: [{ flags: '--verbose [bool]', description: 'print all files, not only the differences', default: false, parse: parseBool }],
    jsonFields: async () => (await import('../src/views/metadata.ts')).validateColumns.map((c) => c.key),
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await import('../src/views/metadata.ts')).metadataValidateFiles(table, o.verbose === true);
      for (const w of r.warnings) ctx.out.warn(w);
      ctx.out.table(r.columns, r.rows, plain(o));
    },
  },
  timelineSpec('metadata timeline show active', false, 'List all instants in active timeline of metadata table'),
  timelineSpec('metadata timeline show incomplete', true, 'List all incomplete instants in active timeline of metadata table'),
];
