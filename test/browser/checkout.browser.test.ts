import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshot } from '../support/browser.ts';
import { checkWidths } from '../support/dashboard.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { listEvents } from '#shared/store/intents.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, pagePath } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * The hosted checkout in a real Chromium (Debian's, driven by playwright-core) on a phone-sized
 * screen: the customer fills the forms by their labels, as a person (or a password manager) would.
 */
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)

describe('hosted checkout in Chromium', () => {
  const gw = useGateway(routeList);
  let browser: Browser;
  let receiver: Server;
  let receiverUrl = '';
  const returns: URL[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    // The merchant's return page (callbackUrl): records where the customer lands.
    receiver = createServer((req, res) => {
      returns.push(new URL(req.url ?? '/', receiverUrl));
      res
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Merchant</title><h1>Back at the shop</h1>');
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise((ok) => receiver?.close(ok));
  });

  const phone = async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    return context.newPage();
  };
  const start = async (m: TestMerchant, over: Record<string, unknown> = {}) => {
    const created = await createCheckout(gw.baseUrl, m, checkoutBody(over));
    expect(created.status, created.text).toBe(200);
    return {
      id: created.json.paymentIntentId as string,
      url: `${gw.baseUrl}${pagePath(created.json.checkoutUrl)}`,
      expiresAt: created.json.expiresAt as string,
    };
  };
  const lookup = async (m: TestMerchant, id: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${id}`, { key: m.test.apiKey })).json;
  const payByCard = async (page: Page, number: string, amount = 'PKR 1,500.00') => {
    await page.getByLabel('Name on card').fill('Ayesha Khan');
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: `Pay ${amount}` }).click();
  };

  it('pays with 4242… on a phone: Completed, the balance grows, the event is committed', async () => {
    const m = await newMerchant({ name: 'Acme Books' });
    const { id, url } = await start(m, { amount: 1500, description: 'Two paperback books' });
    const page = await phone();
    await page.goto(url);
    expect(await page.locator('header.merchant').textContent()).toContain('Acme Books');
    expect(await page.locator('.amount').textContent()).toBe('PKR 1,500.00');
    expect(await page.getByText('Two paperback books').count()).toBe(1);
    // Readable at phone width: nothing wider than the screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Every visible field has a label; every form exactly one submit button.
    // (Browser-side expressions as strings: the project's TypeScript has no DOM types.)
    expect(
      await page.evaluate<number>("[...document.querySelectorAll('input:not([type=hidden])')].filter((i) => i.labels.length === 0).length"),
    ).toBe(0);
    expect(await page.evaluate<number[]>("[...document.forms].map((f) => f.querySelectorAll('button[type=submit]').length)")).toEqual([
      1, 1, 1,
    ]);
    await screenshot(page, 'checkout-390', { fullPage: true });

    await payByCard(page, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(await page.getByText('VISA ending 4242').count()).toBe(1);
    expect(await lookup(m, id)).toMatchObject({
      status: 'Completed',
      fee: 37.5,
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
    expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
    await page.context().close();
  });

  it('a declined card leaves the page payable (the retry page at 375 and 1280 px, axe); another card then pays', async () => {
    const m = await newMerchant({ name: 'Acme Books' });
    const { id, url } = await start(m);
    const page = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    await page.goto(url);
    await payByCard(page, '4000000000000002');
    await page.getByRole('heading', { name: 'Your payment did not go through' }).waitFor();
    expect(await page.getByText('Your card was declined. (VISA ending 0002)').count()).toBe(1);
    expect(await page.getByText('No money was taken. Try again with another card or wallet: 2 attempts left.').count()).toBe(1);
    // The card and wallet forms are offered again, empty (the number typed before is not echoed).
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect(await page.getByLabel('Mobile number').count()).toBe(1);
    // Ending it now fails the payment: the button says so, not "Cancel payment".
    expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Give up and return to Acme Books' }).count()).toBe(1);
    expect(await page.getByText('This ends the payment as failed. No money was taken.').count()).toBe(1);
    await checkWidths(page, 'checkout-retry');
    expect(await lookup(m, id)).toMatchObject({ status: 'Pending', attempts: [{ outcome: 'failed', reason: 'card_declined' }] });
    expect(await listEvents(id)).toEqual([]);

    await payByCard(page, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(await lookup(m, id)).toMatchObject({ status: 'Completed', attempts: [{ outcome: 'failed' }, { outcome: 'succeeded' }] });
    expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Completed']);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(1500_00 - 37_50);
    await page.context().close();
  });

  it('three declined attempts end the payment: Failed once, the page says so, no money moves', async () => {
    const m = await newMerchant();
    const { id, url } = await start(m);
    const page = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    await page.goto(url);
    await payByCard(page, '4000000000000002');
    await page.getByText('2 attempts left', { exact: false }).waitFor();
    await payByCard(page, '4000000000009995');
    await page.getByText('Your card has insufficient funds. (VISA ending 9995)').waitFor();
    expect(await page.getByText('1 attempt left', { exact: false }).count()).toBe(1);
    await payByCard(page, '4000000000000002');
    await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
    expect(await page.getByText('3 attempts were made.').count()).toBe(1);
    expect(await page.getByLabel('Card number').count()).toBe(0);
    // No returnUrl nor callbackUrl: the gateway knows no page of the merchant's, and the page says it can be closed.
    expect(await page.locator('#close-page').textContent()).toMatch(/^You can close this page now and go back to .+\.$/);
    await checkWidths(page, 'checkout-failed');
    expect(await lookup(m, id)).toMatchObject({ status: 'Failed', reason: 'card_declined' });
    expect((await listEvents(id)).map((e) => e.event.data.CurrentStatus)).toEqual(['Failed']);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
    await page.context().close();
  });

  it('cancels and lands on the merchant’s callbackUrl with the status', async () => {
    const m = await newMerchant({ name: 'Local Shop', allowInsecureWebhooks: true });
    const { id, url } = await start(m, { callbackUrl: `${receiverUrl}/return` });
    const page = await phone();
    await page.goto(url);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
    const landed = new URL(page.url());
    expect(landed.origin + landed.pathname).toBe(`${receiverUrl}/return`);
    expect(landed.searchParams.get('paymentIntentId')).toBe(id);
    expect(landed.searchParams.get('status')).toBe('Cancelled');
    expect(returns.some((r) => r.searchParams.get('paymentIntentId') === id)).toBe(true);
    expect((await lookup(m, id)).status).toBe('Cancelled');
    await page.context().close();
  });

  it('pays with a mobile wallet: number, OTP, approval on the handset, and the page updates by itself', async () => {
    const m = await newMerchant();
    const { id, url } = await start(m, { amount: 2000 });
    const page = await phone();
    await page.goto(url);
    await page.getByLabel('JazzCash').check();
    await page.getByLabel('Mobile number').fill('0300 1230000');
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await page.getByLabel('Verification code').fill('123456');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    // Only the provider's answer ends a charge awaiting approval: nothing to cancel here.
    expect(await page.getByText('Waiting for your approval on your phone').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(0);
    expect((await lookup(m, id)).status).toBe('Pending');
    await sweep(m, new Date(Date.now() + 5_000)); // the handset answers; the sweeper applies it
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 10_000 });
    expect(await lookup(m, id)).toMatchObject({ status: 'Completed', walletNumberLast4: '0000' });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00 - 50_00);
    await page.context().close();
  });

  it('shows a clear page for an expired session, with the way back to the returnUrl', async () => {
    const m = await newMerchant({ name: 'Local Shop' });
    const { id, url, expiresAt } = await start(m, { returnUrl: `${receiverUrl}/back?cart=7` });
    await sweep(m, new Date(Date.parse(expiresAt) + 1_000));
    const page = await phone();
    const response = await page.goto(url);
    expect(response?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This payment session has expired' }).waitFor();
    expect(await page.getByLabel('Card number').count()).toBe(0);
    expect((await lookup(m, id)).status).toBe('Expired');
    await checkWidths(page, 'checkout-expired');
    await page.getByRole('link', { name: 'Return to Local Shop' }).click();
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/back');
    expect(Object.fromEntries(landed.searchParams)).toEqual({
      cart: '7',
      paymentIntentId: id,
      orderRef: expect.any(String),
      status: 'Expired',
    });
    await page.context().close();
  });
});
