import { exportsRoutes } from './routes.ts';
import { dashboardStreamHandler } from '#shared/http/dashboard-stream.ts';
import { exportList } from '#shared/services/dashboard-exports.ts';
import { paymentFilters } from './common.ts';

/**
 * GET /dashboard/payments/export: every payment matching the filters, as CSV, through the one
 * list export (shared/services/dashboard-exports.ts): streamed page by page as it is read.
 */
export const handler = dashboardStreamHandler(exportsRoutes.dashboardPaymentsExport, async (request) => {
  const { filters } = paymentFilters(request.query);
  const { startingAfter: _ignored, ...all } = filters;
  return {
    status: 200,
    ...(await exportList(request.signed!, 'payments', { payments: all }, new URLSearchParams(request.query).toString(), request.deadline)),
  };
});
