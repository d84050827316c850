// The structure of an HFile independent of compressed sizes (for comparing our HFiles with Hudi's),
// and its raw blocks with their CRC32C checksums verified. Shared by the HFile writer tests and the
// metadata-table compaction tests.
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { crc32c } from '../../src/config/index.ts';
import { BLOCK_MAGIC, TRAILER_SIZE, parseTrailer, readHadoopVLong, readI32, readI64, readVarint } from '../../src/hfile/format.ts';

const dec = new TextDecoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export interface RawBlock {
  offset: number;
  magic: string;
  onDiskSize: number;
  uncompressedSize: number;
  prevBlockOffset: number;
  checksumType: number;
  bytesPerChecksum: number;
  /** stored payload (compressed) */
  stored: Uint8Array;
  /** uncompressed payload */
  data: Uint8Array;
}

/** Every block between offset 0 and the trailer, checksums verified with our CRC32C (throws on a bad one). */
export function blocksOf(file: Uint8Array, gz: boolean): RawBlock[] {
  const out: RawBlock[] = [];
  let o = 0;
  const end = file.length - TRAILER_SIZE;
  while (o < end) {
    const magic = dec.decode(file.subarray(o, o + 8));
    const ods = readI32(file, o + 8);
    const bpc = readI32(file, o + 25);
    const dataLen = readI32(file, o + 29);
    const chunks = Math.ceil(dataLen / bpc);
    expect(ods - (dataLen - 33), `checksum bytes of block at ${o}`).toBe(4 * chunks);
    for (let c = 0; c < chunks; c++) {
      const s = o + c * bpc;
      const want = readI32(file, o + dataLen + 4 * c) >>> 0;
      const got = crc32c(file, s, Math.min(o + dataLen, s + bpc));
      if (got !== want) throw new Error(`CRC32C mismatch in ${magic} block at ${o}, chunk ${c}: ${got} vs ${want}`);
    }
    const stored = file.subarray(o + 33, o + dataLen);
    out.push({
      offset: o,
      magic,
      onDiskSize: 33 + ods,
      uncompressedSize: readI32(file, o + 12),
      prevBlockOffset: readI64(file, o + 16),
      checksumType: file[o + 24]!,
      bytesPerChecksum: bpc,
      stored,
      data: gz ? new Uint8Array(gunzipSync(stored)) : stored,
    });
    o += 33 + ods;
  }
  expect(o).toBe(end);
  return out;
}

/**
 * A description of an HFile that does not depend on compressed sizes: every block's magic, uncompressed
 * size, checksum settings and previous block (as a block number), its payload with index offsets
 * replaced by block numbers (sizes dropped), and the trailer likewise.
 */
export function structure(file: Uint8Array, gz: boolean) {
  const blocks = blocksOf(file, gz);
  const at = new Map(blocks.map((b, i) => [b.offset, i]));
  const blockNo = (off: number) => (off < 0 || off > Number.MAX_SAFE_INTEGER ? -1 : (at.get(off) ?? `no block at ${off}`));
  const trailer = parseTrailer(file.subarray(file.length - TRAILER_SIZE), 'f');
  const rootIndex = (d: Uint8Array, n: number | undefined) => {
    const entries: unknown[] = [];
    let o = 0;
    while (n === undefined ? o < d.length : entries.length < n) {
      const [klen, m] = readHadoopVLong(d, o + 12);
      entries.push({ block: blockNo(readI64(d, o)), key: hex(d.subarray(o + 12 + m, o + 12 + m + klen)) });
      o += 12 + m + klen;
    }
    const rest = d.subarray(o);
    const midKey = rest.length === 16 ? { block: blockNo(readI64(rest, 0)), index: readI32(rest, 12) } : hex(rest);
    return { entries, midKey };
  };
  const nonRoot = (d: Uint8Array) => {
    const n = readI32(d, 0);
    const base = 4 + 4 * (n + 1);
    const entries: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const s = base + readI32(d, 4 + 4 * i);
      const e = base + readI32(d, 8 + 4 * i);
      entries.push({ block: blockNo(readI64(d, s)), key: hex(d.subarray(s + 12, e)) });
    }
    return { secondary: hex(d.subarray(0, base)), entries };
  };
  let roots = 0;
  const described = blocks.map((b) => {
    let payload: unknown;
    if (b.magic === BLOCK_MAGIC.ROOT_INDEX) payload = rootIndex(b.data, roots++ === 0 ? trailer.dataIndexCount : undefined);
    else if (b.magic === BLOCK_MAGIC.LEAF_INDEX || b.magic === BLOCK_MAGIC.INTERMEDIATE_INDEX) payload = nonRoot(b.data);
    else payload = hex(b.data);
    return {
      magic: b.magic,
      uncompressedSize: b.uncompressedSize,
      prev: blockNo(b.prevBlockOffset),
      checksumType: b.checksumType,
      bytesPerChecksum: b.bytesPerChecksum,
      payload,
    };
  });
  const t = file.subarray(file.length - TRAILER_SIZE);
  const [pbLen, n] = readVarint(t, 8);
  const pbEnd = 8 + n + pbLen;
  return {
    blocks: described,
    trailer: {
      ...trailer,
      fileInfoOffset: blockNo(trailer.fileInfoOffset),
      loadOnOpenDataOffset: blockNo(trailer.loadOnOpenDataOffset),
      firstDataBlockOffset: blockNo(trailer.firstDataBlockOffset),
      lastDataBlockOffset: blockNo(trailer.lastDataBlockOffset),
      padding: t.subarray(pbEnd, TRAILER_SIZE - 4).every((x) => x === 0),
      version: hex(t.subarray(TRAILER_SIZE - 4)),
    },
  };
}

