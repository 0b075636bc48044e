import type { Mode } from '#shared/domain/credentials.ts';
import { deliveryKey, getDeliveries, pointerOf, pointerWritten, putEventPointers, scanOutboxEvents } from '#shared/store/webhooks.ts';
import { initialRound, messageFromItem, newRedriveRound, type DeliveryMessage } from './messages.ts';
import { publish } from './queue.ts';

/**
 * `ops webhooks replay` (docs/webhooks-operations.md): re-relays outbox events from the table, for
 * when the stream, its failure destination or the queue lost something. Idempotent by event id:
 * a delivered event is skipped; one still in its first round is sent as the relay would (the
 * dispatcher continues that round); one whose round ended undelivered (dead-lettered, no
 * destination, endpoint disabled) gets a new round of attempts. Same event id either way.
 */
export interface ReplayResult {
  scanned: number;
  sent: number;
  alreadyDelivered: number;
  failed: number;
}

export async function replayEvents(filter: { since: string; until: string; merchantId?: string; mode?: Mode }): Promise<ReplayResult> {
  const result: ReplayResult = { scanned: 0, sent: 0, alreadyDelivered: 0, failed: 0 };
  for await (const page of scanOutboxEvents(filter)) {
    result.scanned += page.length;
    const deliveries = await getDeliveries(page);
    const messages: DeliveryMessage[] = [];
    for (const item of page) {
      const delivery = deliveries.get(deliveryKey(item));
      if (delivery?.deliveredAt) {
        result.alreadyDelivered++;
        continue;
      }
      const message = messageFromItem(item as unknown as Record<string, unknown>);
      if (!message) continue;
      const ended = delivery && delivery.state !== 'retrying' && delivery.state !== 'pending';
      messages.push(ended ? { ...message, roundId: newRedriveRound() } : message);
    }
    const pointed = new Set(page.filter(pointerWritten).map((i) => i.eventId)); // committed with their pointer
    await putEventPointers(messages.filter((m) => m.roundId === initialRound && !pointed.has(m.eventId)).map(pointerOf));
    const failed = await publish(messages.map((message, i) => ({ id: String(i), message })));
    result.sent += messages.length - failed.length;
    result.failed += failed.length;
  }
  return result;
}
