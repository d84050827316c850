import type { Storage } from './types.ts';

/** hyparquet's AsyncBuffer shape: range reads through Storage, so parquet footers stream over WebHDFS. */
export interface AsyncBufferLike {
  byteLength: number;
  slice(start: number, end?: number): Promise<ArrayBuffer>;
}

export function asyncBufferOf(storage: Storage, path: string, size: number): AsyncBufferLike {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const stop = end ?? size;
      const bytes = await storage.readRange(path, start, stop - start);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}
