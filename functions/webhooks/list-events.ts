import * as z from 'zod/mini';
import * as routes from '#functions/routes/webhooks.ts';
import { deliveryStates, webhookEventTypes, type WebhookEventType } from '#shared/domain/events.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { dateBound, isoDateTime, wholeNumber } from '#shared/http/query-params.ts';
import '#shared/http/schemas.ts';
import { eventsFeed } from '#shared/webhooks/events.ts';

/**
 * GET /Gateway/v{version}/Events — the merchant's webhook events in the key's mode (kept 30 days),
 * newest first: `{ items: [{ eventId, type, created, deliveryState, event }], hasMore }`. Filters
 * type (one or several, comma-separated), since, until, deliveryState; limit 1-100 (20); cursor startingAfter (the last eventId of
 * the previous page).
 */
export const query = z.strictObject({
  /** One type, or several comma-separated. */
  type: z.optional(
    z.pipe(
      z
        .string()
        .check(
          z.refine(
            (s) => s.split(',').every((t) => (webhookEventTypes as readonly string[]).includes(t)),
            `must be one or more of ${webhookEventTypes.join(', ')}, comma-separated`,
          ),
        ),
      z.transform((s) => [...new Set(s.split(','))] as WebhookEventType[]),
    ),
  ),
  since: z.optional(isoDateTime),
  until: z.optional(isoDateTime),
  deliveryState: z.optional(z.enum(deliveryStates)),
  limit: z.optional(wholeNumber(1, 100)),
  startingAfter: z.optional(z.string().check(z.regex(/^evt_[0-9a-f]{32}$/, 'must be an event id (evt_…)'))),
});

export const handler = httpHandler(routes.listEvents, { query }, async ({ auth, query: q }) => {
  const since = dateBound(q.since, false);
  const until = dateBound(q.until, true);
  if (since && until && since > until)
    throw problems.badRequest('since must not be after until.', { 'query.since': ['must not be after until'] });
  const page = await eventsFeed(auth.merchantId, auth.mode, {
    ...(q.type !== undefined ? { types: q.type } : {}),
    ...(q.deliveryState !== undefined ? { deliveryState: q.deliveryState } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter } : {}),
    limit: q.limit ?? 20,
  });
  if (page === 'invalid_cursor')
    throw problems.badRequest('startingAfter is not one of your events in this mode (or is older than 30 days).', {
      'query.startingAfter': ['no such event'],
    });
  return ok(page);
});
