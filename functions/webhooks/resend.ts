import * as z from 'zod/mini';
import * as routes from '#functions/routes/webhooks.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { resendEvent } from '#shared/services/event-resend.ts';

/**
 * POST /Gateway/v{version}/Events/{eventId}/resend — queue a new round of delivery of an event
 * (same event id, the full retry schedule). No body is needed and none is signed; a body that does
 * carry `signature` is checked as for every POST (docs/merchant-guide.md, Signing a request body). 202 with the resend id; an
 * Idempotency-Key makes a retried request queue one resend only.
 */
export const handler = httpHandler(
  routes.resendEvent,
  {
    path: z.object({ eventId: z.string().check(z.minLength(1), z.maxLength(255)) }),
    body: z.optional(z.strictObject({ signature: z.optional(z.string()) })),
  },
  async (request) => {
    const { auth, path } = request;
    return commit(request, 202, () =>
      resendEvent({ merchantId: auth.merchantId, mode: auth.mode, eventId: path.eventId, now: new Date() }),
    );
  },
);
