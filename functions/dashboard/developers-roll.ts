import { developersRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { rollApiKeys } from '#shared/services/dashboard-keys.ts';
import { developersPage, developersRefusal } from './developers-page.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/**
 * POST /dashboard/developers/keys/roll: the new key and secret are in this response only (no redirect,
 * never stored in clear); keys with money-out scopes need an admin and the `code` field (step-up).
 */
export const handler = dashboardHandler(developersRoutes.dashboardRollKey, async (request) => {
  try {
    const grace = request.form.get('graceDays') ?? '';
    if (!/^[0-7]$/.test(grace)) throw userRefusal('invalid', 'Choose how many days (0 to 7) the old keys keep working.', 'graceDays');
    const issued = await rollApiKeys(request.signed!, Number(grace) * 86400, request.form.get('code') ?? '');
    return developersPage(request, 200, { issued });
  } catch (error) {
    return developersRefusal(request, error);
  }
});
