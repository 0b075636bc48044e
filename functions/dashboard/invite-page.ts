import { signInRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { openInvite } from '#shared/services/dashboard-auth.ts';
import { invitePage } from './views.ts';

/** GET /dashboard/invite/{token}: the set-password form of a valid invitation. */
export const handler = dashboardHandler(signInRoutes.dashboardInvitePage, async ({ path, csrf }) => {
  const { invite, merchantName } = await openInvite(path.token!);
  return { status: 200, html: invitePage({ email: invite.email, merchantName, csrf }) };
});
