import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { developersPage } from './developers-page.ts';

/** GET /dashboard/developers: the mode's API keys (admins: and the money-out keys minted lately). */
export const handler = dashboardHandler(developersRoutes.dashboardDevelopers, (request) => developersPage(request, 200));
