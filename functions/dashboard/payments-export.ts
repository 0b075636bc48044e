import { routes } from '#functions/routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { auditWrite } from '#shared/store/dashboard.ts';
import { transact } from '#shared/store/client.ts';
import { auditEntry } from '#shared/services/dashboard-auth.ts';
import { paymentsCsv } from '#shared/services/dashboard.ts';
import { paymentFilters } from './common.ts';

/**
 * GET /dashboard/payments/export: every payment matching the filters, as CSV. The rows are
 * produced page by page (shared/services/dashboard.ts paymentsCsv); API Gateway's proxy
 * integration returns the response in one piece (at most 6 MB, roughly 25,000 rows).
 */
export const handler = dashboardHandler(routes.dashboardPaymentsExport, async (request) => {
  const { user, session, actor } = request.signed!;
  const { filters } = paymentFilters(request.query);
  const { startingAfter: _ignored, ...all } = filters;
  let csv = '';
  for await (const chunk of paymentsCsv(user.merchantId, session.mode, all)) csv += chunk;
  await transact([auditWrite(auditEntry(user.merchantId, actor, 'payments.export', { mode: session.mode, detail: new URLSearchParams(request.query).toString() || 'all' }))]);
  return { status: 200, csv, filename: `payments-${session.mode}-${new Date().toISOString().slice(0, 10)}.csv` };
});
