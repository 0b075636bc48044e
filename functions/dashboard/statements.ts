import { balanceRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { statementMonths } from '#shared/services/statements.ts';
import { frameOf } from './common.ts';
import { statementsView } from './statements-view.ts';

/** GET /dashboard/statements: the closed months of the last year, per currency, with their downloads. */
export const handler = dashboardHandler(balanceRoutes.dashboardStatements, async (request) => {
  const { user, session } = request.signed!;
  return { status: 200, html: statementsView(await frameOf(request, 'statements'), await statementMonths(user.merchantId, session.mode)) };
});
