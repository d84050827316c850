import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderDelimited, renderFlipTable } from '../../src/render/index.ts';

const cellText = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '\n', ',', '"', '\t', '\\', 'é', '1'), maxLength: 12 });

describe('renderFlipTable invariants', () => {
  it('every line has the same length and the box is closed, for any cells', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }).chain((n) =>
          fc.tuple(fc.array(cellText, { minLength: n, maxLength: n }), fc.array(fc.array(cellText, { minLength: n, maxLength: n }), { maxLength: 4 })),
        ),
        ([headers, rows]) => {
          const out = renderFlipTable(headers, rows);
          expect(out.endsWith('\n')).toBe(true);
          const lines = out.slice(0, -1).split('\n');
          const width = lines[0]!.length;
          for (const l of lines) expect(l.length).toBe(width);
          expect(width).toBeGreaterThanOrEqual('║ (empty) ║'.length);
          expect(lines[0]!.startsWith('╔')).toBe(true);
          expect(lines[lines.length - 1]!.startsWith('╚')).toBe(true);
        },
      ),
    );
  });
});

describe('renderDelimited TSV', () => {
  it('escaping is reversible and keeps one record per line', () => {
    const unescape = (s: string): string => s.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c]!);
    fc.assert(
      fc.property(fc.array(fc.array(cellText, { minLength: 2, maxLength: 2 }), { maxLength: 5 }), (rows) => {
        const out = renderDelimited(['A', 'B'], rows, '\t', { header: false });
        const lines = out === '' ? [] : out.slice(0, -1).split('\n');
        expect(lines).toHaveLength(rows.length);
        expect(lines.map((l) => l.split('\t').map(unescape))).toEqual(rows);
      }),
    );
  });
});

describe('layering', () => {
  // render and io are generic: they may import only each other, errors and util (no Hudi module,
  // no heavy package), so `tblcli --help` and piped output stay cheap.
  it('src/render and src/io import nothing but errors, util, render and node builtins', () => {
    let seen = 0;
    for (const mod of ['render', 'io']) {
      const dir = join(import.meta.dirname, '..', '..', 'src', mod);
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
        const src = readFileSync(join(dir, f), 'utf8');
        for (const m of src.matchAll(/(?:import|export)[^'"]*from\s+'([^']+)'/g)) {
          const spec = m[1]!;
          const ok =
            spec.startsWith('./') ||
            spec.startsWith('node:') ||
            ['../errors/index.ts', '../util/index.ts'].includes(spec) ||
            (mod === 'io' && spec === '../render/index.ts');
          expect(ok, `${mod}/${f} imports ${spec}`).toBe(true);
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  // the terminal renderers bring their packages, and are reached only by import() (so a pipe, --json
  // and --help never load ink, react, cli-table3 or chalk)
  it('src/render/ink may import ink and react, src/render/tty cli-table3 and chalk; nothing imports either statically', () => {
    const allowed: Record<string, string[]> = { ink: ['ink', 'react', 'react/jsx-runtime'], tty: ['cli-table3', 'chalk'] };
    const root = join(import.meta.dirname, '..', '..', 'src');
    for (const [sub, pkgs] of Object.entries(allowed)) {
      const dir = join(root, 'render', sub);
      for (const f of readdirSync(dir).filter((n) => /\.tsx?$/.test(n))) {
        for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/(?:import|export)[^'"]*from\s+'([^']+)'/g)) {
          const spec = m[1]!;
          const ok = spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('node:') || pkgs.includes(spec);
          expect(ok, `render/${sub}/${f} imports ${spec}`).toBe(true);
          expect(spec.startsWith('../../'), `render/${sub}/${f} reaches outside render: ${spec}`).toBe(false);
        }
      }
    }
    const statics = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? statics(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [...readFileSync(join(dir, e.name), 'utf8').matchAll(/^import (?!type)[^;]*?from '([^']+)'/gm)].map((m) => `${join(dir, e.name)} → ${m[1]}`) : [],
      );
    const outside = [...statics(root), ...statics(join(root, '..', 'commands'))].filter((l) => !/src\/render\/(ink|tty)\//.test(l.split(' → ')[0]!));
    expect(outside.filter((l) => /render\/(ink|tty)\/|'?(ink|react|cli-table3|chalk)$/.test(l.split(' → ')[1]!))).toEqual([]);
  });
});
