import { payoutsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import { createPayoutFromDashboard, payoutsPage } from '#shared/services/dashboard-payouts.ts';
import { frameOf } from './common.ts';
import { payoutsView } from './views.ts';
import { formMessage } from '#shared/http/presenter.ts';

/** POST /dashboard/payouts: the withdrawals service (waits for approval); a refusal re-renders the form with its reason. */
export const handler = dashboardHandler(payoutsRoutes.dashboardCreatePayout, async (request) => {
  const f = request.form;
  const { user, session } = request.signed!;
  try {
    const payout = await createPayoutFromDashboard(
      request.signed!,
      {
        amount: f.get('amount') ?? '',
        bankCode: f.get('bankCode') ?? '',
        accountNumber: f.get('accountNumber') ?? '',
        accountTitle: f.get('accountTitle') ?? '',
        receiverCnic: f.get('receiverCnic') ?? '',
        description: f.get('description') ?? '',
      },
      request.traceId,
    );
    return { redirect: `${dashPath('/payouts')}?created=${encodeURIComponent(payout.paymentIntentId)}` };
  } catch (error) {
    const message = formMessage(error);
    return {
      status: 422,
      html: payoutsView(await frameOf(request, 'payouts'), await payoutsPage(user.merchantId, session.mode), { error: message }),
    };
  }
});
