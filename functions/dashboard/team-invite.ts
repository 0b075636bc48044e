import { teamRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { inviteUser } from '#shared/services/dashboard-auth.ts';
import { teamPage } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { teamView } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';
import { statusOf } from '#shared/http/presenter.ts';

/** POST /dashboard/team/invite: an admin invites a user; the link is shown once to pass on (no e-mail service). */
export const handler = dashboardHandler(teamRoutes.dashboardTeamInvite, async (request) => {
  const { user, actor } = request.signed!;
  try {
    const invited = await inviteUser(
      { merchantId: user.merchantId, email: request.form.get('email') ?? '', role: request.form.get('role') ?? '' },
      actor,
    );
    return { status: 200, html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), { invited }) };
  } catch (error) {
    if (!isRefusal(error, 'invalid', 'conflict')) throw error;
    return {
      status: statusOf(error),
      html: teamView(await frameOf(request, 'team'), await teamPage(user.merchantId), { error: error.message }),
    };
  }
});
