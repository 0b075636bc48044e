import { defineConfig } from 'vitest/config';

/**
 * `npm run test:rehearsal` (.ci/run, after `npm test`): the deploy rehearsal's tests. Not a project of
 * vitest.config.ts, so `npm test` never runs them: each file synthesizes (cached) and starts a whole
 * rehearsal (DynamoDB Local, local SQS, the IAM proxy, one sandbox per function), one file at a time.
 */
export default defineConfig({
  test: {
    include: ['test/rehearsal/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_200_000, // a cold synth (every clean clone) took over 10 min on a loaded machine
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    setupFiles: ['test/rehearsal/setup.ts'],
  },
});
