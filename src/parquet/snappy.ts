// Snappy raw-format compressor (compaction's SNAPPY pages, issue 6). The algorithm is the reference
// one (google/snappy CompressFragment, golang/snappy encodeBlock): 64 KB fragments compressed
// independently, a 2^14-entry Uint16 hash table of fragment-relative positions, 4-byte hashing,
// the `skip >> 5` stride that speeds through incompressible data, copies extended 4 bytes at a time.
// It is 5–7× hyparquet-writer's snappyjs port on page-like data (bench/snappy.mjs) because of 32-bit
// loads (DataView: one load, not four byte reads), writing straight into a reused output buffer (one
// copy out at the end) and short literals copied bytewise. Sizes are within ~2% of snappyjs's, which
// also matches across 64 KB fragment edges.

const BLOCK_SIZE = 1 << 16;
const MAX_TABLE_BITS = 14;
// The fragment tail not searched for matches: every 32-bit load below stays inside the fragment.
const INPUT_MARGIN = 15;
// Below this a fragment is one literal (nothing is searched in it anyway).
const MIN_NON_LITERAL_BLOCK = 1 + 1 + INPUT_MARGIN;
// Output buffers up to this size are kept between calls; a larger one is allocated for its call only.
const KEEP_OUTPUT = 4 << 20;

const table = new Uint16Array(1 << MAX_TABLE_BITS);
let scratch = new Uint8Array(0);

/** The most bytes snappyCompress can return for n input bytes (the reference MaxCompressedLength). */
export function snappyMaxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

/** Compresses `input` into one Snappy raw block (varint length, then elements); returns fresh bytes. */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const n = input.length;
  const max = snappyMaxCompressedLength(n);
  let out = scratch;
  if (out.length < max) {
    out = new Uint8Array(Math.max(max, Math.min(KEEP_OUTPUT, out.length * 2)));
    if (out.length <= KEEP_OUTPUT) scratch = out;
  }
  let d = 0;
  // uncompressed length, varint32
  let v = n;
  while (v >= 0x80) {
    out[d++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[d++] = v;
  if (n > 0) {
    const view = new DataView(input.buffer, input.byteOffset, n);
    for (let start = 0; start < n; start += BLOCK_SIZE) {
      const end = Math.min(start + BLOCK_SIZE, n);
      d = end - start < MIN_NON_LITERAL_BLOCK ? emitLiteral(out, d, input, start, end) : compressBlock(out, d, input, view, start, end);
    }
  }
  return out.slice(0, d);
}

/** Compresses input[start, end) (at most 64 KB, at least MIN_NON_LITERAL_BLOCK) into out at d; returns the new d. */
function compressBlock(out: Uint8Array, d: number, src: Uint8Array, view: DataView, start: number, end: number): number {
  let shift = 32 - 8;
  for (let size = 1 << 8; size < 1 << MAX_TABLE_BITS && size < end - start; size <<= 1) shift--;
  table.fill(0, 0, 1 << (32 - shift));

  const limit = end - INPUT_MARGIN;
  let nextEmit = start;
  let s = start + 1;
  // the 4 bytes at nextS, carried into the next step as the bytes at s
  let nextX = view.getInt32(s, true);
  for (;;) {
    // find a 4-byte match, looking further apart the longer none is found
    let skip = 32;
    let nextS = s;
    let candidate = 0;
    for (;;) {
      s = nextS;
      const x = nextX;
      nextS = s + (skip++ >> 5);
      if (nextS > limit) return emitLiteral(out, d, src, nextEmit, end);
      const h = Math.imul(x, 0x1e35a7bd) >>> shift;
      candidate = start + table[h]!;
      table[h] = s - start;
      nextX = view.getInt32(nextS, true);
      if (x === view.getInt32(candidate, true)) break;
    }
    d = emitLiteral(out, d, src, nextEmit, s);

    // emit copies while the position right after one starts another match
    for (;;) {
      const base = s;
      s += 4;
      let i = candidate + 4;
      // 8 bytes a step through long matches (runs), then 4
      while (s <= end - 8 && view.getInt32(s, true) === view.getInt32(i, true) && view.getInt32(s + 4, true) === view.getInt32(i + 4, true)) {
        s += 8;
        i += 8;
      }
      for (;;) {
        if (s > end - 4) {
          while (s < end && src[s] === src[i]) {
            s++;
            i++;
          }
          break;
        }
        const x = view.getInt32(s, true) ^ view.getInt32(i, true);
        if (x !== 0) {
          // little-endian: the lowest set bit's byte is the first that differs
          s += (31 - Math.clz32(x & -x)) >> 3;
          break;
        }
        s += 4;
        i += 4;
      }
      d = emitCopy(out, d, base - candidate, s - base);
      nextEmit = s;
      if (s >= limit) return emitLiteral(out, d, src, nextEmit, end);
      // index s-1 and s, and try s as the next match's start
      table[Math.imul(view.getInt32(s - 1, true), 0x1e35a7bd) >>> shift] = s - 1 - start;
      const cur = view.getInt32(s, true);
      const h = Math.imul(cur, 0x1e35a7bd) >>> shift;
      candidate = start + table[h]!;
      table[h] = s - start;
      if (cur !== view.getInt32(candidate, true)) {
        s++;
        nextX = view.getInt32(s, true);
        break;
      }
    }
  }
}

/** Emits src[from, to) as a literal element (nothing if empty); returns the new d. */
function emitLiteral(out: Uint8Array, d: number, src: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len <= 0) return d;
  const m = len - 1;
  if (m < 60) {
    out[d++] = m << 2;
  } else if (m < 0x100) {
    out[d++] = 60 << 2;
    out[d++] = m;
  } else if (m < 0x10000) {
    out[d++] = 61 << 2;
    out[d++] = m & 0xff;
    out[d++] = m >>> 8;
  } else if (m < 0x1000000) {
    out[d++] = 62 << 2;
    out[d++] = m & 0xff;
    out[d++] = (m >>> 8) & 0xff;
    out[d++] = m >>> 16;
  } else {
    out[d++] = 63 << 2;
    out[d++] = m & 0xff;
    out[d++] = (m >>> 8) & 0xff;
    out[d++] = (m >>> 16) & 0xff;
    out[d++] = m >>> 24;
  }
  if (len < 32) {
    // shorter than a subarray + set costs
    for (let i = from; i < to; i++) out[d++] = src[i]!;
    return d;
  }
  out.set(src.subarray(from, to), d);
  return d + len;
}

/** Emits a copy of len (≥ 4) bytes from offset (1..65535) back; returns the new d. */
function emitCopy(out: Uint8Array, d: number, offset: number, len: number): number {
  const lo = offset & 0xff;
  const hi = offset >>> 8;
  while (len >= 68) {
    // 64 bytes, 2-byte offset; keeps at least 4 for the last element
    out[d++] = (63 << 2) | 2;
    out[d++] = lo;
    out[d++] = hi;
    len -= 64;
  }
  if (len > 64) {
    out[d++] = (59 << 2) | 2;
    out[d++] = lo;
    out[d++] = hi;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    out[d++] = (hi << 5) | ((len - 4) << 2) | 1;
    out[d++] = lo;
    return d;
  }
  out[d++] = ((len - 1) << 2) | 2;
  out[d++] = lo;
  out[d++] = hi;
  return d;
}
