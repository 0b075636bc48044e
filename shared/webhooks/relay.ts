import type { DynamoDBRecord } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { fromStreamImage } from '#shared/store/client.ts';
import { pointerOf, pointerWritten, putEventPointers, type EventPointer } from '#shared/store/webhooks.ts';
import { messageFromItem, type DeliveryMessage } from './messages.ts';
import { publish } from './queue.ts';

/**
 * The outbox relay: new OutboxEvent (and WebhookResend) items from the table's stream become
 * webhook-queue messages. A record counts as relayed only once SQS accepted its message; the
 * failed ones are reported by sequence number, and the stream is re-read from the first of them
 * (Lambda's ReportBatchItemFailures; the local stream runner does the same). Nothing is
 * acknowledged before it is on the queue, so a relay that dies at any point loses no event: it
 * re-reads and re-sends (at least once; the dispatcher skips rounds that are already delivered).
 */
export async function relayRecords(records: readonly DynamoDBRecord[]): Promise<{ failedSequenceNumbers: string[] }> {
  const entries: { id: string; sequenceNumber: string; message: DeliveryMessage; pointed: boolean }[] = [];
  for (const [index, record] of records.entries()) {
    const image = record.dynamodb?.NewImage;
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    if (record.eventName !== 'INSERT' || !image) continue;
    let message: DeliveryMessage | undefined;
    let pointed = false;
    try {
      const item = fromStreamImage(image);
      message = messageFromItem(item);
      pointed = pointerWritten(item);
    } catch (error) {
      // Retrying cannot repair an item that does not parse: say so loudly and move on.
      logger.error('outbox relay: unreadable item', { sequenceNumber, error });
    }
    if (message) entries.push({ id: String(index), sequenceNumber, message, pointed });
  }
  if (entries.length === 0) return { failedSequenceNumbers: [] };

  // An event committed before its pointer was part of the commit gets it here, before its message
  // exists, so its attempts are findable by event id (pointerWritten: the others have it).
  const pointers: EventPointer[] = entries
    .filter((e) => e.message.roundId === 'initial' && !e.pointed)
    .map(({ message }) => pointerOf(message));
  await putEventPointers(pointers);

  const failed = new Set(await publish(entries.map(({ id, message }) => ({ id, message }))));
  const failedSequenceNumbers = entries.filter((e) => failed.has(e.id)).map((e) => e.sequenceNumber);
  logger.info('outbox relayed', { published: entries.length - failed.size, failed: failed.size });
  return { failedSequenceNumbers };
}
