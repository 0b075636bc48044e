import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { developersPage } from './common.ts';

/** GET /dashboard/developers: the mode's API keys (admins: and the money-out keys minted lately). */
export const handler = dashboardHandler(routes.dashboardDevelopers, (request) => developersPage(request, 200));
