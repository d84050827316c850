// Table services run without Spark/Flink: compaction, with Hudi's lock, heartbeat and marker protocols.
export * from './compaction/index.ts';
export * from './lock.ts';
export * from './heartbeat.ts';
export * from './markers.ts';
export * from './table-properties.ts';
export { guardMetadataTable, hasMetadataTable, type ServiceOptions, type MetadataTableMode } from './common.ts';
