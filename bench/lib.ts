// Library entry for the benchmark scripts (bundled to dist/bench-lib.js by scripts/build.mjs).
export { encodeCommitMetadataJson, encodeCommitMetadataAvro } from '../src/metadata/index.ts';
// merge benchmark: write a base file and log files, then scan the slice
export { writeHoodieBaseFile, withHoodieMetaFields, hoodieMetaValues } from '../src/parquet/index.ts';
export { encodeAvroDataBlock, writeLogFile } from '../src/logfile/index.ts';
export { LocalStorage } from '../src/storage/index.ts';
export { mergeFileSlice, mergeConfigFromProperties } from '../src/merge/index.ts';
// triage benchmark: scan + checks in-process (phase timings, request counts)
export { openTable } from '../src/table/index.ts';
export { scanTable, doctor, findCollisions, findOrphans, tableMetrics } from '../src/triage/index.ts';
