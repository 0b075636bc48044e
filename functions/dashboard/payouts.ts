import { payoutsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { payoutsPage } from '#shared/services/dashboard-payouts.ts';
import { frameOf } from './common.ts';
import { shortId } from './format.ts';
import { payoutsView } from './views.ts';

/** GET /dashboard/payouts: awaiting approval, then the latest others. */
export const handler = dashboardHandler(payoutsRoutes.dashboardPayouts, async (request) => {
  const { user, session } = request.signed!;
  const q = request.query;
  const message = q.created
    ? `Payout ${shortId(q.created)} created. It waits for an approver.`
    : q.decided
      ? q.decision === 'waiting'
        ? `Your approval of payout ${shortId(q.decided)} is recorded. It waits for the operator's approval.`
        : `Payout ${shortId(q.decided)} ${q.decision === 'approve' ? 'approved' : 'rejected'}.`
      : undefined;
  return {
    status: 200,
    html: payoutsView(await frameOf(request, 'payouts'), await payoutsPage(user.merchantId, session.mode), message ? { message } : {}),
  };
});
