// HFile v3 (HBase 2.4, as written by Hudi's hudi-io HFileWriterImpl) low-level decoding: block
// headers, the trailer, protobuf messages, and Hadoop's variable-length integers. Big-endian throughout.
import { gunzipSync } from 'node:zlib';
import { TblError } from '../errors/index.ts';

export const TRAILER_SIZE = 4096;
/** magic(8) onDiskSizeWithoutHeader(4) uncompressedSizeWithoutHeader(4) prevBlockOffset(8)
 *  checksumType(1) bytesPerChecksum(4) onDiskDataSizeWithHeader(4) */
export const BLOCK_HEADER_SIZE = 33;
/** HBase ChecksumType.CRC32C and the default bytes per checksum chunk (HFileContext). */
export const CHECKSUM_CRC32C = 2;
export const BYTES_PER_CHECKSUM = 16384;

export const BLOCK_MAGIC = {
  DATA: 'DATABLK*',
  ENCODED_DATA: 'DATABLKE',
  LEAF_INDEX: 'IDXLEAF2',
  META: 'METABLKc',
  INTERMEDIATE_INDEX: 'IDXINTE2',
  ROOT_INDEX: 'IDXROOT2',
  FILE_INFO: 'FILEINF2',
  TRAILER: 'TRABLK"$',
} as const;
export type BlockKind = keyof typeof BLOCK_MAGIC;

/** HBase Compression.Algorithm ordinals (trailer field 12). */
export const CODECS = ['LZO', 'GZ', 'NONE', 'SNAPPY', 'LZ4', 'BZIP2', 'ZSTD'] as const;
export type Codec = (typeof CODECS)[number];

export function hfileError(path: string, message: string, cause?: unknown): TblError {
  return new TblError('metadata', `HFile ${path}: ${message}`, { path, cause });
}

export function readI32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) | 0;
}

export function readI64(b: Uint8Array, o: number): number {
  const hi = readI32(b, o);
  const lo = readI32(b, o + 4) >>> 0;
  return hi * 2 ** 32 + lo;
}

export function readU16(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}

export function ascii(b: Uint8Array, o: number, n: number): string {
  let s = '';
  for (let i = 0; i < n && o + i < b.length; i++) s += String.fromCharCode(b[o + i]!);
  return s;
}

/** Hadoop WritableUtils.readVLong: returns [value, bytes consumed]. */
export function readHadoopVLong(b: Uint8Array, o: number): [number, number] {
  const first = (b[o]! << 24) >> 24; // signed byte
  if (first >= -112) return [first, 1];
  const size = first < -120 ? -119 - first : -111 - first;
  let v = 0;
  for (let i = 1; i < size; i++) v = v * 256 + b[o + i]!;
  return [first < -120 ? -(v + 1) : v, size];
}

/** Protobuf base-128 varint: [value, bytes consumed]. */
export function readVarint(b: Uint8Array, o: number): [number, number] {
  let v = 0;
  let mul = 1;
  let i = o;
  for (;;) {
    if (i >= b.length) throw new RangeError('varint runs past the end of the buffer');
    const c = b[i++]!;
    v += (c & 0x7f) * mul;
    if ((c & 0x80) === 0) break;
    mul *= 128;
  }
  return [v, i - o];
}

/** A decoded protobuf message: field number → values (varints as numbers, length-delimited as bytes). */
export type ProtoFields = Map<number, (number | Uint8Array)[]>;

export function decodeProto(b: Uint8Array): ProtoFields {
  const out: ProtoFields = new Map();
  let o = 0;
  while (o < b.length) {
    const [tag, n] = readVarint(b, o);
    o += n;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value: number | Uint8Array;
    if (wire === 0) {
      const [v, m] = readVarint(b, o);
      o += m;
      value = v;
    } else if (wire === 2) {
      const [len, m] = readVarint(b, o);
      o += m;
      if (o + len > b.length) throw new RangeError(`protobuf field ${field} runs past the end`);
      value = b.subarray(o, o + len);
      o += len;
    } else if (wire === 1) {
      value = readI64(b, o);
      o += 8;
    } else if (wire === 5) {
      value = readI32(b, o);
      o += 4;
    } else {
      throw new RangeError(`unsupported protobuf wire type ${wire}`);
    }
    const list = out.get(field);
    if (list) list.push(value);
    else out.set(field, [value]);
  }
  return out;
}

/** A length-delimited protobuf message at `o` (varint length, then the message). */
export function decodeDelimitedProto(b: Uint8Array, o: number): ProtoFields {
  const [len, n] = readVarint(b, o);
  if (o + n + len > b.length) throw new RangeError('delimited protobuf runs past the end');
  return decodeProto(b.subarray(o + n, o + n + len));
}

function num(f: ProtoFields, k: number, dflt = 0): number {
  const v = f.get(k)?.[0];
  return typeof v === 'number' ? v : dflt;
}

export interface HFileTrailer {
  majorVersion: number;
  minorVersion: number;
  fileInfoOffset: number;
  loadOnOpenDataOffset: number;
  uncompressedDataIndexSize: number;
  totalUncompressedBytes: number;
  dataIndexCount: number;
  metaIndexCount: number;
  entryCount: number;
  numDataIndexLevels: number;
  firstDataBlockOffset: number;
  lastDataBlockOffset: number;
  comparatorClassName: string;
  compression: Codec;
}

