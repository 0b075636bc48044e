import { logger } from '#shared/logger.ts';
import {
  deliveryKey,
  getDeliveries,
  listWebhookDue,
  pointerOf,
  moveWebhookDue,
  outboxMessages,
  putEventPointers,
  pointerWritten,
  sweepGraceSeconds,
  type WebhookDueItem,
} from '#shared/store/webhooks.ts';
import { initialRound, messageFromItem, type DeliveryMessage } from './messages.ts';
import { maxQueueDelaySeconds } from './policy.ts';
import { publish } from './queue.ts';

/**
 * The webhook safety sweep (job webhookSweeper; docs/webhooks-operations.md). It does not trust
 * the pipeline (stream → relay → queue → dispatcher): the table is the source of truth.
 *
 * - Every outbox event enters the due index when committed, due `sweepGraceSeconds` later. If by
 *   then no delivery item exists (a lost stream batch, a lost queue message, a crash in between),
 *   its message is sent again (same event id; receivers dedupe) and it is looked at again a grace
 *   period later; once its delivery item records an attempt it leaves the index (the item itself
 *   is written `pending`, with no attempt, in the transaction that commits the event).
 * - A delivery item waiting for a retry is in the index (with its message, or for a version 2 item
 *   the outbox item's createdAt, from which the message is rebuilt): a parked retry (over
 *   15 min) at its nextAttemptAt, a retry waiting on the queue a grace period after it (its
 *   message was lost if no attempt has replaced the entry by then). Either way the sweep sends the
 *   message, delayed until nextAttemptAt if that is still ahead.
 * Each entry is moved on (or removed) only if nobody changed it since it was read, so a dispatcher
 * attempt that wrote in between always wins. Sending twice is harmless: the dispatcher skips rounds
 * that have ended.
 *
 * `horizonSeconds` looks that far ahead: after a restart of the local stack (whose queue lives in
 * memory) everything waiting is sent at once.
 */
export interface SweepResult {
  /** Outbox events with no delivery item, sent again. */
  resent: number;
  /** Waiting retries sent (parked ones when due, lost ones late). */
  retries: number;
  /** Outbox events taken out of the index (their delivery item exists). */
  settled: number;
}

export async function sweepWebhooks(now = new Date(), options: { horizonSeconds?: number } = {}): Promise<SweepResult> {
  const due = await listWebhookDue(new Date(now.getTime() + (options.horizonSeconds ?? 0) * 1000));
  const outbox = due.filter((i): i is Extract<WebhookDueItem, { entity: 'OutboxEvent' }> => i.entity === 'OutboxEvent');
  const waiting = due.filter((i): i is Extract<WebhookDueItem, { entity: 'WebhookDelivery' }> => i.entity === 'WebhookDelivery');
  const delivered = await getDeliveries(outbox);
  const result: SweepResult = { resent: 0, retries: 0, settled: 0 };

  const toSend: { item: WebhookDueItem; message: DeliveryMessage; delaySeconds: number }[] = [];
  for (const item of outbox) {
    // Attempted: a delivery item with an attempt (one written `pending` with the event has none yet).
    if ((delivered.get(deliveryKey(item))?.attempts ?? 0) > 0) {
      if (await moveWebhookDue(item, null)) result.settled++;
      continue;
    }
    const message = messageFromItem(item as unknown as Record<string, unknown>);
    if (message) toSend.push({ item, message, delaySeconds: 0 });
  }
  // A version 2 item keeps no message while it waits: its outbox item gives it (the same event, the round that waits).
  const rebuilt = await outboxMessages(
    waiting.filter(
      (i): i is typeof i & { waiting: NonNullable<typeof i.waiting> } => i.state === 'retrying' && !!i.waiting && !i.waiting.message,
    ),
  );
  for (const item of waiting) {
    if (item.state !== 'retrying' || !item.waiting) {
      await moveWebhookDue(item, null);
      continue;
    }
    const ahead = item.nextAttemptAt ? Math.ceil((Date.parse(item.nextAttemptAt) - now.getTime()) / 1000) : 0;
    if (ahead > maxQueueDelaySeconds) continue; // a look ahead never sends an attempt early
    const outbox = item.waiting.message ? undefined : rebuilt.get(deliveryKey(item));
    const fromOutbox = outbox ? messageFromItem(outbox) : undefined;
    const message = item.waiting.message ?? (fromOutbox ? { ...fromOutbox, roundId: item.roundId } : undefined);
    if (!message) {
      logger.error('webhook sweep: a waiting retry without its outbox event', { eventId: item.eventId });
      continue;
    }
    toSend.push({ item, message: message as DeliveryMessage, delaySeconds: Math.max(0, ahead) });
  }
  if (toSend.length === 0) return result;

  // An event the relay never saw, committed before its pointer was part of the commit, has no
  // pointer yet: write it first (idempotent), as the relay does.
  await putEventPointers(
    toSend
      .filter((s) => s.item.entity === 'OutboxEvent' && s.message.roundId === initialRound && !pointerWritten(s.item))
      .map(({ message }) => pointerOf(message)),
  );
  const failed = new Set(await publish(toSend.map((s, i) => ({ id: String(i), message: s.message, delaySeconds: s.delaySeconds }))));
  await Promise.all(
    toSend.map(async (s, i) => {
      if (failed.has(String(i))) return; // still due: the next sweep tries again
      const lookAgainAt = new Date(now.getTime() + (s.delaySeconds + sweepGraceSeconds()) * 1000).toISOString();
      await moveWebhookDue(s.item, lookAgainAt);
      if (s.item.entity === 'OutboxEvent') result.resent++;
      else result.retries++;
    }),
  );
  // Parked retries are routine; an event resent means the pipeline lost something (or was slow).
  if (result.resent || failed.size) logger.warn('webhook sweep sent events again', { ...result, failed: failed.size });
  else if (result.retries) logger.info('webhook sweep sent waiting retries', { ...result });
  return result;
}
