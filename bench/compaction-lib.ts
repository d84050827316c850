// Library entry for bench/compaction.mjs (bundled on the fly into .bench-out/).
export { encodeCommitMetadataJson, emptyCommitMetadata } from '../src/metadata/index.ts';
export { writeHoodieBaseFile, withHoodieMetaFields, hoodieMetaValues, writeHoodieParquet } from '../src/parquet/write.ts';
export { readParquetRows } from '../src/parquet/read.ts';
export { encodeAvroDataBlock, writeLogFile } from '../src/logfile/index.ts';
export { LocalStorage } from '../src/storage/index.ts';
export { openTable } from '../src/table/index.ts';
export { scheduleCompaction, runCompaction } from '../src/services/index.ts';
