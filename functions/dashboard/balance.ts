import { balanceRoutes } from './routes.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { balanceFilterNames, balancePage, type BalanceFilters } from '#shared/services/dashboard-balance.ts';
import { balanceView } from './balance-views.ts';
import { frameOf } from './common.ts';

/** GET /dashboard/balance (?type, source, settlement, payout, from, to, after): the balance transactions, 25 per page. */
export const handler = dashboardHandler(balanceRoutes.dashboardBalance, async (request) => {
  const { user, session } = request.signed!;
  const names: readonly string[] = balanceFilterNames;
  if (Object.keys(request.query).some((k) => !names.includes(k))) throw userRefusal('invalid', 'That page link is not valid.');
  const filters: BalanceFilters = Object.fromEntries(Object.entries(request.query).filter(([, v]) => v));
  return {
    status: 200,
    html: balanceView(await frameOf(request, 'balance'), filters, await balancePage(user.merchantId, session.mode, filters)),
  };
});
