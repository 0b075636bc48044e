import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { deliveryLogFilters, webhooksPage } from '#shared/services/dashboard-developers.ts';
import { frameOf } from './common.ts';
import { webhooksView } from './views.ts';

/** GET /dashboard/developers/webhooks: the mode's endpoint and its delivery log (?type=&state=&after=). */
export const handler = dashboardHandler(developersRoutes.dashboardWebhooks, async (request) => {
  const { user, session } = request.signed!;
  const filters = deliveryLogFilters(request.query);
  return {
    status: 200,
    html: webhooksView(await frameOf(request, 'developers'), await webhooksPage(user.merchantId, session.mode, filters), filters),
  };
});
