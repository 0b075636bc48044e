import { balanceRoutes } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { statementCsvFile } from '#shared/services/statements.ts';
import { statementDownload, statementRequest } from './statement-common.ts';

/** GET /dashboard/statements/{period}/csv?currency=: the month's statement as CSV (the API's file). */
export const handler = dashboardHandler(balanceRoutes.dashboardStatementCsv, async (request) => {
  const statement = await statementRequest(request);
  return statementDownload(statement, 'csv', statementCsvFile(statement));
});
