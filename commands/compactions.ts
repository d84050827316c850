import type { CommandSpec } from './spec.ts';
import type { Table } from '../src/table/index.ts';
import type { TableResult } from '../src/views/result.ts';
import { parseBool } from './spec.ts';
import { tableAction } from './shared.ts';
import { requireOpt } from './commits.ts';

/** `compaction show` and `compaction showarchived`: one plan, one row per operation (table P). */
export function compactionPlanSpec(
  name: string,
  show: (table: Table, instant: string, partition: string | undefined) => Promise<TableResult>,
): CommandSpec {
  return {
    name,
    summary: 'Shows compaction details for a specific compaction instant',
    table: { limit: -1 },
    options: [
      { flags: '--instant <instant>', description: 'compaction instant time (required)' },
      { flags: '--partition <partition>', description: 'only operations of this partition' },
    ],
    jsonFields: async () => (await import('../src/views/compactions.ts')).compactionPlanColumns.map((c) => c.key),
    action: tableAction((table, o) => show(table, requireOpt(o, 'instant'), o.partition as string | undefined)),
  };
}

export const compactionSpecs: CommandSpec[] = [
  {
    name: 'compactions show all',
    summary: 'Shows all compactions that are in active timeline',
    table: { limit: -1 },
    options: [{ flags: '--includeExtraMetadata [bool]', description: 'add the plan extra metadata column', default: false, parse: parseBool }],
    jsonFields: async () => (await import('../src/views/compactions.ts')).compactionColumns(false).map((c) => c.key),
    action: tableAction(async (table, o) =>
      (await import('../src/views/service-results.ts')).compactionsShowAll(table, o.includeExtraMetadata === true),
    ),
  },
  compactionPlanSpec('compaction show', async (table, instant, partition) =>
    (await import('../src/views/service-results.ts')).compactionShow(table, instant, partition),
  ),
];
