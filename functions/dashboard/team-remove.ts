import { teamRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { changeTeamMember } from '#shared/services/dashboard-auth.ts';
import { teamPage } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { teamView } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/team/{userId}/remove: an admin removes a member (never the last active admin). */
export const handler = dashboardHandler(teamRoutes.dashboardTeamRemove, async (request) => {
  const { user } = request.signed!;
  try {
    const removed = await changeTeamMember(request.signed!, request.path.userId ?? '', { remove: true });
    return {
      status: 200,
      html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), {
        message: `${removed.email} was removed: they can no longer sign in.`,
      }),
    };
  } catch (error) {
    if (!isRefusal(error, 'conflict')) throw error;
    return { status: 409, html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), { error: error.message }) };
  }
});
