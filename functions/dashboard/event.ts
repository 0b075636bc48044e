import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { eventDeliveries } from '#shared/services/dashboard-developers.ts';
import { frameOf } from './common.ts';
import { eventView } from './views.ts';

/** GET /dashboard/events/{eventId}: the event's delivery state and every attempt. */
export const handler = dashboardHandler(developersRoutes.dashboardEvent, async (request) => {
  const { user, session } = request.signed!;
  const d = await eventDeliveries(user.merchantId, session.mode, request.path.eventId ?? '');
  return {
    status: 200,
    html: eventView(
      await frameOf(request, 'payments'),
      d,
      request.query.resent ? { message: `Resend queued (${request.query.resent.slice(0, 40)}): a new delivery round starts now.` } : {},
    ),
  };
});
