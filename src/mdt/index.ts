export { openMetadataTable, metadataTablePath, validInstants, mdtViewTimeline, type MetadataTable } from './table.ts';
export {
  readMetadataTableFiles,
  readFilesPartition,
  mergeFilesSlice,
  combineFiles,
  decodeFilesRecord,
  FILES_PARTITION,
  type FileInfo,
  type FilesRecord,
  type MetadataTableFiles,
  type SkippedBlock,
} from './files.ts';
export { metadataTableStats, type MetadataTableStats, type MetadataPartitionStats } from './stats.ts';
export * from './keys.ts';
export * from './records.ts';
// column-stats.ts (parquet footers → records) is imported directly: it loads hyparquet, which the
// read-only metadata commands do not need
export { readRecordIndex, RECORD_INDEX_PARTITION, type RecordLocation } from './record-index.ts';
