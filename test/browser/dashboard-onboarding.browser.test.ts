import { describe, expect, it } from 'vitest';
import { codeAfter, useDashboardBrowser } from '../support/dashboard-browser.ts';
import { completedPayment } from '../support/dashboard.ts';
import { call, newMerchant } from '../support/gateway.ts';

/**
 * The merchant dashboard end to end in Debian's Chromium, on the local stack (test/support/dashboard-browser.ts):
 * the operator invites an admin (ops CLI), who sets a password, enrols TOTP, keeps the recovery codes, signs
 * in, finds a payment by its orderRef and refunds part of it, exports CSV, switches mode, invites a viewer,
 * and the viewer is refused the refund on the server; payouts maker-checker; a recovery code; the key roll
 * with a step-up code; the audit log; sign out everywhere.
 */
describe('merchant dashboard in Chromium: sign-in, payments, refund, team, payouts, keys', () => {
  const { gw, ops, newPage, url, checkPage, onboard, csrfOf } = useDashboardBrowser();

  it('invite → password → TOTP → sign in → find a payment → partial refund; CSV; mode toggle; scoping; viewer refused server-side; audit', {
    timeout: 300_000,
  }, async () => {
    const merchant = await newMerchant({ name: 'Acme Books' });
    const other = await newMerchant({ name: 'Other Shop' });
    const paid = await completedPayment(gw.baseUrl, merchant, {
      amount: 1500,
      customerRef: { name: 'Ayesha Khan', email: 'ayesha@example.com' },
    });
    const more = [
      await completedPayment(gw.baseUrl, merchant, { amount: 200 }),
      await completedPayment(gw.baseUrl, merchant, { amount: 300 }),
    ];
    const foreign = await completedPayment(gw.baseUrl, other, { amount: 999 });

    // The operator invites the first admin.
    const email = `admin-${merchant.merchantId.slice(0, 8)}@acme.test`;
    const invited = await ops('user', 'invite', '--merchant', merchant.merchantId, '--email', email, '--role', 'admin', '--json');
    expect(invited.json, invited.stderr).toMatchObject({
      userId: expect.any(String),
      inviteUrl: expect.stringMatching(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/),
    });
    const invitePath = new URL(invited.json.inviteUrl).pathname;

    const page = await newPage();
    const password = 'correct horse battery staple';
    const { secret, codes, step: enrolled } = await onboard(page, invitePath, password, true);
    await checkPage(page, '4-home');
    expect(await page.locator('.mode').textContent()).toBe('Test mode');
    expect(await page.getByText('completed payments today').count()).toBe(1);
    // The last 30 days: a named chart of the day's volumes, and the same figures as a table on request.
    expect(await page.getByRole('img', { name: /^Completed payment volume in PKR per day/ }).count()).toBe(1);
    expect(await page.locator('.chart rect.bar').count()).toBe(30);
    await page.getByText('The 30 days as a table').click();
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.getByRole('region', { name: 'PKR volume per day' }).locator('tbody tr').count()).toBe(30);
    expect(await page.getByRole('row', { name: new RegExp(`^${today} 3 PKR`) }).count()).toBe(1);
    await checkPage(page, '4a-home-volume-table');

    // The invitation worked once.
    await page.goto(url(invitePath));
    expect(await page.getByRole('heading', { name: 'Request refused' }).count()).toBe(1);

    // Sign out, then sign in with password and the authenticator's next code.
    await page.goto(url('/dashboard'));
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.getAttribute('#password', 'autocomplete')).toBe('current-password');
    expect(await page.getAttribute('#code', 'autocomplete')).toBe('one-time-code');
    await checkPage(page, '5-sign-in');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    const signIn = await codeAfter(secret, enrolled); // a step after the enrolment's: accepted once, never again
    await page.getByLabel('Authentication code').fill(signIn.code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // Payments: find the payment by its orderRef, open it.
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    await checkPage(page, '6-payments');
    // By the beginning of its payment id, in capitals: one match.
    await page.getByLabel('Search').fill(paid.id.slice(0, 8).toUpperCase());
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr a').getAttribute('href')).toContain(paid.id);
    await page.getByLabel('Search').fill(paid.orderRef);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=/);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr a').click();
    await page.getByRole('heading', { name: `Payment ${paid.id.slice(0, 8)}` }).waitFor();
    expect(await page.getByText(paid.orderRef, { exact: true }).count()).toBe(1); // labelled as the merchant's reference
    expect(await page.getByText('VISA ending 4242').count()).toBe(1);
    expect(await page.getByText('4242 4242').count()).toBe(0);
    await checkPage(page, '7-payment');
    // At 375 px the summary's labels sit above their values, so a value (the payment id, a reference)
    // gets the card's whole width instead of wrapping into a narrow column beside a long label.
    await page.setViewportSize({ width: 375, height: 800 });
    const summary = await page.evaluate<{ label: number; value: number; idLines: number }>(
      `(() => { const s = document.querySelector('section[aria-label=Summary]');
        const id = [...s.querySelectorAll('dd')].find((d) => d.querySelector('code'));
        const line = parseFloat(getComputedStyle(id).lineHeight);
        return { label: s.querySelector('dt').getBoundingClientRect().width, value: id.getBoundingClientRect().width,
          idLines: Math.round(id.getBoundingClientRect().height / line) }; })()`,
    );
    expect(summary.value).toBeGreaterThanOrEqual(280);
    expect(summary.label).toBe(summary.value);
    expect(summary.idLines).toBeLessThanOrEqual(2);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Refund part of it from its page.
    await page.getByLabel(/^Amount/).fill('500');
    await page.getByLabel('Reason').fill('One book returned');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByText(/Refund requested/).waitFor();
    expect(await page.locator('.table-wrap[aria-label=Refunds] tbody tr').count()).toBe(1);
    expect(await page.getByText('PKR 1,000.00').count()).toBeGreaterThan(0); // refundable now
    const refunds = await call(gw.baseUrl, 'GET', `/Gateway/v1/Refunds?trxnRef=${paid.id}`, { key: merchant.test.apiKey });
    expect(refunds.json.items).toMatchObject([{ amount: 500, currency: 'PKR', status: 0, reason: 'One book returned' }]);
    // More than what remains is refused, with the reason on the page, and changes nothing.
    await page.getByLabel(/^Amount/).fill('5000');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByText(/exceeds what remains refundable/).waitFor();
    expect(
      (await call(gw.baseUrl, 'GET', `/Gateway/v1/Refunds?trxnRef=${paid.id}`, { key: merchant.test.apiKey })).json.items,
    ).toHaveLength(1);

    // CSV export of every filtered row (not just one page).
    const csv = await page.request.get(url('/dashboard/payments/export?status=Completed'));
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toMatch(/^paymentIntentId,intentType,status,amount/);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual([paid.id, ...more.map((p) => p.id)].sort());

    // Another merchant's payment does not exist here.
    const foreignPage = await page.goto(url(`/dashboard/payments/${foreign.id}`));
    expect(foreignPage!.status()).toBe(404);

    // Mode toggle: live mode shows live data only; the test payment is not found there.
    await page.goto(url('/dashboard'));
    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    await page.getByText('Live mode', { exact: true }).waitFor();
    expect((await page.goto(url(`/dashboard/payments/${paid.id}`)))!.status()).toBe(404);
    await page.goto(url('/dashboard'));
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.getByText('Test mode', { exact: true }).waitFor();

    // The admin invites a viewer from the Team page; the link is shown to pass on.
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByLabel('E-mail address').fill(`viewer-${merchant.merchantId.slice(0, 8)}@acme.test`);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const viewerInvite = new URL((await page.locator('#invite-url').textContent())!.trim()).pathname;
    await checkPage(page, '8-team');

    // The viewer: sees payments, no Refund form, and the server refuses a forged refund post.
    const viewer = await newPage(375);
    await onboard(viewer, viewerInvite, 'another long passphrase');
    await viewer.goto(url(`/dashboard/payments/${paid.id}`));
    expect(await viewer.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    const forged = await viewer.request.post(url(`/dashboard/payments/${paid.id}/refund`), {
      form: { csrf: await csrfOf(viewer), amount: '100', reason: 'x' },
    });
    expect(forged.status()).toBe(403);
    expect((await viewer.goto(url('/dashboard/team')))!.status()).toBe(403);
    expect(
      (await call(gw.baseUrl, 'GET', `/Gateway/v1/Refunds?trxnRef=${paid.id}`, { key: merchant.test.apiKey })).json.items,
    ).toHaveLength(1);
    // A post without the session's CSRF token is refused too (the admin's, even).
    expect(
      (await page.request.post(url(`/dashboard/payments/${paid.id}/refund`), { form: { csrf: 'forged', amount: '100' } })).status(),
    ).toBe(403);

    // Payouts, maker-checker: the admin creates one and may not approve it; an approver does.
    expect((await viewer.goto(url('/dashboard/payouts')))!.status()).toBe(200);
    expect(await viewer.getByRole('button', { name: 'Create payout' }).count()).toBe(0);
    await page.goto(url('/dashboard/payouts'));
    await page.getByLabel('Amount').fill('300');
    await page.getByLabel('Account number or IBAN').fill('PK36SCBL0000001123456702');
    await page.getByLabel('Account title').fill('Acme Books Ltd');
    await page.getByRole('button', { name: 'Create payout' }).click();
    const createdText = await page.getByText(/Payout [0-9a-f]{8} created/).textContent();
    await checkPage(page, '10-payouts');
    const payoutRows = page.locator('.table-wrap[aria-label="Payouts awaiting approval"] tbody tr');
    expect(await payoutRows.count()).toBe(1);
    // One id for the payout: the message's id is the row's payment id, and the API's paymentIntentId.
    const payoutId = /Payout ([0-9a-f]{8}) created/.exec(createdText ?? '')![1]!;
    expect(await payoutRows.locator('td[data-label="Payment id"] code').textContent()).toBe(payoutId);
    // Its creator is shown what it waits for, not Approve / Reject; a forged approval is refused on the server.
    await page.getByText('You created this payout: it waits for another approver or the operator.').waitFor();
    expect(await page.getByRole('button', { name: /^(Approve|Reject) / }).count()).toBe(0);
    const own = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?intentType=withdrawal', { key: merchant.test.apiKey });
    const forgedApproval = await page.request.post(url(`/dashboard/payouts/${own.json.items[0].paymentIntentId}/approve`), {
      form: { csrf: await csrfOf(page) },
      maxRedirects: 0,
    });
    expect(own.json.items[0].paymentIntentId.slice(0, 8)).toBe(payoutId);
    expect(forgedApproval.status()).toBe(403);
    expect(await forgedApproval.text()).toContain('maker-checker');
    const approverInvite = await ops(
      'user',
      'invite',
      '--merchant',
      merchant.merchantId,
      '--email',
      `approver-${merchant.merchantId.slice(0, 8)}@acme.test`,
      '--role',
      'approver',
      '--json',
    );
    const approver = await newPage(375);
    await onboard(approver, new URL(approverInvite.json.inviteUrl).pathname, 'approver passphrase 1');
    await approver.goto(url('/dashboard/payouts'));
    expect(await approver.getByRole('button', { name: 'Create payout' }).count()).toBe(0);
    await approver.getByRole('button', { name: /^Approve / }).click();
    await approver.getByRole('button', { name: 'Approve payout' }).click();
    await approver.getByText(/^Payout .* approved\.$/).waitFor();
    expect(await approver.locator('.table-wrap[aria-label="Payouts awaiting approval"]').count()).toBe(0);
    const payouts = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?intentType=withdrawal', { key: merchant.test.apiKey });
    expect(payouts.json.items).toHaveLength(1);
    expect(payouts.json.items[0].status).not.toBe('Pending');

    // A recovery code signs in once.
    const recovery = await newPage();
    await recovery.goto(url('/dashboard/sign-in'));
    await recovery.getByLabel('E-mail address').fill(email);
    await recovery.getByLabel('Password').fill(password);
    await recovery.getByLabel('Authentication code').fill(codes[0]!);
    await recovery.getByRole('button', { name: 'Sign in' }).click();
    await recovery.getByRole('heading', { name: 'Home' }).waitFor();

    // Developers: roll the test keys (old ones revoked now); the new key, shown once, works against the API.
    await page.goto(url('/dashboard'));
    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    await page.getByLabel('Old keys keep working for').selectOption('0');
    // The keys hold money-out scopes: rolling them needs a fresh code (step-up), later than the sign-in's.
    await page.locator('#roll-code').fill((await codeAfter(secret, signIn.step)).code);
    await page.getByRole('button', { name: 'Create a new key pair' }).click();
    const newKey = (await page.locator('#new-api-key').textContent())!.trim();
    expect(newKey).toMatch(/^pk_test_/);
    expect((await page.locator('#new-secret-key').textContent())!.trim()).toMatch(/^sk_test_/);
    await checkPage(page, '9-developers');
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: newKey })).status).toBe(200);
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: merchant.test.apiKey })).status).toBe(401);
    await page.goto(url('/dashboard/developers'));
    expect(await page.content()).not.toContain(newKey); // shown once
    await page.getByRole('button', { name: /^Revoke key_/ }).click();
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements/schedule', { key: newKey })).status).toBe(401);
    expect((await viewer.goto(url('/dashboard/developers')))!.status()).toBe(403);

    // The audit log shows it all.
    await page.goto(url('/dashboard/team'));
    const audit = await page.locator('.table-wrap[aria-label="Audit log"]').textContent();
    for (const action of [
      'user.invite',
      'user.set-password',
      'user.enrol-2fa',
      'user.sign-in',
      'user.sign-out',
      'refund.create',
      'payments.export',
      'mode.switch',
      'apikey.roll',
      'apikey.revoke',
      'payout.create',
      'payout.approve',
      'refused POST /dashboard/payments/{id}/refund',
      'refused GET /dashboard/developers',
    ]) {
      expect(audit, action).toContain(action);
    }
    expect(audit).toContain('operator (ops CLI)');

    // Sign out everywhere ends the other session too.
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await recovery.goto(url('/dashboard'));
    await recovery.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
  });
});
