// hudi-cli prints Avro maps with Java's Map.toString(); Avro decodes maps into HashMap, whose
// iteration order is the bucket order of String.hashCode. Reproduce it so output matches byte for byte.

function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap) n *= 2;
  return Math.max(1, n);
}

/** Keys in the order a java.util.HashMap(initialCapacity = size) filled in this order iterates them. */
export function javaHashMapOrder(keys: string[], initialCapacity = keys.length): string[] {
  let cap = initialCapacity === 0 ? 16 : tableSizeFor(initialCapacity);
  while (keys.length > cap * 0.75) cap *= 2;
  const buckets = new Map<number, string[]>();
  for (const k of keys) {
    const h = javaStringHash(k);
    const idx = (h ^ (h >>> 16)) & (cap - 1);
    const b = buckets.get(idx);
    if (b) b.push(k);
    else buckets.set(idx, [k]);
  }
  return [...buckets.keys()].sort((a, b) => a - b).flatMap((i) => buckets.get(i)!);
}

/** `{k1=v1, k2=v2}` as HashMap.toString() prints it; `null` for a null map. */
export function javaMapToString(m: Record<string, unknown> | null | undefined, value: (v: unknown) => string = String): string {
  if (m === null || m === undefined) return 'null';
  const keys = javaHashMapOrder(Object.keys(m));
  return `{${keys.map((k) => `${k}=${value(m[k])}`).join(', ')}}`;
}
