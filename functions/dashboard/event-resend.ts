import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { resendFromDashboard } from '#shared/services/dashboard-developers.ts';

/** POST /dashboard/events/{eventId}/resend: the resend service (hourly quotas: 429 page when spent). */
export const handler = dashboardHandler(developersRoutes.dashboardResendEvent, async (request) => {
  const eventId = request.path.eventId ?? '';
  const queued = await resendFromDashboard(request.signed!, eventId);
  return { redirect: `${dashPath(`/events/${encodeURIComponent(eventId)}`)}?resent=${encodeURIComponent(queued.resendId)}` };
});
