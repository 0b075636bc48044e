import { describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import { checkoutDetails } from '#shared/domain/checkout.ts';
import { easypaisaWallet } from '#shared/providers/live/easypaisa.ts';
import { easypaisaCredentials } from '#shared/providers/live/easypaisa-protocol.ts';
import { jazzCashDisbursementRail } from '#shared/providers/live/jazzcash.ts';
import { disbursementDecrypt, disbursementEncrypt, jazzCashPaths, jazzCashSecureHash } from '#shared/providers/live/jazzcash-protocol.ts';
import { configureRail } from '#shared/providers/rails.ts';
import { operatorApproveWithdrawal } from '#shared/services/approvals.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { armFault } from '#shared/faults.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { getIntent } from '#shared/store/intents.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useEmulatedLive } from '../support/live.ts';
import { eventually, useWebhookStack } from '../support/webhooks.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * Live mode end to end against the provider emulators (scripts/emulators): a pk_live_ key, the
 * live adapters of shared/providers/live, JazzCash's and Easypaisa's protocols on 127.0.0.1, and
 * the merchant's webhooks delivered by the real pipeline.
 */
useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]);

/**
 * The endpoints and request fields as docs/providers/jazzcash.md and easypaisa.md give them, written out here (not
 * read from the protocol modules, which the emulators share with the adapters): a changed path or field fails below.
 */
const documented = {
  charge: '/ApplicationAPI/API/2.0/Purchase/DoMWalletTransaction',
  inquiry: '/ApplicationAPI/API/PaymentInquiry/Inquire',
  walletRefund: '/ApplicationAPI/API/Purchase/domwalletrefundtransaction',
  token: '/token',
  disburse: '/jazzcash/third-party-integration/srv6/api/wso2/mw/payment',
  disbursementInquiry: '/jazzcash/third-party-integration/srv1/api/wso2/transactionStatus',
  orchestratorCharge: '/payment-orchestrator/api/v2/rest/payments/m-wallet',
  orchestratorInquiry: '/payment-orchestrator/api/v2/rest/payments/status/inquiry',
  easypaisaCharge: '/easypay-service/rest/v4/initiate-ma-transaction',
  easypaisaInquiry: '/easypay-service/rest/v4/inquire-transaction',
};
const sortedKeys = (o: object) => Object.keys(o).sort();
const jsonOf = (e: { body: string }) => JSON.parse(e.body) as Record<string, string>;

/** The receiver's CNIC a live JazzCash wallet payout carries (customerRef.cnic). */
const receiverCnic = '3520212345671';

