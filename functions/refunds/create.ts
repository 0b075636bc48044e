import * as z from 'zod/mini';
import * as routes from '#functions/routes/refunds.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import * as f from '#shared/http/schemas.ts';
import { createRefund } from '#shared/services/refund-requests.ts';
import '#shared/providers/live/boot-refunds.ts';

/** POST /Gateway/v{version}/Refunds — refund all or part of a Completed checkout or deposit (201, status 0, attemptCount 0). */
const body = z.strictObject({
  trxnRef: z.string().check(z.minLength(1, 'required'), z.maxLength(255, 'at most 255 characters')),
  amount: z.optional(z.nullable(z.number('must be a number'))),
  reason: z.optional(z.nullable(z.string().check(z.maxLength(500, 'at most 500 characters')))),
  signature: f.signature,
});

export const handler = httpHandler(routes.createRefund, { body }, async (request) => {
  const { auth, body: b } = request;
  const caller = {
    merchantId: auth.merchantId,
    mode: auth.mode,
    fee: auth.merchantFees.refund,
    traceId: request.traceId,
    ...(auth.maker ? { maker: auth.maker } : {}),
  };
  return commit(request, 201, () => createRefund(caller, { trxnRef: b.trxnRef, amount: b.amount ?? null, reason: b.reason ?? null }));
});
