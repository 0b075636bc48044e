import * as routes from '#functions/routes/statements.ts';
import { httpHandler } from '#shared/http/pipeline.ts';
import { statementPdf } from '#shared/services/statement-pdf.ts';
import { schemas, statementFile, statementOf } from './common.ts';

/**
 * GET /Gateway/v{version}/Statements/{period}/pdf?currency= — the same statement as PDF (base64 to
 * API Gateway, which returns it binary to a client that sends `Accept: application/pdf`).
 */
export const handler = httpHandler(routes.statementPdf, schemas, async ({ auth, path, query }) => {
  const statement = await statementOf(auth, path.period, query.currency);
  return statementFile(statement, 'pdf', await statementPdf(statement));
});
