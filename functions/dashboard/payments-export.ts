import { balanceRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { exportList } from '#shared/services/dashboard-exports.ts';
import { paymentFilters } from './common.ts';

/**
 * GET /dashboard/payments/export: every payment matching the filters, as CSV, through the one
 * list export (shared/services/dashboard-exports.ts): streamed page by page, refused whole past 4 MB.
 */
export const handler = dashboardHandler(balanceRoutes.dashboardPaymentsExport, async (request) => {
  const { filters } = paymentFilters(request.query);
  const { startingAfter: _ignored, ...all } = filters;
  return {
    status: 200,
    ...(await exportList(request.signed!, 'payments', { payments: all }, new URLSearchParams(request.query).toString())),
  };
});
