import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { balanceView } from '#functions/dashboard/balance-views.ts';
import { settlementView } from '#functions/dashboard/views.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { balancePage } from '#shared/services/dashboard-balance.ts';
import { settlementDetail } from '#shared/services/dashboard-settlements.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { approveRefund } from '#shared/services/refunds.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';

/**
 * The dashboard's Balance page and a settlement's breakdown (issue 28 §1, §2): the API's balance
 * transactions with its filters (type, source, settlement, payout, dates), cursor paging, the
 * running balance, and each row linking to its source's page; the settlement page shows the
 * breakdown totals, which add up to its amount, and the movements it covers.
 */
describe('dashboard balance', () => {
  const gw = useGateway(routeList);
  const post = (m: TestMerchant, path: string, body: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', `/Gateway/v1${path}`, { key: m.test.apiKey, secret: m.test.secretKey, body });
  const frame = {
    merchantName: 'M',
    userId: 'u',
    email: 'f@shop.test',
    role: 'finance',
    mode: 'test',
    csrf: 'x',
    current: 'balance',
  } as const;
  const text = (h: string) => h.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

  it('lists every movement with its running balance and source link, filters, pages; a settlement shows its breakdown', async () => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', 500_00, 'PKR');
    const card = await completedPayment(m.merchantId, 'test', 1200_00, { feeMinor: 30_00 });
    const payout = await post(m, '/Payment/withdraw', {
      amount: 300,
      currency: 'PKR',
      description: 'Payout',
      autoProcessPayout: false,
      customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
      orderRef: { orderRef: `DBP${m.merchantId.slice(0, 6)}` },
    });
    expect(payout.status).toBe(200);
    const refund = await post(m, '/Refunds', { trxnRef: card.paymentIntentId, amount: 50, reason: 'One item' });
    await approveRefund(refund.json.id);
    const s = await post(m, '/Settlements', {
      amount: 600,
      currency: 'PKR',
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'A B',
    });
    expect(s.status).toBe(200);
    await completedPayment(m.merchantId, 'test', 80_00, { feeMinor: 2_00 });

    const page = await balancePage(m.merchantId, 'test', {});
    expect(page.items.map((r) => r.type)).toEqual(['payment', 'settlement', 'refund', 'payout', 'payment', 'adjustment']);
    // The running balance: the newest row is the wallet now, each older one what it was before the newer movement.
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(page.items[0]!.availableBalanceAfter).toBe(wallet.available / 100);
    for (let i = 1; i < page.items.length; i++)
      expect(Math.round(page.items[i]!.availableBalanceAfter! * 100)).toBe(
        Math.round((page.items[i - 1]!.availableBalanceAfter! - page.items[i - 1]!.availableChange) * 100),
      );
    const rendered = balanceView(frame, {}, page);
    expect(rendered).toContain('aria-current="page">Balance<');
    // Every row links to its source: payments and payouts to their page, the settlement to its page, the refund to Refunds.
    expect(rendered).toContain(`href="/dashboard/payments/${card.paymentIntentId}"`);
    expect(rendered).toContain(`href="/dashboard/payments/${payout.json.paymentIntentId}"`);
    expect(rendered).toContain(`href="/dashboard/settlements/${s.json.id}"`);
    expect(rendered).toMatch(/href="\/dashboard\/refunds">refund <code>/);
    expect(text(rendered)).toContain(`Payment PKR 1,200.00 PKR 30.00 PKR 1,170.00 PKR 1,670.00`);

    // Filters: the same as the API's.
    expect((await balancePage(m.merchantId, 'test', { type: 'payment' })).items.map((r) => r.source.id)).toContain(card.paymentIntentId);
    expect((await balancePage(m.merchantId, 'test', { source: card.paymentIntentId })).items.map((r) => r.type)).toEqual(['payment']);
    const ofPayout = await balancePage(m.merchantId, 'test', { payout: payout.json.paymentIntentId });
    expect(ofPayout.items.map((r) => r.type)).toEqual(['payout']);
    const ofSettlement = await balancePage(m.merchantId, 'test', { settlement: s.json.id });
    expect(ofSettlement.items.map((r) => r.type)).toEqual(['settlement', 'refund', 'payout', 'payment', 'adjustment']);
    const today = new Date().toISOString().slice(0, 10);
    expect((await balancePage(m.merchantId, 'test', { from: today, to: today })).items).toHaveLength(6);
    expect((await balancePage(m.merchantId, 'test', { to: '2000-01-01' })).items).toHaveLength(0);
    for (const bad of [
      { type: 'nope' },
      { settlement: 'x' },
      { from: '2025-13-45' },
      { from: '2025-02-01', to: '2025-01-01' },
      { after: 'x' },
    ])
      await expect(balancePage(m.merchantId, 'test', bad)).rejects.toBeInstanceOf(DomainError);

    // Cursor paging: two at a time, every row once, in order; the page links carry the filters.
    const paged = [];
    let after: string | undefined;
    for (let n = 0; n < 5; n++) {
      const p = await balancePage(m.merchantId, 'test', after ? { after } : {}, 2);
      paged.push(...p.items);
      if (!p.hasMore) break;
      after = p.items.at(-1)!.id;
      expect(balanceView(frame, { type: '', after: '' }, p)).toContain(`href="/dashboard/balance?after=${after}" rel="next"`);
    }
    expect(paged.map((r) => r.id)).toEqual(page.items.map((r) => r.id));

    // The settlement page: its breakdown (carried in + net = settled + carried forward) and what it covers.
    const detail = await settlementDetail(m.merchantId, 'test', s.json.id);
    expect(detail.breakdown).toEqual({
      carriedIn: 0,
      gross: 1200,
      fees: 30,
      refunds: 50,
      payouts: expect.any(Number),
      other: 500,
      net: expect.any(Number),
      amount: 600,
      carriedForward: expect.any(Number),
      count: 4,
    });
    const b = detail.breakdown!;
    expect(Math.round((b.gross - b.fees - b.refunds - b.payouts + b.other) * 100)).toBe(Math.round(b.net * 100));
    expect(Math.round((b.carriedIn + b.net - b.amount) * 100)).toBe(Math.round(b.carriedForward * 100));
    const html = settlementView({ ...frame, current: 'settlements' }, detail);
    expect(text(html)).toContain('Carried in PKR 0.00 Gross PKR 1,200.00 Fees PKR -30.00');
    expect(html).toContain(`id="breakdown-carried-forward">PKR ${b.carriedForward.toLocaleString('en-US', { minimumFractionDigits: 2 })}<`);
    expect(html).toContain(`href="/dashboard/balance?settlement=${s.json.id}"`);
    expect(html).toContain(`href="/dashboard/payments/${card.paymentIntentId}"`);
  }, 60_000);
});
