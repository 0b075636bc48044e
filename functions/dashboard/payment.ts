import { paymentsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { paymentDetail } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { paymentView } from './views.ts';

/** GET /dashboard/payments/{id}: one payment of this merchant and mode (anything else is 404). */
export const handler = dashboardHandler(paymentsRoutes.dashboardPayment, async (request) => {
  const { user, session } = request.signed!;
  const detail = await paymentDetail(user.merchantId, session.mode, request.path.id!);
  return {
    status: 200,
    html: paymentView(
      await frameOf(request, 'payments'),
      detail,
      request.query.refunded ? { message: `Refund requested (${request.query.refunded}). It stays Pending until it is approved.` } : {},
    ),
  };
});
