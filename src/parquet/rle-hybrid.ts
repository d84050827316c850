// Parquet's RLE / bit-packed hybrid encoding, the same bytes as hyparquet-writer's
// writeRleBitPackedHybrid (same run and group choices: the row writer uses that one, and both
// writers' pages must be identical) written into one preallocated buffer instead of byte by byte
// through a ByteWriter: it encodes every definition level and dictionary index of a compaction.

/** values[0, n) encoded at `bitWidth` bits, after the `prefix` bytes (the dictionary page's bit width byte). */
export function rleHybrid(values: ArrayLike<number>, n: number, bitWidth: number, prefix?: number): Uint8Array {
  // each RLE run covers ≥ 8 values in ≤ 5 + 4 bytes; each bit-packed group 8 values in bitWidth bytes (+ one header per section)
  const out = new Uint8Array(Math.ceil(n / 8) * (bitWidth + 10) + 16);
  let at = 0;
  if (prefix !== undefined) out[at++] = prefix;
  const varint = (v: number): void => {
    while (v > 0x7f) {
      out[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    out[at++] = v;
  };
  const bytesPerValue = (bitWidth + 7) >> 3;
  const mask = bitWidth >= 32 ? -1 : (1 << bitWidth) - 1;
  const bitPacked = (start: number, groups: number): void => {
    varint((groups << 1) | 1);
    if (bitWidth === 0) return;
    let buffer = 0;
    let bits = 0;
    const total = groups * 8;
    for (let i = 0; i < total; i++) {
      const idx = start + i;
      const v = idx < n ? values[idx]! & mask : 0;
      buffer |= v << bits;
      bits += bitWidth;
      while (bits >= 8) {
        out[at++] = buffer & 0xff;
        buffer >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) out[at++] = buffer & 0xff;
  };
  let pending = 0;
  let start = 0;
  let i = 0;
  while (i < n) {
    const v = values[i]!;
    let run = 1;
    while (i + run < n && values[i + run] === v) run++;
    if (run >= 8) {
      if (pending) {
        bitPacked(start, pending);
        pending = 0;
      }
      varint(run << 1);
      for (let j = 0; j < bytesPerValue; j++) out[at++] = (v >> (j << 3)) & 0xff;
      i += run;
    } else {
      if (pending === 0) start = i;
      pending++;
      i += 8;
    }
  }
  if (pending) bitPacked(start, pending);
  return out.subarray(0, at);
}
