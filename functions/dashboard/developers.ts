import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { apiKeysOf } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { developersView } from './views.ts';

/** GET /dashboard/developers: the mode's API keys. */
export const handler = dashboardHandler(routes.dashboardDevelopers, async (request) => {
  const { user, session } = request.signed!;
  return { status: 200, html: developersView(await frameOf(request, 'developers'), await apiKeysOf(user.merchantId, session.mode)) };
});
