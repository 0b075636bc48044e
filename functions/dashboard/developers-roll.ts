import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { DashboardRefusal } from '#shared/services/dashboard-auth.ts';
import { apiKeysOf, rollApiKeys } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { developersView } from './views.ts';

/** POST /dashboard/developers/keys/roll: the new key and secret are in this response only (no redirect, never stored in clear). */
export const handler = dashboardHandler(routes.dashboardRollKey, async (request) => {
  const { user, session } = request.signed!;
  const grace = request.form.get('graceDays') ?? '';
  if (!/^[0-7]$/.test(grace)) throw new DashboardRefusal(400, 'Choose how many days (0 to 7) the old keys keep working.');
  const issued = await rollApiKeys(request.signed!, Number(grace) * 86400);
  return {
    status: 200,
    html: developersView(await frameOf(request, 'developers'), await apiKeysOf(user.merchantId, session.mode), { issued }),
  };
});
