import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { getIntent } from '#shared/store/intents.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { startEmulatedProviders, type EmulatedProviders } from '../../scripts/emulators/index.ts';
import { launchChromium } from '../support/browser.ts';
import { checkoutBody, createCheckout, pagePath } from '../support/checkout.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';

/**
 * A live card payment in a real Chromium: the hosted page's card form, the form post to the
 * (emulated) issuer's 3-D Secure page on another origin (allowed by the page's CSP), the issuer's
 * auto-submitted post back to /pay/{id}/card-return (cross-site, no form token), and the result.
 */
describe('live card payment with 3-D Secure in Chromium (emulated JazzCash)', { timeout: 120_000 }, () => {
  const gw = useGateway(routeList);
  let browser: Browser;
  let providers: EmulatedProviders;
  const publicBaseUrl = process.env.PUBLIC_BASE_URL;
  beforeAll(async () => {
    // The return URL JazzCash is given must reach this test server.
    process.env.PUBLIC_BASE_URL = gw.baseUrl;
    providers = await startEmulatedProviders(gw.baseUrl);
    configureLiveProviders(providers.config);
    browser = await launchChromium();
  });
  afterAll(async () => {
    process.env.PUBLIC_BASE_URL = publicBaseUrl;
    configureLiveProviders(undefined);
    await browser?.close();
    await providers?.close();
  });

  it.each([
    ['Approve', 'Payment successful', 'Completed'],
    // A failed verification is a failed attempt: the session stays payable by another card or wallet (3 attempts).
    ['Fail verification', 'Your payment did not go through', 'Pending'],
  ] as const)('the customer chooses "%s" on the bank page → %s', async (choice, heading, status) => {
    const m = await newMerchant({ name: 'Live Card Shop' });
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1800 }), { mode: 'live' });
    expect(created.status, created.text).toBe(200);
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const blocked: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) blocked.push(msg.text());
    });
    await page.goto(`${gw.baseUrl}${pagePath(created.json.checkoutUrl)}`);
    await page.getByLabel('Name on card').fill('Ayesha Khan');
    await page.getByLabel('Card number').fill('4111 1111 1111 1111');
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Verify the payment with your bank' }).waitFor();
    await page.getByRole('button', { name: 'Continue to your bank' }).click();
    await page.waitForURL(`${providers.jazzcash.url}/acs`);
    await page.getByRole('button', { name: choice }).click();
    await page.getByRole('heading', { name: heading }).waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(gw.baseUrl).origin);
    expect(blocked).toEqual([]);
    expect((await getIntent(created.json.paymentIntentId))!.status).toBe(status);
    await page.context().close();
  });
});
