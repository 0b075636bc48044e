import { paymentsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { homeSummary } from '#shared/services/dashboard.ts';
import { webhookHealth } from '#shared/services/dashboard-developers.ts';
import { mintedMoneyOutKeys } from '#shared/services/dashboard-keys.ts';
import { frameOf } from './common.ts';
import { homeView } from './views.ts';

/**
 * GET /dashboard: balances by currency, today's volume and count, 30 days of volume, recent failures, webhook health;
 * admins also see the money-out keys minted lately.
 */
export const handler = dashboardHandler(paymentsRoutes.dashboardHome, async (request) => {
  const { user, session } = request.signed!;
  const [summary, webhooks, minted] = await Promise.all([
    homeSummary(user.merchantId, session.mode),
    webhookHealth(user.merchantId, session.mode),
    user.role === 'admin' ? mintedMoneyOutKeys(user.merchantId) : [],
  ]);
  return { status: 200, html: homeView(await frameOf(request, 'home'), summary, webhooks, minted) };
});
