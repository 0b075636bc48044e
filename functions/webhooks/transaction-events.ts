import * as z from 'zod/mini';
import * as routes from '#functions/routes/webhooks.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import '#shared/http/schemas.ts';
import { transactionEvents } from '#shared/webhooks/events.ts';

/** GET /Gateway/v{version}/Transaction/{reference}/events — a transaction's webhook events and their delivery state. */
export const handler = httpHandler(
  routes.transactionEvents,
  { path: z.object({ reference: z.string().check(z.minLength(1), z.maxLength(255)) }) },
  async ({ auth, path }) => {
    const events = await transactionEvents(auth.merchantId, auth.mode, path.reference);
    if (!events) throw new NotFoundError(`No transaction with reference ${path.reference}.`);
    return ok(events);
  },
);
