import { describe, expect, it } from 'vitest';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { verifySignature } from '../../sdk/node/src/webhooks.ts';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { completedPayment } from '../support/dashboard.ts';
import { call, newMerchant } from '../support/gateway.ts';
import { startReceiver, type Receiver } from '../support/webhooks.ts';

/**
 * The merchant dashboard in Debian's Chromium (test/support/dashboard-browser.ts): the Developers pages (a
 * scoped key, the webhook endpoint, its secret, test events, rotation, disabling, the delivery log and
 * Resend, with real deliveries), USDT settlements, the team page's refusals, and the audit log.
 */
describe('merchant dashboard in Chromium: developers, webhooks, settlements, team', () => {
  const { gw, url, checkPage, csrfOf, userWithRole } = useDashboardBrowser({ deliveries: true });

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
      await admin.getByRole('status').filter({ hasText: 'Settlement requested:' }).waitFor();
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
});
