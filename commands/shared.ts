// Helpers every command action uses: which table, storage options, output options.
import { TblError } from '../src/errors/index.ts';
import type { OutputOptions } from '../src/io/index.ts';
import type { Table } from '../src/table/index.ts';
import type { TableResult } from '../src/views/result.ts';
import type { CommandSpec } from './spec.ts';
import type { StorageOptions } from '../src/storage/index.ts';
import type { Ctx } from './context.ts';
import type { Opts } from './spec.ts';
import { loadState } from './state.ts';

export function storageOptions(ctx: Ctx, o: Opts): StorageOptions {
  return {
    cwd: ctx.cwd,
    env: ctx.env,
    namenodeHttp: (o.namenodeHttp as string | undefined) ?? ctx.env.TBLCLI_WEBHDFS,
    user: o.user as string | undefined,
    doAs: o.doas as string | undefined,
    delegationToken: o.delegationToken as string | undefined,
    tokenFile: o.tokenFile as string | undefined,
    caFile: o.caFile as string | undefined,
    httpfs: o.httpfs === true,
    retries: o.retries as number | undefined,
    timeoutMs: o.timeout as number | undefined,
    concurrency: o.concurrency as number | undefined,
    debug: o.debug ? (m: string) => ctx.io.stderr(`debug: ${m}\n`) : undefined,
  };
}

/** --path, then TBLCLI_PATH, then the shell session, then the path remembered by `connect`. */
export async function tablePath(ctx: Ctx, o: Opts, flag = 'path'): Promise<string> {
  const explicit = o[flag] as string | undefined;
  if (explicit) return explicit;
  if (ctx.env.TBLCLI_PATH) return ctx.env.TBLCLI_PATH;
  if (ctx.session?.path) return ctx.session.path;
  const saved = await loadState(ctx.stateDir);
  if (saved.path) return saved.path;
  throw new TblError('usage', 'There is no hudi table. Please use connect command to set table first', {
    hint: 'run `tblcli connect --path <table>` or pass --path',
  });
}

export async function openFromOpts(ctx: Ctx, o: Opts, flag = 'path', opts: { spinner?: boolean } = {}): Promise<Table> {
  const uri = await tablePath(ctx, o, flag);
  const { openTable } = await import('../src/table/index.ts');
  const spinning = ctx.io.isStderrTTY && opts.spinner !== false;
  const opening = openTable(uri, storageOptions(ctx, o));
  const table = await (spinning ? (await import('./spinner.ts')).spin(ctx, `opening ${uri}`, opening) : opening);
  for (const w of table.warnings) ctx.out.warn(w);
  if (spinning) {
    // a timeline that takes more than two seconds to read (WebHDFS, 60k files) says so on a terminal
    const { spin } = await import('./spinner.ts');
    const read = table.timeline.bind(table);
    let reading: ReturnType<Table['timeline']> | undefined;
    table.timeline = (onListed) => (reading ??= spin(ctx, `reading the timeline of ${table.uri}`, read(onListed)));
  }
  return table;
}

export function outputOptions(o: Opts): OutputOptions {
  let json: boolean | string[] | undefined;
  if (o.json === true) json = true;
  else if (typeof o.json === 'string') json = o.json.split(',').map((s) => s.trim()).filter(Boolean);
  const format = o.format as string | undefined;
  if (format !== undefined && !['table', 'csv', 'tsv', 'json'].includes(format)) {
    throw new TblError('usage', `unknown --format '${format}' (use table, csv, tsv or json)`);
  }
  return {
    json,
    format: format as OutputOptions['format'],
    limit: o.limit as number | undefined,
    sortBy: (o.sortBy as string | undefined) || undefined,
    desc: o.desc === true,
    headerOnly: o.headeronly === true,
  };
}

export function wantsJson(o: Opts): boolean {
  return o.json !== undefined && o.json !== false ? true : o.format === 'json';
}

/**
 * The action of every listing command: open the table, make the one library call, print its warnings
 * to stderr and its rows through Output (table / csv / tsv / json).
 */
export function tableAction(
  run: (table: Table, o: Opts, ctx: Ctx) => Promise<TableResult & { warnings?: string[] }>,
  output: (o: Opts) => OutputOptions = outputOptions,
): CommandSpec['action'] {
  return async (ctx, o) => {
    const table = await openFromOpts(ctx, o);
    const r = await run(table, o, ctx);
    for (const w of r.warnings ?? []) ctx.out.warn(w);
    ctx.out.table(r.columns, r.rows, output(o));
  };
}
