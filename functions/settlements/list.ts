import * as z from 'zod/mini';
import * as routes from '#functions/routes/settlements.ts';
import type { SettlementStatus } from '#shared/domain/settlement.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { dateBound, isoDateTime, wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { settlementPage } from '#shared/services/settlement-requests.ts';

/**
 * GET /Gateway/v{version}/Settlements — this merchant's settlements in the key's mode, newest
 * first, in the page envelope of docs/merchant-guide.md, Listing transactions. Query names are case-insensitive (MerchantId,
 * Status, From, To, Page, PageSize). A date without a time means the start of that day (UTC) for
 * From and its end for To; both bounds are inclusive.
 */
const names: Record<string, string> = {
  merchantid: 'MerchantId',
  status: 'Status',
  from: 'From',
  to: 'To',
  page: 'Page',
  pagesize: 'PageSize',
};

const query = z.pipe(
  z.transform((q: unknown) =>
    Object.fromEntries(Object.entries((q ?? {}) as Record<string, string>).map(([k, v]) => [names[k.toLowerCase()] ?? k, v])),
  ),
  z.object({
    MerchantId: z.optional(
      z.string().check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a uuid')),
    ),
    Status: z.optional(wholeNumber(0, 5)),
    From: z.optional(isoDateTime),
    To: z.optional(isoDateTime),
    Page: z.optional(wholeNumber(1, 100_000)),
    PageSize: z.optional(wholeNumber(1, 100)),
  }),
);

export const handler = httpHandler(routes.listSettlements, { query }, async ({ auth, query: q }) => {
  const from = dateBound(q.From, false);
  const to = dateBound(q.To, true);
  if (from && to && from > to) throw problems.badRequest('From must not be after To.', { 'query.From': ['must not be after To'] });
  return ok(
    await settlementPage(auth.merchantId, auth.mode, {
      ...(q.MerchantId !== undefined ? { merchantIdFilter: q.MerchantId } : {}),
      ...(q.Status !== undefined ? { status: q.Status as SettlementStatus } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      page: q.Page ?? 1,
      pageSize: q.PageSize ?? 20,
    }),
  );
});
