import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { decideSettlement } from '#shared/services/dashboard-settlements.ts';

/** POST /dashboard/settlements/{id}/reject: an approver, never the settlement's requester (maker-checker); the funds are released. */
export const handler = dashboardHandler(routes.dashboardRejectSettlement, async (request) => {
  const id = request.path.id!;
  await decideSettlement(request.signed!, id, 'reject', request.form.get('reason') ?? '');
  return { redirect: `${dashPath(`/settlements/${encodeURIComponent(id)}`)}?decided=reject` };
});
