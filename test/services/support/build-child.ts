// Bundles the child scripts of test/services/support (compaction-, clustering-, clean-, archival- and
// remediation-child.ts) into standalone scripts the crash and takeover tests spawn (and SIGKILL) as
// real child processes, and runs them.
import { spawn } from 'node:child_process';
import { bundleForTest } from '../../support/bundle.ts';

async function buildChild(name: string): Promise<string> {
  const b = await bundleForTest(`test/services/support/${name}.ts`, `${name}.mjs`, {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}

/** compaction-child.ts: a compaction, SIGKILLed or paused at a point. */
export const buildCompactionChild = () => buildChild('compaction-child');
/** clustering-child.ts: a clustering, SIGKILLed at a point. */
export const buildClusteringChild = () => buildChild('clustering-child');
/** clean-child.ts: a clean, SIGKILLed at a point. */
export const buildCleanChild = () => buildChild('clean-child');
/** archival-child.ts: an archival, SIGKILLed at a point. */
export const buildArchivalChild = () => buildChild('archival-child');
/** remediation-child.ts: a rollback or restore, SIGKILLed at a point. */
export const buildRemediationChild = () => buildChild('remediation-child');

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a built child on the table at `base` with its options (JSON); resolves when it exits or is killed. */
export function runChild(script: string, base: string, opts: object): Promise<ChildResult> {
  const p = spawn(process.execPath, [script, base, JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  return new Promise((r) => p.on('close', (code, signal) => r({ code, signal, stdout, stderr })));
}
