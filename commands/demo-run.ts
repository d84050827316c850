// tblcli demo: write the demo table with our own writers, then show what an on-call engineer sees.
import { mkdtemp, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TblError } from '../src/errors/index.ts';
import { LocalStorage } from '../src/storage/index.ts';
import type { Ctx } from './context.ts';
import type { Opts } from './spec.ts';
import { outputOptions, wantsJson } from './shared.ts';

export async function runDemo(ctx: Ctx, o: Opts, tableVersion: 6 | 8): Promise<number> {
  const given = (o.args as string[] | undefined)?.[0];
  let dir: string;
  if (given) {
    dir = resolve(ctx.cwd, given);
    await mkdir(dir, { recursive: true });
    if ((await readdir(dir)).length > 0) {
      throw new TblError('usage', `${dir} is not empty; the demo table needs a fresh directory`, { path: dir });
    }
  } else dir = join(await mkdtemp(join(tmpdir(), 'tblcli-demo-')), 'demo_orders');
  const { generateDemoTable } = await import('../src/demo/index.ts');
  const summary = await generateDemoTable(new LocalStorage(), dir, { tableVersion, now: ctx.now() });
  const { openTableAt } = await import('../src/table/index.ts');
  const table = await openTableAt(new LocalStorage(), summary.tablePath, summary.tablePath);
  const v = await import('../src/views/commit-results.ts');
  const s = await import('../src/views/service-results.ts');
  const commits = await v.commitsShow(table, { extra: false, archived: false });
  const compactions = await s.compactionsShowAll(table, false);
  if (wantsJson(o)) {
    ctx.out.json({ ...summary, connect: `npx tblcli connect --path ${summary.tablePath}` });
    return 0;
  }
  const opts = outputOptions(o);
  ctx.out.text(`Demo table ${table.config.name} (MERGE_ON_READ, table version ${tableVersion}) written to ${summary.tablePath}\n`);
  ctx.out.text('hudi:' + table.config.name + '->commits show');
  ctx.out.table(commits.columns, commits.rows, opts);
  ctx.out.text('hudi:' + table.config.name + '->compactions show all');
  ctx.out.table(compactions.columns, compactions.rows, opts);
  ctx.out.text(`\nExplore further (npx tblcli from this project, or tblcli once installed):\n  npx tblcli connect --path ${summary.tablePath}\n  npx tblcli timeline show incomplete\n  npx tblcli doctor\n`);
  return 0;
}
