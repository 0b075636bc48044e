import { teamRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { settingsOf } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { settingsView } from './views.ts';

/** GET /dashboard/settings: who approves manual payouts and settlements (admins). */
export const handler = dashboardHandler(teamRoutes.dashboardSettings, async (request) => ({
  status: 200,
  html: settingsView(
    await frameOf(request, 'settings'),
    await settingsOf(request.signed!.user.merchantId),
    request.query.saved ? { message: 'Saved.' } : {},
  ),
}));
