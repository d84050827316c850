// show logfile metadata | records. Corrupt blocks are warnings on stderr; the exit code stays 0
// (hudi-cli prints the table with `corrupt_block_<n>` rows too).
import type { CommandSpec } from './spec.ts';
import { parseBool, parseIntOpt } from './spec.ts';
import { openFromOpts, outputOptions, tableAction } from './shared.ts';
import { requireOpt } from './commits.ts';

const patternOption = {
  flags: '--logFilePathPattern <glob>',
  description: 'log files to read (Hadoop glob; relative to the table base path unless absolute), required',
};

export const logfileSpecs: CommandSpec[] = [
  {
    name: 'show logfile metadata',
    summary: 'Read commit metadata from log files',
    table: { limit: -1 },
    options: [patternOption],
    jsonFields: async () => (await import('../src/views/logfile.ts')).logMetadataColumns.map((c) => c.key),
    action: tableAction(async (table, o) =>
      (await import('../src/views/logfile.ts')).showLogFileMetadata(table, requireOpt(o, 'logFilePathPattern')),
    ),
  },
  {
    name: 'show logfile records',
    summary: 'Read records from log files',
    options: [
      patternOption,
      { flags: '--limit <n>', description: 'maximum records to show (-1: all)', default: 10, parse: parseIntOpt },
      { flags: '--mergeRecords [bool]', description: 'merge the records of the log files (one file group) as a reader would', default: false, parse: parseBool },
      { flags: '--merge [bool]', description: 'same as --mergeRecords', default: false, parse: parseBool },
    ],
    jsonFields: async () => ['records'],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const v = await import('../src/views/logfile.ts');
      const merge = o.mergeRecords === true || o.merge === true;
      const r = await v.showLogFileRecords(table, requireOpt(o, 'logFilePathPattern'), { limit: o.limit as number, merge });
      ctx.out.info(r.title);
      if (merge) ctx.out.info('===========================> MERGING RECORDS <===================');
      for (const w of r.warnings) ctx.out.warn(w);
      // the limit was applied while reading; hudi-cli prints this table without sort options
      ctx.out.table(r.columns, r.rows, { ...outputOptions(o), limit: undefined });
    },
  },
];
