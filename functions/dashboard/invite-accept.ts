import { signInRoutes } from './routes.ts';
import { dashboardHandler, sessionCookie } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { acceptInvite, openInvite } from '#shared/services/dashboard-auth.ts';
import { invitePage } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/invite/{token}: set the password (the invitation is used) → 2FA enrolment. */
export const handler = dashboardHandler(signInRoutes.dashboardAcceptInvite, async ({ path, form, ip, csrf }) => {
  try {
    const { sessionToken } = await acceptInvite(path.token!, form.get('password') ?? '', form.get('confirm') ?? '', ip);
    return { redirect: dashPath('/enrol'), setCookie: sessionCookie(sessionToken) };
  } catch (error) {
    if (!isRefusal(error, 'invalid')) throw error;
    const { invite, merchantName } = await openInvite(path.token!);
    return {
      status: 400,
      html: invitePage({ email: invite.email, merchantName, csrf, error: error.message, ...(error.field ? { field: error.field } : {}) }),
    };
  }
});
