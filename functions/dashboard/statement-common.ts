import { userRefusal } from '#shared/domain/errors.ts';
import { isSupportedCurrency } from '#shared/domain/money.ts';
import type { DashboardRequest } from '#shared/http/dashboard.ts';
import { buildStatement, statementFileName, statementPeriodPattern, type Statement } from '#shared/services/statements.ts';

/** The statement a dashboard download asks for: the month in the path, `?currency=`, the session's mode. */
export function statementRequest(request: DashboardRequest): Promise<Statement> {
  const { user, session } = request.signed!;
  const period = request.path.period ?? '';
  const currency = request.query.currency ?? '';
  if (!statementPeriodPattern.test(period) || !isSupportedCurrency(currency) || Object.keys(request.query).some((k) => k !== 'currency'))
    throw userRefusal('invalid', 'That statement link is not valid.');
  return buildStatement(user.merchantId, session.mode, currency, period);
}

export const statementDownload = (s: Statement, kind: 'csv' | 'pdf', file: string | Uint8Array) => ({
  status: 200 as const,
  file,
  contentType: kind === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf',
  filename: statementFileName(s, kind),
  headers: { 'Statement-Digest': `sha256=${s.digest}`, 'Statement-Status': s.status },
});