let seq = 0;
const ref = (p: string) => `${p}${Date.now()}${seq++}`;
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)
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
        customerRef: { name: 'Ayesha Khan', cnic: '3520212345671' },
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
        customerRef: {
          bankAccountNumber: '03001230000',
          bankCode: 'JAZZCASH',
          accountTitle: 'Ayesha Khan',
          cnic: receiverCnic,
          ...customer,
        },
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

  it('JazzCash charges carry the CNIC’s last six digits (pp_CNIC); a live JazzCash deposit without customerRef.cnic is 400', async () => {
    const m = await merchant();
    const r = await deposit(m, {});
    expect(r.status, r.text).toBe(200);
    expect(live.providers.jazzcash.charges.get(r.json.walletChargeInfo.transactionReference)?.cnic).toBe('345671');
    const charges = live.providers.jazzcash.hits(jazzCashPaths.charge);
    for (const customerRef of [{ name: 'Ayesha Khan' }, { name: 'Ayesha Khan', cnic: null }, undefined]) {
      const orderRef = ref('LD');
      const refused = await deposit(m, { customerRef, orderRef: { orderRef } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json).toMatchObject({
        code: 'invalid_request',
        errors: { 'customerRef.cnic': [expect.stringContaining('required')] },
      });
      expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${orderRef}`, { key: m.live.apiKey })).status).toBe(404);
    }
    expect(live.providers.jazzcash.hits(jazzCashPaths.charge)).toBe(charges); // the handset was never prompted
    // Easypaisa takes no CNIC: unchanged.
    const easypaisa = await deposit(m, { walletProvider: 2, amount: 500, customerRef: { name: 'Ayesha Khan' } });
    expect(easypaisa.status, easypaisa.text).toBe(200);
  });

  it('the JazzCash emulator refuses an MWALLET charge without a six-digit pp_CNIC (110), as the v2.0 API', async () => {
    const cfg = live.providers.config.jazzcash!;
    const charge = (cnic: string) => {
      const fields = {
        pp_Language: 'EN',
        pp_MerchantID: cfg.merchantId,
        pp_Password: cfg.password,
        pp_TxnRefNo: `T${Date.now()}${cnic.length}`,
        pp_MobileNumber: '03001230000',
        pp_CNIC: cnic,
        pp_Amount: '100000',
        pp_TxnCurrency: 'PKR',
        pp_TxnDateTime: '20260101120000',
        pp_BillReference: 'bill',
        pp_Description: 'Payment',
        pp_TxnExpiryDateTime: '20260102120000',
      };
      return fetch(`${cfg.baseUrl}${jazzCashPaths.charge}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, cfg.integritySalt) }),
      }).then(async (a) => ((await a.json()) as { pp_ResponseCode?: string }).pp_ResponseCode);
    };
    for (const cnic of ['', '12345', '1234567', '3520212345671']) expect(await charge(cnic)).toBe('110');
    expect(await charge('345671')).toBe('157');
  });

  it('JazzCash charge codes: 112 → Failed customer_declined; 004, 118 and 002 refused at once; a 5xx is no refusal', async () => {
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
    // A provider 5xx at the charge request is no answer: JazzCash may have prompted the customer, so the charge is
    // recorded as started and the inquiry decides. This one never reached JazzCash (109): Expired once the window ends.
    live.providers.jazzcash.failNext(jazzCashPaths.charge, '5xx');
    const down = await deposit(m, {});
    expect(down.status, down.text).toBe(200);
    expect(down.json.walletChargeInfo).toMatchObject({ status: 'Pending', isSuccess: true });
    await sweep(m, later(60_000));
    expect(await lookup(m, down.json.merchantReference)).toMatchObject({ status: 'Pending' });
    await sweep(m, later(6 * 60_000));
    expect(await lookup(m, down.json.merchantReference)).toMatchObject({ status: 'Expired' });
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
    expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
  });

  it('a JazzCash charge whose answer is lost (approved on the handset): Pending, then Completed once; a retry is refused', async () => {
    const m = await merchant();
    const jc = live.providers.jazzcash;
    jc.failNext(jazzCashPaths.charge, 'drop'); // processed (the customer is prompted), the connection closed without an answer
    const body = { orderRef: { orderRef: ref('LD') } };
    const r = await deposit(m, body);
    expect(r.status, r.text).toBe(200);
    expect(r.json.walletChargeInfo).toMatchObject({ status: 'Pending', isSuccess: true });
    const retry = await deposit(m, body);
    expect(retry.status).toBe(422);
    expect(retry.json.code).toBe('duplicate_order_ref');
    await eventually(
      async () => {
        await sweep(m, later(10_000));
        return lookup(m, body.orderRef.orderRef);
      },
      (t) => t.status === 'Completed',
    );
    await sweep(m, later(60_000));
    expect(jc.charges.size).toBeGreaterThan(0);
    expect(
      jc.received(jazzCashPaths.charge).filter((e) => jsonOf(e).pp_TxnRefNo === r.json.walletChargeInfo.transactionReference),
    ).toHaveLength(1);
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - 15_00);
    expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
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

  describe('a provider callback is a trigger: the inquiry decides', () => {
    const post = (body: string, type = 'application/x-www-form-urlencoded', provider = 'jazzcash') =>
      fetch(`${gw.baseUrl}/providers/wallet/${provider}/callback`, { method: 'POST', headers: { 'content-type': type }, body });
    /** A live JazzCash deposit whose customer has not answered yet (…4444: the handset never answers). */
    const pendingDeposit = async () => {
      const m = await merchant();
      const r = await deposit(m, { mobileNumber: '03001234444', amount: 1000 });
      expect(r.status, r.text).toBe(200);
      const reference = r.json.walletChargeInfo.transactionReference as string;
      // The version as created (the charge recorded before its request, then its answer): a notification must not move it.
      const { version } = (await getIntent(r.json.paymentIntentId))!;
      return { m, id: r.json.paymentIntentId as string, reference, version, charge: live.providers.jazzcash.charges.get(reference)! };
    };
    /** The pp_* field set JazzCash posts to the return URL, signed with `salt` (the deployment's by default). */
    const notification = (fields: Record<string, string>, salt = live.providers.config.jazzcash!.integritySalt) =>
      new URLSearchParams({ ...fields, pp_SecureHash: jazzCashSecureHash(fields, salt) }).toString();
    const genuine = (reference: string, charge: { amount: number; rrn: string }, code: string) => ({
      pp_Amount: String(charge.amount),
      pp_MerchantID: live.providers.config.jazzcash!.merchantId,
      pp_ResponseCode: code,
      pp_ResponseMessage: 'x',
      pp_RetreivalReferenceNo: charge.rrn,
      pp_TxnCurrency: 'PKR',
      pp_TxnRefNo: reference,
      pp_TxnType: 'MWALLET',
    });
    const intentOf = async (id: string) => (await getIntent(id))!;

    it('the refusal JazzCash answers any caller, posted for another party’s Pending deposit, changes nothing', async () => {
      const victim = await pendingDeposit();
      // The attacker asks JazzCash about the victim's charge without credentials (the issue's attack).
      const cfg = live.providers.config.jazzcash!;
      const refusal = await fetch(`${cfg.baseUrl}${jazzCashPaths.inquiry}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pp_TxnRefNo: victim.reference, pp_MerchantID: 'MCATTACKER', pp_Password: 'x', pp_SecureHash: '0' }),
      });
      const fields = (await refusal.json()) as Record<string, string>;
      expect(fields.pp_ResponseCode).toBe('115');
      const r = await post(new URLSearchParams(fields).toString());
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      // Even a genuine, fully matching, correctly signed field set saying "cancelled by the customer"
      // (or "paid") only makes the gateway ask: JazzCash's inquiry says Pending, so it stays Pending.
      const inquiries = live.providers.jazzcash.hits(jazzCashPaths.inquiry);
      for (const code of ['112', '000']) {
        const answered = await post(notification(genuine(victim.reference, victim.charge, code)));
        expect(answered.status, code).toBe(200);
        expect(await answered.json()).toMatchObject({ paymentIntentId: victim.id, status: 'Pending', changed: false });
      }
      expect(live.providers.jazzcash.hits(jazzCashPaths.inquiry)).toBe(inquiries + 2);
      expect(await intentOf(victim.id)).toMatchObject({ status: 'Pending', version: victim.version });
      expect((await getWallet(victim.m.merchantId, 'live', 'PKR', true)).available).toBe(0);
    });

    it('a signed notification unlike the stored charge (amount, merchant, type, retrieval ref) is refused; nothing changes', async () => {
      const victim = await pendingDeposit();
      const inquiries = live.providers.jazzcash.hits(jazzCashPaths.inquiry);
      const base = genuine(victim.reference, victim.charge, '000');
      const cases: [Record<string, string>, string][] = [
        [{ pp_Amount: '1' }, 'amount'],
        [{ pp_MerchantID: 'MCOTHER' }, 'pp_MerchantID'],
        [{ pp_TxnType: 'MPAY' }, 'pp_TxnType'],
        [{ pp_RetreivalReferenceNo: '' }, 'pp_RetreivalReferenceNo'],
      ];
      for (const [over, field] of cases) {
        const r = await post(notification({ ...base, ...over }));
        const problem = (await r.json()) as { code: string; errors: Record<string, string[]> };
        expect(r.status, field).toBe(400);
        expect(problem.code).toBe('provider_notification_mismatch');
        expect(Object.keys(problem.errors)).toContain(field);
      }
      expect(live.providers.jazzcash.hits(jazzCashPaths.inquiry)).toBe(inquiries);
      // The handset approves; a notification whose retrieval reference is not the inquiry's is still refused.
      victim.charge.code = '000';
      const other = await post(notification({ ...base, pp_RetreivalReferenceNo: 'FFFFFFFFFFFF' }));
      expect(other.status).toBe(400);
      expect(await intentOf(victim.id)).toMatchObject({ status: 'Pending', version: victim.version });
      expect((await getWallet(victim.m.merchantId, 'live', 'PKR', true)).available).toBe(0);
    });

    it('a genuine notification completes the charge through the inquiry, once', async () => {
      const { m, id, reference, charge } = await pendingDeposit();
      charge.code = '000'; // the customer approves on the handset (JazzCash's own record)
      const inquiries = live.providers.jazzcash.hits(jazzCashPaths.inquiry);
      const first = await post(notification(genuine(reference, charge, '000')));
      expect(await first.json()).toMatchObject({ paymentIntentId: id, status: 'Completed', changed: true });
      expect(live.providers.jazzcash.hits(jazzCashPaths.inquiry)).toBe(inquiries + 1);
      const again = await post(notification(genuine(reference, charge, '000')));
      expect(await again.json()).toMatchObject({ status: 'Completed', changed: false });
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - 15_00);
      await webhookFor(id, 'Completed');
    });

    it('an inquiry answer carrying the text "null", hashed with it left out (R6), verifies: the charge completes', async () => {
      const m = await merchant();
      const r = await deposit(m, { mobileNumber: '03001238888' });
      expect(r.status, r.text).toBe(200);
      const done = await eventually(
        async () => {
          await sweep(m, later(60_000));
          return lookup(m, r.json.merchantReference);
        },
        (t) => t.status === 'Completed',
      );
      expect(done.status).toBe('Completed');
    });

    it('a payment JazzCash reports as 121 ("marked confirmed by Merchant", Completed in S2) completes', async () => {
      const { m, id, reference, charge } = await pendingDeposit();
      charge.code = '121'; // JazzCash's own record of a taken payment
      const r = await post(notification(genuine(reference, charge, '000')));
      expect(await r.json()).toMatchObject({ paymentIntentId: id, status: 'Completed', changed: true });
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - 15_00);
    });

    it('the JazzCash emulator refuses an unsigned or unauthenticated inquiry, unsigned and naming no transaction', async () => {
      const { reference } = await pendingDeposit();
      const cfg = live.providers.config.jazzcash!;
      const ask = async (fields: Record<string, string>) => {
        const r = await fetch(`${cfg.baseUrl}${jazzCashPaths.inquiry}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(fields),
        });
        return (await r.json()) as Record<string, string>;
      };
      const credentials = { pp_TxnRefNo: reference, pp_MerchantID: cfg.merchantId, pp_Password: cfg.password, pp_Version: '1.1' };
      const unsigned = await ask(credentials);
      const wrongPassword = { ...credentials, pp_Password: 'guess' };
      const unauthenticated = await ask({ ...wrongPassword, pp_SecureHash: jazzCashSecureHash(wrongPassword, cfg.integritySalt) });
      for (const [answer, code] of [
        [unsigned, '115'],
        [unauthenticated, '101'],
      ] as const) {
        expect(answer.pp_ResponseCode).toBe(code);
        expect(answer.pp_SecureHash).toBeUndefined();
        expect(answer.pp_TxnRefNo).toBeUndefined();
        expect(answer.pp_PaymentResponseCode).toBeUndefined();
      }
      // Without R3's pp_Version the ApplicationAPI inquiry is refused (110); with it, answered.
      const { pp_Version: _, ...unversioned } = credentials;
      expect(await ask({ ...unversioned, pp_SecureHash: jazzCashSecureHash(unversioned, cfg.integritySalt) })).toMatchObject({
        pp_ResponseCode: '110',
      });
      const signed = await ask({ ...credentials, pp_SecureHash: jazzCashSecureHash(credentials, cfg.integritySalt) });
      expect(signed).toMatchObject({ pp_ResponseCode: '000', pp_PaymentResponseCode: '157', pp_TxnRefNo: reference });
    });

    it('an Easypaisa IPN naming another store is refused; one naming the order only makes the gateway ask', async () => {
      const m = await merchant();
      const r = await deposit(m, { walletProvider: 2, amount: 500 });
      expect(r.status, r.text).toBe(200);
      const orderId = r.json.walletChargeInfo.transactionReference as string;
      const storeId = live.providers.config.easypaisa!.storeId;
      const other = await post(JSON.stringify({ orderId, storeId: `9${storeId}` }), 'application/json', 'easypaisa');
      expect(other.status).toBe(400);
      expect(((await other.json()) as { code: string }).code).toBe('provider_notification_mismatch');
      const ipn = await post(JSON.stringify({ orderId, storeId }), 'application/json', 'easypaisa');
      expect(ipn.status).toBe(200);
      expect(await ipn.json()).toMatchObject({ paymentIntentId: r.json.paymentIntentId, status: 'Completed' });
    });
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
    // The inquiry's transactionDateTime, in E3's recorded format ("dd/MM/yyyy hh:mm AM", Pakistan time), is kept as read.
    const providerTime = Date.parse(String((await getIntent(r.json.paymentIntentId))?.details.providerTime));
    expect(Math.abs(providerTime - Date.now())).toBeLessThan(3 * 60_000);
    await webhookFor(r.json.paymentIntentId, 'Completed');
    const cases: [string, string][] = [
      ['03451231111', 'charge_rejected'],
      // 0013 ("LOW BALANCE" in unconfirmed reproductions of Easypaisa's table) picks no code of ours: a refusal with its text.
      ['03451232222', 'charge_rejected'],
      ['03451233333', 'wallet_provider_unavailable'],
      ['03451235555', 'charge_rejected'],
    ];
    for (const [mobileNumber, code] of cases) {
      const refused = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber });
      expect(refused.status, mobileNumber).toBe(422);
      expect(refused.json.code, mobileNumber).toBe(code);
    }
  });

  it('an Easypaisa charge the inquiry says BLOCKED or EXPIRED (E3) ends Failed instead of waiting forever; nothing credited', async () => {
    const m = await merchant();
    for (const [mobileNumber, status] of [
      ['03451236666', 'BLOCKED'],
      ['03451237777', 'EXPIRED'],
    ]) {
      const r = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber });
      expect(r.status, r.text).toBe(200);
      await sweep(m, later(60_000));
      await sweep(m, later(120_000));
      expect(await lookup(m, r.json.merchantReference), status).toMatchObject({ status: 'Failed' });
    }
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
  });

  it('Easypaisa requests: the documented paths, fields and Credentials header; the emulator refuses what Easypaisa does', async () => {
    const m = await merchant();
    const r = await deposit(m, { walletProvider: 2, amount: 500 });
    expect(r.status, r.text).toBe(200);
    await eventually(
      () => lookup(m, r.json.merchantReference),
      (t) => t.status === 'Completed',
    );
    const ep = live.providers.easypaisa;
    const cfg = live.providers.config.easypaisa!;
    const credentials = Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64');
    const charge = ep.received(documented.easypaisaCharge).at(-1)!;
    expect(charge.headers.credentials).toBe(credentials);
    expect(jsonOf(charge)).toEqual({
      orderId: r.json.walletChargeInfo.transactionReference,
      storeId: cfg.storeId,
      transactionAmount: '500.00',
      transactionType: 'MA',
      mobileAccountNo: '03001230000',
      emailAddress: cfg.emailAddress,
    });
    const inquiry = ep.received(documented.easypaisaInquiry).at(-1)!;
    expect(inquiry.headers.credentials).toBe(credentials);
    // accountNum is the merchant's own Easypaisa account from the configuration (E3), never the customer's number.
    expect(jsonOf(inquiry)).toEqual({ orderId: jsonOf(charge).orderId, storeId: cfg.storeId, accountNum: cfg.accountNum });
    // What the emulator refuses: a repeated orderId (0003, GUESS), an inquiry without the store's credentials
    // (0010, naming nothing) or for another store (0006).
    const ask = (path: string, body: Record<string, string>, creds = credentials) =>
      fetch(`${ep.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', credentials: creds },
        body: JSON.stringify(body),
      }).then((a) => a.json() as Promise<Record<string, string>>);
    const again = await ask(documented.easypaisaCharge, jsonOf(charge));
    expect(again.responseCode).toBe('0003');
    const orderId = jsonOf(charge).orderId!;
    const { accountNum } = cfg;
    const stranger = await ask(documented.easypaisaInquiry, { orderId, storeId: cfg.storeId, accountNum }, easypaisaCredentials('x', 'y'));
    expect(stranger).toEqual({ responseCode: '0010', responseDesc: 'INVALID CREDENTIALS' });
    // E3's recorded 0006 answer: "INVALID STORE ID".
    expect(await ask(documented.easypaisaInquiry, { orderId, storeId: `9${cfg.storeId}`, accountNum })).toMatchObject({
      responseCode: '0006',
      responseDesc: 'INVALID STORE ID',
    });
    // The inquiry without the merchant account (0002, a required field), or with the customer's number instead (0004).
    expect((await ask(documented.easypaisaInquiry, { orderId, storeId: cfg.storeId, accountNum: '' })).responseCode).toBe('0002');
    expect((await ask(documented.easypaisaInquiry, { orderId, storeId: cfg.storeId, accountNum: '03001230000' })).responseCode).toBe(
      '0004',
    );
    expect(await ask(documented.easypaisaInquiry, { orderId, storeId: cfg.storeId, accountNum })).toMatchObject({
      responseCode: '0000',
      transactionStatus: 'PAID',
      accountNum,
      msisdn: '03001230000',
    });
  });

  it('an Easypaisa inquiry answered 0003 (an unconfirmed code) decides nothing: asked again, even past expiry, then paid', async () => {
    const m = await merchant();
    const r = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber: '03451234444' });
    expect(r.status, r.text).toBe(200);
    const orderId = r.json.walletChargeInfo.transactionReference as string;
    const ep = live.providers.easypaisa;
    // The emulator forgets the order: its inquiry answers 0003 ("INVALID ORDER ID" in the unconfirmed code table).
    const order = ep.orders.get(orderId)!;
    ep.orders.delete(orderId);
    const asked = ep.hits(documented.easypaisaInquiry);
    await sweep(m, later(60_000));
    await sweep(m, later(2 * 24 * 3_600_000)); // past the deposit's approval window
    expect(ep.hits(documented.easypaisaInquiry)).toBeGreaterThanOrEqual(asked + 2);
    expect(await lookup(m, r.json.merchantReference)).toMatchObject({ status: 'Pending' });
    ep.orders.set(orderId, { ...order, status: 'PAID' });
    await sweep(m, later(2 * 24 * 3_600_000));
    expect(await lookup(m, r.json.merchantReference)).toMatchObject({ status: 'Completed' });
  });

  describe('an Easypaisa charge whose answer is lost (a timeout, a cut connection, a 5xx)', () => {
    const ep = () => live.providers.easypaisa;
    const charges = (orderId: string) =>
      ep()
        .received(documented.easypaisaCharge)
        .filter((e) => jsonOf(e).orderId === orderId);

    it('the customer approved: recorded Pending, Completed once through the inquiry, credited once; a retry is refused', async () => {
      const m = await merchant();
      // 8888: the emulator charges and the customer pays, then the connection closes without an answer.
      const body = { walletProvider: 2, amount: 500, mobileNumber: '03451238888', orderRef: { orderRef: ref('LD') } };
      const r = await deposit(m, body);
      expect(r.status, r.text).toBe(200);
      expect(r.json.walletChargeInfo).toMatchObject({ provider: 'Easypaisa', status: 'Pending', isSuccess: true, errorCode: null });
      const orderId = r.json.walletChargeInfo.transactionReference as string;
      expect(ep().orders.get(orderId)?.status).toBe('PAID');
      const retry = await deposit(m, body);
      expect(retry.status).toBe(422);
      expect(retry.json.code).toBe('duplicate_order_ref');
      await sweep(m, later(10_000));
      const done = await eventually(
        () => lookup(m, body.orderRef.orderRef),
        (t) => t.status === 'Completed',
      );
      expect(done.amount).toBe(500);
      await sweep(m, later(60_000));
      await sweep(m, later(10 * 60_000));
      expect(charges(orderId)).toHaveLength(1);
      const fee = (await getIntent(r.json.paymentIntentId))!.feeMinor;
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(500_00 - fee);
      await webhookFor(r.json.paymentIntentId, 'Completed');
      expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
    });

    it('a charge request that times out (a short configured timeout, never 60 s here) is settled the same way', async () => {
      configureLiveProviders({ ...live.providers.config, easypaisa: { ...live.providers.config.easypaisa!, timeoutMs: 300 } });
      try {
        const m = await merchant();
        ep().failNext(documented.easypaisaCharge, 'slow'); // processed, answered after 2 s: past the 300 ms
        const started = Date.now();
        const r = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber: '03451230000' });
        expect(r.status, r.text).toBe(200);
        expect(Date.now() - started).toBeLessThan(2_000);
        // Recorded before the request, the charge can be settled by Easypaisa's notification (sent once it is paid) before
        // the request answers: then the answer already says Completed.
        expect(['Pending', 'Completed']).toContain(r.json.walletChargeInfo.status);
        await sweep(m, later(10_000));
        await eventually(
          () => lookup(m, r.json.merchantReference),
          (t) => t.status === 'Completed',
        );
        const fee = (await getIntent(r.json.paymentIntentId))!.feeMinor;
        expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(500_00 - fee);
      } finally {
        configureLiveProviders(live.providers.config);
      }
    });

    it('the customer never approved, or Easypaisa never got it: Failed or Expired once the window ends, nothing credited', async () => {
      const m = await merchant();
      const lost = async (mobileNumber: string, fault: 'drop' | '5xx') => {
        ep().failNext(documented.easypaisaCharge, fault);
        const r = await deposit(m, { walletProvider: 2, amount: 500, mobileNumber });
        expect(r.status, r.text).toBe(200);
        expect(r.json.walletChargeInfo).toMatchObject({ status: 'Pending' });
        return { orderRef: r.json.merchantReference as string, orderId: r.json.walletChargeInfo.transactionReference as string };
      };
      const refused = await lost('03451231111', 'drop'); // the customer refused on the handset: the inquiry says FAILED
      const unanswered = await lost('03451234444', 'drop'); // never approved: PENDING until the window ends
      const neverReceived = await lost('03451230000', '5xx'); // not processed: the inquiry answers 0003, no such order
      expect(ep().orders.has(neverReceived.orderId)).toBe(false);
      await sweep(m, later(60_000));
      expect(await lookup(m, refused.orderRef)).toMatchObject({ status: 'Failed' });
      expect(await lookup(m, unanswered.orderRef)).toMatchObject({ status: 'Pending' });
      expect(await lookup(m, neverReceived.orderRef)).toMatchObject({ status: 'Pending' }); // "no such order" waits for the window
      await sweep(m, later(6 * 60_000));
      expect(await lookup(m, unanswered.orderRef)).toMatchObject({ status: 'Expired' });
      expect(await lookup(m, neverReceived.orderRef)).toMatchObject({ status: 'Expired' });
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
      expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
    });

    it('hosted checkout: the page waits for the approval, then Completed; no second charge on the session meanwhile', async () => {
      const m = await merchant();
      const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }), { mode: 'live' });
      expect(created.status, created.text).toBe(200);
      const id = created.json.paymentIntentId as string;
      const path = pagePath(created.json.checkoutUrl);
      const page = await getPage(gw.baseUrl, path);
      const first = await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '2', mobileNumber: '03451238888' });
      expect(first.status, first.html).toBe(303);
      const waiting = await getPage(gw.baseUrl, path);
      expect(waiting.html).toContain('Approve the payment on your phone');
      const again = await postForm(gw.baseUrl, `${path}/wallet`, { csrf: page.csrf!, provider: '2', mobileNumber: '03451230000' });
      expect(again.status).toBe(422);
      expect(again.html).toContain('waiting for your approval');
      const orderId = checkoutDetails((await getIntent(id))!).wallet!.providerReference;
      expect(charges(orderId)).toHaveLength(1);
      const get = async () => (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${id}`, { key: m.live.apiKey })).json;
      expect(await get()).toMatchObject({ status: 'Pending' });
      await sweep(m, later(10_000));
      expect(await get()).toMatchObject({ status: 'Completed', walletProvider: 'Easypaisa' });
      await sweep(m, later(20 * 60_000));
      const fee = (await getIntent(id))!.feeMinor;
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(2000_00 - fee);
      expect(charges(orderId)).toHaveLength(1);
      await webhookFor(id, 'Completed');
      expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
    });

    describe('the attempt is recorded before the charge request (one charge per session, whatever races it)', () => {
      const openPage = async (m: TestMerchant) => {
        const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }), { mode: 'live' });
        expect(created.status, created.text).toBe(200);
        const path = pagePath(created.json.checkoutUrl);
        return { id: created.json.paymentIntentId as string, path, csrf: (await getPage(gw.baseUrl, path)).csrf! };
      };
      const walletForm = (csrf: string, last4: string) => ({ csrf, provider: '2', mobileNumber: `0345123${last4}` });
      const status = async (m: TestMerchant, id: string) =>
        (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${id}`, { key: m.live.apiKey })).json;
      const settled = async (m: TestMerchant, id: string, expected: string) => {
        const paid = await eventually(
          async () => {
            await sweep(m, later(40 * 60_000));
            return status(m, id);
          },
          (t) => t.status === expected,
        );
        expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
        return paid;
      };

      it('two wallet attempts at once on one session (two tabs): exactly one charge reaches Easypaisa, the other is a 422', async () => {
        const m = await merchant();
        const { id, path, csrf } = await openPage(m);
        ep().failNext(documented.easypaisaCharge, 'slow'); // the first request is still running when the second comes
        const answers = await Promise.all([0, 1].map(() => postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '0000'))));
        expect(answers.map((a) => a.status).sort()).toEqual([303, 422]);
        expect(answers.find((a) => a.status === 422)!.html).toContain('waiting for your approval');
        const orderId = checkoutDetails((await getIntent(id))!).wallet!.providerReference;
        expect(charges(orderId)).toHaveLength(1);
        const paid = await settled(m, id, 'Completed');
        expect(paid).toMatchObject({ walletProvider: 'Easypaisa' });
        const fee = (await getIntent(id))!.feeMinor;
        expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(2000_00 - fee);
        expect(charges(orderId)).toHaveLength(1);
      });

      it('a card payment while the wallet charge request is running is refused (422); the wallet charge alone is paid', async () => {
        const m = await merchant();
        const { id, path, csrf } = await openPage(m);
        const jc = live.providers.jazzcash;
        const cardCalls = () => [jazzCashPaths.cardEnrollment, jazzCashPaths.cardAuthorize].map((p) => jc.hits(p));
        const cardBefore = cardCalls();
        const sent = ep().hits(documented.easypaisaCharge);
        ep().failNext(documented.easypaisaCharge, 'slow');
        const wallet = postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '0000'));
        // The charge request has reached Easypaisa and has not been answered: the customer pays by card in another tab.
        await eventually(
          async () => ep().hits(documented.easypaisaCharge),
          (n) => n > sent,
        );
        const card = await postForm(gw.baseUrl, `${path}/card`, {
          csrf,
          name: 'Ayesha Khan',
          number: '4000 0000 0000 3055', // frictionless: authorised at once, were it let through
          expiry: '12/34',
          cvc: '123',
        });
        expect(card.status).toBe(422);
        expect(card.html).toContain('waiting for your approval');
        expect((await wallet).status).toBe(303);
        expect(cardCalls()).toEqual(cardBefore); // the card provider was never called
        expect(checkoutDetails((await getIntent(id))!).cardAuth).toBeUndefined();
        const orderId = checkoutDetails((await getIntent(id))!).wallet!.providerReference;
        expect(charges(orderId)).toHaveLength(1);
        expect(await settled(m, id, 'Completed')).toMatchObject({ walletProvider: 'Easypaisa' });
      });

      it('a crash right after the attempt was recorded (before the request): the sweep ends it Expired, nothing charged', async () => {
        const m = await merchant();
        const { id, path, csrf } = await openPage(m);
        const fault = armFault(1, (point) => point === 'provider:wallet_2.startCharge');
        try {
          const crashed = await postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '0000'));
          expect(crashed.status).toBe(500);
          expect(fault.fired()).toBe('provider:wallet_2.startCharge');
        } finally {
          fault.disarm();
        }
        const wallet = checkoutDetails((await getIntent(id))!).wallet!;
        expect(wallet).toMatchObject({ stage: 'approval', requesting: true, chargeUnanswered: true });
        expect(charges(wallet.providerReference)).toHaveLength(0);
        // Refused meanwhile: the attempt holds the session until the sweep settles it.
        const again = await postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '0000'));
        expect(again.status).toBe(422);
        await settled(m, id, 'Expired');
        expect(charges(wallet.providerReference)).toHaveLength(0);
        expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
      });

      it('sandbox: a charge to …2222 refused at request time, its refusal lost in a crash: Expired by the sweep, never paid', async () => {
        const m = await merchant();
        const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }), { mode: 'test' });
        expect(created.status, created.text).toBe(200);
        const id = created.json.paymentIntentId as string;
        const path = pagePath(created.json.checkoutUrl);
        const csrf = (await getPage(gw.baseUrl, path)).csrf!;
        const fault = armFault(1, (point) => point === 'provider-done:wallet_1.startCharge');
        try {
          expect((await postForm(gw.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: '03001232222' })).status).toBe(500);
          expect(fault.fired()).toBe('provider-done:wallet_1.startCharge');
        } finally {
          fault.disarm();
        }
        expect(checkoutDetails((await getIntent(id))!).wallet).toMatchObject({ stage: 'approval', requesting: true });
        // The sandbox, like a live provider, has no charge it refused: the attempt ends at its approval deadline, unpaid.
        for (const minutes of [1, 40]) await sweep(m, later(minutes * 60_000));
        expect((await getIntent(id))!.status).toBe('Expired');
        expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
      });

      it('a crash after Easypaisa took the charge, before its answer was recorded: the sweep completes it, credited once', async () => {
        const m = await merchant();
        const { id, path, csrf } = await openPage(m);
        const fault = armFault(1, (point) => point === 'provider-done:wallet_2.startCharge');
        try {
          expect((await postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '0000'))).status).toBe(500);
          expect(fault.fired()).toBe('provider-done:wallet_2.startCharge');
        } finally {
          fault.disarm();
        }
        const wallet = checkoutDetails((await getIntent(id))!).wallet!;
        expect(wallet).toMatchObject({ requesting: true });
        expect(ep().orders.get(wallet.providerReference)?.status).toBe('PAID');
        await settled(m, id, 'Completed');
        const fee = (await getIntent(id))!.feeMinor;
        expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(2000_00 - fee);
        expect(charges(wallet.providerReference)).toHaveLength(1);
      });

      it('a refusal at request time ends the attempt: the session is payable again, by card', async () => {
        const m = await merchant();
        const { id, path, csrf } = await openPage(m);
        const refused = await postForm(gw.baseUrl, `${path}/wallet`, walletForm(csrf, '1111'));
        expect(refused.status).toBe(422);
        expect(checkoutDetails((await getIntent(id))!).wallet ?? undefined).toBeUndefined();
        const card = await postForm(gw.baseUrl, `${path}/card`, {
          csrf: (await getPage(gw.baseUrl, path)).csrf!,
          name: 'Ayesha Khan',
          number: '4000 0000 0000 3055',
          expiry: '12/34',
          cvc: '123',
        });
        expect(card.status, card.html).toBe(303);
        expect(await status(m, id)).toMatchObject({ status: 'Completed', card: { last4: '3055' } });
      });
    });
  });

  it('an Easypaisa charge is confirmed by the inquiry of any Lambda, cold or warm: nothing it sends lives in memory', async () => {
    const m = await merchant();
    const r = await deposit(m, { walletProvider: 2, amount: 500 });
    expect(r.status, r.text).toBe(200);
    // Another Lambda (or this one after a cold start): a fresh adapter from the same configuration.
    const cold = easypaisaWallet(live.providers.config.easypaisa!);
    expect(await cold.statusInquiry(r.json.walletChargeInfo.transactionReference, new Date())).toMatchObject({ status: 'Approved' });
  });

  it('JazzCash wallet requests: the documented paths and fields, upper-case pp_SecureHash, no refund reference', async () => {
    const { m, deposit: paid } = await fundedMerchant(1000);
    const jc = live.providers.jazzcash;
    const cfg = live.providers.config.jazzcash!;
    const reference = paid.walletChargeInfo.transactionReference as string;
    const charge = jsonOf(jc.received(documented.charge).at(-1)!);
    expect(charge.pp_TxnRefNo).toBe(reference);
    expect(sortedKeys(charge)).toEqual(
      [
        'pp_Language',
        'pp_MerchantID',
        'pp_Password',
        'pp_TxnRefNo',
        'pp_MobileNumber',
        'pp_CNIC',
        'pp_Amount',
        'pp_TxnCurrency',
        'pp_TxnDateTime',
        'pp_BillReference',
        'pp_Description',
        'pp_TxnExpiryDateTime',
        'pp_SecureHash',
      ].sort(),
    );
    expect(charge).toMatchObject({ pp_CNIC: '345671', pp_Amount: '100000', pp_TxnCurrency: 'PKR', pp_MobileNumber: '03001230000' });
    expect(charge.pp_TxnDateTime).toMatch(/^\d{14}$/);
    // S8's worked example: the digest in upper-case hex.
    expect(charge.pp_SecureHash).toMatch(/^[0-9A-F]{64}$/);
    expect(charge.pp_SecureHash).toBe(jazzCashSecureHash(charge, cfg.integritySalt));
    const inquiry = jsonOf(jc.received(documented.inquiry).at(-1)!);
    // R3's recorded request (scripts/emulators/recorded.ts): pp_Version "1.1" with the ApplicationAPI inquiry.
    expect(sortedKeys(inquiry)).toEqual(['pp_MerchantID', 'pp_Password', 'pp_SecureHash', 'pp_TxnRefNo', 'pp_Version']);
    expect(inquiry.pp_Version).toBe('1.1');
    expect(inquiry.pp_SecureHash).toMatch(/^[0-9A-F]{64}$/);

    const created = await live.refund(m, paid.paymentIntentId, 250, later(1_000));
    expect(created.done).toMatchObject({ status: 3 });
    const refund = jsonOf(jc.received(documented.walletRefund).at(-1)!);
    // The payment is the key: no refund reference of ours (four field lists agree), the merchant's MPIN.
    expect(sortedKeys(refund)).toEqual(
      ['pp_Amount', 'pp_MerchantID', 'pp_MerchantMPIN', 'pp_Password', 'pp_SecureHash', 'pp_TxnCurrency', 'pp_TxnRefNo'].sort(),
    );
    expect(refund).toMatchObject({ pp_TxnRefNo: reference, pp_Amount: '25000', pp_TxnCurrency: 'PKR', pp_MerchantMPIN: cfg.mpin });
    expect(refund.pp_SecureHash).toMatch(/^[0-9A-F]{64}$/);
  });

  it("the JazzCash emulator refuses a repeated pp_TxnRefNo with 422 (S2's duplication code), not 124", async () => {
    const m = await merchant();
    const r = await deposit(m, {});
    expect(r.status, r.text).toBe(200);
    const jc = live.providers.jazzcash;
    const first = jsonOf(jc.received(documented.charge).at(-1)!);
    const again = await fetch(`${jc.url}${documented.charge}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(first),
    }).then((a) => a.json() as Promise<Record<string, string>>);
    expect(again).toMatchObject({ pp_ResponseCode: '422', pp_TxnRefNo: first.pp_TxnRefNo });
  });

  it('hosted checkout, JazzCash wallet option: no code step in live mode; approved → Completed with its webhook', async () => {
    const m = await merchant();
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000 }), { mode: 'live' });
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(gw.baseUrl, path);
    const form = { csrf: page.csrf!, provider: '1', mobileNumber: '03001230000', cnicLast6: '345671' };
    expect((await postForm(gw.baseUrl, `${path}/wallet`, form)).status).toBe(303);
    // Live providers send no one-time code: the page goes straight to "approve on your phone".
    const waiting = await getPage(gw.baseUrl, path);
    expect(waiting.html).toContain('Approve the payment on your phone');
    expect(waiting.html).not.toContain('name="otp"');
    const id = created.json.paymentIntentId as string;
    const get = async () => (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${id}`, { key: m.live.apiKey })).json;
    // The emulated customer approves about 100 ms after the request: sweep until the inquiry says so.
    const done = await eventually(
      async () => {
        await sweep(m, later(10_000));
        return get();
      },
      (t) => t.status === 'Completed',
    );
    expect(done).toMatchObject({ status: 'Completed', walletProvider: 'JazzCash' });
    await webhookFor(id, 'Completed');
  });

  it('hosted checkout, JazzCash: the merchant’s customerRef.cnic, else the page asks for the last six digits (kept nowhere)', async () => {
    const m = await merchant();
    const pay = async (body: Record<string, unknown>, form: Record<string, string>) => {
      const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 2000, ...body }), { mode: 'live' });
      expect(created.status, created.text).toBe(200);
      const path = pagePath(created.json.checkoutUrl);
      const page = await getPage(gw.baseUrl, path);
      const posted = await postForm(gw.baseUrl, `${path}/wallet`, {
        csrf: page.csrf!,
        provider: '1',
        mobileNumber: '03001230000',
        ...form,
      });
      const id = created.json.paymentIntentId as string;
      return { page, posted, id, intent: await getIntent(id) };
    };
    const given = await pay({ customerRef: { cnic: '3520212345671' } }, {});
    expect(given.page.html).not.toContain('name="cnicLast6"');
    expect(given.posted.status).toBe(303);
    expect(live.providers.jazzcash.charges.get(checkoutDetails(given.intent!).wallet!.providerReference)?.cnic).toBe('345671');

    const charges = live.providers.jazzcash.hits(jazzCashPaths.charge);
    for (const typed of [undefined, '', '12345', 'abcdef']) {
      const missing = await pay({}, typed === undefined ? {} : { cnicLast6: typed });
      expect(missing.page.html).toContain('<label for="wallet-cnic">Last 6 digits of your CNIC');
      expect(missing.page.html).toMatch(
        /<input type="text" id="wallet-cnic" name="cnicLast6" autocomplete="off" inputmode="numeric" pattern="\[0-9\]\{6\}"/,
      );
      expect(missing.posted.status).toBe(400);
      expect(missing.posted.html).toContain('id="wallet-cnicLast6-error"');
      expect(missing.posted.html).toContain('Enter the last 6 digits of your CNIC.');
      expect(checkoutDetails(missing.intent!).wallet ?? null).toBeNull();
    }
    expect(live.providers.jazzcash.hits(jazzCashPaths.charge)).toBe(charges); // nothing was sent to JazzCash

    const typed = await pay({}, { cnicLast6: '987654' });
    expect(typed.posted.status).toBe(303);
    expect(live.providers.jazzcash.charges.get(checkoutDetails(typed.intent!).wallet!.providerReference)?.cnic).toBe('987654');
    expect(JSON.stringify(typed.intent)).not.toContain('987654'); // not stored
  });

  it('refund of a JazzCash payment: paid through the MWallet refund API, Completed, refunded once', async () => {
    const { m, deposit: paid } = await fundedMerchant(1000);
    const created = await live.refund(m, paid.paymentIntentId, 400, later(1_000));
    expect(created.done).toMatchObject({ status: 3, attemptCount: 1 });
    expect(live.providers.jazzcash.charges.get(paid.walletChargeInfo.transactionReference)?.refundedMinor).toBe(400_00);
    expect(
      (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${paid.paymentIntentId}`, { key: m.live.apiKey })).json.refundedAmount,
    ).toBe(400);
    await advanceRefund(created.id, later(120_000)); // nothing more happens
    expect(live.providers.jazzcash.charges.get(paid.walletChargeInfo.transactionReference)?.refundedMinor).toBe(400_00);
  });

  it('JazzCash refunds a payment once: a lost answer is settled by the payment inquiry (131), a second refund is refused', async () => {
    const { m, deposit: paid } = await fundedMerchant(1000);
    const refund = (amount: number) =>
      call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
        key: m.live.apiKey,
        secret: m.live.secretKey,
        body: { trxnRef: paid.paymentIntentId, amount, reason: 'Returned' },
      });
    const created = await refund(300);
    expect(created.status, created.text).toBe(201);
    await approveRefund(created.json.id);
    live.providers.jazzcash.failNext(jazzCashPaths.refund, 'drop'); // processed, answer lost
    const submits = live.providers.jazzcash.hits(jazzCashPaths.refund);
    await advanceRefund(created.json.id, later(1_000));
    const done = await advanceRefund(created.json.id, later(120_000));
    expect(done).toMatchObject({ status: 3, attemptCount: 1 });
    expect(live.providers.jazzcash.hits(jazzCashPaths.refund)).toBe(submits + 1); // never sent again
    expect(live.providers.jazzcash.charges.get(paid.walletChargeInfo.transactionReference)?.refundedMinor).toBe(300_00);
    // JazzCash takes no second (partial) refund of a payment (S2: 451): refused when requested, nothing reserved.
    const second = await refund(100);
    expect(second.status, second.text).toBe(422);
    expect(second.json).toMatchObject({ code: 'refund_provider_unavailable' });
    expect(second.json.detail).toContain('refunds a payment once');
    expect((await lookup(m, paid.merchantReference)).refundedAmount).toBe(300);
  });

  it('an account on the Payment Orchestrator paths: charge and inquiry there; refunds refused until their paths are given', async () => {
    const base = live.providers.config;
    const jc = live.providers.jazzcash;
    const onOrchestrator = (paths?: Record<string, string>) =>
      configureLiveProviders({ ...base, jazzcash: { ...base.jazzcash!, pathFamily: 'paymentOrchestrator', ...(paths ? { paths } : {}) } });
    try {
      onOrchestrator();
      const before = { charge: jc.hits(documented.charge), inquiry: jc.hits(documented.inquiry) };
      const { m, deposit: paid } = await fundedMerchant(1000);
      const charge = jc.received(documented.orchestratorCharge).at(-1)!;
      expect(jsonOf(charge)).toMatchObject({ pp_TxnRefNo: paid.walletChargeInfo.transactionReference, pp_CNIC: '345671' });
      // S9's request: no pp_Version on the orchestrator's inquiry.
      expect(sortedKeys(jsonOf(jc.received(documented.orchestratorInquiry).at(-1)!))).toEqual([
        'pp_MerchantID',
        'pp_Password',
        'pp_SecureHash',
        'pp_TxnRefNo',
      ]);
      expect({ charge: jc.hits(documented.charge), inquiry: jc.hits(documented.inquiry) }).toEqual(before);
      const refund = () =>
        call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
          key: m.live.apiKey,
          secret: m.live.secretKey,
          body: { trxnRef: paid.paymentIntentId, amount: 400, reason: 'Returned' },
        });
      const refused = await refund();
      expect(refused.status, refused.text).toBe(422);
      expect(refused.json).toMatchObject({ code: 'refund_provider_unavailable' });
      expect(refused.json.detail).toContain('Payment Orchestrator');
      // The refund path JazzCash gives the account at onboarding (here the emulator's wallet refund path).
      onOrchestrator({ refund: documented.walletRefund });
      const created = await live.refund(m, paid.paymentIntentId, 400, later(1_000));
      expect(created.done).toMatchObject({ status: 3 });
      expect(jc.received(documented.walletRefund).at(-1)!.body).toContain(paid.walletChargeInfo.transactionReference);
    } finally {
      configureLiveProviders(base);
    }
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

    it('an answer that leaves the outcome open (G2P-T-500) is settled by the inquiry, never refused and paid again', async () => {
      const { m } = await fundedMerchant(2000);
      const w = await withdraw(m, {}, { bankAccountNumber: '03001235000' });
      expect(w.status, w.text).toBe(200);
      expect(w.json.payoutInfo).toMatchObject({ status: 'Processing', errorCode: 'WP_OUTCOME_PENDING' });
      const submits = live.providers.jazzcash.hits(jazzCashPaths.disburse);
      await sweep(m, later(60_000));
      await sweep(m, later(120_000));
      const done = await lookup(m, w.json.merchantReference);
      expect(done).toMatchObject({ status: 'Completed' });
      expect(live.providers.jazzcash.hits(jazzCashPaths.disburse)).toBe(submits);
      expect(live.providers.jazzcash.paidOut.get(done.transactionReference)).toBe(1);
      await webhookFor(w.json.paymentIntentId, 'Completed');
    });

    it('the disbursement requests: Basic client credentials for the token, the documented paths and encrypted fields', async () => {
      const { m } = await fundedMerchant(2000);
      const w = await withdraw(m, {}, {});
      expect(w.status, w.text).toBe(200);
      await sweep(m, later(60_000));
      expect(await lookup(m, w.json.merchantReference)).toMatchObject({ status: 'Completed' });
      const jc = live.providers.jazzcash;
      const d = live.providers.config.jazzcash!.disbursement!;
      const token = jc.received(documented.token).at(-1)!;
      expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${d.clientId}:${d.clientSecret}`).toString('base64')}`);
      expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({ grant_type: 'client_credentials' });
      const decrypted = (path: string) => {
        const sent = jc.received(path).at(-1)!;
        expect(sent.headers.authorization).toMatch(/^Bearer \S+$/);
        expect(sortedKeys(jsonOf(sent))).toEqual(['data']);
        return disbursementDecrypt<Record<string, string>>(jsonOf(sent).data!, d.aesKey, d.aesIv);
      };
      const reference = (await lookup(m, w.json.merchantReference)).transactionReference as string;
      // receiverCNIC with every transfer (R7, D1): the receiver's CNIC from customerRef.cnic.
      expect(decrypted(documented.disburse)).toEqual({
        receiverCNIC: receiverCnic,
        receiverMSISDN: '03001230000',
        amount: '300.00',
        referenceId: reference,
      });
      const inquiry = decrypted(documented.disbursementInquiry);
      expect(sortedKeys(inquiry)).toEqual(['originalReferenceId', 'referenceID']);
      expect(inquiry.originalReferenceId).toBe(reference);
    });

    it('a repeated referenceId is answered G2P-T-13 (D1) and taken as an unknown outcome: the inquiry settles it, paid once', async () => {
      const rail = jazzCashDisbursementRail(live.providers.config.jazzcash!);
      const payout = {
        reference: ref('WDUP'),
        amountMinor: 300_00,
        currency: 'PKR' as const,
        bankCode: 'JAZZCASH',
        accountNumber: '03001230000',
        accountTitle: 'Ayesha Khan',
        receiverCnic,
        description: 'Payout',
        submittedAt: new Date().toISOString(),
      };
      expect(await rail.submit(payout)).toMatchObject({ outcome: 'accepted' });
      expect(await rail.submit(payout)).toEqual({ outcome: 'unknown' });
      expect(await rail.status(payout)).toMatchObject({ status: 'Completed' });
      expect(live.providers.jazzcash.paidOut.get(payout.reference)).toBe(1);
    });

    it("a live JazzCash wallet payout takes the receiver's CNIC: without it a 400 naming customerRef.cnic, nothing held", async () => {
      const { m } = await fundedMerchant(2000);
      const before = await getWallet(m.merchantId, 'live', 'PKR', true);
      const r = await withdraw(m, {}, { cnic: undefined });
      expect(r.status, r.text).toBe(400);
      expect(r.json.errors).toHaveProperty(['customerRef.cnic']);
      expect(await getWallet(m.merchantId, 'live', 'PKR', true)).toMatchObject({ available: before.available, held: before.held });
      // JazzCash refuses a wallet number that does not match the CNIC (D1's G2P-T-2010): Failed, the hold released.
      const mismatch = await withdraw(m, {}, { cnic: '3520212342010' });
      expect(mismatch.status, mismatch.text).toBe(200);
      expect(mismatch.json.payoutInfo).toMatchObject({ status: 'Failed', errorCode: 'WP_REQUEST_REJECTED' });
      expect(mismatch.json.payoutInfo.errorDetails).toContain('G2P-T-2010');
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(before.available);
    });

    it('the disbursement emulator refuses a transfer without receiverCNIC (G2P-T-98, as D1), so an adapter omitting it fails', async () => {
      const cfg = live.providers.config.jazzcash!;
      const { receiverCnic: _, ...withoutCnic } = {
        reference: ref('WNOC'),
        amountMinor: 300_00,
        currency: 'PKR' as const,
        bankCode: 'JAZZCASH',
        accountNumber: '03001230000',
        accountTitle: 'Ayesha Khan',
        receiverCnic,
        description: 'Payout',
        submittedAt: new Date().toISOString(),
      };
      // An adapter that sent no CNIC would be refused: the rail itself refuses before calling, and the emulator answers 98.
      expect(await jazzCashDisbursementRail(cfg).submit(withoutCnic)).toMatchObject({ outcome: 'rejected' });
      expect(jazzCashDisbursementRail(cfg).requires?.({ bankCode: 'JAZZCASH' })).toEqual(['receiverCnic']);
      const d = cfg.disbursement!;
      const jc = live.providers.jazzcash;
      const basic = Buffer.from(`${d.clientId}:${d.clientSecret}`).toString('base64');
      const token = (await (
        await fetch(`${jc.url}${documented.token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
          body: 'grant_type=client_credentials',
        })
      ).json()) as { access_token: string };
      const send = async (payload: Record<string, string>) => {
        const answer = await fetch(`${jc.url}${documented.disburse}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}` },
          body: JSON.stringify({ data: disbursementEncrypt(payload, d.aesKey, d.aesIv) }),
        });
        return disbursementDecrypt<Record<string, string>>(((await answer.json()) as { data: string }).data, d.aesKey, d.aesIv);
      };
      const referenceId = ref('WRAW');
      expect(await send({ receiverMSISDN: '03001230000', amount: '300.00', referenceId })).toMatchObject({ responseCode: 'G2P-T-98' });
      expect(live.providers.jazzcash.paidOut.get(referenceId)).toBeUndefined();
    });

    it('a Pending JazzCash payout requested without a CNIC: approval refused until the operator gives one, then paid with it', async () => {
      const { m } = await fundedMerchant(2000);
      // A payout requested before payouts needed the CNIC: its rail did not ask for it then.
      const rail = jazzCashDisbursementRail(live.providers.config.jazzcash!);
      configureRail('payout', 'live', { ...rail, requires: undefined });
      const w = await withdraw(m, { autoProcessPayout: false }, { cnic: undefined });
      configureLiveProviders(live.providers.config);
      expect(w.status, w.text).toBe(200);
      const refused = await operatorApproveWithdrawal(w.json.paymentIntentId).catch((e: unknown) => e);
      expect(refused).toMatchObject({ category: 'invalid', errors: { 'customerRef.cnic': expect.any(Array) } });
      expect((await lookup(m, w.json.merchantReference)).status).toBe('Pending');
      await expect(operatorApproveWithdrawal(w.json.paymentIntentId, undefined, { receiverCnic: '12345' })).rejects.toMatchObject({
        category: 'invalid',
      });
      await operatorApproveWithdrawal(w.json.paymentIntentId, undefined, { receiverCnic });
      await sweep(m, later(60_000));
      const done = await lookup(m, w.json.merchantReference);
      expect(done.status).toBe('Completed');
      const sent = live.providers.jazzcash.received(documented.disburse).at(-1)!;
      const d = live.providers.config.jazzcash!.disbursement!;
      expect(disbursementDecrypt<Record<string, string>>(jsonOf(sent).data!, d.aesKey, d.aesIv)).toMatchObject({
        receiverCNIC: receiverCnic,
        referenceId: done.transactionReference,
      });
      // The CNIC the operator gave is not kept once the payout is final.
      expect(JSON.stringify((await getIntent(w.json.paymentIntentId))?.details)).not.toContain(receiverCnic);
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
