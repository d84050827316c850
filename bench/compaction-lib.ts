// Library entry for bench/compaction.mjs (bundled on the fly into .bench-out/).
export { encodeCommitMetadataJson, emptyCommitMetadata } from '../src/metadata/index.ts';
export { withHoodieMetaFields, hoodieMetaValues } from '../src/parquet/write.ts';
export { openHoodieParquetWriter, finishHoodieBaseFile } from '../src/parquet/write-incremental.ts';
export { readParquetMetadataFrom, readParquetRowsFrom } from '../src/parquet/read.ts';
export { encodeAvroDataBlock, writeLogFile } from '../src/logfile/index.ts';
export { LocalStorage, asyncBufferOf } from '../src/storage/index.ts';
export { openTable } from '../src/table/index.ts';
export { scheduleCompaction, runCompaction } from '../src/services/index.ts';
