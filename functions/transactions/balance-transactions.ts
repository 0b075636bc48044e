import * as z from 'zod/mini';
import * as routes from '#functions/routes/transactions.ts';
import { balanceTransactionIdPattern, balanceTransactionTypes } from '#shared/domain/balance-transaction.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { dateBound, isoDateTime, wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { listBalanceTransactions } from '#shared/services/balance-transactions.ts';

/**
 * GET /Gateway/v{version}/BalanceTransactions — every movement of the merchant's wallet in the key's
 * mode (one per journal), newest first: `{ items, hasMore }`. Filters type, sourceId, from, to, settlement (what a
 * settlement covers), payout (a withdrawal's own movements);
 * limit 1-100 (20); cursor startingAfter (the last id of the previous page).
 */
const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const query = z.strictObject({
  type: z.optional(z.enum(balanceTransactionTypes)),
  sourceId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  settlement: z.optional(z.string().check(z.regex(uuidPattern, 'must be a settlement id'))),
  payout: z.optional(z.string().check(z.regex(uuidPattern, 'must be a payout (withdrawal) paymentIntentId'))),
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
    ...(q.settlement !== undefined ? { settlement: q.settlement.toLowerCase() } : {}),
    ...(q.payout !== undefined ? { payout: q.payout.toLowerCase() } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter } : {}),
    limit: q.limit ?? 20,
  });
  if (page === 'unknown_settlement') throw new NotFoundError(`No settlement with id ${q.settlement}.`);
  if (page === 'unknown_payout') throw new NotFoundError(`No payout (withdrawal) with id ${q.payout}.`);
  if (page === 'invalid_cursor')
    throw problems.badRequest('startingAfter is not a balance transaction id.', { 'query.startingAfter': ['no such balance transaction'] });
  return ok(page);
});
