import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { getIntent } from '#shared/store/intents.ts';
import { launchChromium } from '../support/browser.ts';
import { checkWidths, screenshots, seriousViolations } from '../support/dashboard.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

/**
 * A payment link in a real Chromium: the customer opens the short URL, chooses a quantity and
 * enters the details by their labels, continues to the hosted checkout and pays by card; the link
 * then counts the payment. axe finds no serious violation at 375 and 1280 px on the link's page,
 * with and without field errors, nor on its "not available" page.
 */
describe('payment link in Chromium', () => {
  const gw = useGateway(routeList);
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('link page → hosted checkout → paid, accessible at 375 and 1280 px', async () => {
    const m = await newMerchant({ name: 'Acme Shirts and Trousers of Karachi' });
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 1500, description: 'Blue shirt', maxQuantity: 3, maxPayments: 1, collect: ['name', 'phone'] },
    });
    expect(created.status, created.text).toBe(201);
    const linkId = created.json.id as string;
    const page = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    await page.goto(`${gw.baseUrl}/l/${linkId}`);
    expect(await page.locator('header.merchant').textContent()).toContain('Acme Shirts');
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await seriousViolations(page), `link page at ${width} px`).toEqual([]);
      // The test-mode badge stays on one line beside a long merchant name.
      const badge = (await page.locator('header.merchant .badge').boundingBox())!;
      const lineHeight = Number(
        await page.evaluate("parseFloat(getComputedStyle(document.querySelector('header.merchant .badge')).lineHeight)"),
      );
      expect(lineHeight).toBeGreaterThan(0);
      expect(badge.height, `badge at ${width} px`).toBeLessThan(lineHeight * 2);
    }
    await screenshots(page, 'payment-link');
    // A quantity of 1 is filled in.
    expect(await page.getByLabel('Quantity').inputValue()).toBe('1');

    // A quantity above the maximum: the page says why, beside the field, and nothing is created.
    await page.getByLabel('Quantity').fill('4');
    await page.getByLabel('Your name').fill('Ayesha Khan');
    await page.getByLabel('Phone number').fill('03001234567');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    expect(await page.locator('#quantity-error').textContent()).toBe('Choose a quantity from 1 to 3.');
    expect(await page.getByLabel('Quantity').getAttribute('aria-invalid')).toBe('true');
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await seriousViolations(page), `link page with errors at ${width} px`).toEqual([]);
    }

    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\/[0-9a-f-]{36}$/);
    const paymentIntentId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.locator('.amount').textContent()).toBe('PKR 3,000.00');
    expect(await page.getByText('2 × PKR 1,500.00').count()).toBe(1);
    await page.getByLabel('Name on card').fill('Ayesha Khan');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: 'Pay PKR 3,000.00' }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(await getIntent(paymentIntentId)).toMatchObject({ status: 'Completed', amountMinor: 3000_00 });
    const link = await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${linkId}`, { key: m.test.apiKey });
    expect(link.json).toMatchObject({ paymentCount: 1, totalAmount: 3000, remainingUses: 0, status: 'used_up' });

    // The link has no returnUrl: a paid customer is not invited back to pay again; the page can be closed.
    await checkWidths(page, 'payment-link-paid');
    expect(await page.getByRole('link', { name: 'Back to the payment page' }).count()).toBe(0);
    expect(await page.locator('#close-page').textContent()).toBe(
      'You can close this page now and go back to Acme Shirts and Trousers of Karachi.',
    );
    // The link's page itself, now used up: a clear page, no form.
    await page.goto(`${gw.baseUrl}/l/${linkId}`);
    expect(await page.getByRole('heading', { name: 'This payment link is not available' }).count()).toBe(1);
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.locator('#close-page').textContent()).toBe(
      'You can close this page now and go back to Acme Shirts and Trousers of Karachi.',
    );
    expect((await page.goto(`${gw.baseUrl}/l/${linkId}`))?.status()).toBe(410);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await seriousViolations(page), `unavailable page at ${width} px`).toEqual([]);
    }
  });

  it('the late payer: a session opened while a use was left is told the link reached its limit, accessible, nothing taken', async () => {
    const m = await newMerchant({ name: 'Acme Shirts' });
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 1500, description: 'Blue shirt', maxPayments: 1 },
    });
    expect(created.status, created.text).toBe(201);
    const linkId = created.json.id as string;
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const [first, late] = [await context.newPage(), await context.newPage()];
    // Both customers continue: opening a session holds no use, so both get one.
    for (const page of [first, late]) {
      await page.goto(`${gw.baseUrl}/l/${linkId}`);
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.waitForURL(/\/pay\/[0-9a-f-]{36}$/);
    }
    const pay = async (page: typeof first) => {
      await page.getByLabel('Name on card').fill('Ayesha Khan');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry (MM/YY)').fill('12/34');
      await page.getByLabel('Security code').fill('123');
      await page.getByRole('button', { name: 'Pay PKR 1,500.00' }).click();
    };
    await pay(first);
    await first.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await pay(late);
    const alert = late.getByRole('alert').filter({ hasText: 'reached its limit of payments' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('No money was taken');
    const lateId = new URL(late.url()).pathname.split('/').filter(Boolean)[1]!;
    expect(await getIntent(lateId)).toMatchObject({ status: 'Pending' });
    for (const width of [375, 1280]) {
      await late.setViewportSize({ width, height: 800 });
      expect(await seriousViolations(late), `refused payment at ${width} px`).toEqual([]);
    }
    const link = await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${linkId}`, { key: m.test.apiKey });
    expect(link.json).toMatchObject({ paymentCount: 1, pendingCount: 0, remainingUses: 0 });
  });

  it('every final page of a link session leads back: the returnUrl, or the link page; an unavailable link to its returnUrl', async () => {
    const m = await newMerchant({ name: 'Acme Shirts' });
    const create = async (body: Record<string, unknown>) => {
      const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', { key: m.test.apiKey, secret: m.test.secretKey, body });
      expect(r.status, r.text).toBe(201);
      return r.json.id as string;
    };
    const plain = await create({ amount: 1500, description: 'Blue shirt' });
    const page = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    // Cancelled on the checkout of a link without returnUrl: back to the link's page, which takes another payment.
    await page.goto(`${gw.baseUrl}/l/${plain}`);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByRole('heading', { name: 'Payment cancelled' }).waitFor();
    await checkWidths(page, 'payment-link-cancelled');
    await page.getByRole('link', { name: 'Back to the payment page' }).click();
    await page.waitForURL(`${gw.baseUrl}/l/${plain}`);
    expect(await page.getByRole('button', { name: 'Continue to payment' }).count()).toBe(1);

    // A deactivated link with a returnUrl: its page says why and leads back to the merchant.
    const returnUrl = 'https://merchant.example.com/shop?from=link';
    const withReturn = await create({ amount: 1500, description: 'Red shirt', returnUrl });
    const off = await call(gw.baseUrl, 'POST', `/Gateway/v1/PaymentLinks/${withReturn}/deactivate`, {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {},
    });
    expect(off.status, off.text).toBe(200);
    expect((await page.goto(`${gw.baseUrl}/l/${withReturn}`))?.status()).toBe(410);
    expect(await page.getByRole('link', { name: 'Return to Acme Shirts' }).getAttribute('href')).toBe(returnUrl);
    await checkWidths(page, 'payment-link-unavailable');
  });
});
