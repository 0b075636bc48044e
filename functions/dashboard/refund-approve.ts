import { refundsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideRefund, refundDecisionPreview } from '#shared/services/dashboard-refunds.ts';
import { frameOf } from './common.ts';
import { refundDecisionView } from './views.ts';

/**
 * POST /dashboard/refunds/{id}/approve: an approver, never the refund's requester (maker-checker), under the approval
 * setting merchant or both. Without confirm=1 the page that shows what is approved; with it, the decision.
 */
export const handler = dashboardHandler(refundsRoutes.dashboardApproveRefund, async (request) => {
  const id = request.path.id!;
  if (request.form.get('confirm') !== '1') {
    const preview = await refundDecisionPreview(request.signed!, id, 'approve', '');
    return { status: 200, html: refundDecisionView(await frameOf(request, 'refunds'), preview, 'approve') };
  }
  const { waiting } = await decideRefund(request.signed!, id, 'approve', '');
  return { redirect: `${dashPath('/refunds')}?decided=${waiting ? 'waiting' : 'approve'}` };
});
