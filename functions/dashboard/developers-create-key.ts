import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { apiKeysOf } from '#shared/services/dashboard.ts';
import { createApiKeyFromDashboard } from '#shared/services/dashboard-developers.ts';
import { frameOf } from './common.ts';
import { developersView } from './views.ts';

/** POST /dashboard/developers/keys: a new key pair with the chosen mode and scopes, in this response only. */
export const handler = dashboardHandler(routes.dashboardCreateKey, async (request) => {
  const { user, session } = request.signed!;
  const issued = await createApiKeyFromDashboard(request.signed!, {
    mode: request.form.get('mode') ?? '',
    scopes: request.form.getAll('scopes'),
  });
  return {
    status: 200,
    html: developersView(await frameOf(request, 'developers'), await apiKeysOf(user.merchantId, session.mode), { issued }),
  };
});
