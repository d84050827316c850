// Byte-span primitives for the packed hot paths (compaction, issue 6): copies, hashes and comparisons
// of short values (keys, names, instants) four bytes at a time through DataViews, ~3× a byte loop;
// each span is given with a DataView over its array (same indexes).

/** The parts' bytes in order, in one new array (`size`: their total, when the caller has it). */
export function concatBytes(parts: readonly Uint8Array[], size = parts.reduce((n, p) => n + p.length, 0)): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A DataView over exactly the bytes of `b` (indexes as b's). */
export function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** A DataView of the array last asked for, made again only for another array (one identity check). */
export class ViewCache {
  private view: DataView | undefined;
  private of: Uint8Array | undefined;
  get(b: Uint8Array): DataView {
    if (this.of !== b) {
      this.view = viewOf(b);
      this.of = b;
    }
    return this.view!;
  }
}

/** Copies n bytes from src[s] to dst[d]. */
export function moveBytes(src: Uint8Array, sv: DataView, s: number, dst: Uint8Array, dv: DataView, d: number, n: number): void {
  const end = s + n;
  for (; s + 4 <= end; s += 4, d += 4) dv.setInt32(d, sv.getInt32(s, true), true);
  for (; s < end; s++) dst[d++] = src[s]!;
}

/** A 32-bit hash of d[s, e) (FNV-style steps over words, then murmur3's finalizer for the low bits). */
export function hashBytes(d: Uint8Array, dv: DataView, s: number, e: number): number {
  let h = 0x811c9dc5 ^ (e - s);
  let i = s;
  for (; i + 4 <= e; i += 4) h = Math.imul(h ^ dv.getInt32(i, true), 0x01000193);
  for (; i < e; i++) h = Math.imul(h ^ d[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** a[as, as + n) = b[bs, bs + n). */
export function equalBytes(a: Uint8Array, av: DataView, as: number, b: Uint8Array, bv: DataView, bs: number, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) if (av.getInt32(as + i, true) !== bv.getInt32(bs + i, true)) return false;
  for (; i < n; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/** The unsigned lexicographic order of a[as, ae) and b[bs, be): negative, 0 or positive. */
export function compareBytes(a: Uint8Array, av: DataView, as: number, ae: number, b: Uint8Array, bv: DataView, bs: number, be: number): number {
  const n = Math.min(ae - as, be - bs);
  let i = 0;
  // big-endian words order as their bytes do
  for (; i + 4 <= n; i += 4) {
    const x = av.getUint32(as + i);
    const y = bv.getUint32(bs + i);
    if (x !== y) return x < y ? -1 : 1;
  }
  for (; i < n; i++) {
    const c = a[as + i]! - b[bs + i]!;
    if (c !== 0) return c;
  }
  return ae - as - (be - bs);
}
