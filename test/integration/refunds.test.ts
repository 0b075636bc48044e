import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { changeMerchant } from '#shared/store/merchants.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { advanceRefund, approveRefund, cancelRefund, rejectRefund } from '#shared/services/refunds.ts';
import type { Rail, StatusAnswer } from '#shared/providers/rail.ts';
import { configureRail } from '#shared/providers/rails.ts';
import { sandboxRefundProvider, type RefundInstruction, type RefundRail } from '#shared/providers/refund-provider.ts';
import type { RefundableIntent } from '#shared/domain/refund.ts';
import { createRefund, type RefundCaller } from '#shared/services/refund-requests.ts';
import { transact } from '#shared/store/client.ts';
import { getIntent, listEvents } from '#shared/store/intents.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { seedIntent } from '../support/intents.ts';
import { completedPayment, expectLedgerConsistent } from '../support/money.ts';

type RefundProvider = Rail<RefundInstruction>;
type RefundStatusResult = StatusAnswer;
const configureRefundProvider = (mode: 'test' | 'live', provider: RefundProvider) => configureRail('refund', mode, provider);

describe('refunds', () => {
  const gw = useGateway(routeList);
  const refund = (m: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', { key: m.test.apiKey, secret: m.test.secretKey, body, headers });
  const get = (m: TestMerchant, path: string, key = m.test.apiKey) => call(gw.baseUrl, 'GET', `/Gateway/v1${path}`, { key });
  const balance = async (m: TestMerchant) =>
    (await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey })).json;
  /** Approve, then step the refund until it is terminal (what the sweeper does every 2 s), time moving on. */
  const approveAndProcess = async (id: string) => {
    await approveRefund(id);
    let t = Date.now();
    for (let i = 0; i < 8; i++) {
      const r = await advanceRefund(id, new Date((t += 3_000)));
      if (r && r.status >= 3) return r;
    }
    throw new Error('refund not processed');
  };

  it('refunds part of a payment and then the rest; the wallet, ledger and refundedAmount add up', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 150_00);
    const first = await refund(m, { trxnRef: payment.orderRef.orderRef, amount: 40, reason: 'Damaged item' });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      paymentIntentId: payment.paymentIntentId,
      amount: 40,
      currency: 'PKR',
      reason: 'Damaged item',
      status: 0,
      attemptCount: 0,
      isLive: false,
      approvedAt: null,
      processedAt: null,
    });
    const rest = await refund(m, { trxnRef: payment.transactionReference });
    expect(rest.status).toBe(201);
    expect(rest.json).toMatchObject({ amount: 110, status: 0, reason: null });
    const none = await refund(m, { trxnRef: payment.paymentIntentId });
    expect(none.status).toBe(422);
    expect(none.json).toMatchObject({ code: 'already_refunded', detail: expect.stringMatching(/already refunded/) });

    // Nothing is held while Pending; approval holds, completion debits.
    expect(await balance(m)).toMatchObject({ availableBalance: 150, pendingBalance: 0 });
    await approveRefund(first.json.id);
    expect(await balance(m)).toMatchObject({ availableBalance: 110, pendingBalance: 40, pendingByTransactionType: { Refund: 40 } });
    let t = Date.now();
    const done = await advanceRefund(first.json.id, new Date((t += 1_000)));
    expect(done).toMatchObject({ status: 3, attemptCount: 1 });
    expect((await get(m, `/Transaction/${payment.paymentIntentId}`)).json.refundedAmount).toBe(40);
    expect((await approveAndProcess(rest.json.id)).status).toBe(3);

    const read = await get(m, `/Refunds/${first.json.id}`);
    expect(read.json).toMatchObject({ status: 3, attemptCount: 1, approvedAt: expect.any(String), processedAt: expect.any(String) });
    const transaction = await get(m, `/Transaction/by-ref/${payment.orderRef.orderRef}`);
    expect(transaction.json).toMatchObject({ status: 'Completed', amount: 150, refundedAmount: 150 });
    expect(await balance(m)).toMatchObject({ availableBalance: 0, pendingBalance: 0 });
    const ledger = await expectLedgerConsistent(m.merchantId, 'test');
    expect(ledger.external('refund_rail')).toBe(150_00);

    const list = await get(m, `/Refunds?trxnRef=${payment.orderRef.orderRef}`);
    expect(list.json).toMatchObject({
      totalCount: 2,
      page: 1,
      pageSize: 20,
      totalPages: 1,
      hasMore: false,
      amount: 150,
      refundedAmount: 150,
      refundableAmount: 0,
      paymentIntentId: payment.paymentIntentId,
    });
    expect(list.json.items.map((r: { id: string }) => r.id)).toEqual([rest.json.id, first.json.id]);
    const paged = await get(m, `/Refunds?trxnref=${payment.transactionReference}&PageSize=1&Page=2`);
    expect(paged.json).toMatchObject({ totalPages: 2, hasMore: false });
    expect(paged.json.items.map((r: { id: string }) => r.id)).toEqual([first.json.id]);
  });

  it('enforces the rules: minimum 10, reason <= 500, the remainder, Completed checkouts and deposits only', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 100_00);
    const ref = payment.orderRef.orderRef;
    expect((await refund(m, { trxnRef: ref, amount: 9.99 })).json).toMatchObject({ status: 422, code: 'amount_below_minimum' });
    expect((await refund(m, { trxnRef: ref, amount: 0 })).json).toMatchObject({ status: 422, code: 'amount_below_minimum' });
    expect((await refund(m, { trxnRef: ref, amount: 100.01 })).json).toMatchObject({ status: 422, code: 'amount_exceeds_refundable' });
    expect((await refund(m, { trxnRef: ref, amount: -5 })).json).toMatchObject({ status: 422, code: 'amount_below_minimum' });
    const malformed: [Record<string, unknown>, string][] = [
      [{ trxnRef: ref, reason: 'x'.repeat(501) }, 'reason'],
      [{ trxnRef: ref, amount: 10.001 }, 'amount'],
      [{ trxnRef: ref, amount: '10' }, 'amount'],
      [{ amount: 10 }, 'trxnRef'],
    ];
    for (const [body, field] of malformed) {
      const r = await refund(m, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(r.json.errors)).toContain(field);
    }
    expect((await refund(m, { trxnRef: ref, amount: 10, reason: 'x'.repeat(500) })).status).toBe(201);

    const pending = await seedIntent(m.merchantId, 'test');
    expect((await refund(m, { trxnRef: pending.orderRef.orderRef })).json).toMatchObject({ status: 422, code: 'not_refundable' });
    const payout = await completedPayment(m.merchantId, 'test', 500_00, { intentType: 'withdrawal' });
    expect((await refund(m, { trxnRef: payout.paymentIntentId })).json).toMatchObject({ status: 422, code: 'not_refundable' });
    const deposit = await completedPayment(m.merchantId, 'test', 200_00, { intentType: 'deposit' });
    expect((await refund(m, { trxnRef: deposit.transactionReference, amount: 20 })).status).toBe(201);

    expect((await refund(m, { trxnRef: 'NOSUCHORDER' })).status).toBe(404);
    const other = await newMerchant();
    expect((await refund(other, { trxnRef: ref })).status).toBe(404);
    const live = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { trxnRef: ref },
    });
    expect(live.status).toBe(422); // live mode: no refund provider configured in this deployment
    expect(live.json.code).toBe('refund_provider_unavailable');

    // Only what remains: 100 − 10 pending = 90.
    expect((await get(m, `/Refunds?trxnRef=${ref}`)).json.refundableAmount).toBe(90);
  });

  it('never lets concurrent refunds of one transaction exceed its amount', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 150_00);
    const partials = await Promise.all(Array.from({ length: 8 }, () => refund(m, { trxnRef: payment.paymentIntentId, amount: 40 })));
    expect(partials.filter((r) => r.status === 201)).toHaveLength(3); // 3 × 40 = 120 <= 150 < 160
    expect(partials.filter((r) => r.status === 422).every((r) => r.json.code === 'amount_exceeds_refundable')).toBe(true);
    const remainders = await Promise.all(Array.from({ length: 5 }, () => refund(m, { trxnRef: payment.paymentIntentId })));
    const won = remainders.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(won[0]!.json.amount).toBe(30);
    expect(remainders.filter((r) => r.status === 422).every((r) => r.json.code === 'already_refunded')).toBe(true);
    const list = await get(m, `/Refunds?trxnRef=${payment.paymentIntentId}`);
    expect(list.json.items.reduce((s: number, r: { amount: number }) => s + r.amount, 0)).toBe(150);
  });

  it('releases the reservation on reject, cancel and expiry; a terminal refund is never reopened', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 100_00);
    const a = await refund(m, { trxnRef: payment.paymentIntentId, amount: 50 });
    const b = await refund(m, { trxnRef: payment.paymentIntentId, amount: 50 });
    expect((await refund(m, { trxnRef: payment.paymentIntentId })).status).toBe(422);
    expect(await rejectRefund(a.json.id, 'fraud check')).toMatchObject({
      status: 6,
      failureReason: 'Rejected by the operator: fraud check',
    });
    expect(await cancelRefund(b.json.id)).toMatchObject({ status: 5 });
    await expect(approveRefund(a.json.id)).rejects.toThrow(/only a Pending refund/);

    // Expiry needs a refund nobody approves: in test mode the sandbox approves unless the merchant's
    // approvers must (payoutApprovals merchant|both), so this merchant's setting leaves it Pending.
    await changeMerchant(m.merchantId, () => ({ patch: { payoutApprovals: 'merchant' }, result: null }));
    const c = await refund(m, { trxnRef: payment.paymentIntentId });
    expect(c.json.amount).toBe(100);
    expect((await advanceRefund(c.json.id, new Date(Date.now() + 6 * 86_400_000)))?.status).toBe(0);
    expect(await advanceRefund(c.json.id, new Date(Date.now() + 7 * 86_400_000 + 1_000))).toMatchObject({ status: 7 });
    await expect(approveRefund(c.json.id)).rejects.toThrow(/only a Pending refund/);
    expect((await get(m, `/Refunds?trxnRef=${payment.paymentIntentId}`)).json.refundableAmount).toBe(100);
    expect(await balance(m)).toMatchObject({ availableBalance: 100, pendingBalance: 0 });
  });

  it('retries a failed attempt (attemptCount), fails after 3 with the hold released, and refuses approval without balance', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 300_00);
    const flaky = await refund(m, { trxnRef: payment.paymentIntentId, amount: 20.92 }); // sandbox: first attempt fails
    const broken = await refund(m, { trxnRef: payment.paymentIntentId, amount: 30.91 }); // sandbox: every attempt fails
    expect(await approveAndProcess(flaky.json.id)).toMatchObject({ status: 3, attemptCount: 2 });
    const failed = await approveAndProcess(broken.json.id);
    expect(failed).toMatchObject({ status: 4, attemptCount: 3, failureReason: expect.stringMatching(/declined/) });
    expect((await get(m, `/Refunds/${broken.json.id}`)).json).toMatchObject({ status: 4, attemptCount: 3 });
    expect(await balance(m)).toMatchObject({ availableBalance: 279.08, pendingBalance: 0 });
    const list = await get(m, `/Refunds?trxnRef=${payment.paymentIntentId}`);
    expect(list.json).toMatchObject({ refundedAmount: 20.92, refundableAmount: 279.08 });

    // Approval holds from the wallet and never overdraws it: spend the balance, then try.
    const spender = await newMerchant();
    const p2 = await completedPayment(spender.merchantId, 'test', 100_00);
    const r2 = await refund(spender, { trxnRef: p2.paymentIntentId });
    await creditTestWallet(spender.merchantId, 'test', 1, 'PKR');
    const { settlementId } = await (async () => {
      const s = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
        key: spender.test.apiKey,
        secret: spender.test.secretKey,
        body: { amount: 100, bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' },
      });
      return { settlementId: s.json.id as string };
    })();
    expect(settlementId).toBeDefined();
    await expect(approveRefund(r2.json.id)).rejects.toThrow(/Insufficient available balance/);
    expect((await get(spender, `/Refunds/${r2.json.id}`)).json.status).toBe(0);
    await expectLedgerConsistent(m.merchantId, 'test');
    await expectLedgerConsistent(spender.merchantId, 'test');
  });

  it('test mode: the sandbox approves a new refund and it completes by itself, with its events; a short balance waits', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 80_00);
    const r = await refund(m, { trxnRef: payment.paymentIntentId, amount: 30 });
    expect(r.json).toMatchObject({ status: 0, attemptCount: 0 }); // the specification's answer on creation
    const mine = (item: { id: string }) => item.id === r.json.id;
    await processDueSettlementsAndRefunds(new Date(Date.now() + 1_000), mine); // the next pass of the sweeper (every 2 s)
    expect((await get(m, `/Refunds/${r.json.id}`)).json).toMatchObject({ status: 3, attemptCount: 1, approvedAt: expect.any(String) });
    expect((await get(m, `/Transaction/${payment.paymentIntentId}`)).json.refundedAmount).toBe(30);
    expect(await balance(m)).toMatchObject({ availableBalance: 50, pendingBalance: 0 });
    const events = await listEvents({ kind: 'refund', id: r.json.id });
    // Approved, Processing, Completed: each with its RefundStatusChanged event.
    expect(events.map((e) => (e.event.data as { CurrentStatus: number }).CurrentStatus).sort()).toEqual([1, 2, 3]);
    // The operator's approval (the interface's step in both modes) answers with it and changes nothing.
    expect(await approveRefund(r.json.id)).toMatchObject({ id: r.json.id, status: 3, attemptCount: 1 });
    expect(await balance(m)).toMatchObject({ availableBalance: 50, pendingBalance: 0 });

    // A balance too short for the hold: still Pending, asked again a minute later, approved once the money is there.
    const poor = await newMerchant();
    const p2 = await completedPayment(poor.merchantId, 'test', 100_00);
    const r2 = await refund(poor, { trxnRef: p2.paymentIntentId });
    await creditTestWallet(poor.merchantId, 'test', 1, 'PKR');
    const settled = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
      key: poor.test.apiKey,
      secret: poor.test.secretKey,
      body: { amount: 100, bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' },
    });
    expect(settled.status, settled.text).toBe(200); // the whole balance is held for it
    const mine2 = (item: { id: string }) => item.id === r2.json.id;
    await processDueSettlementsAndRefunds(new Date(Date.now() + 1_000), mine2);
    expect((await get(poor, `/Refunds/${r2.json.id}`)).json).toMatchObject({ status: 0 });
    await creditTestWallet(poor.merchantId, 'test', 100_00, 'PKR');
    await processDueSettlementsAndRefunds(new Date(Date.now() + 30_000), mine2);
    expect((await get(poor, `/Refunds/${r2.json.id}`)).json).toMatchObject({ status: 0 }); // not due again yet
    await processDueSettlementsAndRefunds(new Date(Date.now() + 61_000), mine2);
    expect((await get(poor, `/Refunds/${r2.json.id}`)).json).toMatchObject({ status: 3 });

    // The merchant's own approvers (payoutApprovals merchant|both): the sandbox does not approve for them.
    const strict = await newMerchant();
    await changeMerchant(strict.merchantId, () => ({ patch: { payoutApprovals: 'both' }, result: null }));
    const p3 = await completedPayment(strict.merchantId, 'test', 40_00);
    const r3 = await refund(strict, { trxnRef: p3.paymentIntentId, amount: 20 });
    await processDueSettlementsAndRefunds(new Date(Date.now() + 1_000), (item) => item.id === r3.json.id);
    expect((await get(strict, `/Refunds/${r3.json.id}`)).json).toMatchObject({ status: 0 });
  });

  it('reads a refund only with its own merchant and mode, and is processed by the sweep after approval', async () => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 50_00);
    const r = await refund(m, { trxnRef: payment.orderRef.orderRef, amount: 25 }, { 'Idempotency-Key': 'refund-once' });
    const replay = await refund(m, { trxnRef: payment.orderRef.orderRef, amount: 25 }, { 'Idempotency-Key': 'refund-once' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(r.json.id);
    expect((await get(m, `/Refunds/${r.json.id}`)).json).toEqual(r.json);
    expect((await get(m, `/Refunds/${r.json.id}`, m.live.apiKey)).status).toBe(404);
    expect((await get(await newMerchant(), `/Refunds/${r.json.id}`)).status).toBe(404);
    expect((await get(m, '/Refunds/42')).status).toBe(400);
    expect((await get(m, '/Refunds')).status).toBe(400);
    expect((await get(m, '/Refunds?trxnRef=NOSUCH')).status).toBe(404);

    await approveRefund(r.json.id); // the operator came first (in test mode the sandbox would approve at the next pass)
    const mine = (item: { id: string }) => item.id === r.json.id;
    let t = Date.now();
    for (let i = 0; i < 3; i++) await processDueSettlementsAndRefunds(new Date((t += 3_000)), mine);
    expect((await get(m, `/Refunds/${r.json.id}`)).json).toMatchObject({ status: 3, attemptCount: 1 });
    expect((await get(m, `/Transaction/${payment.orderRef.orderRef}`)).json.refundedAmount).toBe(25);
  });

  /**
   * A fake refund provider that counts its calls: `refund` runs `onRefund` (throw = unknown
   * outcome), `status` answers from `paid` (the references it paid) unless `onStatus` says otherwise.
   */
  function countingProvider(
    onRefund: (i: RefundInstruction, n: number) => Promise<'paid' | 'declined' | 'lost'>,
    onStatus?: (reference: string) => RefundStatusResult | undefined,
  ) {
    const calls: RefundInstruction[] = [];
    const inquiries: string[] = [];
    const paid = new Set<string>();
    const provider: RefundProvider = {
      name: 'Fake Refunds',
      ledgerAccount: 'fake_refunds',
      timings: { ...sandboxRefundProvider.timings, retryAfterMs: 2_000 },
      async submit(i) {
        calls.push(i);
        const what = await onRefund(i, calls.length);
        if (what === 'declined') return { outcome: 'rejected', reason: 'Declined by the issuer.' };
        if (paid.has(i.reference)) throw new Error('provider bug: paid twice');
        paid.add(i.reference);
        if (what === 'lost') throw new Error('socket hang up'); // sent and executed, answer lost
        return { outcome: 'accepted', providerReference: `FAKE-${i.reference}` };
      },
      async status(i) {
        inquiries.push(i.reference);
        return (
          onStatus?.(i.reference) ??
          (paid.has(i.reference) ? { status: 'Completed', providerReference: `FAKE-${i.reference}` } : { status: 'NotFound' })
        );
      },
    };
    return { provider, calls, inquiries, paid };
  }
  const withProvider = async (provider: RefundProvider, run: () => Promise<void>) => {
    configureRefundProvider('test', provider);
    try {
      await run();
    } finally {
      configureRefundProvider('test', sandboxRefundProvider);
    }
  };
  const approvedRefund = async (amount: number) => {
    const m = await newMerchant();
    const payment = await completedPayment(m.merchantId, 'test', 100_00);
    const r = await refund(m, { trxnRef: payment.paymentIntentId, amount });
    expect(r.status).toBe(201);
    await approveRefund(r.json.id);
    return { m, payment, id: r.json.id as string };
  };

  it('never pays twice when the answer is lost: one provider call, settled by the status inquiry', async () => {
    const fake = countingProvider(async () => 'lost');
    await withProvider(fake.provider, async () => {
      const { m, payment, id } = await approvedRefund(40);
      const mine = (item: { id: string }) => item.id === id;
      let t = Date.now() + 1_000;
      await processDueSettlementsAndRefunds(new Date(t), mine); // attempt 1: paid, then the call throws
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({ status: 2, attemptCount: 1 });
      expect(await processDueSettlementsAndRefunds(new Date((t += 3_000)), mine)).toBe(0); // not due again yet
      await processDueSettlementsAndRefunds(new Date((t += 61_000)), mine); // the stuck guard: a status inquiry, no new attempt
      expect(fake.calls.map((c) => c.reference)).toEqual([id]);
      expect(fake.inquiries).toEqual([id]);
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({ status: 3, attemptCount: 1, failureReason: null });
      for (let i = 0; i < 3; i++) await processDueSettlementsAndRefunds(new Date((t += 61_000)), mine);
      expect(fake.calls).toHaveLength(1);
      expect(await balance(m)).toMatchObject({ availableBalance: 60, pendingBalance: 0 });
      expect((await get(m, `/Transaction/${payment.paymentIntentId}`)).json.refundedAmount).toBe(40);
      expect((await expectLedgerConsistent(m.merchantId, 'test')).external('fake_refunds')).toBe(40_00);
    });
  });

  it('retries a declined attempt with the same reference, counting attemptCount', async () => {
    const fake = countingProvider(async (_i, n) => (n === 1 ? 'declined' : 'paid'));
    await withProvider(fake.provider, async () => {
      const { m, id } = await approvedRefund(25);
      let t = Date.now();
      expect(await advanceRefund(id, new Date((t += 1_000)))).toMatchObject({
        status: 2,
        attemptCount: 1,
        failureReason: 'Declined by the issuer.',
      });
      expect(await advanceRefund(id, new Date((t += 3_000)))).toMatchObject({ status: 3, attemptCount: 2, failureReason: null });
      expect(fake.calls.map((c) => [c.reference, c.attempt])).toEqual([
        [id, 1],
        [id, 2],
      ]);
      expect(fake.inquiries).toEqual([]);
      expect(await balance(m)).toMatchObject({ availableBalance: 75, pendingBalance: 0 });
      expect((await expectLedgerConsistent(m.merchantId, 'test')).external('fake_refunds')).toBe(25_00);
    });
  });

  it('does not take a retry\'s inquiry answer "Failed" (still the previous decline) as final before the grace period', async () => {
    // Attempt 1 is declined; attempt 2 is sent, the provider has not registered it yet when the call
    // is lost, and its status inquiry still reports the earlier decline; later it pays.
    let registered = false;
    const fake = countingProvider(
      async (_i, n) => (n === 1 ? 'declined' : 'lost'),
      (reference) =>
        registered
          ? { status: 'Completed', providerReference: `FAKE-${reference}` }
          : { status: 'Failed', reason: 'Declined by the issuer.' },
    );
    await withProvider(fake.provider, async () => {
      const { m, id } = await approvedRefund(25);
      let t = Date.now();
      await advanceRefund(id, new Date((t += 1_000))); // attempt 1: declined
      await advanceRefund(id, new Date((t += 3_000))); // attempt 2: sent, answer lost
      await advanceRefund(id, new Date((t += 61_000))); // inquiry: stale "Failed"
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({ status: 2, attemptCount: 2 });
      registered = true;
      await advanceRefund(id, new Date((t += 61_000)));
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({ status: 3, attemptCount: 2 });
      expect(fake.calls.length).toBe(2);
      expect(await balance(m)).toMatchObject({ availableBalance: 75, pendingBalance: 0 });
    });
  });

  it('does not fail and release a refund whose 3rd attempt had an unknown outcome: the inquiry completes it', async () => {
    const fake = countingProvider(async (_i, n) => (n < 3 ? 'declined' : 'lost'));
    await withProvider(fake.provider, async () => {
      const { m, payment, id } = await approvedRefund(30);
      let t = Date.now();
      for (let i = 0; i < 3; i++) await advanceRefund(id, new Date((t += 3_000)));
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({ status: 2, attemptCount: 3 }); // not Failed: the outcome is unknown
      expect(await balance(m)).toMatchObject({ availableBalance: 70, pendingBalance: 30 });
      expect(await advanceRefund(id, new Date((t += 61_000)))).toMatchObject({ status: 3, attemptCount: 3 });
      expect(fake.calls.map((c) => c.reference)).toEqual([id, id, id]);
      expect(await balance(m)).toMatchObject({ availableBalance: 70, pendingBalance: 0 });
      expect((await get(m, `/Refunds?trxnRef=${payment.paymentIntentId}`)).json).toMatchObject({
        refundedAmount: 30,
        refundableAmount: 70,
      });
      await expectLedgerConsistent(m.merchantId, 'test');
    });
  });

  it('treats NotFound after the grace period as never sent: resent with its reference, Failed and released after the 3rd', async () => {
    const fake = countingProvider(async () => {
      throw new Error('connect ECONNREFUSED'); // never reached the provider
    });
    await withProvider(fake.provider, async () => {
      const { m, payment, id } = await approvedRefund(50);
      let t = Date.now();
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(await advanceRefund(id, new Date((t += 3_000)))).toMatchObject({ status: 2, attemptCount: attempt });
        // NotFound, within the grace period
        expect(await advanceRefund(id, new Date((t += 61_000)))).toMatchObject({ status: 2, attemptCount: attempt });
        await advanceRefund(id, new Date((t += 15 * 60_000))); // NotFound after it: not sent
      }
      expect(fake.calls.map((c) => c.reference)).toEqual([id, id, id]);
      expect((await get(m, `/Refunds/${id}`)).json).toMatchObject({
        status: 4,
        attemptCount: 3,
        failureReason: expect.stringMatching(/did not reach/),
      });
      expect(await balance(m)).toMatchObject({ availableBalance: 100, pendingBalance: 0 });
      expect((await get(m, `/Refunds?trxnRef=${payment.paymentIntentId}`)).json).toMatchObject({
        refundedAmount: 0,
        refundableAmount: 100,
      });
      await expectLedgerConsistent(m.merchantId, 'test');
    });
  });

  it('times out a slow provider call instead of waiting, and never overlaps it with a second attempt', async () => {
    let answer!: () => void;
    const fake = countingProvider(
      (_i) => new Promise<'paid'>((resolve) => (answer = () => resolve('paid'))),
      (ref) => (fake.paid.has(ref) ? undefined : { status: 'Processing' }),
    );
    await withProvider(fake.provider, async () => {
      const { m, id } = await approvedRefund(20);
      let t = Date.now();
      const started = Date.now();
      expect(await advanceRefund(id, new Date((t += 1_000)))).toMatchObject({ status: 2, attemptCount: 1 }); // gave up waiting
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await advanceRefund(id, new Date((t += 61_000)))).toMatchObject({ status: 2, attemptCount: 1 }); // the provider: Processing
      answer(); // the slow call completes at the provider; its answer reaches no one
      await new Promise((r) => setTimeout(r, 50));
      expect(await advanceRefund(id, new Date((t += 31_000)))).toMatchObject({ status: 3, attemptCount: 1 });
      expect(fake.calls).toHaveLength(1);
      expect(await balance(m)).toMatchObject({ availableBalance: 80, pendingBalance: 0 });
      await expectLedgerConsistent(m.merchantId, 'test');
    });
  });

  // A rail that refunds a payment once (live JazzCash): two refund requests decided on the same read of the payment both
  // pass the core's "once" rule; the commit's condition (nothing reserved yet) refuses the second, so the merchant is never
  // debited for a second refund the provider never makes (the money review of 2026-11-29 found it).
  it('a once-only refund rail: of two refunds decided on one read of the payment, only one commits', async () => {
    const once: RefundRail = { ...sandboxRefundProvider, refundsAllowed: () => ({ refundsAllowed: 'once', provider: 'JazzCash' }) };
    configureRail('refund', 'test', once);
    try {
      const m = await newMerchant();
      const payment = await completedPayment(m.merchantId, 'test', 100_00);
      const caller: RefundCaller = { merchantId: m.merchantId, mode: 'test', traceId: 't', fee: { basisPoints: 0, fixedMinor: 0 } };
      // Two requests decided on the same read (neither committed yet): both pass the core's once rule.
      const a = await createRefund(caller, { trxnRef: payment.orderRef.orderRef, amount: 30 });
      const b = await createRefund(caller, { trxnRef: payment.orderRef.orderRef, amount: 40 });
      await transact(a.writes);
      let second = 'committed';
      try {
        await transact(b.writes);
      } catch {
        second = 'refused';
      }
      const after = (await getIntent(payment.paymentIntentId)) as RefundableIntent | undefined;
      // A once-only rail: the second reservation must be refused at commit.
      expect({ second, reserved: after?.refundReservedMinor }).toEqual({ second: 'refused', reserved: 30_00 });
    } finally {
      configureRail('refund', 'test', undefined);
    }
  });
});
