import { routes } from '#functions/routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { homeSummary } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { homeView } from './views.ts';

/** GET /dashboard: balances by currency, today's volume and count, recent failures. */
export const handler = dashboardHandler(routes.dashboardHome, async (request) => {
  const { user, session } = request.signed!;
  return { status: 200, html: homeView(await frameOf(request, 'home'), await homeSummary(user.merchantId, session.mode)) };
});
