import { paymentsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { paymentsPage } from '#shared/services/dashboard.ts';
import { frameOf, paymentFilters } from './common.ts';
import { paymentsView } from './views.ts';

/** GET /dashboard/payments: filters (status, type, dates), search by reference or customer e-mail/phone, cursor paging. */
export const handler = dashboardHandler(paymentsRoutes.dashboardPayments, async (request) => {
  const { user, session } = request.signed!;
  const { filters, echo } = paymentFilters(request.query);
  // The frame (merchant name) and the page are independent reads: in parallel (bench/dashboard.ts).
  const [frame, page] = await Promise.all([frameOf(request, 'payments'), paymentsPage(user.merchantId, session.mode, filters)]);
  return { status: 200, html: paymentsView(frame, { filters: echo, page }) };
});
