import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { revokeApiKey } from '#shared/services/dashboard.ts';

/** POST /dashboard/developers/keys/revoke: one key of this merchant and mode, at once. */
export const handler = dashboardHandler(routes.dashboardRevokeKey, async (request) => {
  await revokeApiKey(request.signed!, request.form.get('keyId') ?? '');
  return { redirect: dashPath('/developers') };
});
