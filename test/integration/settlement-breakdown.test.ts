import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { balanceMovement, balanceTransactionId } from '#shared/domain/balance-transaction.ts';
import { journal } from '#shared/domain/ledger.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { advanceRefund, approveRefund } from '#shared/services/refunds.ts';
import { advanceSettlement, approveSettlement, rejectSettlement } from '#shared/services/settlements.ts';
import { rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { reconcileWithdrawal } from '#shared/services/withdrawals.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { getIntent } from '#shared/store/intents.ts';
import { getBreakdownJob, getSettlement } from '#shared/store/settlements.ts';
import * as keys from '#shared/store/keys.ts';
import type { DueItem } from '#shared/store/money-due.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, journalPosition, listJournals, postJournal } from '#shared/store/wallets.ts';
import { dashboardUser } from '../support/dashboard.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';

/**
 * Settlement breakdowns (issue 28 §2): each settlement covers the balance transactions of its currency
 * between the previous settlement's cut-off and its own (its hold); carriedIn + net = amount +
 * carriedForward, each total equal to the journal, for a mixed history (payments and a deposit with
 * fees, an operator credit, payouts completed and rejected, a partial refund, settlements to USDT with
 * FX, rejected and completed) on one shard and four. Exact under concurrency: a payment decided before
 * a settlement but committed after it is refused by the cut-off and decided again into the next one.
 */
describe('settlement breakdowns', () => {
  const gw = useGateway(routeList);
  const get = (m: TestMerchant, path: string) => call(gw.baseUrl, 'GET', `/Gateway/v1${path}`, { key: m.test.apiKey });
  const post = (m: TestMerchant, path: string, body: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', `/Gateway/v1${path}`, { key: m.test.apiKey, secret: m.test.secretKey, body });
  const bank = { bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' };
  let t = Date.now();
  const later = () => new Date((t = Math.max(t, Date.now()) + 3_000));

  async function settle(m: TestMerchant, body: Record<string, unknown>, outcome: 'completed' | 'rejected' = 'completed') {
    const r = await post(m, '/Settlements', { currency: 'PKR', ...('usdtAddress' in body ? {} : bank), ...body });
    expect(r.status).toBe(200);
    if (outcome === 'rejected') await rejectSettlement(r.json.id, 'not now');
    else {
      await approveSettlement(r.json.id);
      for (let i = 0; i < 8 && (await advanceSettlement(r.json.id, later()))!.status < 3; i++);
    }
    return r.json.id as string;
  }

  const payout = async (m: TestMerchant, orderRef: string, approve: boolean) => {
    const r = await post(m, '/Payment/withdraw', {
      amount: 300,
      currency: 'PKR',
      description: 'Payout',
      autoProcessPayout: approve,
      customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
      orderRef: { orderRef },
    });
    expect(r.status).toBe(200);
    if (approve) await reconcileWithdrawal((await getIntent(r.json.paymentIntentId))!, later());
    else await rejectWithdrawal(r.json.paymentIntentId, 'Account title does not match');
    return r.json.paymentIntentId as string;
  };

  async function mixedHistory(m: TestMerchant) {
    const tag = m.merchantId.slice(0, 6);
    await creditTestWallet(m.merchantId, 'test', 2000_00, 'PKR');
    const card = await completedPayment(m.merchantId, 'test', 1500_00, { feeMinor: 37_50 });
    await completedPayment(m.merchantId, 'test', 1000_00, { intentType: 'deposit', feeMinor: 15_00 });
    const first = await settle(m, { amount: 1000, payoutCurrency: 'USDT', usdtAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    const paid = await payout(m, `BDOK${tag}`, true);
    const failed = await payout(m, `BDNO${tag}`, false);
    const refund = await post(m, '/Refunds', { trxnRef: card.paymentIntentId, amount: 40, reason: 'One item' });
    expect(refund.status).toBe(201);
    await approveRefund(refund.json.id);
    for (let i = 0; i < 8 && (await advanceRefund(refund.json.id, later()))!.status < 3; i++);
    const rejected = await settle(m, { amount: 700 }, 'rejected');
    await completedPayment(m.merchantId, 'test', 820_00, { feeMinor: 20_50 });
    const last = await settle(m, { amount: 2500 });
    await completedPayment(m.merchantId, 'test', 99_00, { feeMinor: 2_00 }); // after every cut-off: no settlement's
    return { settlements: [first, rejected, last], paid, failed, refund: refund.json.id as string };
  }

  /** Each settlement's breakdown, as GET /Settlements/{id} answers it, equals the journal of its window; the chain adds up. */
  async function expectJournalBreakdowns(m: TestMerchant, ids: Awaited<ReturnType<typeof mixedHistory>>) {
    const journals = await listJournals(m.merchantId, 'test'); // oldest first
    const covered = new Map<string, string>(); // journal id → the settlement listing it
    let carried = 0;
    for (const id of ids.settlements) {
      const s = (await getSettlement(id))!;
      const read = await get(m, `/Settlements/${id}`);
      expect(read.status).toBe(200);
      const b = read.json.breakdown;
      // The window: after the previous cut-off, up to its own hold, straight from the journal.
      const window = journals.filter(
        (j) => journalPosition(j) < s.cutoff! && (s.previousCutoff == null || journalPosition(j) > s.previousCutoff),
      );
      const moves = window.map(balanceMovement);
      const sum = (pick: (x: (typeof moves)[number]) => number) => moves.reduce((a, x) => a + pick(x), 0) / 100;
      const of = (prefix: string) => (x: (typeof moves)[number]) => (x.type.startsWith(prefix) ? -x.availableChangeMinor : 0);
      const credit = (x: (typeof moves)[number]) => x.type === 'payment' || x.type === 'deposit';
      expect(b).toEqual({
        carriedIn: carried / 100,
        gross: sum((x) => (credit(x) ? x.amountMinor : 0)),
        fees: sum((x) => (credit(x) ? x.feeMinor : 0)),
        refunds: sum(of('refund')),
        payouts: sum(of('payout')),
        other: sum((x) => (credit(x) || /^(refund|payout)/.test(x.type) ? 0 : x.availableChangeMinor)),
        net: sum((x) => x.availableChangeMinor),
        amount: s.amountMinor / 100,
        carriedForward: expect.any(Number),
        count: window.length,
      });
      expect(Math.round((b.carriedIn + b.net) * 100)).toBe(Math.round((b.amount + b.carriedForward) * 100));
      expect(Math.round((b.gross - b.fees - b.refunds - b.payouts + b.other) * 100)).toBe(Math.round(b.net * 100));
      carried = Math.round(b.carriedForward * 100);
      // The filter lists exactly the window and its own hold, every page of it.
      const listed: Record<string, any>[] = [];
      let cursor = '';
      for (let page = 0; page < 20; page++) {
        const r = await get(m, `/BalanceTransactions?settlement=${id}&limit=4${cursor ? `&startingAfter=${cursor}` : ''}`);
        expect(r.status).toBe(200);
        listed.push(...r.json.items);
        if (!r.json.hasMore) break;
        cursor = r.json.items.at(-1).id;
      }
      const hold = journals.find((j) => journalPosition(j) === s.cutoff)!;
      expect(hold).toMatchObject({ kind: 'settlement.hold', reference: id });
      expect(listed.map((x) => x.id)).toEqual([...window, hold].reverse().map((j) => balanceTransactionId(j.createdAt, j.journalId)));
      for (const j of window) {
        expect(covered.has(j.journalId), 'each movement belongs to one settlement').toBe(false);
        covered.set(j.journalId, id);
      }
    }
    // Every movement up to the last cut-off is in exactly one settlement; what follows adds up to the wallet.
    const lastCutoff = (await getSettlement(ids.settlements.at(-1)!))!.cutoff!;
    const holds = new Set(ids.settlements);
    const before = journals.filter((j) => journalPosition(j) < lastCutoff && !(j.kind === 'settlement.hold' && holds.has(j.reference)));
    expect(before.every((j) => covered.has(j.journalId))).toBe(true);
    const after = journals.filter((j) => journalPosition(j) > lastCutoff);
    // (the last payment, and what the test's clock put later: the completions the sweeps ran "in a few seconds")
    expect(after.map((j) => j.kind)).toContain('checkout.completed');
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(carried + after.reduce((a, j) => a + balanceMovement(j).availableChangeMinor, 0)).toBe(wallet.available);
    // Known figures: the second settlement holds the payouts and the refund; the rejected one's release is in the third.
    const second = (await get(m, `/Settlements/${ids.settlements[1]}`)).json.breakdown;
    expect(second).toMatchObject({ gross: 0, fees: 0, refunds: 40, other: 0, amount: 700 });
    expect(second.payouts).toBeGreaterThan(300); // the completed payout's amount + fee (the rejected one came back)
    const third = (await get(m, `/Settlements/${ids.settlements[2]}`)).json.breakdown;
    expect(third).toMatchObject({ gross: 820, fees: 20.5, refunds: 0, payouts: 0, other: 700, amount: 2500 });
    // The payout filter: a payout's own movements.
    const ofPayout = await get(m, `/BalanceTransactions?payout=${ids.paid}`);
    expect(ofPayout.json.items.map((x: any) => x.type)).toEqual(['payout_paid', 'payout']);
    expect((await get(m, `/BalanceTransactions?payout=${ids.refund}`)).status).toBe(404);
    expect((await get(m, `/BalanceTransactions?settlement=${ids.paid}`)).status).toBe(404);
    expect((await get(m, '/BalanceTransactions?settlement=nope')).status).toBe(400);
  }

  for (const shards of [1, 4]) {
    it(`add up to each settlement's amount and equal the journal (${shards} shard${shards > 1 ? 's' : ''})`, async () => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      const ids = await mixedHistory(m);
      expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
      await expectJournalBreakdowns(m, ids);
    }, 180_000);

    it(`sums a window past the request cap in the background, step by step, and equals the journal (${shards} shard(s))`, async () => {
      // The cap lowered so that every window here is "large"; one Query page of 1 journal per shard and step.
      Object.assign(process.env, { BREAKDOWN_REQUEST_CAP: '0', BREAKDOWN_PAGE_LIMIT: '1', BREAKDOWN_STEP_MS: '0' });
      try {
        const m = await newMerchant();
        if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
        const ids = await mixedHistory(m); // the operator's decisions do not wait for the breakdowns: they are queued
        for (const id of ids.settlements) {
          const r = await get(m, `/Settlements/${id}`);
          expect(r.status).toBe(200);
          expect(r.json).toMatchObject({ breakdown: null, breakdownStatus: 'computing' });
          expect((await getSettlement(id))!.breakdown).toBeUndefined();
        }
        // The dashboard's settlement page says so too (never an empty or missing breakdown without a word).
        const finance = await dashboardUser(m, 'finance');
        const page = await fetch(`${gw.baseUrl}/dashboard/settlements/${ids.settlements[0]}`, { headers: { Cookie: finance.cookie } });
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Being computed');
        const queued = new Set(ids.settlements);
        const only = (item: DueItem) => item.entity === 'SettlementBreakdown' && queued.has(item.id);
        const shardsOf = [...new Set(ids.settlements.map((id) => keys.moneyDue(id, '').GSI2PK))];
        // Two sweeps at once each pass (overlapping runs): each step is conditioned on the step read, so a page adds once.
        let passes = 0;
        for (; passes < 100 && (await Promise.all(ids.settlements.map(getBreakdownJob))).some(Boolean); passes++) {
          const now = new Date(Date.now() + 6_000 * (passes + 1)); // each pass past the 5 s a job waits for the previous one
          await Promise.all([0, 1].map(() => processDueSettlementsAndRefunds(now, only, shardsOf)));
        }
        expect(passes).toBeLessThan(100);
        expect(passes).toBeGreaterThanOrEqual(2); // more than one step: the window was read page by page (4 shards may need only 2)
        for (const id of ids.settlements) expect((await get(m, `/Settlements/${id}`)).json.breakdownStatus).toBe('available');
        await expectJournalBreakdowns(m, ids);
      } finally {
        for (const k of ['BREAKDOWN_REQUEST_CAP', 'BREAKDOWN_PAGE_LIMIT', 'BREAKDOWN_STEP_MS']) delete process.env[k];
      }
    }, 180_000);
  }

  it('puts a payment decided before a settlement but committed after it into the next settlement, never the closed one', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 1000_00, 'PKR');
    const decidedAt = new Date(Date.now() - 2_000); // decided before the settlement …
    const s = await post(m, '/Settlements', { amount: 400, currency: 'PKR', ...bank });
    expect(s.status).toBe(200);
    const closed = (await get(m, `/Settlements/${s.json.id}`)).json.breakdown;
    expect(closed).toMatchObject({ count: 1, other: 1000, carriedForward: 600 });
    const cutoff = (await getSettlement(s.json.id))!.cutoff!;

    // … committed after it: the wallet's cut-off refuses the journal as it was decided …
    const late = journal({
      merchantId: m.merchantId,
      mode: 'test',
      currency: 'PKR',
      kind: 'wallet.credit',
      reference: 'operator:late',
      now: decidedAt,
      movements: [
        { account: { kind: 'external', name: 'sandbox_funding' }, amount: -5_00 },
        { account: { kind: 'available' }, amount: 5_00 },
      ],
    });
    const refused = await transact(postJournal(late)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TransactionFailed);
    expect((refused as TransactionFailed).on('cutoff')).toBe(true);
    expect((refused as TransactionFailed).on('wallet')).toBe(false); // not an overdraft

    // … and a payment doing the same is decided again, later: it belongs to the next settlement.
    const times = [decidedAt];
    const payment = await completedPayment(m.merchantId, 'test', 250_00, { feeMinor: 5_00, now: () => times.shift() ?? new Date() });
    const posted = (await listJournals(m.merchantId, 'test')).find((j) => j.reference === payment.paymentIntentId)!;
    expect(journalPosition(posted) > cutoff).toBe(true);
    expect((await get(m, `/Settlements/${s.json.id}`)).json.breakdown).toEqual(closed);
    const listed = await get(m, `/BalanceTransactions?settlement=${s.json.id}`);
    expect(listed.json.items.map((x: any) => x.type)).toEqual(['settlement', 'adjustment']);
    const next = await post(m, '/Settlements', { amount: 800, currency: 'PKR', ...bank });
    expect(next.status).toBe(200);
    expect((await get(m, `/Settlements/${next.json.id}`)).json.breakdown).toEqual({
      carriedIn: 600,
      gross: 250,
      fees: 5,
      refunds: 0,
      payouts: 0,
      other: 0,
      net: 245,
      amount: 800,
      carriedForward: 45,
      count: 1,
    });
  }, 60_000);

  it('assigns every payment landing while settlements are created to exactly one of them (4 shards)', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    await creditTestWallet(m.merchantId, 'test', 3000_00, 'PKR');
    const payments = Array.from({ length: 12 }, (_, i) => completedPayment(m.merchantId, 'test', (100 + i) * 100, { feeMinor: 100 }));
    const settlements = [300, 400, 500].map(async (amount, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 15));
      const r = await post(m, '/Settlements', { amount, currency: 'PKR', ...bank });
      expect(r.status).toBe(200);
      return r.json.id as string;
    });
    await Promise.all(payments);
    const ids = await Promise.all(settlements);
    const all = await Promise.all(ids.map(async (id) => (await getSettlement(id))!));
    const chain = all.sort((a, b) => (a.cutoff! < b.cutoff! ? -1 : 1));
    // One chain: each settlement's window starts at the previous one's cut-off.
    expect(chain.map((s) => s.previousCutoff ?? null)).toEqual([null, chain[0]!.cutoff, chain[1]!.cutoff]);
    const seen = new Set<string>();
    let carried = 0;
    for (const s of chain) {
      const r = await get(m, `/BalanceTransactions?settlement=${s.id}&limit=100`);
      const rows = (r.json.items as Record<string, any>[]).filter((x) => x.source.id !== s.id);
      for (const x of rows) {
        expect(seen.has(x.id)).toBe(false);
        seen.add(x.id);
      }
      const b = (await get(m, `/Settlements/${s.id}`)).json.breakdown;
      expect(b.count).toBe(rows.length);
      expect(b.carriedIn).toBe(carried / 100);
      expect(Math.round(b.net * 100)).toBe(rows.reduce((a, x) => a + Math.round(x.availableChange * 100), 0));
      carried = Math.round(b.carriedForward * 100);
    }
    const journals = await listJournals(m.merchantId, 'test');
    const last = chain.at(-1)!.cutoff!;
    const unsettled = journals.filter((j) => journalPosition(j) > last);
    expect(seen.size + unsettled.length + chain.length).toBe(journals.length);
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(carried + unsettled.reduce((a, j) => a + balanceMovement(j).availableChangeMinor, 0)).toBe(wallet.available);
  }, 120_000);
});
