export {
  loadArchivedTimeline,
  readLsmManifest,
  decodeInstantBytes,
  fromArchivedMetaEntry,
  archivedMetadataField,
  archiveFileVersion,
  ARCHIVE_FILE_PREFIX,
  type ArchivedInstant,
  type ArchivedState,
  type LoadArchivedOptions,
  type LsmManifest,
} from './archived.ts';
