import { teamRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { savePayoutApprovals, settingsOf } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { settingsView } from './views.ts';
import { isRefusal } from '#shared/domain/errors.ts';

/** POST /dashboard/settings: who approves manual payouts and settlements; a bad value re-renders the form with its reason. */
export const handler = dashboardHandler(teamRoutes.dashboardSaveSettings, async (request) => {
  try {
    await savePayoutApprovals(request.signed!, request.form.get('payoutApprovals') ?? '');
    return { redirect: `${dashPath('/settings')}?saved=1` };
  } catch (error) {
    if (!isRefusal(error, 'invalid')) throw error;
    return {
      status: 400,
      html: settingsView(await frameOf(request, 'settings'), await settingsOf(request.signed!.user.merchantId), { error: error.message }),
    };
  }
});
