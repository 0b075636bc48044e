import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { processDue } from '#shared/services/due.ts';
import { getIntent } from '#shared/store/intents.ts';
import { launchChromium } from '../support/browser.ts';
import { checkoutBody, createCheckout, pagePath } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { linkSecondAttempt, scenarios, secondAttempt } from '../support/second-attempt.ts';

/**
 * The customer's second attempt (issue 38 §1) in Chromium on the local server: for each common
 * mistake (a mistyped card number, an expired expiry, a short wallet number and a wrong code, a
 * declined card) the customer reads the page's answer, corrects it from the URL the refused form
 * was shown at, and pays; on a session of its own and on a payment link's session. The same
 * scenarios run in the deploy rehearsal under the API stage (test/rehearsal/smoke.test.ts).
 */
describe('the second attempt on the hosted checkout, in Chromium', () => {
  const gw = useGateway(routeList);
  let browser: Browser;
  let m: TestMerchant;
  beforeAll(async () => {
    browser = await launchChromium();
    m = await newMerchant({ name: 'Acme Books' });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A wallet scenario ends at the approval page: the handset's answer (the sandbox's) then completes it. */
  const settled = async (paymentIntentId: string) => {
    const intent = await getIntent(paymentIntentId);
    if (intent?.status !== 'Pending') return intent;
    await processDue(new Date(Date.now() + 5_000), (i) => i.merchantId === m.merchantId);
    return getIntent(paymentIntentId);
  };

  for (const [name, scenario] of Object.entries(scenarios)) {
    it(`on a checkout: ${name}, corrected, then paid`, async () => {
      const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1500 }));
      expect(created.status, created.text).toBe(200);
      const id = created.json.paymentIntentId as string;
      await secondAttempt(browser, `${gw.baseUrl}${pagePath(created.json.checkoutUrl)}`, scenario);
      expect(await settled(id)).toMatchObject({ status: 'Completed', amountMinor: 1500_00 });
    });
  }

  for (const [name, scenario] of Object.entries(scenarios)) {
    it(`on a payment link's checkout: a refused quantity, then ${name}, corrected, then paid`, async () => {
      const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
        key: m.test.apiKey,
        secret: m.test.secretKey,
        body: { amount: 750, description: 'Handmade mug', maxQuantity: 3 },
      });
      expect(created.status, created.text).toBe(201);
      const landed = await secondAttempt(browser, `${gw.baseUrl}/l/${created.json.id}`, scenario, (page) =>
        linkSecondAttempt(page, { max: 3, each: 'PKR 750.00', total: 'PKR 1,500.00' }),
      );
      const id = landed.pathname.split('/').filter(Boolean)[1]!;
      expect(await settled(id)).toMatchObject({ status: 'Completed', amountMinor: 1500_00 });
    });
  }
});
