import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.ts';

/**
 * Four projects, chosen by directory (a new file lands in the right one by where it is put):
 * - unit: no database, no network (test/support/unit-env.ts points the store at a closed port),
 *   worker threads; `npm run test:unit` runs only this one and starts no DynamoDB Local.
 * - infra: no database either, but slow: the CDK app synthesized and checked (cdk-nag), the OpenAPI
 *   document through both linters.
 * - integration: everything else under test/ (test/integration, model, faults, …) against ONE
 *   DynamoDB Local per run, each worker in its own table (test/support/global-setup.ts, env.ts).
 *   Its files share one module graph per worker (isolate: false): the gateway's handlers, the AWS
 *   SDK and zod are imported once per worker instead of once per file (about 2.7 CPU-s a file;
 *   measured 85 → 58 CPU-s over ten files). (One failure blamed on this was a timing flake in
 *   checkout.test.ts: the sandbox handset answers 3 s after the prompt by the real clock; that file
 *   now freezes Date.) Files that change what a shared module keeps (the
 *   environment, configure* adapters, spies, the logger's level, webhook stacks, fault points) run
 *   isolated instead:
 *   `integration-isolated`, listed in `isolatedFiles` below; test/unit/test-layout.test.ts keeps
 *   the list honest.
 * - e2e: Chromium (test/browser), whole local stacks in their own processes (test/e2e) and the
 *   packed SDK installed into a scratch project (test/sdk/install.test.ts).
 * test/rehearsal is no project here: `npm run test:rehearsal` (vitest.rehearsal.config.ts) runs it.
 * Files run in parallel on TEST_WORKERS workers (default 3 on this 2-core machine: the tests wait on
 * DynamoDB Local's JVM, Chromium and child processes about as much as they compute).
 */
const workers = Number(process.env.TEST_WORKERS) || 3;
/** Whether the `integration` project's files share one module graph per worker (see above). */
const sharedModules = true;
const unit = ['test/unit/**/*.test.ts', 'test/openapi/document.test.ts', 'test/docs.test.ts', 'test/sdk/types.test.ts'];
const infra = ['test/infra/**/*.test.ts', 'test/openapi/lint.test.ts'];
const e2e = ['test/browser/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/sdk/install.test.ts'];
/**
 * Integration files that need a fresh module graph of their own (see `integration` above): they set
 * environment variables that modules read at import, install adapters or spies, change the logger's
 * level, or run a webhook stack or fault points in process.
 */
export const isolatedFiles = [
  'test/faults/**/*.test.ts',
  'test/model/**/*.test.ts',
  ...[
    'alarm-metrics',
    'bank-file',
    'capacity',
    'card-payment-reads',
    'dashboard-sign-in',
    'deposits',
    'events-feed',
    'ledger-verify',
    'listen',
    'live-cards',
    'live-providers',
    'observability',
    'payment-links',
    'refunds',
    'resend-limits',
    'settlement-breakdown',
    'settlements',
    'tracing',
    'transactions-index-migration',
    'webhook-event-types',
    'webhooks',
    'webhooks-batch',
    'webhooks-dlq',
    'webhooks-health',
    'webhooks-poison',
    'webhooks-relay',
    'webhooks-sweep',
    'withdrawals',
  ].map((name) => `test/integration/${name}.test.ts`),
];
/** CPU_PROBE_OUT=<file>: each test file's CPU-seconds appended to that file (test/support/cpu-probe.ts); off by default. */
const probe = process.env.CPU_PROBE_OUT ? ['test/support/cpu-probe.ts'] : [];
const database = { globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/env.ts', ...probe], pool: 'forks' as const };

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirstSequencer }, // longest files first (test/support/sequencer.ts)
    testTimeout: 30_000,
    hookTimeout: 120_000, // suite setups import every handler or start servers: slow on a loaded machine
    maxWorkers: workers,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: unit, pool: 'threads', isolate: false, setupFiles: ['test/support/unit-env.ts', ...probe] },
      },
      { extends: true, test: { name: 'infra', include: infra, pool: 'forks', setupFiles: ['test/support/unit-env.ts', ...probe] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unit, ...infra, ...e2e, ...isolatedFiles, 'test/rehearsal/**'],
          ...database,
          isolate: !sharedModules,
        },
      },
      { extends: true, test: { name: 'integration-isolated', include: isolatedFiles, ...database } },
      { extends: true, test: { name: 'e2e', include: e2e, ...database } },
    ],
  },
});
