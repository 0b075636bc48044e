import { describe, expect, it } from 'vitest';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { completedPayment } from '../support/dashboard.ts';
import { call, newMerchant } from '../support/gateway.ts';

/**
 * The Balance page and a settlement's breakdown in Debian's Chromium (issue 28 §1, §2): the list with
 * its running balance and source links, a filter, paging, and the settlement page's totals; axe and
 * the 375 px checks on each page (test/support/dashboard-browser.ts).
 */
describe('merchant dashboard in Chromium: balance and settlement breakdown', () => {
  const { gw, ops, url, checkPage, userWithRole } = useDashboardBrowser();

  it('lists balance transactions with the running balance, filters and pages them; the settlement page shows its breakdown', {
    timeout: 300_000,
  }, async () => {
    const m = await newMerchant({ name: 'Karachi Looms' });
    const credited = await ops('wallet', 'credit', '--merchant', m.merchantId, '--mode', 'test', '--amount', '5000', '--currency', 'PKR');
    expect('failed' in credited, credited.stderr).toBe(false);
    const paid = await completedPayment(gw.baseUrl, m, { amount: 1500 });
    const settlement = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { amount: 2000, currency: 'PKR', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Karachi Looms' },
    });
    expect(settlement.status, settlement.text).toBe(200);
    for (const amount of [1100, 1200]) await completedPayment(gw.baseUrl, m, { amount });
    const finance = await userWithRole(m, 'finance');

    await finance.getByRole('link', { name: 'Balance' }).click();
    await finance.getByRole('heading', { name: 'Balance' }).waitFor();
    const rows = finance.locator('.table-wrap[aria-label="Balance transactions, newest first"] tbody tr');
    expect(await rows.count()).toBe(5);
    expect(await rows.first().textContent()).toContain('PKR 1,200.00'); // the newest payment
    // The newest row's balance is the wallet's available balance.
    const balance = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey });
    const available = balance.json.availableBalance.toLocaleString('en-US', { minimumFractionDigits: 2 });
    expect(await rows.first().locator('td').nth(5).textContent()).toBe(`PKR ${available}`);
    // The settlement's hold moved nothing in or out: its Amount is the amount it held, labelled so.
    const hold = rows.filter({ hasText: 'Settlement requested' });
    expect(await hold.locator('td').nth(2).textContent()).toBe('PKR 2,000.00\u00a0held');
    await checkPage(finance, '30-balance');

    // A filter and paging (the cursor keeps the filter).
    await finance.getByLabel('Type').selectOption('payment');
    await finance.getByRole('button', { name: 'Apply' }).click();
    await finance.waitForURL(/type=payment/);
    expect(await rows.count()).toBe(3);
    expect(await rows.last().locator('a').getAttribute('href')).toBe(`/dashboard/payments/${paid.id}`);
    expect((await finance.goto(url('/dashboard/balance?type=nope')))!.status()).toBe(400);

    // From a settlement row to the settlement page: the breakdown adds up to its amount.
    await finance.goto(url('/dashboard/balance?type=settlement'));
    await finance.locator(`a[href="/dashboard/settlements/${settlement.json.id}"]`).click();
    await finance.getByRole('heading', { name: 'Breakdown' }).waitFor();
    expect(await finance.locator('#breakdown-other').textContent()).toBe('PKR 5,000.00');
    expect(await finance.locator('#breakdown-amount').textContent()).toBe('PKR -2,000.00');
    // The header counts what the settlement covers and says the list adds its own hold.
    const header = await finance.getByRole('region', { name: 'Breakdown' }).locator('p.muted').first().textContent();
    expect(header).toContain('Covers 2 balance transactions');
    expect(header).toContain('also shows this settlement');
    const covered = finance.locator('.table-wrap[aria-label="The 2 movements it covers and its own hold, newest first"] tbody tr');
    expect(await covered.count()).toBe(3); // its hold, the payment, the operator's credit
    await checkPage(finance, '31-settlement-breakdown');
    await finance.getByRole('link', { name: 'Every movement of this settlement' }).click();
    await finance.waitForURL(/settlement=/);
    expect(await rows.count()).toBe(3);

    // Statements on the sandbox merchant's first day: only this month (it was created today), provisional, today included.
    await finance.getByRole('link', { name: 'Statements' }).click();
    await finance.getByRole('heading', { name: 'Statements' }).waitFor();
    const month = new Date().toISOString().slice(0, 7);
    const months = finance.locator('.table-wrap[aria-label="Statements, newest first"] tbody tr');
    expect(await months.count()).toBe(1);
    const row = (await months.first().textContent())!;
    expect(row).toContain('Provisional');
    expect(row).toMatch(/1(–\d+)? \w+ \d{4} \(UTC\), today included up to the moment you download it: provisional/);
    await checkPage(finance, '32-statements');
    const download = await finance.request.get(url(`/dashboard/statements/${month}/csv?currency=PKR`));
    expect(download.headers()['statement-status']).toBe('provisional');
    // Today's test activity: the operator's credit, the three payments and the settlement's hold.
    expect((await download.text()).split('\r\n').filter((l) => l.startsWith('movement,'))).toHaveLength(5);
  });
});
