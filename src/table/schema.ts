// fetch table schema: TableSchemaResolver order — the latest completed commit that may change the
// schema and carries extraMetadata.schema, then hoodie.table.create.schema, then a base file footer.
import { TblError } from '../errors/index.ts';
import { decodeCommitMetadata } from '../metadata/index.ts';
import type { Table } from './open.ts';

/** Operations that cannot change the schema (WriteOperationType.canUpdateSchema is false). */
const NO_SCHEMA_CHANGE = new Set(['CLUSTER', 'COMPACT', 'LOG_COMPACT', 'INDEX']);

export interface TableSchema {
  schema: string;
  source: string;
}

export async function latestTableSchema(table: Table): Promise<TableSchema> {
  const tl = await table.timeline();
  const commits = tl.completedCommits().reverse();
  for (const i of commits) {
    const f = i.files.COMPLETED!;
    const m = decodeCommitMetadata(await tl.read(i, 'COMPLETED'), { path: table.storage.uri(f.path) });
    if (m.operationType && NO_SCHEMA_CHANGE.has(m.operationType)) continue;
    const s = m.extraMetadata?.schema;
    if (s) return { schema: s, source: `commit ${i.requestedTime}` };
  }
  if (table.config.createSchema) return { schema: table.config.createSchema, source: 'hoodie.table.create.schema' };
  throw new TblError('not-found', `${table.uri}: no table schema found (no commit carries one and hoodie.table.create.schema is absent)`, {
    path: table.uri,
  });
}

/** The schema pretty-printed like Avro's Schema.toString(true) (Jackson default pretty printer). */
export function prettySchema(schema: string): string {
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}
