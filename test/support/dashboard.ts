import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { payByCard } from '#shared/services/checkout.ts';
import { screenshot, screenshotsDir } from './browser.ts';
import { checkoutBody, createCheckout } from './checkout.ts';
import type { TestMerchant } from './gateway.ts';
import { randomUUID } from 'node:crypto';
import { totpCode, totpPeriodSeconds } from '#shared/crypto/totp.ts';
import type { DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { sessionCookieName } from '#shared/http/dashboard.ts';
import {
  acceptInvite,
  authenticate,
  completeEnrolment,
  enrolmentSecret,
  inviteUser,
  operatorActor,
} from '#shared/services/dashboard-auth.ts';

/** Dashboard test helpers: a completed card payment, axe-core in the page, screenshots for the docs. */
export async function completedPayment(baseUrl: string, m: TestMerchant, over: Record<string, unknown> = {}) {
  const created = await createCheckout(baseUrl, m, checkoutBody(over));
  if (created.status !== 200) throw new Error(`checkout: ${created.status} ${created.text}`);
  const id = created.json.paymentIntentId as string;
  const paid = await payByCard(id, { name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' });
  if (paid.status !== 'Completed') throw new Error(`card payment: ${paid.status}`);
  return { id, orderRef: paid.orderRef.orderRef };
}

/**
 * An enrolled, signed-in dashboard user of `role` (services for the invitation and enrolment, the
 * session cookie for HTTP). Enrolled with the previous step's code, so the current and next steps'
 * codes are each good for one step-up.
 */
export async function dashboardUser(m: TestMerchant, role: DashboardRole, password = 'a long enough passphrase') {
  const email = `${role}-${randomUUID().slice(0, 8)}@keys.test`;
  const invited = await inviteUser({ merchantId: m.merchantId, email, role }, operatorActor);
  const token = new URL(invited.inviteUrl).pathname.split('/').pop()!;
  const enrolling = await authenticate((await acceptInvite(token, password, password, '127.0.0.1')).sessionToken, '127.0.0.1');
  const { secret } = await enrolmentSecret(enrolling!);
  const done = await completeEnrolment(enrolling!, totpCode(secret, Date.now() - totpPeriodSeconds * 1000));
  return { userId: invited.userId, email, secret, cookie: `${sessionCookieName()}=${done.sessionToken}` };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A/AA and best practices). */
export async function seriousViolations(page: Page): Promise<{ id: string; impact: string; targets: string[] }[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: { target: string[] }[] }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * Full-page screenshots of the current page at 375 px and 1280 px wide (`<name>-<width>.png`), only
 * under `npm run docs:screenshots`; in `npm test` nothing (the tests assert, they take no pictures).
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  if (!screenshotsDir) return;
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await screenshot(page, `${name}-${width}`, { fullPage: true });
  }
  await page.setViewportSize(original);
}

/**
 * A customer's page (hosted checkout, payment link) at 375 and at 1280 px: axe-core finds nothing
 * serious or critical and nothing is wider than the screen; screenshots as above. Leaves it at 375 px.
 */
export async function checkWidths(page: Page, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    expect(await seriousViolations(page), `${name} at ${width} px`).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at ${width} px`).toBeLessThanOrEqual(width);
  }
  await screenshots(page, name);
  await page.setViewportSize({ width: 375, height: 800 });
}
