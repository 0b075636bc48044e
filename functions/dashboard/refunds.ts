import { refundsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { refundsPage } from '#shared/services/dashboard-refunds.ts';
import { frameOf } from './common.ts';
import { refundsView } from './views.ts';
import { userRefusal } from '#shared/domain/errors.ts';

const decidedText: Record<string, string> = {
  approve: 'Refund approved: the amount and fee are held and the refund is on its way to the customer.',
  reject: 'Refund rejected: the payment is refundable again.',
  waiting: "Your approval is recorded. The refund waits for the operator's approval.",
};

/**
 * GET /dashboard/refunds (?after=<refundId>): every refund of the merchant in the mode, newest first, 25 per page;
 * Approve and Reject on Pending ones when the merchant's approvers decide refunds (?decided= after a decision).
 */
export const handler = dashboardHandler(refundsRoutes.dashboardRefunds, async (request) => {
  const { user, session } = request.signed!;
  if (Object.keys(request.query).some((k) => k !== 'after' && k !== 'decided'))
    throw userRefusal('invalid', 'That page link is not valid.');
  const after = request.query.after || undefined;
  const decided = request.query.decided ? (decidedText[request.query.decided] ?? 'Done.') : undefined;
  return {
    status: 200,
    html: refundsView(await frameOf(request, 'refunds'), await refundsPage(user.merchantId, session.mode, after), {
      after,
      ...(decided ? { message: decided } : {}),
    }),
  };
});
