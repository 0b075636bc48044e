import { describe, expect, it } from 'vitest';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { completedPayment } from '../support/dashboard.ts';
import { call, newMerchant } from '../support/gateway.ts';

/**
 * The merchant dashboard in Debian's Chromium (test/support/dashboard-browser.ts): the refunds list, the API
 * key's last use, who approves payouts (setting), settlements approved by another user (maker-checker),
 * the audit log; the payments search by the customer's e-mail or phone.
 */
describe('merchant dashboard in Chromium: refunds, approvals, maker-checker, payments search', () => {
  const { gw, ops, url, checkPage, csrfOf, userWithRole } = useDashboardBrowser();

  it('refunds list; API key last used; who approves payouts (setting); settlement approved by another user (maker-checker); audit', {
    timeout: 300_000,
  }, async () => {
    const m = await newMerchant({ name: 'Lahore Crafts' });
    const paid = [await completedPayment(gw.baseUrl, m, { amount: 1500 }), await completedPayment(gw.baseUrl, m, { amount: 2500 })];
    for (const [p, amount] of [
      [paid[0]!, 200],
      [paid[1]!, 350],
    ] as const) {
      const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
        key: m.test.apiKey,
        secret: m.test.secretKey,
        body: { trxnRef: p.id, amount, reason: 'Returned item' },
      });
      expect(r.status, r.text).toBe(201);
    }
    const admin = await userWithRole(m, 'admin');
    const finance = await userWithRole(m, 'finance', 375);
    const approver = await userWithRole(m, 'approver');

    // Refunds: every refund of the merchant, newest first, each linking to its payment.
    await admin.getByRole('link', { name: 'Refunds' }).click();
    await admin.getByRole('heading', { name: 'Refunds' }).waitFor();
    const refundRows = admin.locator('.table-wrap[aria-label="Refunds, newest first"] tbody tr');
    expect(await refundRows.count()).toBe(2);
    expect(await refundRows.first().textContent()).toContain('PKR 350.00');
    expect(await admin.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await checkPage(admin, '20-refunds');
    expect((await admin.goto(url('/dashboard/refunds?after=not-a-refund')))!.status()).toBe(400);

    // Developers: the test key that made those API calls has a last-used time; the live key never was used.
    await admin.goto(url('/dashboard/developers'));
    const keyRow = admin.locator('tr', { hasText: m.test.keyId });
    expect(await keyRow.locator('.last-used').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await checkPage(admin, '21-developers-last-used');

    // Settings (admins only): both the merchant's approver and the operator approve.
    await admin.getByRole('link', { name: 'Settings' }).click();
    await admin.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await admin.locator('#current-policy').textContent()).toContain('whichever decides first');
    await admin.getByRole('radio', { name: /Both:/ }).check();
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByText('Saved.').waitFor();
    expect(await admin.locator('#current-policy').textContent()).toContain("both the merchant's approvers and the operator");
    await checkPage(admin, '22-settings');
    expect((await finance.goto(url('/dashboard/settings')))!.status()).toBe(403);

    // A payout created by finance: the approver's approval is recorded, the operator's completes it.
    await finance.goto(url('/dashboard/payouts'));
    await finance.getByLabel('Amount').fill('400');
    await finance.getByLabel('Account number or IBAN').fill('PK36SCBL0000001123456702');
    await finance.getByLabel('Account title').fill('Lahore Crafts Ltd');
    await finance.getByRole('button', { name: 'Create payout' }).click();
    await finance.getByText(/Payout [0-9a-f]{8} created/).waitFor();
    // On a phone the destination keeps the account's last four whole, on one line, in the cell's value column (the stacked
    // cell is a grid: a bare text and a span beside it were two of its items, the span under the label).
    const to = finance.locator('td .nowrap', { hasText: '6702' });
    expect(await to.textContent()).toBe('account ending •••• 6702');
    const lines = await finance.evaluate<number[]>(
      "(() => { const s = document.querySelector('td .nowrap'); const w = document.createTreeWalker(s, NodeFilter.SHOW_TEXT); " +
        'const tops = []; for (let n = w.nextNode(); n; n = w.nextNode()) { if (n.parentElement.closest(".vh")) continue; ' +
        'const r = document.createRange(); r.selectNodeContents(n); ' +
        'for (const b of r.getClientRects()) if (b.width > 0) tops.push(Math.round(b.top)); } ' +
        'return [...new Set(tops)]; })()',
    );
    expect(lines).toHaveLength(1);
    const bank = finance.locator('td', { hasText: '6702' }).getByText(/Bank/);
    expect((await to.boundingBox())!.x).toBeGreaterThanOrEqual((await bank.boundingBox())!.x - 1);
    await approver.goto(url('/dashboard/payouts'));
    await approver.getByRole('button', { name: /^Approve / }).click();
    // Nothing is decided until the approver confirms on a page that shows what is approved.
    await approver.getByRole('heading', { name: 'Approve this payout?' }).waitFor();
    expect(await approver.locator('dd', { hasText: 'PKR 400.00' }).count()).toBe(1);
    await checkPage(approver, '23a-payout-confirm');
    await approver.getByRole('button', { name: 'Approve payout' }).click();
    await approver.getByText(/is recorded\. It waits for the operator/).waitFor();
    expect(await approver.locator('td.approvals').first().textContent()).toMatch(/approved by approver-.*; waiting for the operator/);
    // The merchant's side has approved: no Approve again, what it waits for instead; Reject stays.
    expect(await approver.getByRole('button', { name: /^Approve payout / }).count()).toBe(0);
    expect(await approver.getByText("The merchant's approval is in: it waits for the operator.").count()).toBe(1);
    expect(await approver.getByRole('button', { name: /^Reject payout / }).count()).toBe(1);
    await checkPage(approver, '23-payouts-both');
    const pendingPayout = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?intentType=withdrawal', { key: m.test.apiKey });
    expect(pendingPayout.json.items[0].status).toBe('Pending');
    const operatorApproval = await ops('withdrawal', 'approve', pendingPayout.json.items[0].paymentIntentId, '--json');
    expect(operatorApproval.json, operatorApproval.stderr).toMatchObject({ status: 'Processing' });

    // Settlements: finance requests one (no approve form for the requester's role); the approver approves;
    // the operator's approval completes it (setting: both).
    await finance.goto(url('/dashboard/settlements'));
    await finance.getByLabel('Amount').fill('1000');
    await finance.getByLabel('Bank name (bank account)').fill('Meezan Bank');
    await finance.getByLabel('IBAN (bank account)').fill('PK36SCBL0000001123456702');
    await finance.getByLabel('Account title (bank account)').fill('Lahore Crafts Ltd');
    await finance.getByRole('button', { name: 'Review the settlement' }).click();
    await finance.getByRole('button', { name: 'Confirm the settlement' }).click();
    await finance.getByRole('status').filter({ hasText: 'Settlement requested:' }).waitFor();
    const settlementPath = new URL(finance.url()).pathname;
    expect(await finance.getByRole('button', { name: 'Approve settlement' }).count()).toBe(0);
    await approver.goto(url(settlementPath));
    expect(await approver.locator('dd', { hasText: /^finance-/ }).count()).toBe(1);
    await checkPage(approver, '24-settlement-approval');
    await approver.getByRole('button', { name: 'Approve settlement' }).click();
    await approver.getByRole('heading', { name: 'Approve this settlement?' }).waitFor();
    await approver.getByRole('button', { name: 'Approve settlement' }).click();
    await approver.getByText(/waits for the operator's approval/).waitFor();
    expect(await approver.locator('#settlement-status').textContent()).toBe('Pending');
    const settlementId = settlementPath.split('/').at(-1)!;
    const byOperator = await ops('settlement', 'approve', settlementId, '--json');
    expect(byOperator.json, byOperator.stderr).toMatchObject({ id: settlementId });
    await approver.reload();
    expect(await approver.locator('#settlement-status').textContent()).not.toBe('Pending');

    // Refunds follow the setting (both): finance requests one in the dashboard and is told what it waits for;
    // the approver approves it on the Refunds page through a confirmation page.
    await finance.goto(url(`/dashboard/payments/${paid[1]!.id}`));
    await finance.getByLabel(/^Amount/).fill('100');
    await finance.getByLabel('Reason').fill('Damaged in transit');
    await finance.getByRole('button', { name: 'Refund' }).click();
    await finance.getByText(/Refund requested/).waitFor();
    const refundId = new URL(finance.url()).searchParams.get('refunded')!;
    await finance.goto(url('/dashboard/refunds'));
    const ownRow = finance.locator('tr', { hasText: 'Damaged in transit' });
    expect(await ownRow.textContent()).toContain('You requested this refund: it waits for another approver and the operator.');
    expect(await ownRow.getByRole('button').count()).toBe(0);
    await approver.goto(url('/dashboard/refunds'));
    expect(await approver.locator('#refund-policy').textContent()).toContain("both the merchant's approvers and the operator");
    await checkPage(approver, '20a-refunds-approver');
    await approver.getByRole('button', { name: `Approve refund ${refundId.slice(0, 8)}` }).click();
    await approver.getByRole('heading', { name: 'Approve this refund?' }).waitFor();
    expect(await approver.locator('dd', { hasText: 'Damaged in transit' }).count()).toBe(1);
    await checkPage(approver, '20b-refund-confirm');
    await approver.getByRole('button', { name: 'Approve refund' }).click();
    // The sandbox gives the operator's half in test mode once the sweep saw the refund; else it waits for it.
    await approver.getByText(/Refund approved|The refund waits for the operator's approval/).waitFor();
    const decided = await call(gw.baseUrl, 'GET', `/Gateway/v1/Refunds/${refundId}`, { key: m.test.apiKey });
    expect(decided.status, decided.text).toBe(200);

    // Maker-checker: the admin (who may approve) requests a settlement and is refused deciding it on the server.
    await admin.goto(url('/dashboard/settlements'));
    await admin.getByLabel('Amount').fill('500');
    await admin.getByLabel('Bank name (bank account)').fill('Meezan Bank');
    await admin.getByLabel('IBAN (bank account)').fill('PK36SCBL0000001123456702');
    await admin.getByLabel('Account title (bank account)').fill('Lahore Crafts Ltd');
    await admin.getByRole('button', { name: 'Review the settlement' }).click();
    await admin.getByRole('button', { name: 'Confirm the settlement' }).click();
    await admin.getByRole('status').filter({ hasText: 'Settlement requested:' }).waitFor();
    const ownPath = new URL(admin.url()).pathname;
    expect(await admin.getByRole('button', { name: 'Approve settlement' }).count()).toBe(0);
    const forged = await admin.request.post(url(`${ownPath}/approve`), { form: { csrf: await csrfOf(admin) }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('maker-checker');
    // Finance (no approval rights) is refused too; the approver rejects it with a reason.
    await finance.goto(url(ownPath));
    expect(
      (await finance.request.post(url(`${ownPath}/reject`), { form: { csrf: await csrfOf(finance) }, maxRedirects: 0 })).status(),
    ).toBe(403);
    await approver.goto(url(ownPath));
    await approver.getByLabel('Reason').fill('Wrong account');
    await approver.getByRole('button', { name: 'Reject settlement' }).click();
    await approver.getByRole('heading', { name: 'Reject this settlement?' }).waitFor();
    expect(await approver.locator('#decision-reason').textContent()).toBe('Wrong account');
    await checkPage(approver, '24a-settlement-reject-confirm');
    await approver.getByRole('button', { name: 'Reject settlement' }).click();
    await approver.getByText(/Settlement rejected/).waitFor();
    expect(await approver.locator('#settlement-status').textContent()).toMatch(/^Cancelled \(Rejected by approver-.*: Wrong account\)$/);

    // Setting: the operator only. The approver sees no Approve button and a forged approval is refused.
    await admin.goto(url('/dashboard/settings'));
    await admin.getByRole('radio', { name: /The operator:/ }).check();
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByText('Saved.').waitFor();
    await finance.goto(url('/dashboard/payouts'));
    await finance.getByLabel('Amount').fill('300');
    await finance.getByLabel('Account number or IBAN').fill('PK36SCBL0000001123456702');
    await finance.getByLabel('Account title').fill('Lahore Crafts Ltd');
    await finance.getByRole('button', { name: 'Create payout' }).click();
    await finance.getByText(/Payout [0-9a-f]{8} created/).waitFor();
    await approver.goto(url('/dashboard/payouts'));
    expect(await approver.locator('#approval-policy').textContent()).toContain('approved by the operator');
    expect(await approver.getByRole('button', { name: /^Approve / }).count()).toBe(0);
    const waiting = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?intentType=withdrawal&status=Pending', { key: m.test.apiKey });
    const refusedApproval = await approver.request.post(url(`/dashboard/payouts/${waiting.json.items[0].paymentIntentId}/approve`), {
      form: { csrf: await csrfOf(approver) },
      maxRedirects: 0,
    });
    expect(refusedApproval.status()).toBe(403);

    await admin.goto(url('/dashboard/team'));
    const audit = await admin.locator('.table-wrap[aria-label="Audit log"]').textContent();
    for (const action of ['settings.payout-approvals', 'payout.approve', 'settlement.request', 'settlement.approve', 'settlement.reject'])
      expect(audit, action).toContain(action);
    expect(audit).toContain('maker-checker');
  });

  it('payments: search by the customer’s e-mail or phone (any common spelling), with filters; another merchant’s customer is not found', {
    timeout: 180_000,
  }, async () => {
    const m = await newMerchant({ name: 'Search Shop' });
    const elsewhere = await newMerchant({ name: 'Elsewhere' });
    const sana = { name: 'Sana Malik', email: 'Sana.Malik@Example.com', phone: '+92 300 1234567' };
    const first = await completedPayment(gw.baseUrl, m, { amount: 120, customerRef: sana });
    const second = await completedPayment(gw.baseUrl, m, { amount: 340, customerRef: { name: 'Sana Malik', phone: '0300-1234567' } });
    const pending = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 560, customerRef: { email: 'sana.malik@example.com' } }));
    expect(pending.status).toBe(200);
    const someoneElse = await completedPayment(gw.baseUrl, m, {
      amount: 780,
      customerRef: { email: 'bilal@example.com', phone: '03331234567' },
    });
    const foreign = await completedPayment(gw.baseUrl, elsewhere, { amount: 990, customerRef: sana });

    const page = await userWithRole(m, 'viewer');
    const search = async (text: string, status = '') => {
      await page.goto(url('/dashboard/payments'));
      await page.getByLabel('Search').fill(text);
      await page.getByLabel('Status').selectOption(status);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=/);
      return page.locator('tbody tr a').evaluateAll((links) => links.map((a) => a.getAttribute('href')!.split('/').pop()!));
    };
    const pendingId = pending.json.paymentIntentId as string;
    // E-mail: case and spaces do not matter; newest first.
    expect(await search('  SANA.malik@example.COM ')).toEqual([pendingId, first.id]);
    await checkPage(page, '15-payments-customer-search');
    // Phone: +92, 0 and punctuation are the same number.
    expect(await search('03001234567')).toEqual([second.id, first.id]);
    expect(await search('+92 300 123 4567')).toEqual([second.id, first.id]);
    // Filters still apply.
    expect(await search('sana.malik@example.com', 'Pending')).toEqual([pendingId]);
    expect(await search('0300 1234567', 'Failed')).toEqual([]);
    expect(await page.getByText('No payments match.').count()).toBe(1);
    // Another customer's and another merchant's payments are never in the results.
    const all = [...(await search('sana.malik@example.com')), ...(await search('03001234567'))];
    expect(all).not.toContain(someoneElse.id);
    expect(all).not.toContain(foreign.id);
    expect(await search('bilal@example.com')).toEqual([someoneElse.id]);
    // The references still work from the same box.
    expect(await search(first.orderRef)).toEqual([first.id]);
    // A found payment opens from the results and shows the customer's contact as the payment holds it.
    await search('sana.malik@example.com', 'Completed');
    await page.locator('tbody tr a').first().click();
    await page.getByRole('heading', { name: `Payment ${first.id.slice(0, 8)}` }).waitFor();
    expect(await page.getByText(sana.email).count()).toBe(1);
  });
});
