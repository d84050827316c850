// Library entry for bench/mdt.mjs (bundled on the fly into .bench-out/).
export { encodeCommitMetadataAvro, emptyCommitMetadata, newWriteStat } from '../src/metadata/index.ts';
export { withHoodieMetaFields, hoodieMetaValues } from '../src/parquet/write.ts';
export { openHoodieParquetWriter, finishHoodieBaseFile } from '../src/parquet/write-incremental.ts';
export { encodeAvroDataBlock, encodeDeleteBlock, encodeLogBlock, writeLogFile } from '../src/logfile/index.ts';
export { writeHFile } from '../src/hfile/index.ts';
export { LocalStorage } from '../src/storage/index.ts';
export { openTable } from '../src/table/index.ts';
export { scheduleCompaction, runCompaction } from '../src/services/index.ts';
export { compactMetadataTableIfDue, mdtBaseFile } from '../src/mdt/compaction.ts';
export { readMetadataTableFiles, partitionListRecord, filesRecord, encodeMetadataRecord, mdtWriterSchema } from '../src/mdt/index.ts';
export { columnStatsRecordsFromFooter } from '../src/mdt/column-stats.ts';
export { fileGroupIndex } from '../src/mdt/keys.ts';
