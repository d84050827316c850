// JSON parsing that remembers each object's key order. JS objects list integer-like keys first
// ("10","20","30"), but Hudi writes maps in Java HashMap order (e.g. "30","20","10" for partition keys), so
// a byte-exact re-encode needs the original order. It is kept under a non-enumerable symbol.

import { javaStringHashCode } from '../util/index.ts';

export const KEY_ORDER: unique symbol = Symbol('tblcli.keyOrder');

type Obj = Record<string, unknown> & { [KEY_ORDER]?: string[] };

/**
 * Iteration order of a java.util.HashMap filled with `keys` (load factor 0.75 unless given). `initialCapacity`
 * as given to the constructor: 16 by default; Avro's map reader uses the entry count.
 */
export function javaHashMapOrder(keys: string[], initialCapacity = 16, loadFactor = 0.75): string[] {
  let cap = 1;
  while (cap < Math.max(1, initialCapacity)) cap *= 2;
  while (keys.length > cap * loadFactor) cap *= 2;
  const bucket = (k: string) => {
    const h = javaStringHashCode(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return keys.map((k, i) => [bucket(k), i, k] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
}

const INTEGER_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * Keys of `o` in their recorded order (if any, and still valid). Otherwise JS order, except that a map with
 * integer-like keys (which JS always lists first, ascending) is given Java HashMap order, as Hudi writes it.
 */
export function orderedKeys(o: object): string[] {
  const keys = Object.keys(o);
  const rec = (o as Obj)[KEY_ORDER];
  if (rec && rec.length === keys.length && rec.every((k) => Object.prototype.hasOwnProperty.call(o, k))) return rec;
  return keys.some((k) => INTEGER_KEY.test(k)) ? javaHashMapOrder(keys) : keys;
}

/** Records a key order on `o` (used to carry a parsed order over to a copied map). */
export function setKeyOrder<T extends object>(o: T, keys: string[]): T {
  Object.defineProperty(o, KEY_ORDER, { value: keys, enumerable: false, configurable: true, writable: true });
  return o;
}

export class JsonSyntaxError extends Error {}

export function parseOrderedJson(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at offset ${i}`);
  };
  const str = (): string => {
    const start = i;
    i++;
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 0x22) {
        i++;
        const raw = text.slice(start, i);
        if (!escaped) return raw.slice(1, -1);
        try {
          return JSON.parse(raw) as string;
        } catch {
          return fail('bad string escape');
        }
      }
      i++;
    }
    return fail('unterminated string');
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Obj = {};
      const keys: string[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected object key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const v = value();
        if (!Object.prototype.hasOwnProperty.call(o, k)) keys.push(k);
        o[k] = v;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          break;
        }
        fail("expected ',' or '}'");
      }
      const js = Object.keys(o);
      if (js.some((k, n) => k !== keys[n])) setKeyOrder(o, keys);
      return o;
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) return fail('unexpected token');
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : Number(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}
