// Bundles test/services/support/clean-child.ts into a script the clean crash and concurrency tests spawn.
import { bundleForTest } from '../../support/bundle.ts';

export async function buildCleanChild(): Promise<string> {
  const b = await bundleForTest('test/services/support/clean-child.ts', 'clean-child.mjs', {
    banner: { js: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" },
  });
  return b.path;
}
