import { refundsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { paymentDetail } from '#shared/services/dashboard.ts';
import { refundFromDashboard } from '#shared/services/dashboard-refunds.ts';
import { frameOf } from './common.ts';
import { paymentView } from './views.ts';
import { formMessage } from '#shared/http/presenter.ts';

/** POST /dashboard/payments/{id}/refund: the refunds service; a refusal re-renders the page with its reason. */
export const handler = dashboardHandler(refundsRoutes.dashboardRefund, async (request) => {
  const { user, session } = request.signed!;
  const id = request.path.id!;
  try {
    const refund = await refundFromDashboard(
      request.signed!,
      id,
      { amount: request.form.get('amount') ?? '', reason: request.form.get('reason') ?? '' },
      request.traceId,
    );
    return { redirect: `${dashPath(`/payments/${encodeURIComponent(id)}`)}?refunded=${refund.id}` };
  } catch (error) {
    const message = formMessage(error);
    return {
      status: 422,
      html: paymentView(await frameOf(request, 'payments'), await paymentDetail(user.merchantId, session.mode, id), { error: message }),
    };
  }
});
