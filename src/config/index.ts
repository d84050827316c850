export { parseProperties, formatProperties, javaDateString } from './properties.ts';
export { toTableConfig, tableChecksum, KEYS, SUPPORTED_TABLE_VERSIONS, type TableConfig, type TableType } from './table-config.ts';
export { crc32 } from './crc32.ts';
export { crc32c } from './crc32c.ts';
