import * as z from 'zod/mini';
import * as routes from '#functions/routes/refunds.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { refundsOfTransaction } from '#shared/services/refund-requests.ts';

/**
 * GET /Gateway/v{version}/Refunds?trxnRef=… — the refunds of one transaction (orderRef,
 * paymentIntentId or transactionReference), newest first, in the list envelope (docs/merchant-guide.md, Listing transactions) plus the
 * transaction's amount, refundedAmount and refundableAmount. Query names are case-insensitive.
 */
const names: Record<string, string> = { trxnref: 'trxnRef', page: 'Page', pagesize: 'PageSize' };
const whole = (min: number, max: number) =>
  z.pipe(
    z.string().check(
      z.refine((s) => /^\d{1,9}$/.test(s) && Number(s) >= min && Number(s) <= max, `must be a whole number from ${min} to ${max}`),
      z.meta({ description: `A whole number from ${min} to ${max}.` }),
    ),
    z.transform(Number),
  );

const query = z.pipe(
  z.transform((q: unknown) =>
    Object.fromEntries(Object.entries((q ?? {}) as Record<string, string>).map(([k, v]) => [names[k.toLowerCase()] ?? k, v])),
  ),
  z.object({
    trxnRef: z.string('required').check(z.minLength(1, 'required'), z.maxLength(255, 'at most 255 characters')),
    Page: z.optional(whole(1, 100_000)),
    PageSize: z.optional(whole(1, 100)),
  }),
);

export const handler = httpHandler(routes.listRefunds, { query }, async ({ auth, query: q }) =>
  ok(await refundsOfTransaction(auth.merchantId, auth.mode, q.trxnRef, q.Page ?? 1, q.PageSize ?? 20)),
);
