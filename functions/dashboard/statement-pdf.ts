import { dashboardStatementPdf } from './routes.ts';
import { dashboardHandler } from '#shared/http/dashboard.ts';
import { statementPdf } from '#shared/services/statement-pdf.ts';
import { statementDownload, statementRequest } from './statement-common.ts';

/** GET /dashboard/statements/{period}/pdf?currency=: the month's statement as PDF (its own Lambda). */
export const handler = dashboardHandler(dashboardStatementPdf, async (request) => {
  const statement = await statementRequest(request);
  return statementDownload(statement, 'pdf', await statementPdf(statement));
});
