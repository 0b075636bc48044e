import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { createApiKeyFromDashboard } from '#shared/services/dashboard-keys.ts';
import { developersPage, developersRefusal } from './developers-page.ts';

/**
 * POST /dashboard/developers/keys: a new key pair with the chosen mode and scopes, in this response
 * only; money-out scopes need an admin and the `code` field (step-up). A refusal re-renders the page.
 */
export const handler = dashboardHandler(developersRoutes.dashboardCreateKey, async (request) => {
  try {
    const issued = await createApiKeyFromDashboard(request.signed!, {
      mode: request.form.get('mode') ?? '',
      scopes: request.form.getAll('scopes'),
      code: request.form.get('code') ?? '',
    });
    return developersPage(request, 200, { issued });
  } catch (error) {
    return developersRefusal(request, error);
  }
});
