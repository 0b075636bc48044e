import { balanceRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { statementMonths } from '#shared/services/statements.ts';
import { frameOf } from './common.ts';
import { statementsView } from './statements-view.ts';

/** GET /dashboard/statements: the month to date and the closed months since the merchant was created, per currency, to download. */
export const handler = dashboardHandler(balanceRoutes.dashboardStatements, async (request) => {
  const { user, session } = request.signed!;
  return { status: 200, html: statementsView(await frameOf(request, 'statements'), await statementMonths(user.merchantId, session.mode)) };
});
