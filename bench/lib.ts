// Library entry for the benchmark scripts (bundled to dist/bench-lib.js by scripts/build.mjs).
export { encodeCommitMetadataJson, encodeCommitMetadataAvro } from '../src/metadata/index.ts';
// merge benchmark: write a base file and log files, then scan the slice
export { writeHoodieBaseFile, withHoodieMetaFields, hoodieMetaValues } from '../src/parquet/index.ts';
export { encodeAvroDataBlock, writeLogFile } from '../src/logfile/index.ts';
export { LocalStorage } from '../src/storage/index.ts';
export { mergeFileSlice, mergeConfigFromProperties } from '../src/merge/index.ts';
