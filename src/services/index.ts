// Table services run without Spark/Flink, all through the shared write transaction (transaction.ts):
// Hudi's lock, heartbeat, marker and rollback protocols, the metadata table kept in step.
export * from './compaction/index.ts';
export * from './clustering/index.ts';
export { tableWriterSchema } from './rewrite/inputs.ts';
export * from './engine/index.ts';
export * from '../write/index.ts';
export { Attempt, underLock, reopen, rollbackWithMetadataTable, type ServiceOptions, type CommitSpec } from './transaction.ts';
export { hasMetadataTable, type MetadataTableMode, type MetadataChange } from './mdt-sync.ts';
export * from './clean/index.ts';
export * from './archival/index.ts';
export { deleteMetadataTable, deleteRecordIndex, type MetadataDeleteOptions, type MetadataDeleteResult } from './metadata-admin.ts';
