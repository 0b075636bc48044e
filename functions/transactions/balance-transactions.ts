import * as z from 'zod/mini';
import * as routes from '#functions/routes/transactions.ts';
import { balanceTransactionIdPattern, balanceTransactionTypes } from '#shared/domain/balance-transaction.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { dateBound, isoDateTime, wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { listBalanceTransactions } from '#shared/services/balance-transactions.ts';

/**
 * GET /Gateway/v{version}/BalanceTransactions — every movement of the merchant's wallet in the key's
 * mode (one per journal), newest first: `{ items, hasMore }`. Filters type, sourceId, from, to;
 * limit 1-100 (20); cursor startingAfter (the last id of the previous page).
 */
export const query = z.strictObject({
  type: z.optional(z.enum(balanceTransactionTypes)),
  sourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  from: z.optional(isoDateTime),
  to: z.optional(isoDateTime),
  limit: z.optional(wholeNumber(1, 100)),
  startingAfter: z.optional(z.string().check(z.regex(balanceTransactionIdPattern, 'must be a balance transaction id (btx_…)'))),
});

export const handler = httpHandler(routes.listBalanceTransactions, { query }, async ({ auth, query: q }) => {
  const from = dateBound(q.from, false);
  const to = dateBound(q.to, true);
  if (from && to && from > to) throw problems.badRequest('from must not be after to.', { 'query.from': ['must not be after to'] });
  const page = await listBalanceTransactions(auth.merchantId, auth.mode, {
    ...(q.type !== undefined ? { type: q.type } : {}),
    ...(q.sourceId !== undefined ? { sourceId: q.sourceId } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter } : {}),
    limit: q.limit ?? 20,
  });
  if (page === 'invalid_cursor')
    throw problems.badRequest('startingAfter is not a balance transaction id.', { 'query.startingAfter': ['no such balance transaction'] });
  return ok(page);
});
