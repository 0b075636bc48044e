import { signInRoutes } from './routes.ts';
import { dashboardHandler, sessionCookie } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { signIn } from '#shared/services/dashboard-auth.ts';
import { signInPage } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';
import { statusOf } from '#shared/http/presenter.ts';

/** POST /dashboard/sign-in: e-mail, password and code → a session cookie (or 2FA enrolment). */
export const handler = dashboardHandler(signInRoutes.dashboardSignIn, async ({ form, ip, csrf }) => {
  const email = form.get('email') ?? '';
  try {
    const { stage, sessionToken } = await signIn({ email, password: form.get('password') ?? '', code: form.get('code') ?? '' }, ip);
    return { redirect: dashPath(stage === 'full' ? '' : '/enrol'), setCookie: sessionCookie(sessionToken) };
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return { status: statusOf(error), html: signInPage({ csrf, email, error: error.message }) };
  }
});
