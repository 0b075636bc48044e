import type { Mode } from '#shared/domain/credentials.ts';
import { subjectOf, type StoredEvent } from '#shared/domain/events.ts';
import { feedPosition, getFeedEntry, pageEventFeed, type FeedQuery } from '#shared/store/event-feed.ts';
import { findIntent, listEvents } from '#shared/store/intents.ts';
import type { TxItem } from '#shared/store/client.ts';
import {
  getDelivery,
  getEventPointer,
  getOutboxEvent,
  listDeliveries,
  resendWrite,
  type AttemptRecord,
  type DeliveryRecord,
} from '#shared/store/webhooks.ts';
import { newResendId } from './messages.ts';
import { deliveryErrorCategory } from './error-categories.ts';

/**
 * What merchants see of their webhooks (docs/merchant-guide.md "Webhooks"): a transaction's events with their
 * delivery state, an event's attempts, and resend requests. Another merchant's or mode's event is
 * "not found" (undefined), never "forbidden".
 */
export function deliveryView(d: DeliveryRecord | undefined) {
  return {
    state: d?.state ?? 'pending',
    attempts: d?.attempts ?? 0,
    lastAttemptAt: d?.lastAttemptAt ?? null,
    lastStatusCode: d?.lastStatusCode ?? null,
    lastError: deliveryErrorCategory(d?.lastError), // a category, never the raw socket error
    nextAttemptAt: d?.nextAttemptAt ?? null,
    deliveredAt: d?.deliveredAt ?? null,
  };
}

export function attemptView(a: AttemptRecord) {
  return {
    attempt: a.attempt,
    roundAttempt: a.roundAttempt,
    trigger: a.trigger,
    deliveryId: a.deliveryId,
    attemptedAt: a.attemptedAt,
    url: a.url,
    destination: a.destination,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: deliveryErrorCategory(a.error), // a category, never the raw socket error
    outcome: a.outcome,
    nextAttemptAt: a.nextAttemptAt,
  };
}

function eventView(stored: StoredEvent, delivery: DeliveryRecord | undefined) {
  return {
    eventId: stored.eventId,
    type: stored.event.type,
    created: stored.event.created,
    previousStatus: stored.event.data.PreviousStatus,
    currentStatus: stored.event.data.CurrentStatus,
    delivery: deliveryView(delivery),
    event: stored.event,
  };
}

/** GET …/Transaction/{reference}/events: oldest first. */
export async function transactionEvents(merchantId: string, mode: Mode, reference: string) {
  const intent = await findIntent(merchantId, mode, reference);
  if (!intent) return undefined;
  const [events, deliveries] = await Promise.all([listEvents(intent.paymentIntentId), listDeliveries(intent.paymentIntentId)]);
  const byEvent = new Map(deliveries.map((d) => [d.eventId, d]));
  return { paymentIntentId: intent.paymentIntentId, items: events.map((e) => eventView(e, byEvent.get(e.eventId))) };
}

export interface EventFeedQuery extends Omit<FeedQuery, 'before'> {
  /** An event id: the page starts after it. */
  startingAfter?: string;
}

/**
 * GET …/Events: the merchant's events in one mode (the last 30 days), newest first, each with its
 * current delivery state and the envelope as sent. A cursor that is not this merchant's and mode's
 * event (or has expired) is `invalid_cursor` (a 400), never a leak.
 */
export async function eventsFeed(merchantId: string, mode: Mode, q: EventFeedQuery, now = new Date()) {
  let before: string | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await getFeedEntry(q.startingAfter);
    if (!cursor || cursor.merchantId !== merchantId || cursor.mode !== mode) return 'invalid_cursor' as const;
    before = feedPosition(cursor);
  }
  const { startingAfter: _cursor, ...filters } = q;
  const page = await pageEventFeed(merchantId, mode, { ...filters, ...(before ? { before } : {}) }, now);
  return {
    items: page.items.map((e) => ({
      eventId: e.eventId,
      type: e.type,
      created: e.event.created,
      deliveryState: e.deliveryState,
      event: e.event,
    })),
    hasMore: page.hasMore,
  };
}

async function ownedPointer(merchantId: string, mode: Mode, eventId: string) {
  const pointer = await getEventPointer(eventId);
  return pointer && pointer.merchantId === merchantId && pointer.mode === mode ? pointer : undefined;
}

/** GET …/Events/{eventId}/attempts: oldest first, every round. */
export async function eventAttempts(merchantId: string, mode: Mode, eventId: string) {
  const pointer = await ownedPointer(merchantId, mode, eventId);
  if (!pointer) return undefined;
  const delivery = await getDelivery(subjectOf(pointer), eventId);
  return {
    eventId,
    paymentIntentId: pointer.paymentIntentId,
    delivery: deliveryView(delivery),
    items: (delivery?.log ?? []).map(attemptView),
  };
}

/**
 * POST …/Events/{eventId}/resend: the write that asks for a new round of delivery (same event id,
 * new delivery ids, the full retry schedule again). The caller commits it with its idempotency
 * record; the stream relays it to the queue.
 */
export async function prepareResend(
  merchantId: string,
  mode: Mode,
  eventId: string,
  now = new Date(),
): Promise<{ write: TxItem; body: { eventId: string; resendId: string; status: 'queued'; requestedAt: string } } | undefined> {
  const pointer = await ownedPointer(merchantId, mode, eventId);
  if (!pointer) return undefined;
  const stored = await getOutboxEvent(pointer);
  if (!stored) return undefined;
  const resendId = newResendId();
  const requestedAt = now.toISOString();
  return {
    write: resendWrite({
      resendId,
      eventId,
      paymentIntentId: pointer.paymentIntentId,
      subject: subjectOf(pointer),
      merchantId,
      mode,
      callbackUrl: stored.callbackUrl ?? null,
      eventCreatedAt: pointer.eventCreatedAt,
      event: stored.event,
      requestedAt,
    }),
    body: { eventId, resendId, status: 'queued', requestedAt },
  };
}
