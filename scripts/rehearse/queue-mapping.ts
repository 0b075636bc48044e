import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { sleep, sqsEvent } from '../local/modules.ts';
import type { InvokeOutcome } from './runtime.ts';

/**
 * An SQS event source mapping as Lambda runs it: receives with the function's own credentials (so
 * its role's sqs:ReceiveMessage / DeleteMessage grants are checked), gathers a batch until it holds
 * BatchSize messages or the batching window ends, invokes, deletes what succeeded (with
 * ReportBatchItemFailures: all but the reported items; without: all or nothing) and leaves the rest
 * to come back after their visibility timeout.
 */
export interface QueueMapping {
  functionId: string;
  queueUrl: string;
  queueArn: string;
  region: string;
  batchSize: number;
  batchingWindowSeconds: number;
  reportFailures: boolean;
  client: ConstructorParameters<typeof SQSClient>[0];
  invoke(event: SQSEvent): Promise<InvokeOutcome>;
}

export async function pollQueue(mapping: QueueMapping, signal: AbortSignal): Promise<void> {
  const sqs = new SQSClient({ ...mapping.client, maxAttempts: 1 });
  try {
    while (!signal.aborted) {
      try {
        const batch: Message[] = [];
        const windowEnds = Date.now() + mapping.batchingWindowSeconds * 1000;
        // Short polls (see scripts/local/jobs.ts): local-aws-sqs holds a long poll until the batch is full.
        for (let round = 0; round < 1000 && batch.length < mapping.batchSize && !signal.aborted; round++) {
          const out = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: mapping.queueUrl,
              MaxNumberOfMessages: Math.min(10, mapping.batchSize - batch.length),
              WaitTimeSeconds: 0,
              MessageSystemAttributeNames: ['All'],
              AttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
          );
          batch.push(...(out.Messages ?? []));
          if (Date.now() >= windowEnds) break;
          if (!out.Messages?.length) await sleep(100, signal);
        }
        if (!batch.length) {
          await sleep(100, signal);
          continue;
        }
        const event = sqsEvent(batch, mapping.queueArn, mapping.region);
        const outcome = await mapping.invoke(event);
        let failed = new Set(batch.map((m) => m.MessageId!));
        if (outcome.kind === 'ok') {
          const reported = (outcome.result as { batchItemFailures?: { itemIdentifier: string }[] } | undefined)?.batchItemFailures;
          failed = new Set(mapping.reportFailures ? (reported ?? []).map((f) => f.itemIdentifier) : []);
        } else {
          console.error(
            `[rehearsal] ${mapping.functionId} batch ${outcome.kind}: ${'errorMessage' in outcome ? outcome.errorMessage : ''}`,
          );
        }
        const done = batch.filter((m) => !failed.has(m.MessageId!));
        if (done.length) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: mapping.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      } catch (error) {
        if (!signal.aborted) console.error(`[rehearsal] queue mapping of ${mapping.functionId}`, error);
        await sleep(500, signal);
      }
    }
  } finally {
    sqs.destroy();
  }
}
