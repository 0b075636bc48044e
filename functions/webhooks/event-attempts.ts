import * as z from 'zod/mini';
import * as routes from '#functions/routes/webhooks.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import '#shared/http/schemas.ts';
import { eventAttempts } from '#shared/webhooks/events.ts';

/** GET /Gateway/v{version}/Events/{eventId}/attempts — the delivery log of one event. */
export const handler = httpHandler(
  routes.eventAttempts,
  { path: z.object({ eventId: z.string().check(z.minLength(1), z.maxLength(255)) }) },
  async ({ auth, path }) => {
    const attempts = await eventAttempts(auth.merchantId, auth.mode, path.eventId);
    if (!attempts) throw new NotFoundError(`No event ${path.eventId}.`);
    return ok(attempts);
  },
);
