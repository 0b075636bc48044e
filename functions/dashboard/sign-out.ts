import { signInRoutes } from './routes.ts';
import { dashboardHandler, sessionCookie } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { signOut } from '#shared/services/dashboard-auth.ts';

/** POST /dashboard/sign-out (everywhere=1: every session of the user ends). */
export const handler = dashboardHandler(
  signInRoutes.dashboardSignOut,
  async ({ signed, form }) => {
    await signOut(signed!, form.get('everywhere') === '1');
    return { redirect: `${dashPath('/sign-in')}?signedOut=1`, setCookie: sessionCookie(null) };
  },
  { enrolment: true },
);
