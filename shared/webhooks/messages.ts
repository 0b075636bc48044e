import { randomUUID } from 'node:crypto';
import type { AddressedEvent } from '#shared/domain/events.ts';

/**
 * The webhook queue's message: everything one delivery needs, so the dispatcher reads no event
 * from the table. `roundId` names the series of attempts it belongs to: `initial` for the event's
 * own delivery, `rs_…` for a merchant's resend, `rd_…` for a dead letter moved back by an operator.
 * A new round gets the full retry schedule again; the same round is never delivered twice once it
 * has ended (delivered, dead-lettered, or no destination).
 */
export interface DeliveryMessage extends AddressedEvent {
  v: 1;
  /** createdAt of the outbox item (its sort key), to find the event from its pointer. */
  eventCreatedAt: string;
  roundId: string;
}

export type RoundTrigger = 'automatic' | 'resend' | 'redrive';

export const initialRound = 'initial';
export const newResendId = () => `rs_${randomUUID().replaceAll('-', '')}`;
export const newRedriveRound = () => `rd_${randomUUID().replaceAll('-', '')}`;
export const newDeliveryId = () => `dlv_${randomUUID().replaceAll('-', '')}`;

export function roundTrigger(roundId: string): RoundTrigger {
  return roundId.startsWith('rs_') ? 'resend' : roundId.startsWith('rd_') ? 'redrive' : 'automatic';
}

/** Table items the relay turns into messages (the stream filter lists the same entities). */
export const relayedEntities = ['OutboxEvent', 'WebhookResend'] as const;

/** The stream's new images of the two relayed entities (outboxWrites, resendWrite). */
type Image<T> = AddressedEvent & T;
type OutboxImage = Image<{ entity: 'OutboxEvent'; createdAt: string }>;
type ResendImage = Image<{ entity: 'WebhookResend'; resendId: string; eventCreatedAt: string }>;

/** The message for a new table item, or undefined when the item is not one the relay publishes. */
export function messageFromItem(item: Record<string, unknown>): DeliveryMessage | undefined {
  const base = (i: OutboxImage | ResendImage) => ({
    v: 1 as const,
    eventId: i.eventId,
    paymentIntentId: i.paymentIntentId,
    ...(i.subject ? { subject: i.subject } : {}),
    merchantId: i.merchantId,
    mode: i.mode,
    callbackUrl: i.callbackUrl,
    event: i.event,
  });
  if (item.entity === 'OutboxEvent') {
    const i = item as unknown as OutboxImage;
    return { ...base(i), eventCreatedAt: i.createdAt, roundId: initialRound };
  }
  if (item.entity === 'WebhookResend') {
    const i = item as unknown as ResendImage;
    return { ...base(i), eventCreatedAt: i.eventCreatedAt, roundId: i.resendId };
  }
  return undefined;
}

export function parseMessage(body: string): DeliveryMessage {
  const m = JSON.parse(body) as DeliveryMessage;
  const about = typeof m?.paymentIntentId === 'string' || (typeof m?.subject?.id === 'string' && typeof m.subject.kind === 'string');
  if (m?.v !== 1 || typeof m.eventId !== 'string' || !about || typeof m.roundId !== 'string' || !m.event) {
    throw new Error('not a webhook delivery message');
  }
  return m;
}
