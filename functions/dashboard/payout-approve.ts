import { payoutsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decidePayout, payoutDecisionPreview } from '#shared/services/dashboard-payouts.ts';
import { frameOf } from './common.ts';
import { payoutDecisionView } from './views.ts';

/**
 * POST /dashboard/payouts/{id}/approve: an approver, never the payout's creator (maker-checker). Without confirm=1 the
 * page that shows what is approved, after the same checks; with it, the decision.
 */
export const handler = dashboardHandler(payoutsRoutes.dashboardApprovePayout, async (request) => {
  const id = request.path.id!;
  if (request.form.get('confirm') !== '1') {
    const preview = await payoutDecisionPreview(request.signed!, id, 'approve', '');
    return { status: 200, html: payoutDecisionView(await frameOf(request, 'payouts'), preview, 'approve') };
  }
  const { waiting } = await decidePayout(request.signed!, id, 'approve', request.form.get('reason') ?? '');
  return { redirect: `${dashPath('/payouts')}?decided=${encodeURIComponent(id)}&decision=${waiting ? 'waiting' : 'approve'}` };
});
