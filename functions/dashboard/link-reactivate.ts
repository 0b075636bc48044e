import { linksRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { setLinkActiveFromDashboard } from '#shared/services/dashboard-links.ts';

/** POST /dashboard/links/{id}/reactivate: reactivates the payment link (audited), back to its page. */
export const handler = dashboardHandler(linksRoutes.dashboardReactivateLink, async (request) => {
  const id = request.path.id!;
  await setLinkActiveFromDashboard(request.signed!, id, true);
  return { redirect: `${dashPath(`/links/${encodeURIComponent(id)}`)}?changed=reactivate` };
});
