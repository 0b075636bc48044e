import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideSettlement } from '#shared/services/dashboard-settlements.ts';

/**
 * POST /dashboard/settlements/{id}/approve: an approver, never the settlement's requester (maker-checker);
 * the merchant's approval setting applies.
 */
export const handler = dashboardHandler(routes.dashboardApproveSettlement, async (request) => {
  const id = request.path.id!;
  const { waiting } = await decideSettlement(request.signed!, id, 'approve', request.form.get('reason') ?? '');
  return { redirect: `${dashPath(`/settlements/${encodeURIComponent(id)}`)}?decided=${waiting ? 'waiting' : 'approve'}` };
});
