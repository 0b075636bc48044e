import { signInRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { enrolmentSecret } from '#shared/services/dashboard-auth.ts';
import { enrolPage } from './enrol-views.ts';

/** GET /dashboard/enrol: the TOTP secret as base32 text, otpauth:// URI and QR code. */
export const handler = dashboardHandler(
  signInRoutes.dashboardEnrolPage,
  async ({ signed, csrf }) => ({ status: 200, html: enrolPage({ ...(await enrolmentSecret(signed!)), csrf }) }),
  { enrolment: true },
);
