// Forward reader of Hudi log files (format-data.md §2), following Java HoodieLogFileReader: a block whose
// size runs past EOF, whose trailer disagrees with its size, or that is not followed by a magic (or EOF)
// is corrupt; the reader then scans forward byte by byte for the next `#HUDI#` and reports everything in
// between as one CORRUPT_BLOCK. All reads are Storage.readRange calls in chunks.
import type { Storage } from '../storage/index.ts';
import {
  BLOCK_TYPES,
  CURRENT_LOG_FORMAT_VERSION,
  MAGIC,
  headerKeyName,
  type LogBlockType,
} from './format.ts';
import { decodeBlockContent, readAvroContentHeader, type LogRecord } from './content.ts';
import type { DeleteRecord } from './delete-record.ts';

export interface LogBlock {
  /** offset of the block's magic (of the first corrupt byte for CORRUPT_BLOCK) */
  offset: number;
  /** bytes from offset to the end of the block, trailer included */
  size: number;
  /** the int64 block-size field (bytes after it); for corrupt blocks size - 14, or less when cut short */
  blockLength: number;
  /** log format version (1); -1 when unknown (corrupt) */
  version: number;
  type: LogBlockType;
  header: Record<string, string>;
  footer: Record<string, string>;
  /** absolute offset and length of the content */
  contentOffset: number;
  contentLength: number;
  /** Avro/CDC/delete content version (first int32 of the content) */
  contentVersion?: number;
  /** record count from the Avro content header, or number of delete records once decoded */
  recordCount?: number;
  /** decoded records of data blocks (withRecords) */
  records?: LogRecord[];
  /** decoded keys of DELETE blocks (withRecords) */
  deletes?: DeleteRecord[];
  /** set on CORRUPT_BLOCKs (framing) and on blocks whose content could not be decoded */
  corrupt?: { reason: string };
  /** why records were not decoded although asked (HFile without decoder, a Kryo delete of a class not decoded, ...) */
  unsupported?: string;
}

export interface ReadLogOptions {
  /** decode records / delete keys (default false: headers only, content is not read) */
  withRecords?: boolean;
  /** file size if already known (saves a stat) */
  size?: number;
  /** bytes per range read (default 256 KiB) */
  chunkSize?: number;
  /** decoder for HFILE_DATA blocks (metadata table); without it their records are left undefined */
  decodeHFile?: (content: Uint8Array, header: Record<string, string>) => Promise<LogRecord[]> | LogRecord[];
  /** records with the values compaction writes back (exact decimals, raw dates and timestamps; content.ts) */
  exactValues?: boolean;
}

/** Buffered positional reads through Storage.readRange. */
class RangeReader {
  private start = 0;
  private data: Uint8Array = new Uint8Array(0);
  constructor(
    private readonly storage: Storage,
    private readonly path: string,
    readonly size: number,
    private readonly chunk: number,
  ) {}

  /** Up to n bytes at pos (fewer at EOF). */
  async read(pos: number, n: number): Promise<Uint8Array> {
    if (pos >= this.start && pos + n <= this.start + this.data.length) {
      return this.data.subarray(pos - this.start, pos - this.start + n);
    }
    const want = Math.min(Math.max(n, this.chunk), Math.max(0, this.size - pos));
    const got = want === 0 ? new Uint8Array(0) : await this.storage.readRange(this.path, pos, want);
    if (n <= this.chunk) {
      this.start = pos;
      this.data = got;
    }
    return got.subarray(0, Math.min(n, got.length));
  }

