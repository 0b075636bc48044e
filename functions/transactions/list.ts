import * as z from 'zod/mini';
import * as routes from '#functions/routes/transactions.ts';
import { intentStatuses, intentTypes } from '#shared/domain/intent.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { dateBound, isoDateTime, wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { paymentLinkPayments } from '#shared/services/payment-links.ts';
import { listTransactions } from '#shared/services/transactions.ts';
import { linkIdQuery } from '../payment-links/common.ts';

/**
 * GET /Gateway/v{version}/Transactions — the merchant's checkouts, deposits and withdrawals in the
 * key's mode, newest first: `{ items, hasMore }`. Filters status, intentType, from, to, orderRef,
 * or paymentLinkId alone (the payments made through one payment link, docs/payment-links.md);
 * limit 1-100 (20); cursor startingAfter (the last paymentIntentId of the previous page).
 */
export const query = z.strictObject({
  status: z.optional(z.enum(intentStatuses)),
  intentType: z.optional(z.enum(intentTypes)),
  from: z.optional(isoDateTime),
  to: z.optional(isoDateTime),
  orderRef: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
  paymentLinkId: z.optional(
    linkIdQuery.check(
      z.meta({
        description: "A payment link's id (pl_…): only the payments made through that link; takes no filter but limit and startingAfter.",
      }),
    ),
  ),
  limit: z.optional(wholeNumber(1, 100)),
  startingAfter: z.optional(
    z
      .string()
      .check(z.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a paymentIntentId (uuid)')),
  ),
});

const invalidCursor = () =>
  problems.badRequest('startingAfter is not one of your transactions in this mode.', { 'query.startingAfter': ['no such transaction'] });

export const handler = httpHandler(routes.listTransactions, { query }, async ({ auth, query: q }) => {
  if (q.paymentLinkId !== undefined) {
    const others = (['status', 'intentType', 'from', 'to', 'orderRef'] as const).filter((name) => q[name] !== undefined);
    if (others.length)
      throw problems.badRequest(
        'paymentLinkId takes no other filter (only limit and startingAfter).',
        Object.fromEntries(others.map((name) => [`query.${name}`, ['not with paymentLinkId']])),
      );
    const page = await paymentLinkPayments(auth.merchantId, auth.mode, q.paymentLinkId, {
      startingAfter: q.startingAfter?.toLowerCase(),
      limit: q.limit ?? 20,
    });
    if (page === 'invalid_cursor') throw invalidCursor();
    return ok(page);
  }
  const from = dateBound(q.from, false);
  const to = dateBound(q.to, true);
  if (from && to && from > to) throw problems.badRequest('from must not be after to.', { 'query.from': ['must not be after to'] });
  const page = await listTransactions(auth.merchantId, auth.mode, {
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.intentType !== undefined ? { intentType: q.intentType } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(q.orderRef !== undefined ? { orderRef: q.orderRef } : {}),
    ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter.toLowerCase() } : {}),
    limit: q.limit ?? 20,
  });
  if (page === 'invalid_cursor') throw invalidCursor();
  return ok(page);
});
