import type { CommandSpec } from './spec.ts';
import { parseBool } from './spec.ts';
import { openFromOpts, outputOptions, tableAction, wantsJson } from './shared.ts';
import type { Table } from '../src/table/index.ts';
import type { TableResult } from '../src/views/result.ts';

export interface TimelineShowOptions {
  incomplete: boolean;
  rollbackInfo: boolean;
  seconds: boolean;
}

type Show = (table: Table, opts: TimelineShowOptions) => Promise<TableResult>;

const dataTimeline: Show = async (table, opts) => (await import('../src/views/service-results.ts')).timelineShow(table, opts);

/** `timeline show active|incomplete` and its metadata-table twin: same options and columns, `No.` first. */
export function timelineSpec(name: string, incomplete: boolean, summary: string, show: Show = dataTimeline): CommandSpec {
  return {
    name,
    summary,
    table: { limit: 10 },
    options: [
      { flags: '--show-rollback-info [bool]', description: 'show what each rollback rolls back', default: false, parse: parseBool },
      { flags: '--show-time-seconds [bool]', description: 'show seconds in the file modification times', default: false, parse: parseBool },
      { flags: '--chart [bool]', description: 'the same instants as bars over wall-clock time (requested to completed, or to now while pending), one lane per concurrent instant, fitted to the width', default: false, parse: parseBool },
    ],
    jsonFields: async () => ['no', ...(await import('../src/views/timeline.ts')).timelineColumns(false).map((c) => c.key)],
    action: async (ctx, o) => {
      const opts = { incomplete, rollbackInfo: o.showRollbackInfo === true, seconds: o.showTimeSeconds === true };
      if (o.chart !== true || wantsJson(o)) return tableAction((table) => show(table, opts), (x) => ({ ...outputOptions(x), rowNumbers: true }))(ctx, o);
      const table = await openFromOpts(ctx, o);
      const r = await show(table, opts);
      const v = await import('../src/views/browse.ts');
      const lines = v.timelineChart(r, outputOptions(o), (await table.timeline()).source.timezone, ctx.now().getTime(), ctx.io.columns);
      ctx.out.text(lines.join('\n'));
    },
  };
}

export const timelineSpecs: CommandSpec[] = [
  timelineSpec('timeline show active', false, 'List all instants in active timeline'),
  timelineSpec('timeline show incomplete', true, 'List all incomplete instants in active timeline'),
];
