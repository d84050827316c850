import { concatBytes } from '../util/byte-spans.ts';
import type { FileData } from './types.ts';

/** The bytes of `data` as one array (its parts joined). */
export function joinFileData(data: FileData): Uint8Array {
  if (data instanceof Uint8Array) return data;
  return data.length === 1 ? data[0]! : concatBytes(data);
}
