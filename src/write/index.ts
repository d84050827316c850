// The single-table write protocol pieces every mutation uses: Hudi's file-system lock, heartbeats,
// markers, the safe hoodie.properties update, instant times, and rollback of one table's instant.
// The shared write transaction that composes them with the metadata table is src/services/transaction.ts.
export * from './lock.ts';
export * from './heartbeat.ts';
export * from './markers.ts';
export * from './table-properties.ts';
export * from './rollback.ts';
