// cleans, rollbacks, savepoints, restores listings.
import type { CommandSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions } from './shared.ts';
import { requireOpt } from './commits.ts';

type Views = typeof import('../src/views/service-results.ts');
const views = (): Promise<Views> => import('../src/views/service-results.ts');

function listing(name: string, summary: string, limit: number, run: (v: Views, o: Record<string, unknown>, t: any) => Promise<any>, options: CommandSpec['options'] = []): CommandSpec {
  return {
    name,
    summary,
    table: { limit },
    options,
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await run(await views(), o, table);
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  };
}

export const serviceSpecs: CommandSpec[] = [
  listing('cleans show', 'Show the cleans', -1, (v, _o, t) => v.cleansShow(t)),
  listing('clean showpartitions', 'Show partition level details of a clean', -1, (v, o, t) => v.cleanShowPartitions(t, requireOpt(o, 'clean')), [
    { flags: '--clean <instant>', description: 'clean instant (required)' },
  ]),
  listing('show rollbacks', 'List all rollback instants', 10, (v, _o, t) => v.showRollbacks(t)),
  listing('show rollback', 'Show details of a rollback instant', 10, (v, o, t) => v.showRollback(t, requireOpt(o, 'instant')), [
    { flags: '--instant <instant>', description: 'rollback instant (required)' },
  ]),
  {
    name: 'savepoints show',
    summary: 'Show the savepoints',
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const r = await (await views()).savepointsShow(table);
      ctx.out.table(r.columns, r.rows, outputOptions(o));
    },
  },
  listing('show restores', 'List all restore instants', 10, (v, o, t) => v.showRestores(t, o.includeInflights === true), [
    { flags: '--includeInflights [bool]', description: 'also list pending restores', default: false, parse: parseBool },
  ]),
  listing('show restore', 'Show details of a restore instant', 10, (v, o, t) => v.showRestore(t, requireOpt(o, 'instant')), [
    { flags: '--instant <instant>', description: 'restore instant (required)' },
  ]),
];
