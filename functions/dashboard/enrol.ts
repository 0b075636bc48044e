import { signInRoutes } from './routes.ts';
import { dashboardHandler, sessionCookie } from '#shared/http/dashboard.ts';
import { completeEnrolment, enrolmentSecret } from '#shared/services/dashboard-auth.ts';
import { enrolPage } from './enrol-views.ts';
import { recoveryCodesPage } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/enrol: a code from the app turns 2FA on; the recovery codes are shown this once. */
export const handler = dashboardHandler(
  signInRoutes.dashboardEnrol,
  async ({ signed, form, csrf }) => {
    try {
      const { recoveryCodes, sessionToken } = await completeEnrolment(signed!, form.get('code') ?? '');
      return { status: 200, html: recoveryCodesPage(recoveryCodes, signed!.user.email), setCookie: sessionCookie(sessionToken) };
    } catch (error) {
      if (!isRefusal(error, 'invalid')) throw error;
      return { status: 400, html: enrolPage({ ...(await enrolmentSecret(signed!)), csrf, error: error.message }) };
    }
  },
  { enrolment: true },
);
