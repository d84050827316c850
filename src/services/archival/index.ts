export { triggerArchival, archivalConfig, metadataArchivalConfig, archiveDir, deleteActiveFiles, type ArchivalOptions, type ArchivalResult, type TimelineArchival } from './archive.ts';
export { decideArchival, effectiveMinMax, cleanerEarliestCommitToRetain, ARCHIVAL_DEFAULTS, type ArchivalConfig, type ArchivalDecision, type ArchivalFacts, type Bound, type Verdict } from './rules.ts';
export { archivedEntries, encodeArchiveBlocks, archiveFileName, ARCHIVAL_BATCH, ARCHIVE_FILE_MAX_BYTES } from './v1-archive.ts';
export { encodeLsmFile, lsmFileName, manifestJson, LSM_COMPACTION_BATCH, type LsmRow } from './lsm.ts';
