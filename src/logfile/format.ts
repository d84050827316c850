// Hudi log format constants (format-data.md §2). All integers are big-endian.

export const MAGIC = new Uint8Array([0x23, 0x48, 0x55, 0x44, 0x49, 0x23]); // "#HUDI#"

/** HoodieLogBlockType, serialized as the ordinal. */
export const BLOCK_TYPES = [
  'COMMAND_BLOCK',
  'DELETE_BLOCK',
  'CORRUPT_BLOCK',
  'AVRO_DATA_BLOCK',
  'HFILE_DATA_BLOCK',
  'PARQUET_DATA_BLOCK',
  'CDC_DATA_BLOCK',
] as const;
export type LogBlockType = (typeof BLOCK_TYPES)[number];

/** HeaderMetadataType ordinals. */
export const HEADER_KEYS = [
  'INSTANT_TIME',
  'TARGET_INSTANT_TIME',
  'SCHEMA',
  'COMMAND_BLOCK_TYPE',
  'COMPACTED_BLOCK_TIMES',
  'RECORD_POSITIONS',
  'BLOCK_IDENTIFIER',
  'IS_PARTIAL',
  'BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS',
] as const;
export type HeaderKey = (typeof HEADER_KEYS)[number];

/** HoodieCommandBlockTypeEnum: only ROLLBACK_BLOCK (0) exists. */
export const COMMAND_ROLLBACK = '0';

/** Log format versions this reader understands: 0 (legacy, pre-0.5) and 1 (current). */
export const CURRENT_LOG_FORMAT_VERSION = 1;

/** Highest Avro/delete block content version known (HoodieLogBlock.version). */
export const MAX_CONTENT_VERSION = 3;

export function isDataBlock(t: LogBlockType): boolean {
  return t === 'AVRO_DATA_BLOCK' || t === 'HFILE_DATA_BLOCK' || t === 'PARQUET_DATA_BLOCK' || t === 'CDC_DATA_BLOCK';
}

export function headerKeyName(ordinal: number): string {
  return HEADER_KEYS[ordinal] ?? `UNKNOWN_${ordinal}`;
}

export function headerKeyOrdinal(name: string): number {
  const i = (HEADER_KEYS as readonly string[]).indexOf(name);
  if (i >= 0) return i;
  const m = /^UNKNOWN_(\d+)$/.exec(name);
  return m ? Number(m[1]) : -1;
}
