import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment-links.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { listPaymentLinks } from '#shared/services/payment-links.ts';
import { linkIdQuery } from './common.ts';

/**
 * GET /Gateway/v{version}/PaymentLinks — the merchant's links in the key's mode, newest first:
 * `{ items, hasMore }`; limit 1-100 (20); cursor startingAfter (the last id of the previous page).
 */
const query = z.strictObject({
  limit: z.optional(wholeNumber(1, 100)),
  startingAfter: z.optional(linkIdQuery),
});

export const handler = httpHandler(routes.listPaymentLinks, { query }, async ({ auth, query: q }) => {
  const page = await listPaymentLinks(auth.merchantId, auth.mode, {
    ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter } : {}),
    limit: q.limit ?? 20,
  });
  if (page === 'invalid_cursor')
    throw problems.badRequest('startingAfter is not one of your payment links in this mode.', {
      'query.startingAfter': ['no such payment link'],
    });
  return ok(page);
});
