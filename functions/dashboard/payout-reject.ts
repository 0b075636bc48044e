import { payoutsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decidePayout, payoutDecisionPreview } from '#shared/services/dashboard-payouts.ts';
import { frameOf } from './common.ts';
import { payoutDecisionView } from './views.ts';

/**
 * POST /dashboard/payouts/{id}/reject: an approver, never the payout's creator (maker-checker); a reason is required.
 * Without confirm=1 the page that shows what is rejected and why, after the same checks; with it, the decision.
 */
export const handler = dashboardHandler(payoutsRoutes.dashboardRejectPayout, async (request) => {
  const id = request.path.id!;
  const reason = request.form.get('reason') ?? '';
  if (request.form.get('confirm') !== '1') {
    const preview = await payoutDecisionPreview(request.signed!, id, 'reject', reason);
    return { status: 200, html: payoutDecisionView(await frameOf(request, 'payouts'), preview, 'reject') };
  }
  await decidePayout(request.signed!, id, 'reject', reason);
  return { redirect: `${dashPath('/payouts')}?decided=${encodeURIComponent(id)}&decision=reject` };
});
