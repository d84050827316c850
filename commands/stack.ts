// Stack frames of the built CLI point into minified dist/ chunks. The build writes a linked source map
// beside each chunk; it is read here only when a stack is printed (formatError: --debug, a bug), so a
// normal start pays nothing. Node's own mapping (process.setSourceMapsEnabled) covers only modules
// loaded after it is turned on, and the main chunk is loaded before argv is seen; stacks that crossed
// a worker boundary arrive as strings. So frames are rewritten from the text of the stack. Frames
// already naming a .ts file (run from sources, node --enable-source-maps) pass through.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `    at name (file:///…/chunk.js:2:882)` or `    at file:///…/chunk.js:8:14` (also plain paths)
const FRAME = /^(\s*at (?:.*? \()?)((?:file:\/\/)?\/[^()]+?\.[cm]?js):(\d+):(\d+)(\)?)$/;

const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let m = maps.get(file);
  if (m !== undefined) return m;
  try {
    m = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    m = null; // no map beside it (a dependency, node internals): the frame stays as it is
  }
  maps.set(file, m);
  return m;
}

function mapFrame(line: string): string {
  const f = FRAME.exec(line);
  if (!f) return line;
  const [, head, where, l, c, tail] = f as unknown as [string, string, string, string, string, string];
  let file: string;
  try {
    file = where.startsWith('file:') ? fileURLToPath(where) : where;
  } catch {
    return line;
  }
  const map = mapOf(file);
  if (!map) return line;
  const e = map.findEntry(Number(l) - 1, Number(c) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) return line;
  const source = e.originalSource.startsWith('file:') ? fileURLToPath(e.originalSource) : resolve(dirname(file), e.originalSource);
  return `${head}${source}:${e.originalLine + 1}:${e.originalColumn + 1}${tail}`;
}

/** The stack with every frame of a source-mapped file replaced by its original file:line:column. */
export function mapStack(stack: string): string {
  return stack.split('\n').map(mapFrame).join('\n');
}
