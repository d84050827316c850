export { openTable, openTableAt, type Table, type OpenOptions } from './open.ts';
export { viewTimelineOf, loadFileSystemView, type ViewTimelineOptions } from './view.ts';
export { latestTableSchema, prettySchema, type TableSchema } from './schema.ts';
export * from './queries.ts';
