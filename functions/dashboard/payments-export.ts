import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { exportPaymentsCsv } from '#shared/services/dashboard.ts';
import { paymentFilters } from './common.ts';

/**
 * GET /dashboard/payments/export: every payment matching the filters, as CSV. The rows are
 * produced page by page (shared/services/dashboard.ts paymentsCsv); API Gateway's proxy
 * integration returns the response in one piece (at most 6 MB, roughly 25,000 rows).
 */
export const handler = dashboardHandler(routes.dashboardPaymentsExport, async (request) => {
  const { session } = request.signed!;
  const { filters } = paymentFilters(request.query);
  const { startingAfter: _ignored, ...all } = filters;
  const csv = await exportPaymentsCsv(request.signed!, all, new URLSearchParams(request.query).toString());
  return { status: 200, csv, filename: `payments-${session.mode}-${new Date().toISOString().slice(0, 10)}.csv` };
});
