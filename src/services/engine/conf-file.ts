// The `--engine-conf FILE` formats: Java properties, or the small YAML subset engine settings need
// (no YAML package: the settings are flat), chosen by the extension (.yaml/.yml, .properties/.conf),
// else by the first line that is not a comment.
//
// YAML subset, one document:
//   key: value                 scalars: plain (a ` #` starts a comment), 'single' ('' escapes ') or
//                              "double" (\" \\ \n \t \uXXXX)
//   key: [a, b, "c d"]         a flow list on one line
//   key:                       a block, indented: either all `- item` lines (a list) or all
//     sub.key: value           `sub.key: value` lines (a map, one level deep; keys may be quoted)
// plus comment lines, blank lines and a leading `---`. Anything else is an error naming the line.
//
// Properties: `key=value` (java.util.Properties syntax). In both formats a map entry can also be one
// dotted key (`spark-conf.spark.executor.memoryOverhead: 2g`, or just `spark.executor.memoryOverhead`):
// settings.ts gathers them.
import { TblError } from '../../errors/index.ts';
import { parseProperties } from '../../config/index.ts';

export type ConfValue = string | string[] | Record<string, string>;

export interface ConfEntry {
  value: ConfValue;
  /** 1-based line of the key, for messages */
  line: number;
}

/** Top-level keys of a conf file, in file order. */
export type ConfFile = Map<string, ConfEntry>;

export function confError(path: string, line: number, message: string): TblError {
  return new TblError('usage', `${path}:${line}: ${message}`, { path });
}

function unquoteDouble(s: string, path: string, line: number): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === 'n') out += '\n';
    else if (n === 't') out += '\t';
    else if (n === '"' || n === '\\' || n === '/') out += n;
    else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16));
      i += 4;
    } else throw confError(path, line, `unsupported escape \\${n ?? ''} in a double-quoted string`);
  }
  return out;
}

/** One scalar at the start of `s`; returns it and the rest of the text after it. */
function scalarAt(s: string, path: string, line: number, stops: string): { value: string; rest: string } {
  const t = s.trimStart();
  if (t.startsWith("'")) {
    let i = 1;
    let out = '';
    for (; i < t.length; i++) {
      if (t[i] === "'") {
        if (t[i + 1] === "'") {
          out += "'";
          i++;
          continue;
        }
        return { value: out, rest: t.slice(i + 1) };
      }
      out += t[i];
    }
    throw confError(path, line, 'unterminated single-quoted string');
  }
  if (t.startsWith('"')) {
    for (let i = 1; i < t.length; i++) {
      if (t[i] === '\\') i++;
      else if (t[i] === '"') return { value: unquoteDouble(t.slice(1, i), path, line), rest: t.slice(i + 1) };
    }
    throw confError(path, line, 'unterminated double-quoted string');
  }
  let end = t.length;
  for (let i = 0; i < t.length; i++) {
    if (stops.includes(t[i]!) || (t[i] === '#' && (i === 0 || /\s/.test(t[i - 1]!)))) {
      end = i;
      break;
    }
  }
  return { value: t.slice(0, end).trim(), rest: t.slice(end) };
}

function endOfLine(rest: string, path: string, line: number): void {
  const r = rest.trim();
  if (r !== '' && !r.startsWith('#')) throw confError(path, line, `unexpected ${JSON.stringify(r)} after the value`);
}

function scalarLine(s: string, path: string, line: number): string {
  const { value, rest } = scalarAt(s, path, line, '');
  endOfLine(rest, path, line);
  return value;
}

function flowList(s: string, path: string, line: number): string[] {
  let rest = s.trimStart().slice(1);
  const out: string[] = [];
  for (;;) {
    if (rest.trimStart().startsWith(']')) break;
    const item = scalarAt(rest, path, line, ',]');
    out.push(item.value);
    rest = item.rest.trimStart();
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (!rest.startsWith(']')) throw confError(path, line, 'expected , or ] in a flow list');
  }
  endOfLine(rest.trimStart().slice(1), path, line);
  return out;
}

