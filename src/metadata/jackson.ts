// Jackson's DefaultPrettyPrinter as Hudi 0.x writes commit JSON: objects indent 2 spaces per level with
// `"key" : value`; arrays stay on one line (`[ a, b ]`) and do not add a level; empty object `{ }`, empty
// array `[ ]`; no trailing newline. Objects print their keys in recorded (parsed) order, else insertion order.
import { orderedKeys } from './ordered-json.ts';

export type JacksonValue = null | boolean | number | string | JacksonValue[] | { [k: string]: JacksonValue | undefined };

function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out + '"';
}

function write(v: JacksonValue, nesting: number): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return quote(String(v)); // Jackson writes NaN/Infinity as strings when quoted
    return String(v);
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[ ]';
    return '[ ' + v.map((x) => write(x, nesting)).join(', ') + ' ]';
  }
  const entries = orderedKeys(v)
    .map((k) => [k, v[k]] as [string, JacksonValue | undefined])
    .filter(([, x]) => x !== undefined) as [string, JacksonValue][];
  if (entries.length === 0) return '{ }';
  const pad = '\n' + '  '.repeat(nesting + 1);
  return (
    '{' +
    entries.map(([k, x]) => pad + quote(k) + ' : ' + write(x, nesting + 1)).join(',') +
    '\n' +
    '  '.repeat(nesting) +
    '}'
  );
}

export function jacksonPretty(v: JacksonValue): string {
  return write(v, 0);
}
