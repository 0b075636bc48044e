import { paymentsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { switchMode } from '#shared/services/dashboard-auth.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/mode: the visible test/live toggle. */
export const handler = dashboardHandler(paymentsRoutes.dashboardMode, async ({ signed, form }) => {
  const mode = form.get('mode');
  if (mode !== 'test' && mode !== 'live') throw userRefusal('invalid', 'Choose test or live mode.');
  await switchMode(signed!, mode);
  return { redirect: dashPath('') };
});
