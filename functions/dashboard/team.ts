import { teamRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { teamPage } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { teamView } from './views.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** GET /dashboard/team: users and the audit log (admins). */
export const handler = dashboardHandler(teamRoutes.dashboardTeam, async (request) => {
  const before = request.query.before;
  if (before !== undefined && !/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-f-]{36}$/.test(before))
    throw userRefusal('invalid', 'That page link is not valid.');
  return { status: 200, html: teamView(await frameOf(request, 'team'), await teamPage(request.signed!.user.merchantId, before)) };
});
