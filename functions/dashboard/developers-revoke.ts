import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { revokeApiKey } from '#shared/services/dashboard-keys.ts';

/** POST /dashboard/developers/keys/revoke: one key of this merchant and mode, at once. */
export const handler = dashboardHandler(developersRoutes.dashboardRevokeKey, async (request) => {
  await revokeApiKey(request.signed!, request.form.get('keyId') ?? '');
  return { redirect: dashPath('/developers') };
});
