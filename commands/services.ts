// cleans, rollbacks, savepoints, restores listings.
import type { CommandSpec, Opts } from './spec.ts';
import { parseBool } from './spec.ts';
import { tableAction } from './shared.ts';
import { requireOpt } from './commits.ts';
import type { Table } from '../src/table/index.ts';
import type { TableResult } from '../src/views/result.ts';

type Views = typeof import('../src/views/service-results.ts');

function listing(
  name: string,
  summary: string,
  limit: number | undefined,
  run: (v: Views, o: Opts, t: Table) => Promise<TableResult> | TableResult,
  columns: keyof typeof import('../src/views/services.ts'),
  options: CommandSpec['options'] = [],
): CommandSpec {
  return {
    name,
    summary,
    table: limit === undefined ? undefined : { limit },
    options,
    jsonFields: async () => ((await import('../src/views/services.ts'))[columns] as { key: string }[]).map((c) => c.key),
    action: tableAction(async (table, o) => run(await import('../src/views/service-results.ts'), o, table)),
  };
}

export const serviceSpecs: CommandSpec[] = [
  listing('cleans show', 'Show the cleans', -1, (v, _o, t) => v.cleansShow(t), 'cleanColumns'),
  listing('clean showpartitions', 'Show partition level details of a clean', -1, (v, o, t) => v.cleanShowPartitions(t, requireOpt(o, 'clean')), 'cleanPartitionColumns', [
    { flags: '--clean <instant>', description: 'clean instant (required)' },
  ]),
  listing('show rollbacks', 'List all rollback instants', 10, (v, _o, t) => v.showRollbacks(t), 'rollbackColumns'),
  listing('show rollback', 'Show details of a rollback instant', 10, (v, o, t) => v.showRollback(t, requireOpt(o, 'instant')), 'rollbackFileColumns', [
    { flags: '--instant <instant>', description: 'rollback instant (required)' },
  ]),
  listing('savepoints show', 'Show the savepoints', undefined, (v, _o, t) => v.savepointsShow(t), 'savepointColumns'),
  listing('show restores', 'List all restore instants', 10, (v, o, t) => v.showRestores(t, o.includeInflights === true), 'restoreColumns', [
    { flags: '--includeInflights [bool]', description: 'also list pending restores', default: false, parse: parseBool },
  ]),
  listing('show restore', 'Show details of a restore instant', 10, (v, o, t) => v.showRestore(t, requireOpt(o, 'instant')), 'restoreColumns', [
    { flags: '--instant <instant>', description: 'restore instant (required)' },
  ]),
];
