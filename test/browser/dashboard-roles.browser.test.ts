import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { can, dashboardRoles, type DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { payByCard } from '#shared/services/checkout.ts';
import { checkoutBody, createCheckout } from '../support/checkout.ts';
import { newMerchant } from '../support/gateway.ts';

/**
 * The merchant dashboard in Debian's Chromium (test/support/dashboard-browser.ts): every page and action
 * allowed or refused per role on the server.
 */
describe('merchant dashboard in Chromium: roles', () => {
  const { gw, url, checkPage, csrfOf, userWithRole } = useDashboardBrowser();

  it('a payment paid at its second attempt: its page lists both attempts (card, outcome, reason) at 375 and 1280 px', {
    timeout: 120_000,
  }, async () => {
    const m = await newMerchant({ name: 'Retry Shop' });
    const created = await createCheckout(gw.baseUrl, m, checkoutBody({ amount: 900 }));
    const id = created.json.paymentIntentId as string;
    const card = (number: string) => ({ name: 'Ayesha Khan', number, expiry: '12/34', cvc: '123' });
    expect((await payByCard(id, card('4000000000000002'))).status).toBe('Pending');
    expect((await payByCard(id, card('4242424242424242'))).status).toBe('Completed');
    const viewer = await userWithRole(m, 'viewer', 375);
    await viewer.goto(url(`/dashboard/payments/${id}`));
    await viewer.getByRole('heading', { name: 'Payment attempts' }).waitFor();
    const rows = await viewer.locator('.table-wrap[aria-label="Payment attempts"] tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^1.*card: visa ending 0002failedcard_declined$/);
    expect(rows[1]).toMatch(/^2.*card: visa ending 4242succeeded—$/);
    await checkPage(viewer, '7c-payment-attempts');
  });

  it('role matrix: every page and action of the signed-in dashboard is allowed or refused on the server as the role table says', {
    timeout: 240_000,
  }, async () => {
    const m = await newMerchant({ name: 'Matrix Shop' });
    // What each role may open, written out (the pages); the actions follow shared/domain/dashboard-roles.ts.
    const pages: Record<string, readonly DashboardRole[]> = {
      '/dashboard': dashboardRoles,
      '/dashboard/payments': dashboardRoles,
      '/dashboard/refunds': dashboardRoles,
      '/dashboard/links': dashboardRoles,
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
        'refunds:approve',
        'payouts:create',
        'payouts:approve',
        'settlements:create',
        'settlements:approve',
        'keys:manage',
        'webhooks:manage',
        'team:manage',
        'settings:manage',
        'links:manage',
      ],
      developer: ['keys:manage', 'webhooks:manage', 'links:manage'],
      finance: ['refunds:create', 'payouts:create', 'settlements:create', 'links:manage'],
      approver: ['refunds:approve', 'payouts:approve', 'settlements:approve'],
      viewer: [],
    };
    const actions = routeList.filter(
      (r) => r.auth === 'session' && r.method === 'POST' && r.permission && !['balances:read', 'payments:read'].includes(r.permission),
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
        'dashboardApproveRefund',
        'dashboardRejectRefund',
        'dashboardSaveSettings',
      ]),
    );
    const dummy: Record<string, string> = { id: '00000000-0000-4000-8000-000000000000', eventId: 'evt_doesnotexist' };
    for (const role of dashboardRoles) {
      const page = await userWithRole(m, role);
      for (const [path, allowed] of Object.entries(pages)) {
        // The server's answer to the user's session; rendered in the page only where axe and the 375 px check look at it.
        const shown = allowed.includes(role) && role === 'developer';
        const status = shown ? (await page.goto(url(path)))!.status() : (await page.request.get(url(path))).status();
        expect(status, `${role} GET ${path}`).toBe(allowed.includes(role) ? 200 : 403);
        if (shown) await checkPage(page, `matrix-${role}-${path.replaceAll('/', '_')}`);
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
});
