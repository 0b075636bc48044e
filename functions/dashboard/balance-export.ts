import { exportsRoutes } from './routes.ts';
import { dashboardStreamHandler } from '#shared/http/dashboard-stream.ts';
import { balanceFiltersOf } from '#shared/services/dashboard-balance.ts';
import { exportList } from '#shared/services/dashboard-exports.ts';

/**
 * GET /dashboard/balance/export (?type, source, settlement, payout, from, to): every balance transaction matching the
 * Balance page's filters, with the running balance, as CSV streamed page by page through the one list export.
 */
export const handler = dashboardStreamHandler(exportsRoutes.dashboardBalanceExport, async (request) => {
  const { after: _after, ...filters } = balanceFiltersOf(request.query);
  const describe = new URLSearchParams(filters as Record<string, string>).toString();
  return { status: 200, ...(await exportList(request.signed!, 'balance', { balance: filters }, describe, request.deadline)) };
});
