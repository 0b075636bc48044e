import { describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { jazzCashPaths, jazzCashSecureHash } from '#shared/providers/live/jazzcash-protocol.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { processDue } from '#shared/services/due.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useEmulatedLive } from '../support/live.ts';
import { eventually, useWebhookStack } from '../support/webhooks.ts';

/**
 * Live mode end to end against the provider emulators (scripts/emulators): a pk_live_ key, the
 * live adapters of shared/providers/live, JazzCash's and Easypaisa's protocols on 127.0.0.1, and
 * the merchant's webhooks delivered by the real pipeline.
 */
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);

let seq = 0;
const ref = (p: string) => `${p}${Date.now()}${seq++}`;
const sweep = (m: TestMerchant, at: Date) => processDue(at, (i) => i.merchantId === m.merchantId);
const later = (ms: number) => new Date(Date.now() + ms);

describe('live mode with emulated JazzCash and Easypaisa', { timeout: 180_000 }, () => {
  const gw = useGateway(routeList);
  const live = useEmulatedLive(gw);
  const merchant = () => live.merchant('Live Merchant');
  const deposit = (m: TestMerchant, over: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/deposit', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: {
        mobileNumber: '03001230000',
        amount: 1000,
        walletProvider: 1,
        description: 'Top up',
        orderRef: { orderRef: ref('LD') },
        customerRef: { name: 'Ayesha Khan' },
        ...over,
      },
    });
  const lookup = async (m: TestMerchant, orderRef: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${orderRef}`, { key: m.live.apiKey })).json;
  const webhookFor = (paymentIntentId: string, status: string) =>
    live.receiver.waitFor(
      (all) => all.some((d) => d.event.data.TransactionId === paymentIntentId && d.event.data.CurrentStatus === status),
      90_000,
    );
  const withdraw = (m: TestMerchant, over: Record<string, unknown>, customer: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'Payout',
        autoProcessPayout: true,
        customerRef: { bankAccountNumber: '03001230000', bankCode: 'JAZZCASH', accountTitle: 'Ayesha Khan', ...customer },
        orderRef: { orderRef: ref('LW') },
        ...over,
      },
    });
  /** A live merchant with `amount` PKR credited through a real (emulated) JazzCash deposit. */
  const fundedMerchant = async (amount: number) => {
    const m = await merchant();
    const body = { orderRef: { orderRef: ref('LD') }, amount };
    const r = await deposit(m, body);
    expect(r.status, r.text).toBe(200);
    await eventually(
      () => lookup(m, body.orderRef.orderRef),
      (t) => t.status === 'Completed',
    );
    return { m, deposit: r.json, orderRef: body.orderRef.orderRef };
  };

  it('without live providers, live money operations are refused with the 422 (as in AWS without credentials)', async () => {
    configureLiveProviders(undefined);
    const m = await merchant();
    const r = await deposit(m, {});
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('wallet_provider_unavailable');
    const w = await withdraw(m, {}, {});
    expect(w.status).toBe(422);
    expect(w.json.code).toBe('payout_provider_unavailable');
    configureLiveProviders(live.providers.config);
  });

  it('JazzCash deposit: Pending, then the signed callback completes it, credited once, webhook delivered', async () => {
    const m = await merchant();
    const body = { orderRef: { orderRef: ref('LD') }, amount: 1000 };
    const r = await deposit(m, body);
    expect(r.status, r.text).toBe(200);
    expect(r.json.walletChargeInfo).toMatchObject({ provider: 'JazzCash', status: 'Pending', isSuccess: true });
    expect(r.json.walletChargeInfo.transactionReference).toMatch(/^T[0-9A-F]{19}$/);
    await eventually(
      () => lookup(m, body.orderRef.orderRef),
      (t) => t.status === 'Completed',
    );
    await sweep(m, later(60_000)); // the reconciler changes nothing afterwards
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - 15_00);
    await webhookFor(r.json.paymentIntentId, 'Completed');
    expect(live.providers.jazzcash.charges.get(r.json.walletChargeInfo.transactionReference)).toMatchObject({
      amount: 1000_00,
      code: '000',
    });
  });

  it('JazzCash charge codes: 112 → Failed customer_declined; 004, 118 and 002 refused at once with our codes', async () => {
    const m = await merchant();
    const declined = await deposit(m, { mobileNumber: '03001231111' });
    expect(declined.status).toBe(200);
    const failed = await eventually(
      () => lookup(m, declined.json.merchantReference),
      (t) => t.status === 'Failed',
    );
    expect(failed.reason).toBe('customer_declined');
    await webhookFor(declined.json.paymentIntentId, 'Failed');
    const cases: [string, string][] = [
      ['03001232222', 'insufficient_customer_balance'],
      ['03001233333', 'wallet_provider_unavailable'],
      ['03001235555', 'charge_rejected'],
    ];
    for (const [mobileNumber, code] of cases) {
      const r = await deposit(m, { mobileNumber });
      expect(r.status, mobileNumber).toBe(422);
      expect(r.json.code, mobileNumber).toBe(code);
    }
    // A provider 5xx at the charge request: nothing started, the merchant may retry.
    live.providers.jazzcash.failNext(jazzCashPaths.charge, '5xx');
    const down = await deposit(m, {});
    expect(down.status).toBe(422);
    expect(down.json.code).toBe('wallet_provider_unavailable');
  });

  it('JazzCash verifies pp_SecureHash: a request signed with the wrong salt is refused with 115, a forged callback with 401', async () => {
    const cfg = live.providers.config.jazzcash!;
    const fields = { pp_TxnRefNo: 'T0000000000000000001', pp_MerchantID: cfg.merchantId, pp_Password: cfg.password };
    const forged = await fetch(`${cfg.baseUrl}${jazzCashPaths.inquiry}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, 'wrong-salt') }),
    });
    expect(((await forged.json()) as { pp_ResponseCode?: string }).pp_ResponseCode).toBe('115');
    const callback = new URLSearchParams({
      pp_TxnRefNo: 'T0000000000000000001',
      pp_ResponseCode: '000',
      pp_SecureHash: jazzCashSecureHash({ pp_TxnRefNo: 'T0000000000000000001', pp_ResponseCode: '000' }, 'wrong-salt'),
    });
    const r = await fetch(`${gw.baseUrl}/providers/wallet/jazzcash/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: callback.toString(),
    });
    expect(r.status).toBe(401);
  });

  it('Easypaisa deposit: approved on the handset, confirmed by the inquiry after the IPN; refusals mapped', async () => {
    const m = await merchant();
    const r = await deposit(m, { walletProvider: 2, amount: 500 });
    expect(r.status, r.text).toBe(200);
    expect(r.json.walletChargeInfo).toMatchObject({ provider: 'Easypaisa', status: 'Processing' });
    const done = await eventually(
      () => lookup(m, r.json.merchantReference),
      (t) => t.status === 'Completed',
    );
    expect(done.amount).toBe(500);
    await webhookFor(r.json.paymentIntentId, 'Completed');
    const cases: [string, string][] = [
      ['03451231111', 'charge_rejected'],
      ['03451232222', 'insufficient_customer_balance'],
      ['03451233333', 'wallet_provider_unavailable'],
      ['03451235555', 'charge_rejected'],
    ];
    for (const [mobileNumber, code] of cases) {
      const refused = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber });
      expect(refused.status, mobileNumber).toBe(422);
      expect(refused.json.code, mobileNumber).toBe(code);
    }
  });

  it('hosted checkout, JazzCash wallet option: no code step in live mode; approved → Completed with its webhook', async () => {
    const m = await merchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }), { mode: 'live' });
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '1', mobileNumber: '03001230000' })).status).toBe(
      303,
    );
    // Live providers send no one-time code: the page goes straight to "approve on your phone".
    const waiting = await getPage(gw.baseUrl, path);
    expect(waiting.html).toContain('Approve the payment on your phone');
    expect(waiting.html).not.toContain('name="otp"');
    const id = created.json.paymentIntentId as string;
    const get = async () => (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${id}`, { key: m.live.apiKey })).json;
    await sweep(m, later(10_000));
    expect(await get()).toMatchObject({ status: 'Completed', walletProvider: 'JazzCash' });
    await webhookFor(id, 'Completed');
  });

  it('refund of a JazzCash payment: paid through the MWallet refund API, Completed, refunded once', async () => {
    const { m, deposit: paid } = await fundedMerchant(1000);
    const created = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { trxnRef: paid.paymentIntentId, amount: 400, reason: 'Returned' },
    });
    expect(created.status, created.text).toBe(201);
    await approveRefund(created.json.id);
    const done = await advanceRefund(created.json.id, later(1_000));
    expect(done).toMatchObject({ status: 3, attemptCount: 1 });
    expect(live.providers.jazzcash.charges.get(paid.walletChargeInfo.transactionReference)?.refundedMinor).toBe(400_00);
    expect(
      (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${paid.paymentIntentId}`, { key: m.live.apiKey })).json.refundedAmount,
    ).toBe(400);
    await advanceRefund(created.json.id, later(120_000)); // nothing more happens
    expect(live.providers.jazzcash.charges.get(paid.walletChargeInfo.transactionReference)?.refundedMinor).toBe(400_00);
  });

  it('refund of an Easypaisa payment: refused with the 422 (Easypaisa publishes no refund API); nothing reserved', async () => {
    const m = await merchant();
    const r = await deposit(m, { walletProvider: 2, amount: 500 });
    expect(r.status, r.text).toBe(200);
    await eventually(
      () => lookup(m, r.json.merchantReference),
      (t) => t.status === 'Completed',
    );
    const refused = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { trxnRef: r.json.paymentIntentId, amount: 100, reason: 'Returned' },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.code).toBe('refund_provider_unavailable');
    expect(refused.json.detail).toContain('Easypaisa');
    expect((await lookup(m, r.json.merchantReference)).refundedAmount ?? 0).toBe(0);
  });

  describe('payouts to JazzCash wallets (MW disbursement API)', () => {
    it('pays a wallet: Completed by the inquiry, webhook delivered', async () => {
      const { m } = await fundedMerchant(2000);
      const w = await withdraw(m, {}, {});
      expect(w.status, w.text).toBe(200);
      expect(w.json.payoutInfo).toMatchObject({ provider: 'JazzCash', status: 'Processing' });
      await sweep(m, later(60_000));
      const done = await lookup(m, w.json.merchantReference);
      expect(done.status).toBe('Completed');
      await webhookFor(w.json.paymentIntentId, 'Completed');
      expect(live.providers.jazzcash.paidOut.get((await lookup(m, w.json.merchantReference)).transactionReference)).toBe(1);
    });

    it('a refused receiver: Failed WP_REQUEST_REJECTED, funds released, webhook delivered', async () => {
      const { m } = await fundedMerchant(2000);
      const before = (await getWallet(m.merchantId, 'live', 'PKR', true)).available;
      const w = await withdraw(m, {}, { bankAccountNumber: '03001231111' });
      expect(w.status, w.text).toBe(200);
      expect(w.json.payoutInfo).toMatchObject({ status: 'Failed', errorCode: 'WP_REQUEST_REJECTED' });
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(before);
      await webhookFor(w.json.paymentIntentId, 'Failed');
    });

    it('a timeout after processing: outcome pending, settled Completed by the inquiry, paid exactly once', async () => {
      const { m } = await fundedMerchant(2000);
      live.providers.jazzcash.failNext(jazzCashPaths.disburse, 'drop');
      const w = await withdraw(m, {}, {});
      expect(w.status, w.text).toBe(200);
      expect(w.json.payoutInfo).toMatchObject({ status: 'Processing', errorCode: 'WP_OUTCOME_PENDING' });
      const submits = live.providers.jazzcash.hits(jazzCashPaths.disburse);
      await sweep(m, later(60_000));
      await sweep(m, later(120_000));
      expect(await lookup(m, w.json.merchantReference)).toMatchObject({ status: 'Completed' });
      expect(live.providers.jazzcash.hits(jazzCashPaths.disburse)).toBe(submits); // never resubmitted
      expect(live.providers.jazzcash.paidOut.get((await lookup(m, w.json.merchantReference)).transactionReference)).toBe(1);
      await webhookFor(w.json.paymentIntentId, 'Completed');
    });

    it('bank accounts and Easypaisa wallets are refused in live mode with the 422 (no public API)', async () => {
      const { m } = await fundedMerchant(2000);
      for (const bankCode of ['MEEZAN', 'EASYPAISA']) {
        const r = await withdraw(
          m,
          {},
          { bankCode, bankAccountNumber: bankCode === 'MEEZAN' ? 'PK36SCBL0000001123450000' : '03451230000' },
        );
        expect(r.status, bankCode).toBe(422);
        expect(r.json.code).toBe('payout_provider_unavailable');
      }
    });
  });
});
