import type { CommandSpec } from './spec.ts';
import { parseIntOpt } from './spec.ts';
import { TblError } from '../src/errors/index.ts';

export const demoSpecs: CommandSpec[] = [
  {
    name: 'demo',
    pager: false,
    summary: 'Generate the embedded demo MERGE_ON_READ table and show its commits and compactions',
    needsTable: false,
    args: ['[dir]'],
    options: [
      { flags: '--table-version <n>', description: '6 (layout 1, default) or 8 (layout 2)', default: 6, parse: parseIntOpt },
    ],
    async action(ctx, o) {
      const v = o.tableVersion as number;
      if (v !== 6 && v !== 8) throw new TblError('usage', `--table-version must be 6 or 8, got ${v}`);
      const { runDemo } = await import('./demo-run.ts');
      return runDemo(ctx, o, v);
    },
  },
];