/** Parses the fixed-size trailer (the last 4096 bytes of the file). */
export function parseTrailer(t: Uint8Array, path: string): HFileTrailer {
  if (t.length < TRAILER_SIZE) throw hfileError(path, `too small for an HFile trailer (${t.length} bytes, need ${TRAILER_SIZE})`);
  if (ascii(t, 0, 8) !== BLOCK_MAGIC.TRAILER) {
    throw hfileError(path, `bad trailer magic ${JSON.stringify(ascii(t, 0, 8))} (not an HFile?)`);
  }
  const v = readI32(t, TRAILER_SIZE - 4) >>> 0;
  const majorVersion = v & 0xffffff;
  const minorVersion = v >>> 24;
  if (majorVersion !== 3) throw new TblError('unsupported', `HFile ${path}: version ${majorVersion}.${minorVersion} is not supported (only v3)`, { path });
  let f: ProtoFields;
  try {
    f = decodeDelimitedProto(t.subarray(8, TRAILER_SIZE - 4), 0);
  } catch (e) {
    throw hfileError(path, `cannot decode the trailer protobuf: ${(e as Error).message}`, e);
  }
  const codecId = num(f, 12, 2);
  const compression = CODECS[codecId];
  if (!compression) throw hfileError(path, `unknown compression codec id ${codecId}`);
  const cmp = f.get(11)?.[0];
  return {
    majorVersion,
    minorVersion,
    fileInfoOffset: num(f, 1),
    loadOnOpenDataOffset: num(f, 2),
    uncompressedDataIndexSize: num(f, 3),
    totalUncompressedBytes: num(f, 4),
    dataIndexCount: num(f, 5),
    metaIndexCount: num(f, 6),
    entryCount: num(f, 7),
    numDataIndexLevels: num(f, 8, 1),
    firstDataBlockOffset: num(f, 9),
    lastDataBlockOffset: num(f, 10),
    comparatorClassName: cmp instanceof Uint8Array ? new TextDecoder().decode(cmp) : '',
    compression,
  };
}

export interface BlockHeader {
  kind: BlockKind;
  onDiskSizeWithoutHeader: number;
  uncompressedSizeWithoutHeader: number;
  prevBlockOffset: number;
  checksumType: number;
  bytesPerChecksum: number;
  onDiskDataSizeWithHeader: number;
}

const KIND_BY_MAGIC = new Map<string, BlockKind>(
  Object.entries(BLOCK_MAGIC).map(([k, v]) => [v, (k === 'ENCODED_DATA' ? 'DATA' : k) as BlockKind]),
);

export function parseBlockHeader(b: Uint8Array, o: number, path: string, fileOffset: number): BlockHeader {
  if (o + BLOCK_HEADER_SIZE > b.length) throw hfileError(path, `block at offset ${fileOffset} is cut short`);
  const magic = ascii(b, o, 8);
  const kind = KIND_BY_MAGIC.get(magic);
  if (!kind) throw hfileError(path, `bad block magic ${JSON.stringify(magic)} at offset ${fileOffset}`);
  return {
    kind,
    onDiskSizeWithoutHeader: readI32(b, o + 8),
    uncompressedSizeWithoutHeader: readI32(b, o + 12),
    prevBlockOffset: readI64(b, o + 16),
    checksumType: b[o + 24]!,
    bytesPerChecksum: readI32(b, o + 25),
    onDiskDataSizeWithHeader: readI32(b, o + 29),
  };
}

export interface Block {
  header: BlockHeader;
  /** uncompressed payload (after the header, without checksums) */
  data: Uint8Array;
  /** header + on-disk payload + checksums */
  onDiskSize: number;
}

/**
 * Decodes the block starting at b[o]. Checksums (CRC32C chunks after the payload) are not verified,
 * as in hudi-rs. Only the root/meta index and file info are ever compressed-or-not per the file codec;
 * HBase compresses every block type with the file codec.
 */
export function decodeBlock(b: Uint8Array, o: number, codec: Codec, path: string, fileOffset: number): Block {
  const header = parseBlockHeader(b, o, path, fileOffset);
  const onDiskSize = BLOCK_HEADER_SIZE + header.onDiskSizeWithoutHeader;
  const payloadLen = header.onDiskDataSizeWithHeader - BLOCK_HEADER_SIZE;
  if (payloadLen < 0 || o + BLOCK_HEADER_SIZE + payloadLen > b.length) {
    throw hfileError(path, `${header.kind} block at offset ${fileOffset} runs past the end of the data read`);
  }
  const payload = b.subarray(o + BLOCK_HEADER_SIZE, o + BLOCK_HEADER_SIZE + payloadLen);
  let data: Uint8Array;
  if (codec === 'NONE') {
    data = payload.subarray(0, header.uncompressedSizeWithoutHeader);
  } else if (codec === 'GZ') {
    try {
      data = new Uint8Array(gunzipSync(payload));
    } catch (e) {
      throw hfileError(path, `cannot gunzip ${header.kind} block at offset ${fileOffset}`, e);
    }
  } else {
    throw new TblError('unsupported', `HFile ${path}: compression ${codec} is not supported (only NONE and GZ)`, { path });
  }
  if (data.length !== header.uncompressedSizeWithoutHeader) {
    throw hfileError(
      path,
      `${header.kind} block at offset ${fileOffset} decompressed to ${data.length} bytes, header says ${header.uncompressedSizeWithoutHeader}`,
    );
  }
  return { header, data, onDiskSize };
}
