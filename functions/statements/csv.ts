import * as routes from '#functions/routes/statements.ts';
import { httpHandler } from '#shared/http/pipeline.ts';
import { statementCsvFile } from '#shared/services/statements.ts';
import { schemas, statementFile, statementOf } from './common.ts';

/**
 * GET /Gateway/v{version}/Statements/{period}?currency= — a closed month's statement as CSV: the
 * canonical rows, then `# sha256=<digest> …`; header Statement-Digest (docs/merchant-guide.md, Statements).
 */
export const handler = httpHandler(routes.statementCsv, schemas, async ({ auth, path, query }) => {
  const statement = await statementOf(auth, path.period, query.currency);
  return statementFile(statement, 'csv', statementCsvFile(statement));
});
