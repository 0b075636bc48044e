import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { dispatchBatch, dropSdkLogging } from '#shared/webhooks/dispatcher.ts';
import { parseMessage, type DeliveryMessage } from '#shared/webhooks/messages.ts';
import { retryAfter, sendDelayed, sendToDeadLetter } from '#shared/webhooks/queue.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

dropSdkLogging();

/**
 * Job webhookDispatcher (functions/jobs.ts): one signed delivery attempt per queue message, the
 * batch in parallel (shared/webhooks/dispatcher.ts). A failed attempt's message is acknowledged: the
 * next attempt is a new delayed message (up to 15 min) or parked in the table for the webhook sweep,
 * so waiting retries hold nothing in flight. A failing merchant endpoint is not a failure of this function: the
 * invocation only fails if the delivery log cannot be written (then every message comes back).
 */
export const handler = jobHandler('webhookDispatcher', async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  const entries: { ref: { messageId: string; receiptHandle: string }; message: DeliveryMessage }[] = [];
  for (const record of event.Records) {
    try {
      entries.push({ ref: record, message: parseMessage(record.body) });
    } catch (error) {
      // Not ours to repair: SQS retries it and its redrive policy dead-letters it.
      logger.error('webhook queue: unreadable message', { messageId: record.messageId, error });
      failures.push(record.messageId);
    }
  }
  const results = await dispatchBatch(entries, { deadLetter: sendToDeadLetter, requeue: sendDelayed });
  await Promise.all(
    results.map(async ({ ref, result }) => {
      if (result.kind !== 'deferred') return;
      failures.push(ref.messageId);
      await retryAfter(ref.receiptHandle, 1).catch((error: unknown) =>
        // The message then comes back after the queue's visibility timeout instead.
        logger.warn('could not set the retry delay', { messageId: ref.messageId, error }),
      );
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
});
