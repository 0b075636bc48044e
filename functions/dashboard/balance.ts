import { balanceRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { balanceFiltersOf, balancePage } from '#shared/services/dashboard-balance.ts';
import { balanceView } from './balance-views.ts';
import { frameOf } from './common.ts';

/** GET /dashboard/balance (?type, source, settlement, payout, from, to, after): the balance transactions, 25 per page. */
export const handler = dashboardHandler(balanceRoutes.dashboardBalance, async (request) => {
  const { user, session } = request.signed!;
  const filters = balanceFiltersOf(request.query);
  return {
    status: 200,
    html: balanceView(await frameOf(request, 'balance'), filters, await balancePage(user.merchantId, session.mode, filters)),
  };
});
