export { openMetadataTable, metadataTablePath, validInstants, mdtViewTimeline, type MetadataTable } from './table.ts';
export {
  readMetadataTableFiles,
  readFilesPartition,
  mergeFilesSlice,
  combineFiles,
  decodeFilesRecord,
  FILES_PARTITION,
  ALL_PARTITIONS_KEY,
  NON_PARTITIONED_NAME,
  type FileInfo,
  type FilesRecord,
  type MetadataTableFiles,
  type SkippedBlock,
} from './files.ts';
export { metadataTableStats, type MetadataTableStats, type MetadataPartitionStats } from './stats.ts';
