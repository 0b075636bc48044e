import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decidePayout } from '#shared/services/dashboard.ts';

/** POST /dashboard/payouts/{id}/approve: an approver, never the payout's creator (maker-checker). */
export const handler = dashboardHandler(routes.dashboardApprovePayout, async (request) => {
  const { waiting } = await decidePayout(request.signed!, request.path.id!, 'approve', request.form.get('reason') ?? '');
  return {
    redirect: `${dashPath('/payouts')}?decided=${encodeURIComponent(request.path.id!)}&decision=${waiting ? 'waiting' : 'approve'}`,
  };
});
