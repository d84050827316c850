import type { FileData } from './types.ts';

/** The bytes of `data` as one array (its parts joined). */
export function joinFileData(data: FileData): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data.length === 1) return data[0]!;
  const out = new Uint8Array(data.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of data) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bytes in `data`. */
export function fileDataSize(data: FileData): number {
  return data instanceof Uint8Array ? data.length : data.reduce((n, p) => n + p.length, 0);
}
