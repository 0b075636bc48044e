import { settlementsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { settlementDetail } from '#shared/services/dashboard-settlements.ts';
import { frameOf } from './common.ts';
import { settlementView } from './views.ts';

const decidedText: Record<string, string> = {
  approve: 'Settlement approved.',
  reject: 'Settlement rejected: the funds are released.',
  waiting: "Your approval is recorded. The settlement waits for the operator's approval.",
};

/** GET /dashboard/settlements/{id}: another merchant's or mode's settlement is a 404. */
export const handler = dashboardHandler(settlementsRoutes.dashboardSettlement, async (request) => {
  const { user, session } = request.signed!;
  const v = await settlementDetail(user.merchantId, session.mode, request.path.id ?? '');
  return {
    status: 200,
    html: settlementView(
      await frameOf(request, 'settlements'),
      v,
      request.query.requested
        ? { message: 'Settlement requested: the funds are held until it is approved.' }
        : request.query.decided
          ? { message: decidedText[request.query.decided] ?? 'Done.' }
          : {},
    ),
  };
});