  async int64(pos: number): Promise<number | undefined> {
    const b = await this.read(pos, 8);
    if (b.length < 8) return undefined;
    const v = new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0);
    return v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER) ? Number.NaN : Number(v);
  }

  async int32(pos: number): Promise<number | undefined> {
    const b = await this.read(pos, 4);
    if (b.length < 4) return undefined;
    return new DataView(b.buffer, b.byteOffset, 4).getInt32(0);
  }

  async isMagicAt(pos: number): Promise<boolean> {
    const b = await this.read(pos, MAGIC.length);
    return b.length === MAGIC.length && MAGIC.every((x, i) => b[i] === x);
  }

  /** Offset of the next magic at or after pos, or the file size. */
  async nextMagic(pos: number): Promise<number> {
    let p = pos;
    while (p < this.size) {
      const b = await this.read(p, this.chunk);
      if (b.length === 0) break;
      const last = b.length - MAGIC.length;
      for (let i = 0; i <= last; i++) {
        if (b[i] === 0x23 && MAGIC.every((x, j) => b[i + j] === x)) return p + i;
      }
      if (p + b.length >= this.size) break;
      p += Math.max(1, last + 1); // keep an overlap so a magic across chunks is found
    }
    return this.size;
  }
}

const utf8 = new TextDecoder('utf-8');

class Malformed extends Error {}

async function readMap(r: RangeReader, pos: number, end: number): Promise<{ map: Record<string, string>; next: number }> {
  const count = await r.int32(pos);
  if (count === undefined || pos + 4 > end) throw new Malformed(`metadata map at ${pos} runs past the block`);
  if (count < 0 || count > 64) throw new Malformed(`metadata map at ${pos} has ${count} entries`);
  let p = pos + 4;
  const map: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const key = await r.int32(p);
    const len = await r.int32(p + 4);
    if (key === undefined || len === undefined || p + 8 > end) throw new Malformed(`metadata entry at ${p} runs past the block`);
    if (len < 0 || p + 8 + len > end) throw new Malformed(`metadata value of length ${len} at ${p + 8} runs past the block`);
    const value = utf8.decode(await r.read(p + 8, len));
    map[headerKeyName(key)] = value;
    p += 8 + len;
  }
  return { map, next: p };
}

function corruptBlock(offset: number, end: number, reason: string): LogBlock {
  return {
    offset,
    size: end - offset,
    blockLength: Math.max(0, end - offset - 14),
    version: -1,
    type: 'CORRUPT_BLOCK',
    header: {},
    footer: {},
    contentOffset: offset,
    contentLength: end - offset,
    corrupt: { reason },
  };
}

/** Java isBlockCorrupted: the reason, or undefined when the block frame is sound. */
async function frameProblem(r: RangeReader, p: number, blockSize: number): Promise<string | undefined> {
  if (!Number.isFinite(blockSize) || blockSize < 0) return `block size ${blockSize} is invalid`;
  if (p + blockSize > r.size) return `block size ${blockSize} runs past EOF (file is ${r.size} bytes)`;
  if (blockSize < 8 + 8) return `block size ${blockSize} is too small`;
  const trailer = await r.int64(p + blockSize - 8);
  if (trailer === undefined || trailer - MAGIC.length !== blockSize) {
    return `trailing block length ${trailer} does not match block size ${blockSize} + 6`;
  }
  const after = p + blockSize;
  if (after < r.size && r.size - after >= MAGIC.length && !(await r.isMagicAt(after))) {
    return `no magic after the block (at offset ${after})`;
  }
  return undefined;
}

async function decodeContent(
  r: RangeReader,
  path: string,
  block: LogBlock,
  opts: ReadLogOptions,
): Promise<void> {
  const t = block.type;
  if (t === 'COMMAND_BLOCK' || t === 'CORRUPT_BLOCK') return;
  const needsAll = opts.withRecords === true;
  if (!needsAll) {
    if (t === 'AVRO_DATA_BLOCK' || t === 'CDC_DATA_BLOCK') {
      const h = readAvroContentHeader(await r.read(block.contentOffset, Math.min(8, block.contentLength)));
      block.contentVersion = h.contentVersion;
      block.recordCount = h.recordCount;
    } else if (t === 'DELETE_BLOCK') {
      const v = await r.int32(block.contentOffset);
      if (v !== undefined) block.contentVersion = v;
    }
    return;
  }
  await decodeBlockContent(await r.read(block.contentOffset, block.contentLength), path, block, opts);
}

