// connect, desc, refresh, fetch table schema.
import { resolve } from 'node:path';
import { TblError } from '../src/errors/index.ts';
import type { CommandSpec } from './spec.ts';
import { openFromOpts, tableAction, wantsJson } from './shared.ts';
import { requireOpt } from './commits.ts';
import { saveState } from './state.ts';

export const tableSpecs: CommandSpec[] = [
  {
    name: 'connect',
    summary: 'Connect to a hoodie table (remembered for later commands)',
    jsonFields: async () => ['tableName', 'path', 'tableType', 'tableVersion', 'timelineLayoutVersion', 'instants'],
    async action(ctx, o) {
      const path = requireOpt(o, 'path');
      const table = await openFromOpts(ctx, o);
      const tl = await table.timeline(); // validates the timeline too
      const abs = /^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : resolve(ctx.cwd, path);
      await saveState(ctx.stateDir, { path: abs, tableName: table.config.name, connectedAt: ctx.now().toISOString() });
      if (ctx.session) ctx.session = Object.assign(ctx.session, { path: abs, tableName: table.config.name });
      if (wantsJson(o)) {
        ctx.out.json({
          tableName: table.config.name,
          path: abs,
          tableType: table.config.type,
          tableVersion: table.config.version,
          timelineLayoutVersion: table.config.layoutVersion,
          instants: tl.instants.length,
        });
      } else ctx.out.text(`Metadata for table ${table.config.name} loaded`);
    },
  },
  {
    name: 'desc',
    summary: 'Describe Hoodie Table properties',
    jsonFields: async () => (await import('../src/views/services.ts')).propertyColumns.map((c) => c.key),
    action: tableAction(async (table) => (await import('../src/views/service-results.ts')).describe(table)),
  },
  {
    name: 'refresh',
    aliases: ['metadata refresh', 'commits refresh', 'cleans refresh', 'savepoints refresh'],
    summary: 'Refresh table metadata',
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      await table.timeline();
      if (ctx.session) ctx.session.tableName = table.config.name;
      ctx.out.text(`Metadata for table ${table.config.name} refreshed.`);
    },
  },
  {
    name: 'fetch table schema',
    summary: 'Fetches latest table schema',
    jsonFields: async () => ['schema', 'source'],
    options: [{ flags: '--outputFilePath <file>', description: 'write the schema to this local file' }],
    async action(ctx, o) {
      const table = await openFromOpts(ctx, o);
      const { latestTableSchema, prettySchema } = await import('../src/table/schema.ts');
      const s = await latestTableSchema(table);
      if (wantsJson(o)) {
        let schema: unknown = s.schema;
        try {
          schema = JSON.parse(s.schema);
        } catch {
          // not JSON: hand it over as the string it is
        }
        return void ctx.out.json({ schema, source: s.source });
      }
      const out = o.outputFilePath as string | undefined;
      if (out) {
        const { writeFile } = await import('node:fs/promises');
        const file = resolve(ctx.cwd, out);
        try {
          await writeFile(file, prettySchema(s.schema));
        } catch (e) {
          throw new TblError('usage', `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { path: file, cause: e });
        }
        ctx.out.text(`Latest table schema written to ${file}`);
      } else ctx.out.text(`Latest table schema ${prettySchema(s.schema)}`);
    },
  },
];
