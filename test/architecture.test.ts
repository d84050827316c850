// The layering of src/ (code-style.md §5): each module may import only modules of lower layers,
// there are no import cycles between modules, commander stays in commands/, and only the local
// storage backend touches node:fs.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

const LAYER: Record<string, number> = {
  errors: 0,
  util: 0.5,
  render: 1,
  io: 2,
  storage: 1,
  config: 2,
  metadata: 2,
  timeline: 3,
  parquet: 3,
  hfile: 3,
  'fs-view': 4,
  logfile: 4,
  merge: 5,
  archive: 5,
  table: 6,
  write: 6.5,
  mdt: 7,
  triage: 8,
  services: 8,
  demo: 8,
  views: 9,
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') || p.endsWith('.tsx') ? [p] : [];
  });
}

function imports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
}

function moduleOf(file: string): string | undefined {
  const rel = relative(join(ROOT, 'src'), file);
  return rel.startsWith('..') ? undefined : rel.split('/')[0];
}

const srcFiles = files(join(ROOT, 'src'));

describe('architecture', () => {
  it('every src module has a layer', () => {
    const modules = new Set(srcFiles.map((f) => moduleOf(f)!));
    for (const m of modules) expect(LAYER[m], `src/${m} needs a layer in test/architecture.test.ts`).toBeDefined();
  });

  it('src modules import only lower layers (no cycles possible)', () => {
    const bad: string[] = [];
    for (const f of srcFiles) {
      const from = moduleOf(f)!;
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) continue;
        const to = moduleOf(resolve(dirname(f), spec));
        if (!to || to === from) continue;
        if (!(LAYER[to]! < LAYER[from]!)) bad.push(`${relative(ROOT, f)} (${from}) → ${to}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('generic render/io know nothing about Hudi', () => {
    for (const f of srcFiles.filter((x) => ['render', 'io'].includes(moduleOf(x)!))) {
      for (const spec of imports(f).filter((s) => s.startsWith('.'))) {
        expect(['render', 'io', 'errors', 'util']).toContain(moduleOf(resolve(dirname(f), spec)));
      }
    }
  });

  it('commander only in commands/, no src file imports commands/, node:fs only in the local storage backend', () => {
    for (const f of srcFiles) {
      const specs = imports(f);
      expect(specs.filter((s) => s === 'commander'), f).toEqual([]);
      expect(specs.filter((s) => s.includes('/commands/')), f).toEqual([]);
      // the local backend: local.ts and the modules it is split into (local-*.ts)
      if (!/src\/storage\/local(-[a-z]+)?\.ts$/.test(f)) {
        expect(specs.filter((s) => /^(node:)?fs(\/promises)?$/.test(s)), relative(ROOT, f)).toEqual([]);
      }
    }
    const commandFiles = files(join(ROOT, 'commands'));
    expect(commandFiles.some((f) => imports(f).includes('commander'))).toBe(true);
  });

  it('commands load library code lazily (start-up cost does not grow with the command count)', () => {
    // what main.ts loads statically, and the command spec families the registry loads for a command
    // line, may import only errors/io from src; the rest is import()ed by actions
    const eager = new Set<string>();
    const visit = (f: string) => {
      if (eager.has(f)) return;
      eager.add(f);
      const src = readFileSync(f, 'utf8');
      for (const m of src.matchAll(/^import (?!type)[^;]*?from '(\.\/[^']+)'/gm)) visit(resolve(dirname(f), m[1]!));
      if (f.endsWith(join('commands', 'registry.ts'))) for (const m of src.matchAll(/import\('(\.\/[^']+)'\)/g)) visit(resolve(dirname(f), m[1]!));
    };
    visit(join(ROOT, 'commands', 'main.ts'));
    expect(eager.size).toBeGreaterThan(15);
    for (const f of eager) {
      const src = readFileSync(f, 'utf8');
      for (const m of src.matchAll(/^import (?!type)[^;]*?from '(\.\.\/src\/[^']+)'/gm)) {
        expect(['../src/errors/index.ts', '../src/io/index.ts', '../src/util/duration.ts'], `${relative(ROOT, f)} imports ${m[1]} eagerly`).toContain(m[1]);
      }
    }
  });
});
