import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { totpCode, totpPeriodSeconds } from '#shared/crypto/totp.ts';
import type { DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { launchChromium } from './browser.ts';
import { screenshots, seriousViolations } from './dashboard.ts';
import type { TestMerchant } from './gateway.ts';
import { useGateway } from './gateway.ts';
import { useOps } from './ops.ts';
import { useWebhookStack } from './webhooks.ts';

const stepMs = totpPeriodSeconds * 1000;

/**
 * An authenticator code the dashboard accepts now for a step later than `lastStep` (the last one the
 * user spent: it refuses a step twice), and that step. The server accepts the current step and one
 * either side, so the earliest such step is taken (the previous one while the current step is not
 * about to end): a sign-in and a step-up can follow each other without waiting for the clock. Only
 * when `lastStep` is already the next step does it wait for the current step to end.
 */
export async function codeAfter(secret: string, lastStep: number): Promise<{ step: number; code: string }> {
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / stepMs);
    const step = Math.max(lastStep + 1, now % stepMs > stepMs - 3_000 ? current : current - 1);
    if (step <= current + 1) return { step, code: totpCode(secret, step * stepMs) };
    await new Promise((r) => setTimeout(r, (current + 1) * stepMs - now + 10));
  }
}

/**
 * The dashboard browser tests' fixture (test/browser/dashboard-*.browser.test.ts, one file per
 * group of pages so they run on different workers): the local stack in the file's own table and
 * local SQS, the ops CLI, one Chromium for the file, and the page helpers. `deliveries: true` runs
 * the webhook relay and dispatcher too, for real deliveries (the delivery log, attempts and Resend);
 * the files that check none go without their pollers, which cost CPU all the time they run.
 * axe-core runs once per page checked (at the page's own width), which is also checked for
 * horizontal scrolling and anything beyond the screen's edge at 375 and 1280 px; screenshots at 375 px and 1280 px are taken only by
 * `npm run docs:screenshots`.
 */
export function useDashboardBrowser(options: { deliveries?: boolean } = {}) {
  const deliveryJobs = options.deliveries ? [jobs.webhookRelay, jobs.webhookDispatcher] : [];
  const stack = useWebhookStack(deliveryJobs, { queuePollers: 1 });
  const gw = useGateway(routeList);
  const ops = useOps(() => stack.tableName);
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
  });

  const newPage = async (width = 1280) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    return context.newPage();
  };
  const url = (path: string) => `${gw.baseUrl}${path}`;
  /** Tables whose content is wider than their box (scrolled, so their last columns and actions are hidden). */
  const clippedTables = (page: Page) =>
    page.evaluate<string[]>(
      "[...document.querySelectorAll('.table-wrap')].filter((t) => t.scrollWidth > t.clientWidth + 1)" +
        ".map((t) => `${t.getAttribute('aria-label')}: ${t.scrollWidth} > ${t.clientWidth}`)",
    );
  /**
   * Shown elements whose right edge lies beyond the screen's: off screen, or scrolled out of view
   * (visually hidden ones, clipped to nothing like `.vh` and a stacked table's header, excepted, and
   * the unrendered content of a closed <details>, such as the folded menu on a phone: `checkVisibility`).
   */
  const beyond = (page: Page, width: number) =>
    page.evaluate<string[]>(
      "(() => { const clipped = (e) => !!e && (getComputedStyle(e).clipPath !== 'none' || clipped(e.parentElement)); return " +
        "[...document.querySelectorAll('body *')]" +
        `.filter((e) => e.checkVisibility() && e.getBoundingClientRect().right > ${width} + 1)` +
        ".filter((e) => !clipped(e)).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)); })()",
    );
  /**
   * axe-core finds nothing serious or critical and, at 375 px and at 1280 px alike, the page is no
   * wider than the screen, no element (a table's action button, say) lies beyond its right edge, and
   * every table shows all its columns (no scrolling inside it).
   */
  const checkPage = async (page: Page, name: string) => {
    expect(await seriousViolations(page), name).toEqual([]);
    const original = page.viewportSize()!;
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await clippedTables(page), `${name} at ${width} px`).toEqual([]);
      const wide = await beyond(page, width);
      expect(wide.slice(0, 8), `${name} at ${width} px: elements beyond the screen`).toEqual([]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at ${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize(original);
    await screenshots(page, name);
  };
  /**
   * Invitation → password → TOTP enrolment → recovery codes (where `atCodes` looks at the page
   * before it is left); returns the secret, the codes and the step spent.
   */
  const onboard = async (page: Page, invitePath: string, password: string, shots = false, atCodes?: (page: Page) => Promise<void>) => {
    await page.goto(url(invitePath));
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    expect(await page.getAttribute('#password', 'autocomplete')).toBe('new-password');
    if (shots) await checkPage(page, '1-set-password');
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = (await page.locator('#totp-uri').getAttribute('href'))!;
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(await page.locator('.qr svg path').count()).toBeGreaterThan(0);
    if (shots) await checkPage(page, '2-enrol-totp');
    const enrolment = await codeAfter(secret, 0);
    await page.getByLabel('6-digit code from the app').fill(enrolment.code);
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    const codes = (await page.locator('#recovery-codes').inputValue()).split('\n').map((c) => c.trim());
    expect(codes).toHaveLength(10);
    if (shots) await checkPage(page, '3-recovery-codes');
    await atCodes?.(page);
    await page.getByRole('link', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    return { secret, codes, step: enrolment.step };
  };
  const csrfOf = async (page: Page) => (await page.locator('input[name=csrf]').first().getAttribute('value'))!;
  /** A user of `role` invited by the operator and signed in (a page of its own). */
  const userWithRole = async (m: TestMerchant, role: DashboardRole, width = 1280) => {
    const invite = await ops(
      'user',
      'invite',
      '--merchant',
      m.merchantId,
      '--email',
      `${role}-${m.merchantId.slice(0, 8)}@acme.test`,
      '--role',
      role,
      '--json',
    );
    expect(invite.json, invite.stderr).toMatchObject({ inviteUrl: expect.any(String) });
    const page = await newPage(width);
    await onboard(page, new URL(invite.json.inviteUrl).pathname, `${role} passphrase long enough`);
    return page;
  };
  return { stack, gw, ops, newPage, url, checkPage, onboard, csrfOf, userWithRole };
}
