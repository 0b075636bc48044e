import * as z from 'zod/mini';
import { securityHeaders } from '#shared/http/middlewares.ts';
import type { Auth, GatewayResponse } from '#shared/http/pipeline.ts';
import { currencyCode, supportedCurrency } from '#shared/http/schemas.ts';
import { buildStatement, statementFileName, statementPeriodPattern, type Statement } from '#shared/services/statements.ts';

/**
 * What both statement rows (CSV and PDF) take: the month in the path (`YYYY-MM`, UTC), the currency
 * in the query (default: the merchant's own), the mode from the key.
 */
export const schemas = {
  path: z.object({ period: z.string().check(z.regex(statementPeriodPattern, 'must be a month, YYYY-MM')) }),
  query: z.strictObject({ currency: z.optional(currencyCode) }),
};

export const statementOf = (auth: Auth, period: string, currency: string | undefined) =>
  buildStatement(auth.merchantId, auth.mode, supportedCurrency(currency ?? auth.merchantCurrency), period);

/**
 * A statement file as the response: its own content type, the download name and the digest header. The body is a
 * string (base64 for the PDF), so the pipeline passes it on as it is (problemDetails serialises only other bodies).
 */
export function statementFile(
  s: Statement,
  kind: 'csv' | 'pdf',
  body: string | Uint8Array,
): GatewayResponse & { isBase64Encoded?: boolean } {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': kind === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf',
      'Content-Disposition': `attachment; filename="${statementFileName(s, kind)}"`,
      'Statement-Digest': `sha256=${s.digest}`,
      'Statement-Status': s.status,
      ...securityHeaders,
    },
    ...(typeof body === 'string' ? { body } : { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }),
  };
}
