// hudi-cli prints Avro maps with Java's Map.toString(); Avro decodes maps into HashMap(size), whose
// iteration order is the bucket order of String.hashCode. Reproduce it so output matches byte for byte.
import { javaHashMapOrder } from '../metadata/index.ts';

export { javaHashMapOrder };

/** `{k1=v1, k2=v2}` as HashMap.toString() prints it; `null` for a null map. */
export function javaMapToString(m: Record<string, unknown> | null | undefined, value: (v: unknown) => string = String): string {
  if (m === null || m === undefined) return 'null';
  const keys = Object.keys(m);
  const ordered = javaHashMapOrder(keys, keys.length);
  return `{${ordered.map((k) => `${k}=${value(m[k])}`).join(', ')}}`;
}
