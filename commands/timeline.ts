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
      const v = await import('../src/views/service-results.ts');
      const r = await v.timelineShow(table, {
        incomplete,
        rollbackInfo: o.showRollbackInfo === true,
        seconds: o.showTimeSeconds === true,
      });
      ctx.out.table(r.columns, r.rows, { ...outputOptions(o), rowNumbers: true });
    },
  };
}

export const timelineSpecs: CommandSpec[] = [
  timelineSpec('timeline show active', false, 'List all instants in active timeline'),
  timelineSpec('timeline show incomplete', true, 'List all incomplete instants in active timeline'),
];
