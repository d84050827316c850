// java.util.Properties text format (what Hudi's Properties.store() writes): ISO-8859-1 with \uXXXX
// escapes, '#'/'!' comments, '=' ':' or whitespace separators, backslash line continuations.

function unescape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === undefined) break;
    switch (n) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        const hex = s.slice(i + 1, i + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error(`malformed \\u escape '\\u${hex}'`);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        break;
      }
      default:
        out += n;
    }
  }
  return out;
}

/** Logical lines: comments dropped, continuations joined. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = cur === undefined ? raw.replace(/^[ \t\f]+/, '') : raw.replace(/^[ \t\f]+/, '');
    if (cur === undefined && (line === '' || line.startsWith('#') || line.startsWith('!'))) continue;
    let bs = 0;
    for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) bs++;
    const joined = (cur ?? '') + (bs % 2 === 1 ? line.slice(0, -1) : line);
    if (bs % 2 === 1) cur = joined;
    else {
      out.push(joined);
      cur = undefined;
    }
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** Parses Java properties text; insertion order kept. Throws on malformed escapes. */
export function parseProperties(bytes: Uint8Array): Map<string, string> {
  const text = Buffer.from(bytes).toString('latin1');
  const props = new Map<string, string>();
  for (const line of logicalLines(text)) {
    let i = 0;
    let key = '';
    for (; i < line.length; i++) {
      const c = line[i]!;
      if (c === '\\') {
        key += c + (line[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
      key += c;
    }
    // skip whitespace, then at most one separator, then whitespace
    while (i < line.length && /[ \t\f]/.test(line[i]!)) i++;
    if (line[i] === '=' || line[i] === ':') i++;
    while (i < line.length && /[ \t\f]/.test(line[i]!)) i++;
    props.set(unescape(key), unescape(line.slice(i)));
  }
  return props;
}

function escape(s: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = c.charCodeAt(0);
    if (c === ' ' && (isKey || i === 0)) out += '\\ ';
    else if (c === '\\') out += '\\\\';
    else if (c === '\t') out += '\\t';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\f') out += '\\f';
    else if ('=:#!'.includes(c)) out += `\\${c}`;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += c;
  }
  return out;
}

/** Writes properties like Properties.store(): two comment lines, then key=value lines in the given order. */
export function formatProperties(props: Map<string, string>, comment: string, date: Date): Uint8Array {
  const lines = [`#${comment}`, `#${javaDateString(date)}`];
  for (const [k, v] of props) lines.push(`${escape(k, true)}=${escape(v, false)}`);
  return Buffer.from(`${lines.join('\n')}\n`, 'latin1');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** java.util.Date#toString in UTC: "Sun Jul 13 01:05:35 UTC 2025". */
export function javaDateString(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(
    d.getUTCMinutes(),
  )}:${p(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}
