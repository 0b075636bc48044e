import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { creditTestWallet, setSchedule, setStatus } from '#shared/services/merchants.ts';
import { runAutoSettlement } from '#shared/services/auto-settlement.ts';
import { advanceSettlement, approveSettlement } from '#shared/services/settlements.ts';
import { approveWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { sandboxSubmissionCount } from '#shared/providers/bank-rail.ts';
import { getAutoSettlementRun } from '#shared/store/settlements.ts';
import { getIntent } from '#shared/store/intents.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { completedPayment } from '../support/money.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

describe('a suspended merchant', () => {
  const gw = useGateway(routeList);

  it('hosted pages refuse payment with a clear page; the session stays payable-later and nothing is credited', async () => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1500 }));
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    await setStatus(m.merchantId, 'suspended');

    const card = await postForm(gw.baseUrl, `${path}/card`, {
      csrf: page.csrf!,
      name: 'Ayesha Khan',
      number: '4242 4242 4242 4242',
      expiry: '12/39',
      cvc: '123',
    });
    expect(card.status).toBe(422);
    expect(card.html).toContain('not accepting payments');
    const wallet = await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001234567' });
    expect(wallet.status).toBe(422);
    expect(wallet.html).toContain('not accepting payments');
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);

    await setStatus(m.merchantId, 'active');
    const lookup = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${created.json.paymentIntentId}`, { key: m.test.apiKey });
    expect(lookup.json.status).toBe('Pending');
    const paid = await postForm(gw.baseUrl, `${path}/card`, {
      csrf: page.csrf!,
      name: 'Ayesha Khan',
      number: '4242 4242 4242 4242',
      expiry: '12/39',
      cvc: '123',
    });
    expect(paid.status).toBe(303);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBeGreaterThan(0);
  });

  it('the hosted page of a suspended merchant is the "not accepting payments" page, without a form, back once reactivated', async () => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1500 }));
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    expect((await getPage(gw.baseUrl, path)).html).toContain('<form');
    // setStatus in this process drops its cached profile; another process sees it within MERCHANT_CACHE_MS.
    await setStatus(m.merchantId, 'suspended');
    const suspended = await getPage(gw.baseUrl, path);
    expect(suspended.status).toBe(200);
    expect(suspended.html).toContain('not accepting payments');
    expect(suspended.html).not.toContain('<form');
    expect(suspended.html).not.toContain('name="number"');
    await setStatus(m.merchantId, 'active');
    const reactivated = await getPage(gw.baseUrl, path);
    expect(reactivated.html).toContain('name="number"');
    expect(reactivated.html).not.toContain('not accepting payments');
  });

  it('a wallet payment started before the suspension cannot be confirmed with its OTP while suspended', async () => {
    const m = await newMerchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 1500 }));
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001230000' })).status).toBe(
      303,
    );
    await setStatus(m.merchantId, 'suspended');
    const otp = await postForm(gw.baseUrl, `${path}/otp`, { csrf: page.csrf!, otp: '123456' });
    expect(otp.status).toBe(422);
    expect(otp.html).toContain('not accepting payments');
    expect(await getIntent(created.json.paymentIntentId)).toMatchObject({ status: 'Pending', details: { wallet: { stage: 'otp' } } });
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
  });

  it('API requests are refused with code merchant_suspended; an approved refund waits in the sweep until reactivation', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 50_00);
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { trxnRef: payment.paymentIntentId, amount: 20 },
    });
    expect(created.status, created.text).toBe(201);
    await approveRefund(created.json.id);
    await setStatus(m.merchantId, 'suspended');

    const refused = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { trxnRef: payment.paymentIntentId, amount: 10 },
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'merchant_suspended', detail: expect.stringMatching(/suspended/) });
    const waiting = await advanceRefund(created.json.id, new Date(Date.now() + 3_000));
    expect(waiting).toMatchObject({ attemptCount: 0 });

    await setStatus(m.merchantId, 'active');
    const done = await advanceRefund(created.json.id, new Date(Date.now() + 6_000));
    expect(done).toMatchObject({ status: 3, attemptCount: 1 });
  });

  it('a Pending payout cannot be approved while suspended: nothing reaches the bank; after reactivation it is approved once', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
    const body = {
      amount: 300,
      currency: 'PKR',
      description: 'Payout',
      autoProcessPayout: false,
      customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
      orderRef: { orderRef: `WD${randomUUID().replaceAll('-', '').slice(0, 16)}` },
    };
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', { key: m.test.apiKey, secret: m.test.secretKey, body });
    expect(created.status, created.text).toBe(200);
    const reference = created.json.payoutInfo.transactionReference;
    await setStatus(m.merchantId, 'suspended');

    await expect(approveWithdrawal(created.json.paymentIntentId)).rejects.toMatchObject({ code: 'merchant_suspended' });
    expect(sandboxSubmissionCount(reference)).toBe(0);
    const autoPayout = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { ...body, autoProcessPayout: true, orderRef: { orderRef: `${body.orderRef.orderRef}B` } },
    });
    expect(autoPayout.status).toBe(403);
    expect(autoPayout.json.code).toBe('merchant_suspended');
    const lookup = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${created.json.paymentIntentId}`, { key: m.test.apiKey });
    expect(lookup.status).toBe(403); // the merchant's own API is refused too

    await setStatus(m.merchantId, 'active');
    const approved = await approveWithdrawal(created.json.paymentIntentId);
    expect(approved.status).toBe('Processing');
    expect(sandboxSubmissionCount(reference)).toBe(1);
  });

  it('an approved settlement waits in the sweep while suspended (not sent to the rail), then proceeds; none is auto-created', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
    const bank = { bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' };
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 100, currency: 'PKR', ...bank },
    });
    expect(created.status, created.text).toBe(200);
    await approveSettlement(created.json.id);
    await setSchedule(m.merchantId, { frequency: 'daily', dayOfPeriod: null, hourUtc: 3, minimumBalanceMinor: 100_00, destination: bank });
    await setStatus(m.merchantId, 'suspended');

    const waiting = await advanceSettlement(created.json.id, new Date(Date.now() + 3_000));
    expect(waiting).toMatchObject({ status: 1 }); // Approved, not Processing
    expect(waiting?.railReference ?? null).toBeNull();
    const run = await getAutoSettlementRun(m.merchantId, 'test');
    expect(await runAutoSettlement(m.merchantId, 'test', new Date(Date.parse(run!.runAt) + 1_000))).toBeUndefined();
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).heldByType.Settlement).toBe(100_00); // only the manual one

    await setStatus(m.merchantId, 'active');
    const processing = await advanceSettlement(created.json.id, new Date(Date.now() + 6_000));
    expect(processing).toMatchObject({ status: 2, railReference: expect.stringMatching(/^SBXSTL/) });
  });
});
