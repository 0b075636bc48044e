import * as routes from '#functions/routes/dashboard-app.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { refundsPage } from '#shared/services/dashboard.ts';
import { frameOf } from './common.ts';
import { refundsView } from './views.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** GET /dashboard/refunds (?after=<refundId>): every refund of the merchant in the mode, newest first, 25 per page. */
export const handler = dashboardHandler(routes.dashboardRefunds, async (request) => {
  const { user, session } = request.signed!;
  if (Object.keys(request.query).some((k) => k !== 'after')) throw userRefusal('invalid', 'That page link is not valid.');
  const after = request.query.after || undefined;
  return {
    status: 200,
    html: refundsView(await frameOf(request, 'refunds'), await refundsPage(user.merchantId, session.mode, after), { after }),
  };
});
