import { settlementsRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { settlementsList } from '#shared/services/dashboard-settlements.ts';
import { frameOf } from './common.ts';
import { settlementsView } from './views.ts';
import { userRefusal } from '#shared/domain/errors.ts';

/** GET /dashboard/settlements (?page=): the mode's settlements and the request form. */
export const handler = dashboardHandler(settlementsRoutes.dashboardSettlements, async (request) => {
  const { user, session } = request.signed!;
  const page = request.query.page ?? '1';
  if (Object.keys(request.query).some((k) => k !== 'page') || !/^\d{1,5}$/.test(page) || page === '0')
    throw userRefusal('invalid', 'That page link is not valid.');
  return {
    status: 200,
    html: settlementsView(await frameOf(request, 'settlements'), await settlementsList(user.merchantId, session.mode, Number(page))),
  };
});
