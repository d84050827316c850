// Ordering values and Java compareTo semantics (format-data.md §5.4).
import type { OrderingClass } from '../logfile/delete-record.ts';

export interface Ordering {
  values: unknown[];
  /** Java class per value when known; the EVENT_TIME delete rule only compares within one class */
  classes: (OrderingClass | undefined)[];
}

/** OrderingValues.getDefault(): Integer 0, the "natural order" of SQL deletes. */
export const NATURAL: Ordering = { values: [0], classes: ['Integer'] };

export function isNatural(o: Ordering | undefined): boolean {
  if (!o) return true;
  if (o.values.length !== 1) return false;
  const v = o.values[0];
  return v === null || v === undefined || (v === 0 && (o.classes[0] === 'Integer' || o.classes[0] === undefined));
}

/** Java class of a decoded value (avsc longs arrive as numbers, so the writer schema type wins when known). */
export function javaClassOf(v: unknown, avroType?: string): OrderingClass | undefined {
  if (avroType === 'long') return 'Long';
  if (avroType === 'int') return 'Integer';
  if (avroType === 'double') return 'Double';
  if (avroType === 'float') return 'Float';
  if (avroType === 'string') return 'String';
  if (typeof v === 'bigint') return 'Long';
  if (typeof v === 'string') return 'String';
  if (typeof v === 'boolean') return 'Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? undefined : 'Double';
  return undefined;
}

function cmpOne(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0; // UTF-16 code units, like String.compareTo
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i]! - b[i]!);
    return a.length - b.length;
  }
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export function compareOrdering(a: Ordering, b: Ordering): number {
  const n = Math.max(a.values.length, b.values.length);
  for (let i = 0; i < n; i++) {
    const c = cmpOne(a.values[i], b.values[i]);
    if (c !== 0) return c;
  }
  return 0;
}

export function sameClasses(a: Ordering, b: Ordering): boolean {
  if (a.values.length !== b.values.length) return false;
  return a.classes.every((c, i) => {
    const d = b.classes[i];
    if (c === undefined || d === undefined) {
      // unknown class: numbers are compatible with numbers, strings with strings
      const x = a.values[i];
      const y = b.values[i];
      const num = (v: unknown) => typeof v === 'number' || typeof v === 'bigint';
      return (num(x) && num(y)) || typeof x === typeof y;
    }
    return c === d;
  });
}
