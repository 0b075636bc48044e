import { refundsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideRefund, refundDecisionPreview } from '#shared/services/dashboard-refunds.ts';
import { frameOf } from './common.ts';
import { refundDecisionView } from './views.ts';

/**
 * POST /dashboard/refunds/{id}/reject: an approver, never the refund's requester (maker-checker); a reason is required;
 * the payment is refundable again. Without confirm=1 the page that shows what is rejected and why; with it, the decision.
 */
export const handler = dashboardHandler(refundsRoutes.dashboardRejectRefund, async (request) => {
  const id = request.path.id!;
  const reason = request.form.get('reason') ?? '';
  if (request.form.get('confirm') !== '1') {
    const preview = await refundDecisionPreview(request.signed!, id, 'reject', reason);
    return { status: 200, html: refundDecisionView(await frameOf(request, 'refunds'), preview, 'reject') };
  }
  await decideRefund(request.signed!, id, 'reject', reason);
  return { redirect: `${dashPath('/refunds')}?decided=reject` };
});
