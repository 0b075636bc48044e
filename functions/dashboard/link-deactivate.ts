import { linksRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { setLinkActiveFromDashboard } from '#shared/services/dashboard-links.ts';

/** POST /dashboard/links/{id}/deactivate: deactivates the payment link (audited), back to its page. */
export const handler = dashboardHandler(linksRoutes.dashboardDeactivateLink, async (request) => {
  const id = request.path.id!;
  await setLinkActiveFromDashboard(request.signed!, id, false);
  return { redirect: `${dashPath(`/links/${encodeURIComponent(id)}`)}?changed=deactivate` };
});
