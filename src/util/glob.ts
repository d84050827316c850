// Hadoop globStatus syntax, one path segment at a time (shared by every glob option).
import { TblError } from '../errors/index.ts';

export const GLOB_CHARS = /[*?[{\\]/;

/** One path segment of a Hadoop glob (`*`, `?`, `[abc]`, `[^a]`, `{a,b}`, `\x`) → RegExp. */
export function globSegmentRegex(seg: string): RegExp {
  let re = '';
  let inBrace = 0;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\' && i + 1 < seg.length) re += `\\${seg[++i]}`;
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 1);
      if (end < 0) throw new TblError('usage', `unclosed '[' in glob segment '${seg}'`);
      let body = seg.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '{') {
      inBrace++;
      re += '(?:';
    } else if (c === '}' && inBrace > 0) {
      inBrace--;
      re += ')';
    } else if (c === ',' && inBrace > 0) re += '|';
    else re += c.replace(/[.+^$()|\]\\]/g, '\\$&');
  }
  if (inBrace > 0) throw new TblError('usage', `unclosed '{' in glob segment '${seg}'`);
  return new RegExp(`^${re}$`);
}


/**
 * A glob over relative paths (partition paths): Hadoop syntax per segment, plus `**` for any number of
 * segments; '' or '**' match everything.
 */
export function pathGlob(glob: string): (p: string) => boolean {
  if (glob === '' || glob === '**') return () => true;
  const segs = glob.split('/').map((seg) => (seg === '**' ? null : globSegmentRegex(seg)));
  const match = (parts: string[], i: number, j: number): boolean => {
    if (i === segs.length) return j === parts.length;
    const re = segs[i];
    if (re === null) {
      for (let k = j; k <= parts.length; k++) if (match(parts, i + 1, k)) return true;
      return false;
    }
    return j < parts.length && re!.test(parts[j]!) && match(parts, i + 1, j + 1);
  };
  return (p) => match(p === '' ? [] : p.split('/'), 0, 0);
}
