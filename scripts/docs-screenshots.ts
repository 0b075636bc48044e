import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm run docs:screenshots`: the pictures in docs/images/dashboard/ (docs/dashboard-guide.md).
 * Runs the dashboard browser tests (test/browser/dashboard-*.browser.test.ts) with DOCS_SCREENSHOTS_DIR set, so its page checks also take
 * full-page screenshots at 375 and 1280 px (test/support/dashboard.ts; `npm test` takes none), then
 * copies the ones the guide shows. Needs Java and Chromium, as the browser tests do.
 */
const root = resolve(import.meta.dirname, '..');
const target = resolve(root, 'docs', 'images', 'dashboard');
/** docs/images/dashboard/<key>.png ← the test's page check `<value>.png`. */
const kept: Record<string, string> = {
  'home-1280': '4-home-1280',
  'payments-375': '6-payments-375',
  'payment-attempts-1280': '7c-payment-attempts-1280',
  'refunds-1280': '20-refunds-1280',
  'refunds-approver-1280': '20a-refunds-approver-1280',
  'developers-1280': '21-developers-last-used-1280',
  'settings-375': '22-settings-375',
  'payouts-both-375': '23-payouts-both-375',
  'payout-confirm-375': '23a-payout-confirm-375',
  'settlement-approval-1280': '24-settlement-approval-1280',
  'settlement-breakdown-375': '31-settlement-breakdown-375',
  'balance-1280': '30-balance-1280',
  'statements-375': '32-statements-375',
  'link-detail-1280': 'link-detail-1280',
};

const shots = mkdtempSync(join(tmpdir(), 'docs-screenshots-'));
try {
  const vitest = resolve(root, 'node_modules', '.bin', 'vitest');
  const run = spawnSync(vitest, ['run', '--project', 'e2e', 'test/browser/dashboard-'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DOCS_SCREENSHOTS_DIR: shots },
  });
  if (run.status !== 0) throw new Error(`the dashboard browser tests failed (exit ${run.status}): no screenshots copied`);
  mkdirSync(target, { recursive: true });
  for (const [name, from] of Object.entries(kept)) {
    const source = join(shots, `${from}.png`);
    if (!existsSync(source))
      throw new Error(`no screenshot ${from}.png: was the page check renamed in test/browser/dashboard-*.browser.test.ts?`);
    copyFileSync(source, join(target, `${name}.png`));
    console.log(`docs/images/dashboard/${name}.png`);
  }
} finally {
  rmSync(shots, { recursive: true, force: true });
}
