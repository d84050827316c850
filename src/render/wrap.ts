// Word wrapping for terminal text (person.ts boxes and checklists, the browse app).

/** Visible columns of a string (code points; the cells we show are not East Asian wide). */
export function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Lines of at most `w` columns: breaks at spaces; a word longer than a line (a path, a list of
 * instants) is broken after '/', ',', '=', '_', '-' or '.' where it can be, else anywhere.
 */
export function wrapText(lines: string, full: number): string[] {
  const out: string[] = [];
  for (const text of lines.split('\n')) {
    // a paragraph's leading spaces indent each of its lines
    const lead = /^ */.exec(text)![0];
    const para = text.slice(lead.length);
    const start = out.length;
    const w = Math.max(1, full - lead.length);
    let line = '';
    const push = () => {
      out.push(line);
      line = '';
    };
    for (let word of para.split(' ')) {
      if (line !== '' && width(line) + 1 + width(word) <= w) {
        line += ` ${word}`;
        continue;
      }
      if (line !== '') push();
      while (width(word) > w) {
        const chars = [...word];
        let cut = -1;
        for (let i = w - 1; i >= Math.floor(w / 2); i--) if ('/,=_-.'.includes(chars[i]!)) { cut = i + 1; break; }
        if (cut < 0) cut = w;
        out.push(chars.slice(0, cut).join(''));
        word = chars.slice(cut).join('');
      }
      line = word;
    }
    push();
    for (let k = start; k < out.length; k++) out[k] = lead + out[k];
  }
  return out;
}

