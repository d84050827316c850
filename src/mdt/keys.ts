// Metadata-table record keys and their file groups (format-mdt-write.md §1.4, §2.3): files keys are
// partition identifiers, column-stats / bloom / partition-stats keys concatenate Base64 hash ids
// (xxHash64 with Hudi's sign-extended seed, MD5 of file names), and a key goes to file group
// abs(abs(String.hashCode) % N) of the N file ids sorted.
import { createHash } from 'node:crypto';
import { xxhash64 } from 'hyparquet/src/xxhash.js';
import { TblError } from '../errors/index.ts';
import { javaStringHashCode } from '../util/index.ts';

export { javaStringHashCode };

/** HoodieTableMetadata.RECORDKEY_PARTITION_LIST */
export const ALL_PARTITIONS_KEY = '__all_partitions__';
/** HoodieTableMetadata.NON_PARTITIONED_NAME */
export const NON_PARTITIONED_NAME = '.';

/**
 * HashID.HASH_SEED = 0xdabadaba is a Java int passed to xxHash64's long seed parameter, so it
 * arrives sign-extended (the zero-extended seed gives different keys).
 */
const XXH64_SEED = 0xffffffffdabadaban;

const utf8 = new TextEncoder();

/** HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex: Math.abs(Math.abs(h) % n), h = key.hashCode(). */
export function fileGroupIndex(key: string, numFileGroups: number): number {
  if (!Number.isInteger(numFileGroups) || numFileGroups <= 0) {
    throw new TblError('bug', `fileGroupIndex: file group count must be a positive integer, got ${numFileGroups}`);
  }
  const h = javaStringHashCode(key);
  // Math.abs(Integer.MIN_VALUE) is Integer.MIN_VALUE in Java; % keeps the dividend's sign, the outer abs fixes it
  const a = h === -2147483648 ? h : Math.abs(h);
  return Math.abs(a % numFileGroups);
}

/** HoodieTableMetadataUtil.getPartitionIdentifier: the non-partitioned partition "" is ".". */
export function partitionIdentifier(partition: string): string {
  return partition === '' ? NON_PARTITIONED_NAME : partition;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** ColumnIndexID / PartitionIndexID: Base64 of the big-endian xxHash64 of the UTF-8 bytes (12 chars). */
export function xxhashId(s: string): string {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(xxhash64(utf8.encode(s), XXH64_SEED));
  return b.toString('base64');
}

/** FileIndexID: Base64 of the MD5 of the file name's UTF-8 bytes (24 chars). */
export function md5Id(s: string): string {
  return base64(createHash('md5').update(s, 'utf8').digest());
}

/** HoodieMetadataPayload.getColumnStatsIndexKey: column id + partition id + file id (48 chars). */
export function columnStatsKey(column: string, partition: string, fileName: string): string {
  return xxhashId(column) + xxhashId(partitionIdentifier(partition)) + md5Id(fileName);
}

/** HoodieMetadataPayload.getBloomFilterIndexKey: partition id + file id (36 chars). */
export function bloomFilterKey(partition: string, fileName: string): string {
  return xxhashId(partitionIdentifier(partition)) + md5Id(fileName);
}

/** HoodieTableMetadataUtil.getPartitionStatsIndexKey: column id + partition id (24 chars). */
export function partitionStatsKey(column: string, partition: string): string {
  return xxhashId(column) + xxhashId(partitionIdentifier(partition));
}

/** The `files` partition key of a data partition ("." for the non-partitioned one). */
export function filesKey(partition: string): string {
  return partitionIdentifier(partition);
}

/**
 * HoodieTableMetadataUtil.getFileIDForFileGroup: `<prefix><NNNN>-0`, e.g. `col-stats-0001-0`.
 * The prefix is the partition's file-id prefix (`files-`, `col-stats-`, `record-index-`, …).
 */
export function fileGroupFileId(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(4, '0')}-0`;
}
