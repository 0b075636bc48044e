import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { relayRecords } from '#shared/webhooks/relay.ts';
import { jobHandler } from '#shared/aws/handler-base.ts';

/**
 * Job webhookRelay (functions/jobs.ts): the table stream (INSERTs of OutboxEvent and WebhookResend)
 * to the webhook queue. Failed records are reported by sequence number; the stream retries from
 * the first of them.
 */
export const handler = jobHandler('webhookRelay', async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const { failedSequenceNumbers } = await relayRecords(event.Records);
  return { batchItemFailures: failedSequenceNumbers.map((itemIdentifier) => ({ itemIdentifier })) };
});
