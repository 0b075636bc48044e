import { signInRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { signInPage } from './views.ts';

/** GET /dashboard/sign-in. */
export const handler = dashboardHandler(signInRoutes.dashboardSignInPage, async ({ csrf, query }) => ({
  status: 200,
  html: signInPage({ csrf, ...(query.signedOut ? { message: 'You are signed out.' } : {}) }),
}));
