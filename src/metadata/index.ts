// Instant-content codecs: Avro object containers, commit metadata (JSON layout 1 / Avro layout 2),
// typed plans and metadata of every other action, and the Avro datums used inside log blocks.
export {
  readAvroContainer,
  writeAvroContainer,
  sniffContent,
  schemaRecordName,
  isAvroContainer,
  avroType,
  type AvroContainer,
  type ReadAvroOptions,
  type WriteAvroOptions,
  type ContentKind,
} from './avro-container.ts';
export { SCHEMAS, SCHEMA_NAMES, type SchemaName } from './schemas.ts';
export {
  decodeCommitMetadata,
  commitMetadataFromRecord,
  decodeCommitTotals,
  encodeCommitMetadataJson,
  encodeCommitMetadataAvro,
  commitMetadataToAvroRecord,
  emptyCommitMetadata,
  newWriteStat,
  commitTotals,
  allWriteStats,
  type CommitMetadata,
  type WriteStat,
  type RuntimeStats,
  type CommitTotals,
  type EncodeJsonOptions,
  type EncodeAvroCommitOptions,
  type DecodeCommitOptions,
} from './commit.ts';
export * from './instants.ts';
export {
  decodeDatum,
  encodeDatum,
  decodeArchivedMetaEntry,
  encodeArchivedMetaEntry,
  decodeDeleteRecordList,
  encodeDeleteRecordList,
  type DeleteRecord,
  type OrderingValue,
} from './datum.ts';
export { decodeKryoDeleteRecords } from './kryo-delete-records.ts';
export { jacksonPretty, type JacksonValue } from './jackson.ts';
export { KEY_ORDER, orderedKeys, setKeyOrder, parseOrderedJson, javaHashMapOrder } from './ordered-json.ts';
export { parseAvroSchema, decodeAvroBinary, encodeAvroBinary, branchName, recordField, type AvroNode, type AvroField, type AvroValue } from './avro-binary.ts';
