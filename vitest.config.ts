import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Timeline views print file mtimes in the local zone (as hudi-cli does); pin it for goldens.
process.env.TZ = 'UTC';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default is one fork fewer than the cores: one fork on a 2-core CI machine. Most of the
    // suite waits on child processes and the disk, so two forks there take ~40% off the wall time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