/** `key: rest` split at the first `: ` outside quotes; the key may be quoted. */
function keyAndRest(text: string, path: string, line: number): { key: string; rest: string } {
  const t = text.trimStart();
  if (t.startsWith('"') || t.startsWith("'")) {
    const k = scalarAt(t, path, line, '');
    if (!k.rest.startsWith(':')) throw confError(path, line, 'expected : after the quoted key');
    return { key: k.value, rest: k.rest.slice(1) };
  }
  const m = /^([^\s:#][^:]*?):(?=\s|$)/.exec(t);
  if (!m) throw confError(path, line, `expected "key: value", got ${JSON.stringify(t)}`);
  return { key: m[1]!.trim(), rest: t.slice(m[0].length) };
}

const indentOf = (raw: string) => raw.length - raw.trimStart().length;
const isBlank = (raw: string) => raw.trim() === '' || raw.trimStart().startsWith('#');

export function parseYamlConf(text: string, path: string): ConfFile {
  const lines = text.split(/\r\n|\r|\n/);
  const out: ConfFile = new Map();
  let i = 0;
  while (i < lines.length && isBlank(lines[i]!)) i++;
  if (lines[i]?.trim() === '---') i++;
  for (; i < lines.length; i++) {
    const raw = lines[i]!;
    if (isBlank(raw)) continue;
    const line = i + 1;
    if (raw.includes('\t') && /^\s*\t/.test(raw)) throw confError(path, line, 'tabs cannot indent YAML');
    if (indentOf(raw) !== 0) throw confError(path, line, 'unexpected indentation');
    if (raw.trim() === '---' || raw.trim() === '...') throw confError(path, line, 'only one YAML document is supported');
    const { key, rest } = keyAndRest(raw, path, line);
    if (out.has(key)) throw confError(path, line, `${key} is set twice (first on line ${out.get(key)!.line})`);
    const r = rest.trim();
    if (r.startsWith('[')) {
      out.set(key, { value: flowList(r, path, line), line });
      continue;
    }
    if (r.startsWith('{')) throw confError(path, line, 'flow maps are not supported; write the map as an indented block');
    if (r === '' || r.startsWith('#')) {
      // a block: the indented lines that follow
      const list: string[] = [];
      const map: Record<string, string> = {};
      let kind: 'list' | 'map' | undefined;
      let indent: number | undefined;
      while (i + 1 < lines.length && (isBlank(lines[i + 1]!) || indentOf(lines[i + 1]!) > 0)) {
        const sub = lines[++i]!;
        if (isBlank(sub)) continue;
        const subLine = i + 1;
        indent ??= indentOf(sub);
        if (indentOf(sub) !== indent) throw confError(path, subLine, 'inconsistent indentation (only one level of nesting is supported)');
        const t = sub.trimStart();
        const itemKind = t.startsWith('- ') || t === '-' ? 'list' : 'map';
        if (kind && kind !== itemKind) throw confError(path, subLine, `${key} mixes list items and map entries`);
        kind = itemKind;
        if (itemKind === 'list') list.push(scalarLine(t.slice(1), path, subLine));
        else {
          const kv = keyAndRest(t, path, subLine);
          if (kv.key in map) throw confError(path, subLine, `${key}.${kv.key} is set twice`);
          const v = kv.rest.trim();
          if (v === '' || v.startsWith('#')) throw confError(path, subLine, `${key}.${kv.key} needs a value (only one level of nesting is supported)`);
          map[kv.key] = scalarLine(kv.rest, path, subLine);
        }
      }
      out.set(key, { value: kind === 'list' ? list : kind === 'map' ? map : '', line });
      continue;
    }
    out.set(key, { value: scalarLine(rest, path, line), line });
  }
  return out;
}

/** Properties text (java.util.Properties syntax), one entry per key. */
export function parsePropertiesConf(text: string, path: string): ConfFile {
  let props: Map<string, string>;
  try {
    props = parseProperties(Buffer.from(text, 'latin1'));
  } catch (e) {
    throw new TblError('usage', `${path}: ${(e as Error).message}`, { path, cause: e });
  }
  const lines = text.split(/\r\n|\r|\n/);
  const out: ConfFile = new Map();
  for (const [k, v] of props) {
    const n = lines.findIndex((l) => l.trimStart().startsWith(k));
    out.set(k, { value: v, line: n < 0 ? 1 : n + 1 });
  }
  return out;
}

/** Parses an engine conf file by its extension, else by its first significant line. */
export function parseEngineConf(text: string, path: string): ConfFile {
  const lower = path.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return parseYamlConf(text, path);
  if (/\.(properties|props|conf)$/.test(lower)) return parsePropertiesConf(text, path);
  const first = text.split(/\r\n|\r|\n/).find((l) => !isBlank(l) && !l.trimStart().startsWith('!'));
  return first !== undefined && (first.trim() === '---' || /^[^\s=:#][^=]*?:(\s|$)/.test(first)) ? parseYamlConf(text, path) : parsePropertiesConf(text, path);
}
