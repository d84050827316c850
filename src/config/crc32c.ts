// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init and xorout 0xFFFFFFFF): HBase's default
// HFile block checksum. Slicing-by-8: eight 256-entry tables, eight input bytes per step.
let tables: Uint32Array | undefined;

function build(): Uint32Array {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) {
      const prev = t[(k - 1) * 256 + n]!;
      t[k * 256 + n] = (prev >>> 8) ^ t[prev & 0xff]!;
    }
  }
  return t;
}

/** CRC-32C of bytes[start, end), as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = (tables ??= build());
  let c = 0xffffffff;
  let i = start;
  for (const stop = end - 7; i < stop; i += 8) {
    const a = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t[0x700 + (a & 0xff)]! ^
      t[0x600 + ((a >>> 8) & 0xff)]! ^
      t[0x500 + ((a >>> 16) & 0xff)]! ^
      t[0x400 + (a >>> 24)]! ^
      t[0x300 + bytes[i + 4]!]! ^
      t[0x200 + bytes[i + 5]!]! ^
      t[0x100 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
