import { teamRoutes } from './routes.ts';
import { isDashboardRole } from '#shared/domain/dashboard-roles.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { changeTeamMember } from '#shared/services/dashboard-auth.ts';
import { teamPage } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { teamView } from './views.ts';
import { userRefusal, isRefusal } from '#shared/domain/errors.ts';
import { statusOf } from '#shared/http/presenter.ts';

/** POST /dashboard/team/{userId}/role: an admin changes a member's role (the last admin stays one). */
export const handler = dashboardHandler(teamRoutes.dashboardTeamRole, async (request) => {
  const { user } = request.signed!;
  const role = request.form.get('role') ?? '';
  try {
    if (!isDashboardRole(role)) throw userRefusal('invalid', 'Choose a role: admin, developer, finance, approver or viewer.');
    const changed = await changeTeamMember(request.signed!, request.path.userId ?? '', { role });
    return {
      status: 200,
      html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), { message: `${changed.email} is now ${role}.` }),
    };
  } catch (error) {
    if (!isRefusal(error, 'invalid', 'conflict')) throw error;
    return {
      status: statusOf(error),
      html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), { error: error.message }),
    };
  }
});