/** Blocks of one log file in file order; corrupt regions come out as CORRUPT_BLOCKs. */
export async function* iterateLogBlocks(storage: Storage, path: string, opts: ReadLogOptions = {}): AsyncGenerator<LogBlock> {
  const size = opts.size ?? (await storage.stat(path)).size;
  const r = new RangeReader(storage, path, size, opts.chunkSize ?? 256 * 1024);
  let pos = 0;
  while (pos < size) {
    if (!(await r.isMagicAt(pos))) {
      // Only reachable at the start of a file (or a short tail): Java would throw; we report and resync.
      const next = await r.nextMagic(pos + 1);
      yield corruptBlock(pos, next, size - pos < MAGIC.length ? `${size - pos} trailing bytes` : `no magic at offset ${pos}`);
      pos = next;
      continue;
    }
    const p = pos + MAGIC.length + 8;
    const blockSize = await r.int64(pos + MAGIC.length);
    if (blockSize === undefined) {
      yield corruptBlock(pos, size, 'block size field cut off by EOF');
      break;
    }
    const problem = await frameProblem(r, p, blockSize);
    if (problem) {
      const next = await r.nextMagic(p);
      yield corruptBlock(pos, next, problem);
      pos = next;
      continue;
    }
    const end = p + blockSize;
    const block = await parseBlock(r, pos, p, blockSize, end);
    if (!block.corrupt) {
      try {
        await decodeContent(r, path, block, opts);
      } catch (e) {
        block.corrupt = { reason: `cannot decode ${block.type} content: ${(e as Error).message}` };
        delete block.records;
        delete block.deletes;
      }
    }
    yield block;
    pos = end;
  }
}

async function parseBlock(r: RangeReader, offset: number, p: number, blockSize: number, end: number): Promise<LogBlock> {
  const base = { offset, size: end - offset, blockLength: blockSize };
  const version = (await r.int32(p))!;
  if (version !== CURRENT_LOG_FORMAT_VERSION) {
    return {
      ...corruptBlock(offset, end, version === 0 ? 'legacy log format version 0 (Hudi <= 0.4) is not supported' : `unsupported log format version ${version}`),
      version,
    };
  }
  const typeId = (await r.int32(p + 4))!;
  const type = BLOCK_TYPES[typeId];
  if (type === undefined || type === 'CORRUPT_BLOCK') {
    return { ...corruptBlock(offset, end, `unknown block type ${typeId}`), version };
  }
  try {
    const trailerPos = end - 8;
    const h = await readMap(r, p + 8, trailerPos);
    const contentLength = await r.int64(h.next);
    if (contentLength === undefined || !Number.isFinite(contentLength) || contentLength < 0 || h.next + 8 + contentLength > trailerPos) {
      throw new Malformed(`content length ${contentLength} runs past the block`);
    }
    const contentOffset = h.next + 8;
    const f = await readMap(r, contentOffset + contentLength, trailerPos);
    if (f.next !== trailerPos) throw new Malformed(`${trailerPos - f.next} unaccounted bytes before the trailer`);
    return { ...base, version, type, header: h.map, footer: f.map, contentOffset, contentLength };
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
    return { ...corruptBlock(offset, end, `malformed ${type}: ${e.message}`), version };
  }
}

export interface LogFileContents {
  path: string;
  size: number;
  blocks: LogBlock[];
}

export async function readLogFile(storage: Storage, path: string, opts: ReadLogOptions = {}): Promise<LogFileContents> {
  const size = opts.size ?? (await storage.stat(path)).size;
  const blocks: LogBlock[] = [];
  for await (const b of iterateLogBlocks(storage, path, { ...opts, size })) blocks.push(b);
  return { path, size, blocks };
}
