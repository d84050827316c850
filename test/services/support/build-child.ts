// Bundles test/services/support/compaction-child.ts into a standalone script the crash and takeover
// tests spawn (and SIGKILL) as a real child process.
import { bundleForTest } from '../../support/bundle.ts';

export async function buildCompactionChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/compaction-child.ts', 'child.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}

/** test/services/support/remediation-child.ts: a rollback or restore, SIGKILLed at a point. */
export async function buildRemediationChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/remediation-child.ts', 'remediation-child.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}
