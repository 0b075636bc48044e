import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { setStatus } from '#shared/services/merchants.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { completedPayment } from '../support/money.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

describe('a suspended merchant', () => {
  const gw = useGateway(routeList);

  it("hosted pages refuse payment with a clear page; the session stays payable-later and nothing is credited", async () => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1500 }));
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    await setStatus(m.merchantId, 'suspended');

    const card = await postForm(gw.baseUrl, `${path}/card`, { csrf: page.csrf!, name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' });
    expect(card.status).toBe(422);
    expect(card.html).toContain('not accepting payments');
    const wallet = await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001234567' });
    expect(wallet.status).toBe(422);
    expect(wallet.html).toContain('not accepting payments');
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);

    await setStatus(m.merchantId, 'active');
    const lookup = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${created.json.paymentIntentId}`, { key: m.test.apiKey });
    expect(lookup.json.status).toBe('Pending');
    const paid = await postForm(gw.baseUrl, `${path}/card`, { csrf: page.csrf!, name: 'Ayesha Khan', number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' });
    expect(paid.status).toBe(303);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBeGreaterThan(0);
  });

  it('API requests are refused with the stable code merchant_suspended; an approved refund waits in the sweep until reactivation', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 50_00);
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', { key: m.test.apiKey, secret: m.test.secretKey, body: { trxnRef: payment.paymentIntentId, amount: 20 } });
    expect(created.status, created.text).toBe(201);
    await approveRefund(created.json.id);
    await setStatus(m.merchantId, 'suspended');

    const refused = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', { key: m.test.apiKey, secret: m.test.secretKey, body: { trxnRef: payment.paymentIntentId, amount: 10 } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'merchant_suspended', detail: expect.stringMatching(/suspended/) });
    const waiting = await advanceRefund(created.json.id, new Date(Date.now() + 3_000));
    expect(waiting).toMatchObject({ attemptCount: 0 });

    await setStatus(m.merchantId, 'active');
    const done = await advanceRefund(created.json.id, new Date(Date.now() + 6_000));
    expect(done).toMatchObject({ status: 3, attemptCount: 1 });
  });
});
