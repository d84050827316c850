// The suite must pass wherever the checkout and the temp directory are. Files a test places in the
// temp directory (scripts, bundles, tables) must not resolve packages by accident: a node_modules
// above the temp root once hid test bundles that could not load anywhere else.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleForTest, ROOT } from './bundle.ts';
import { nodeModulesAbove } from './global-setup.ts';

describe('test isolation', () => {
  it('the temp root is a per-run directory with no node_modules above it', () => {
    expect(process.env.TBLCLI_TEST_RUN).toBeTruthy();
    expect(tmpdir().endsWith(process.env.TBLCLI_TEST_RUN!)).toBe(true);
    expect(nodeModulesAbove(tmpdir()), `a node_modules above ${tmpdir()} would let misplaced bundles resolve packages`).toBeUndefined();
  });

  it('HOME and the XDG directories are inside the run root (less, fish and tmux write there)', () => {
    for (const k of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']) expect(process.env[k]!.startsWith(tmpdir() + '/'), k).toBe(true);
  });

  it('a script in the temp dir cannot load the project packages; a test bundle (inside the project) can', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tblcli-iso-'));
    const script = join(dir, 'probe.mjs');
    writeFileSync(script, "await import('hyparquet-writer');\n");
    const env = { ...process.env, NODE_PATH: '' };
    const outside = spawnSync(process.execPath, [script], { env, encoding: 'utf8' });
    expect(outside.status).not.toBe(0);
    expect(outside.stderr).toContain('ERR_MODULE_NOT_FOUND');
    const worker = await bundleForTest('src/services/rewrite/worker.ts', 'compaction-worker.mjs', { packages: 'external' });
    expect(worker.path.startsWith(ROOT)).toBe(true);
    const inside = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(worker.url.href)}).catch((e) => { console.error(e.code); process.exit(1); })`], { env, encoding: 'utf8' });
    expect(inside.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});
