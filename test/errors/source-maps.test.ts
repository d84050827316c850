// Stacks name the original sources (src/…/x.ts:line:col), not the minified dist/ chunks: with --debug
// on the built CLI, on the "this is a bug" line, and the maps ship in the npm package.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleForTest, ROOT, testBuildRoot } from '../support/bundle.ts';

const BIN = join(ROOT, 'bin', 'tblcli.js');
const frames = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

/** The source line a `file:line:col` points at. */
function sourceAt(loc: string): string {
  const m = /^(.*\.ts):(\d+):(\d+)$/.exec(loc)!;
  return readFileSync(m[1]!.startsWith('/') ? m[1]! : join(ROOT, m[1]!), 'utf8').split('\n')[Number(m[2]) - 1]!.slice(Number(m[3]) - 1);
}

describe('source-mapped stacks', () => {
  it('--debug on the built CLI: every frame of tblcli names its .ts source, at the throwing line', () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'stack-')), 'no-table');
    const r = spawnSync(process.execPath, [BIN, 'commits', 'show', '--debug', '--path', missing], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    const f = frames(r.stderr);
    expect(f.length, r.stderr).toBeGreaterThan(2);
    expect(f.filter((l) => /\/dist\/[^/]+\.js:/.test(l)), r.stderr).toEqual([]);
    const own = f.map((l) => /\((\/.*\/(?:src|commands)\/.*\.ts:\d+:\d+)\)$/.exec(l)?.[1]).filter((x) => x !== undefined);
    expect(own[0], r.stderr).toMatch(/\/src\/table\/open\.ts:\d+:\d+$/);
    expect(sourceAt(own[0]!)).toMatch(/^new TblError\('not-found', `\$\{uri\}: no such file or directory`/);
    expect(own.some((l) => /\/commands\/main\.ts:/.test(l)), r.stderr).toBe(true);
  });

  it('a bug in minified code: the one line names the source location; --debug maps the whole stack', async () => {
    // minified with linked maps, as scripts/build.mjs builds dist/; run by a plain node child (no test runner's stack handling)
    mkdirSync(testBuildRoot(), { recursive: true });
    const entry = join(mkdtempSync(join(testBuildRoot(), 'bug-entry-')), 'entry.ts');
    writeFileSync(
      entry,
      `export { formatError } from ${JSON.stringify(join(ROOT, 'src/errors/index.ts'))};\n` +
        `export { mapStack } from ${JSON.stringify(join(ROOT, 'commands/stack.ts'))};\n` +
        `export { globSegmentRegex } from ${JSON.stringify(join(ROOT, 'src/util/glob.ts'))};\n`,
    );
    const b = await bundleForTest(entry, 'bug.mjs', { minify: true, sourcemap: 'linked' });
    expect(readFileSync(b.path, 'utf8').split('\n').length).toBeLessThan(10); // really minified
    const child = join(b.dir, 'child.mjs');
    writeFileSync(
      child,
      `import { formatError, globSegmentRegex, mapStack } from ${JSON.stringify(b.url.href)};
try { globSegmentRegex(undefined); } catch (e) { console.log(JSON.stringify([formatError(e, false, mapStack), formatError(e, true, mapStack)])); }`,
    );
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [line, debug] = JSON.parse(r.stdout) as [string, string];
    const m = /^error: .* \(at (src\/util\/glob\.ts:\d+:\d+)\) \[this is a bug in tblcli; rerun with --debug and report it\]$/.exec(line);
    expect(m, line).not.toBeNull();
    expect(sourceAt(m![1]!)).toMatch(/^(seg\.)?length/);
    expect(frames(line)).toEqual([]);
    const f = frames(debug);
    // (the bundle's own directory may be reached through a symlinked node_modules: compare from src/ on)
    expect(f[0], debug).toMatch(new RegExp(`^\\s+at \\S+ \\(/.*/${m![1]!.replace(/\./g, '\\.')}\\)$`));
    expect(f.filter((l) => l.includes('bug.mjs:')), debug).toEqual([]);
  });

  it('the npm package ships a source map beside every built chunk', () => {
    // npm's debug log and cache go to the temp dir: by default it writes a log under ~/.npm/_logs on every run
    const npmDir = mkdtempSync(join(tmpdir(), 'npm-'));
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', `--logs-dir=${join(npmDir, 'logs')}`, `--cache=${join(npmDir, 'cache')}`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const packed = new Set((JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    const chunks = readdirSync(join(ROOT, 'dist')).filter((n) => n.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(packed.has(`dist/${c}`), c).toBe(true);
      expect(packed.has(`dist/${c}.map`), `${c}.map`).toBe(true);
      expect(readFileSync(join(ROOT, 'dist', c), 'utf8').trimEnd().endsWith(`//# sourceMappingURL=${c}.map`), c).toBe(true);
    }
  });
});
