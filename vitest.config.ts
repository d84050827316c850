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
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
