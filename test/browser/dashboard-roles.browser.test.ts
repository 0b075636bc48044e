import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { can, dashboardRoles, type DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { newMerchant } from '../support/gateway.ts';

/**
 * The merchant dashboard in Debian's Chromium (test/support/dashboard-browser.ts): every page and action
 * allowed or refused per role on the server.
 */
describe('merchant dashboard in Chromium: roles', () => {
  const { url, checkPage, csrfOf, userWithRole } = useDashboardBrowser();

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
