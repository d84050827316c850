// Bundles the child scripts of test/services/support (compaction-, clustering-, archival- and
// remediation-child.ts) into standalone scripts the crash and takeover tests spawn (and SIGKILL) as
// real child processes.
import { bundleForTest } from '../../support/bundle.ts';

export async function buildCompactionChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/compaction-child.ts', 'child.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}

/** test/services/support/clustering-child.ts: a clustering, SIGKILLed at a point. */
export async function buildClusteringChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/clustering-child.ts', 'clustering-child.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}

/** test/services/support/archival-child.ts: an archival, SIGKILLed at a point. */
export async function buildArchivalChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/archival-child.ts', 'archival-child.mjs', {
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
