import { routes } from '#functions/routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { paymentsPage } from '#shared/services/dashboard.ts';
import { frameOf, paymentFilters } from './common.ts';
import { paymentsView } from './views.ts';

/** GET /dashboard/payments: filters (status, type, dates), search by reference, cursor paging. */
export const handler = dashboardHandler(routes.dashboardPayments, async (request) => {
  const { user, session } = request.signed!;
  const { filters, echo } = paymentFilters(request.query);
  return {
    status: 200,
    html: paymentsView(await frameOf(request, 'payments'), {
      filters: echo,
      page: await paymentsPage(user.merchantId, session.mode, filters),
    }),
  };
});
