import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/env.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
