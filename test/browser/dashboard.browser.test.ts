import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { totpCode } from '#shared/crypto/totp.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';
import { completedPayment, screenshots, seriousViolations } from '../support/dashboard.ts';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';
import { jobs } from '#functions/jobs.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { verifySignature } from '../../sdk/node/src/webhooks.ts';
import { can, dashboardRoles, type DashboardRole } from '#shared/domain/dashboard-roles.ts';

/**
 * The merchant dashboard end to end in Debian's Chromium, on the local stack: the operator invites
 * an admin (ops CLI), who sets a password, enrols TOTP, keeps the recovery codes, signs in, finds a
 * payment by its orderRef and refunds part of it, exports CSV, switches mode, invites a viewer, and
 * the viewer is refused the refund on the server. axe-core runs once on every page checked (at the
 * page's own width), which is also checked for horizontal scrolling at 375 px; screenshots at 375 px
 * and 1280 px are taken only by `npm run docs:screenshots`.
 */
describe('merchant dashboard in Chromium', () => {
  const stack = useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher]); // real deliveries: the delivery log, attempts and Resend
  const gw = useGateway(routeList);
  const ops = useOps(() => stack.tableName);
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
  });

  const newPage = async (width = 1280) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    return context.newPage();
  };
  const url = (path: string) => `${gw.baseUrl}${path}`;
  /** Tables whose content is wider than their box (scrolled, so their last columns and actions are hidden). */
  const clippedTables = (page: Page) =>
    page.evaluate<string[]>(
      "[...document.querySelectorAll('.table-wrap')].filter((t) => t.scrollWidth > t.clientWidth + 1)" +
        ".map((t) => `${t.getAttribute('aria-label')}: ${t.scrollWidth} > ${t.clientWidth}`)",
    );
  /**
   * axe-core finds nothing serious or critical, the page is no wider than a 375 px screen, and every
   * table shows all its columns (no scrolling inside it) both at 375 px and at 1280 px.
   */
  const checkPage = async (page: Page, name: string) => {
    expect(await seriousViolations(page), name).toEqual([]);
    const original = page.viewportSize()!;
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await clippedTables(page), `${name} at ${width} px`).toEqual([]);
    }
    const wide = await page.evaluate<string[]>(
      "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 376)" +
        ".map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))",
    );
    expect(
      await page.evaluate<number>('document.documentElement.scrollWidth'),
      `${name} at 375 px: ${wide.slice(0, 8).join(', ')}`,
    ).toBeLessThanOrEqual(375);
    await page.setViewportSize(original);
    await screenshots(page, name);
  };
  /** Invitation → password → TOTP enrolment → recovery codes; returns the secret and codes. */
  const onboard = async (page: Page, invitePath: string, password: string, shots = false) => {
    await page.goto(url(invitePath));
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    expect(await page.getAttribute('#password', 'autocomplete')).toBe('new-password');
    if (shots) await checkPage(page, '1-set-password');
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = (await page.locator('#totp-uri').getAttribute('href'))!;
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(await page.locator('.qr svg path').count()).toBeGreaterThan(0);
    if (shots) await checkPage(page, '2-enrol-totp');
    await page.getByLabel('6-digit code from the app').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    const codes = (await page.locator('#recovery-codes li').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    if (shots) await checkPage(page, '3-recovery-codes');
    await page.getByRole('link', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    return { secret, codes };
  };
  const csrfOf = async (page: Page) => (await page.locator('input[name=csrf]').first().getAttribute('value'))!;

  let merchant: TestMerchant;
  let other: TestMerchant;

  it('invite → password → TOTP → sign in → find a payment → partial refund; CSV; mode toggle; scoping; viewer refused server-side; audit', {
    timeout: 300_000, // the key roll waits up to 30 s for a fresh authenticator step (step-up)
  }, async () => {
    merchant = await newMerchant({ name: 'Acme Books' });
    other = await newMerchant({ name: 'Other Shop' });
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
    const { secret, codes } = await onboard(page, invitePath, password, true);
    await checkPage(page, '4-home');
    expect(await page.locator('.mode').textContent()).toBe('Test mode');
    expect(await page.getByText('completed payments today').count()).toBe(1);

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
    const signInStep = Math.floor(Date.now() / 30_000) + 1; // the next step's code: accepted once, never again
    await page.getByLabel('Authentication code').fill(totpCode(secret, signInStep * 30_000));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // Payments: find the payment by its orderRef, open it.
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    await checkPage(page, '6-payments');
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
    while (Math.floor(Date.now() / 30_000) < signInStep) await new Promise((r) => setTimeout(r, 1000));
    await page.locator('#roll-code').fill(totpCode(secret, Date.now() + 30_000));
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
  /** A user of `role` invited by the operator and signed in (a page of its own). */
  const userWithRole = async (m: TestMerchant, role: DashboardRole, width = 1280) => {
    const invite = await ops(
      'user',
      'invite',
      '--merchant',
      m.merchantId,
      '--email',
      `${role}-${m.merchantId.slice(0, 8)}@acme.test`,
      '--role',
      role,
      '--json',
    );
    expect(invite.json, invite.stderr).toMatchObject({ inviteUrl: expect.any(String) });
    const page = await newPage(width);
    await onboard(page, new URL(invite.json.inviteUrl).pathname, `${role} passphrase long enough`);
    return page;
  };

  it('role matrix: every page and action of the signed-in dashboard is allowed or refused on the server as the role table says', {
    timeout: 240_000,
  }, async () => {
    const m = await newMerchant({ name: 'Matrix Shop' });
    // What each role may open, written out (the pages); the actions follow shared/domain/dashboard-roles.ts.
    const pages: Record<string, readonly DashboardRole[]> = {
      '/dashboard': dashboardRoles,
      '/dashboard/payments': dashboardRoles,
      '/dashboard/refunds': dashboardRoles,
      '/dashboard/payouts': dashboardRoles,
      '/dashboard/settlements': dashboardRoles,
      '/dashboard/developers': ['admin', 'developer'],
      '/dashboard/developers/webhooks': ['admin', 'developer'],
      '/dashboard/team': ['admin'],
      '/dashboard/settings': ['admin'],
    };
    const expectedPermissions: Record<DashboardRole, string[]> = {
      admin: [
        'refunds:create',
        'payouts:create',
        'payouts:approve',
        'settlements:create',
        'settlements:approve',
        'keys:manage',
        'webhooks:manage',
        'team:manage',
        'settings:manage',
      ],
      developer: ['keys:manage', 'webhooks:manage'],
      finance: ['refunds:create', 'payouts:create', 'settlements:create'],
      approver: ['payouts:approve', 'settlements:approve'],
      viewer: [],
    };
    const actions = routeList.filter(
      (r) =>
        r.lambda === 'dashboardApp' && r.method === 'POST' && r.permission && !['balances:read', 'payments:read'].includes(r.permission),
    );
    expect(actions.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        'dashboardCreateKey',
        'dashboardSaveWebhook',
        'dashboardRotateWebhookSecret',
        'dashboardWebhookState',
        'dashboardWebhookTest',
        'dashboardResendEvent',
        'dashboardTeamRole',
        'dashboardTeamRemove',
        'dashboardRequestSettlement',
        'dashboardApproveSettlement',
        'dashboardRejectSettlement',
        'dashboardSaveSettings',
      ]),
    );
    const dummy: Record<string, string> = { id: '00000000-0000-4000-8000-000000000000', eventId: 'evt_doesnotexist' };
    for (const role of dashboardRoles) {
      const page = await userWithRole(m, role);
      for (const [path, allowed] of Object.entries(pages)) {
        const response = await page.goto(url(path));
        expect(response!.status(), `${role} GET ${path}`).toBe(allowed.includes(role) ? 200 : 403);
        if (allowed.includes(role) && role === 'developer') await checkPage(page, `matrix-${role}-${path.replaceAll('/', '_')}`);
      }
      await page.goto(url('/dashboard'));
      const csrf = await csrfOf(page);
      for (const route of actions) {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => dummy[name]!);
        // An empty form: an allowed role gets the form's own refusal (400/404/422), never 403; a refused role gets 403.
        const response = await page.request.post(url(path), { form: { csrf }, maxRedirects: 0 });
        const allowed = expectedPermissions[role].includes(route.permission!);
        expect(can(role, route.permission!), `${role} ${route.permission}`).toBe(allowed);
        if (allowed) expect(response.status(), `${role} POST ${path}`).not.toBe(403);
        else expect(response.status(), `${role} POST ${path}`).toBe(403);
      }
    }
  });

  it('developers: scoped key used on the API; webhook endpoint, secret shown once, test event, rotation, disabling, log, Resend; audit', {
    timeout: 240_000,
  }, async () => {
    const m = await newMerchant({ name: 'Hook Shop', allowInsecureWebhooks: true });
    const receiver: Receiver = await startReceiver(() => 200);
    try {
      const paid = await completedPayment(gw.baseUrl, m, { amount: 700 });
      const admin = await userWithRole(m, 'admin');
      const dev = await userWithRole(m, 'developer', 375);

      // A key with only the `read` scope, created in test mode: it reads, and is refused a payment.
      await dev.goto(url('/dashboard/developers'));
      await dev.getByLabel('Mode').selectOption('test');
      // A developer is offered only the scopes the role uses in the dashboard: no money-out scope.
      for (const scope of ['payouts', 'settlements', 'refunds']) expect(await dev.getByLabel(scope, { exact: true }).count()).toBe(0);
      for (const scope of ['payments', 'balance', 'webhooks']) await dev.getByLabel(scope, { exact: true }).uncheck();
      await dev.getByRole('button', { name: 'Create key' }).click();
      const readKey = (await dev.locator('#new-api-key').textContent())!.trim();
      expect(readKey).toMatch(/^pk_test_/);
      expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: readKey })).status).toBe(200);
      // needs the webhooks scope
      expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Events/evt_none/resend', { key: readKey })).status).toBe(403);
      // the other keys keep working
      expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: m.test.apiKey })).status).toBe(200);
      await dev.goto(url('/dashboard/developers'));
      expect(await dev.content()).not.toContain(readKey);

      // The webhook endpoint: URL and event types. Every merchant has a signing secret per mode from
      // its creation (ops merchant create), so saving a URL keeps it: no secret is shown.
      await dev.getByRole('link', { name: 'Webhook endpoint and delivery log' }).click();
      await dev.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await dev.getByLabel('URL').fill(`${receiver.url}/hooks`);
      await dev.getByRole('button', { name: 'Save the endpoint' }).click();
      await dev.getByText(/Endpoint saved/).waitFor();
      expect(await dev.locator('#new-webhook-secret').count()).toBe(0);
      expect(await dev.locator('#endpoint-url').textContent()).toBe(`${receiver.url}/hooks`);
      await checkPage(dev, '11-webhooks');
      const firstSecret = m.test.webhookSecret;

      // Send a test event: signed with that secret.
      await dev.getByRole('button', { name: 'Send a test event' }).click();
      await dev.locator('#test-result').waitFor();
      expect(await dev.locator('#test-result').textContent()).toContain('delivered (HTTP 200)');
      const [test1] = await receiver.waitFor((d) => d.length >= 1);
      expect(test1!.event.type).toBe('WebhookTest');
      expect(() => verifySignature(test1!.body, test1!.headers['x-svc-signature-v2'] as string, firstSecret)).not.toThrow();

      // Rotate with no overlap: the next delivery verifies with the new secret only.
      await dev.getByLabel('The old secret keeps signing for').selectOption('0');
      await dev.getByRole('button', { name: 'Rotate the secret' }).click();
      const secondSecret = (await dev.locator('#new-webhook-secret').textContent())!.trim();
      expect(secondSecret).toMatch(/^whsec_/);
      expect(secondSecret).not.toBe(firstSecret);
      await dev.getByRole('button', { name: 'Send a test event' }).click();
      await dev.locator('#test-result').waitFor();
      const test2 = (await receiver.waitFor((d) => d.length >= 2))[1]!;
      expect(() => verifySignature(test2.body, test2.headers['x-svc-signature-v2'] as string, secondSecret)).not.toThrow();
      expect(() => verifySignature(test2.body, test2.headers['x-svc-signature-v2'] as string, firstSecret)).toThrow();

      // Disable, then enable again.
      await dev.getByRole('button', { name: 'Disable the endpoint' }).click();
      await dev.getByText(/Endpoint disabled/).waitFor();
      expect(await dev.locator('#endpoint-state').textContent()).toContain('disabled (merchant)');
      await dev.getByRole('button', { name: 'Enable the endpoint' }).click();
      await dev.getByText(/Endpoint enabled/).waitFor();
      expect(await dev.locator('#endpoint-state').textContent()).toBe('enabled');

      // The next real delivery (a new payment's event) verifies with the new secret only.
      const paid2 = await completedPayment(gw.baseUrl, m, { amount: 800 });
      const [real] = (
        await receiver.waitFor(
          (d) => d.some((x) => x.event.data?.TransactionId === paid2.id && x.event.data?.CurrentStatus === 'Completed'),
          60_000,
        )
      ).filter((x) => x.event.data?.TransactionId === paid2.id && x.event.data?.CurrentStatus === 'Completed');
      expect(() => verifySignature(real!.body, real!.headers['x-svc-signature-v2'] as string, secondSecret)).not.toThrow();
      expect(() => verifySignature(real!.body, real!.headers['x-svc-signature-v2'] as string, firstSecret)).toThrow();

      await admin.goto(url('/dashboard'));
      expect(await admin.locator('#webhook-health').textContent()).toBe('healthy'); // Home: webhook health

      // The delivery log, filtered; a Resend from the log.
      await dev.getByLabel('Event type').selectOption('TransactionStatusChanged');
      await dev.getByRole('button', { name: 'Apply' }).click();
      await dev.waitForURL(/type=TransactionStatusChanged/);
      expect(await dev.locator('.table-wrap[aria-label="Delivery log"] tbody tr').count()).toBeGreaterThan(0);
      await dev.getByLabel('Delivery', { exact: true }).selectOption('dead_lettered');
      await dev.getByRole('button', { name: 'Apply' }).click();
      await dev.waitForURL(/state=dead_lettered/);
      expect(await dev.locator('.table-wrap[aria-label="Delivery log"]').count()).toBe(0);
      await dev.goto(url('/dashboard/developers/webhooks?type=TransactionStatusChanged&state=delivered'));
      expect(await dev.locator('.table-wrap[aria-label="Delivery log"] tbody tr').count()).toBeGreaterThan(0);
      await dev
        .getByRole('button', { name: /^Resend evt_/ })
        .first()
        .click();
      await dev.getByText(/Resend queued/).waitFor();
      await checkPage(dev, '12-event');

      // The payment's page lists its events with every delivery attempt, and a Resend button.
      await admin.goto(url(`/dashboard/payments/${paid2.id}`));
      expect(await admin.locator('.table-wrap[aria-label="Webhook events"] tbody tr').count()).toBeGreaterThan(0);
      const attempts = admin.locator('.table-wrap[aria-label^="Delivery attempts of"] tbody tr');
      expect(await attempts.count()).toBeGreaterThan(0);
      expect(await attempts.first().textContent()).toContain('delivered');
      await checkPage(admin, '7b-payment-webhooks');
      await admin
        .getByRole('button', { name: /^Resend evt_/ })
        .first()
        .click();
      await admin.getByText(/Resend queued/).waitFor();

      // Settlements: a USDT settlement shows its fee and FX rate before it is confirmed.
      await creditTestWallet(m.merchantId, 'test', 5_000_00, 'PKR');
      await admin.getByRole('link', { name: 'Settlements' }).click();
      await admin.getByRole('heading', { name: 'Settlements' }).waitFor();
      await admin.getByLabel('Amount').fill('2000');
      await admin.getByLabel('USDT address', { exact: true }).fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
      await admin.getByLabel('To a USDT address (converted)').check();
      await admin.getByRole('button', { name: 'Review the settlement' }).click();
      await admin.getByRole('heading', { name: 'Confirm the settlement' }).waitFor();
      expect(await admin.locator('#fx-rate').textContent()).toMatch(/^1 PKR = [0-9.]+ USDT/);
      expect(await admin.locator('#payout-amount').textContent()).toMatch(/USDT/);
      await checkPage(admin, '14-settlement-confirm');
      expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements', { key: m.test.apiKey })).json.items).toHaveLength(0); // nothing yet
      await admin.getByRole('button', { name: 'Confirm the settlement' }).click();
      await admin.getByText(/Settlement requested/).waitFor();
      expect(await admin.locator('#settlement-status').textContent()).toBe('Pending');
      await checkPage(admin, '15-settlement');
      const settlements = await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements', { key: m.test.apiKey });
      expect(settlements.json.items).toMatchObject([{ amount: 2000, currency: 'PKR', payoutCurrency: 'USDT' }]);
      await admin.goto(url('/dashboard/settlements'));
      expect(await admin.locator('.table-wrap[aria-label="Settlements"] tbody tr').count()).toBe(1);
      await checkPage(admin, '16-settlements');
      // Too much is refused with the service's reason, and changes nothing.
      await admin.getByLabel('Amount').fill('999999');
      await admin.getByLabel('Bank name (bank account)').fill('Meezan Bank');
      await admin.getByLabel('IBAN (bank account)').fill('PK36SCBL0000001123456702');
      await admin.getByLabel('Account title (bank account)').fill('Hook Shop Ltd');
      await admin.getByLabel('To a bank account').check();
      await admin.getByRole('button', { name: 'Review the settlement' }).click();
      await admin.getByRole('button', { name: 'Confirm the settlement' }).click();
      await admin.getByText(/Insufficient available balance/).waitFor();
      expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Settlements', { key: m.test.apiKey })).json.items).toHaveLength(1);

      // A test event to a disabled endpoint is not sent… and another merchant's event is a 404.
      const other = await newMerchant({ name: 'Other Hooks' });
      const foreign = await completedPayment(gw.baseUrl, other, { amount: 100 });
      const foreignEvents = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${foreign.id}/events`, { key: other.test.apiKey });
      const foreignEventId = foreignEvents.json.items?.[0]?.eventId ?? 'evt_none';
      expect((await admin.goto(url(`/dashboard/events/${foreignEventId}`)))!.status()).toBe(404);
      await admin.goto(url('/dashboard'));
      expect(
        (
          await admin.request.post(url(`/dashboard/events/${foreignEventId}/resend`), {
            form: { csrf: await csrfOf(admin) },
            maxRedirects: 0,
          })
        ).status(),
      ).toBe(404);

      // Team: the admin makes the developer a viewer (Developers refused at once), cannot remove or
      // demote themself as the last admin, then removes the developer (their session ends).
      const devEmail = `developer-${m.merchantId.slice(0, 8)}@acme.test`;
      const adminEmail = `admin-${m.merchantId.slice(0, 8)}@acme.test`;
      await admin.goto(url('/dashboard/team'));
      await admin.getByLabel(`New role of ${devEmail}`).selectOption('viewer');
      await admin.getByRole('button', { name: `Change role of ${devEmail}` }).click();
      await admin.getByText(`${devEmail} is now viewer.`).waitFor();
      expect((await dev.goto(url('/dashboard/developers')))!.status()).toBe(403);
      await admin.getByRole('button', { name: `Remove ${adminEmail}` }).click();
      await admin.getByText(/last active administrator/).waitFor();
      await admin.getByLabel(`New role of ${adminEmail}`).selectOption('finance');
      await admin.getByRole('button', { name: `Change role of ${adminEmail}` }).click();
      await admin.getByText(/last active administrator/).waitFor();
      await checkPage(admin, '13-team-refused');
      await admin.getByRole('button', { name: `Remove ${devEmail}` }).click();
      await admin.getByText(`${devEmail} was removed: they can no longer sign in.`).waitFor();
      await dev.goto(url('/dashboard'));
      await dev.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();

      await admin.goto(url('/dashboard/team'));
      const audit = await admin.locator('.table-wrap[aria-label="Audit log"]').textContent();
      for (const action of [
        'apikey.create',
        'webhook.save',
        'webhook.test',
        'webhook.rotate-secret',
        'webhook.disable',
        'webhook.enable',
        'event.resend',
        'settlement.request',
        'user.change-role',
        'user.remove',
      ])
        expect(audit, action).toContain(action);
    } finally {
      await receiver.stop();
    }
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
    await approver.goto(url('/dashboard/payouts'));
    await approver.getByRole('button', { name: /^Approve / }).click();
    await approver.getByText(/is recorded\. It waits for the operator/).waitFor();
    expect(await approver.locator('td.approvals').first().textContent()).toMatch(/approved by approver-.*; waiting for the operator/);
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
    await finance.getByText(/Settlement requested/).waitFor();
    const settlementPath = new URL(finance.url()).pathname;
    expect(await finance.getByRole('button', { name: 'Approve settlement' }).count()).toBe(0);
    await approver.goto(url(settlementPath));
    expect(await approver.locator('dd', { hasText: /^finance-/ }).count()).toBe(1);
    await checkPage(approver, '24-settlement-approval');
    await approver.getByRole('button', { name: 'Approve settlement' }).click();
    await approver.getByText(/waits for the operator's approval/).waitFor();
    expect(await approver.locator('#settlement-status').textContent()).toBe('Pending');
    const settlementId = settlementPath.split('/').at(-1)!;
    const byOperator = await ops('settlement', 'approve', settlementId, '--json');
    expect(byOperator.json, byOperator.stderr).toMatchObject({ id: settlementId });
    await approver.reload();
    expect(await approver.locator('#settlement-status').textContent()).not.toBe('Pending');

    // Maker-checker: the admin (who may approve) requests a settlement and is refused deciding it on the server.
    await admin.goto(url('/dashboard/settlements'));
    await admin.getByLabel('Amount').fill('500');
    await admin.getByLabel('Bank name (bank account)').fill('Meezan Bank');
    await admin.getByLabel('IBAN (bank account)').fill('PK36SCBL0000001123456702');
    await admin.getByLabel('Account title (bank account)').fill('Lahore Crafts Ltd');
    await admin.getByRole('button', { name: 'Review the settlement' }).click();
    await admin.getByRole('button', { name: 'Confirm the settlement' }).click();
    await admin.getByText(/Settlement requested/).waitFor();
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
});
