import { settlementsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { path as dashPath } from '#shared/http/dashboard-views.ts';
import {
  requestSettlementFromDashboard,
  settlementPreview,
  settlementsList,
  type SettlementForm,
} from '#shared/services/dashboard-settlements.ts';
import { frameOf } from './common.ts';
import { settlementConfirmView, settlementsView } from './views.ts';
import { formMessage } from '#shared/http/presenter.ts';

/** POST /dashboard/settlements: without confirm=1 the preview (fee, net, FX) to confirm; with it, the settlement. */
export const handler = dashboardHandler(settlementsRoutes.dashboardRequestSettlement, async (request) => {
  const { user, session } = request.signed!;
  const form: SettlementForm = {
    amount: request.form.get('amount') ?? '',
    method: request.form.get('method') ?? '',
    bankName: request.form.get('bankName') ?? '',
    iban: request.form.get('iban') ?? '',
    accountTitle: request.form.get('accountTitle') ?? '',
    usdtAddress: request.form.get('usdtAddress') ?? '',
  };
  try {
    if (request.form.get('confirm') !== '1') {
      return {
        status: 200,
        html: settlementConfirmView(await frameOf(request, 'settlements'), await settlementPreview(request.signed!, form), form),
      };
    }
    const created = await requestSettlementFromDashboard(request.signed!, form, request.traceId);
    return { redirect: `${dashPath(`/settlements/${created.id}`)}?requested=1` };
  } catch (error) {
    const message = formMessage(error);
    return {
      status: 422,
      html: settlementsView(await frameOf(request, 'settlements'), await settlementsList(user.merchantId, session.mode, 1), {
        error: message,
        form,
      }),
    };
  }
});
