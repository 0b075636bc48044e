import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { traceAwsClient } from '#shared/aws/tracing.ts';
import type { DeliveryMessage } from './messages.ts';

/**
 * The webhook queue and its dead-letter queue. In AWS the functions get QUEUE_URL and
 * DEAD_LETTER_QUEUE_URL from the stack; locally the job runner sets them and AWS_ENDPOINT_URL_SQS
 * points at local SQS.
 */
let client: SQSClient | undefined;

export function sqs(): SQSClient {
  const local = process.env.AWS_ENDPOINT_URL_SQS;
  // Traced (an X-Ray subsegment per call) inside Lambda; unchanged elsewhere (shared/aws/tracing.ts).
  client ??= traceAwsClient(
    new SQSClient(
      local
        ? {
            endpoint: local,
            region: process.env.AWS_REGION ?? 'local',
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            maxAttempts: 5,
            cacheMiddleware: true,
          }
        : { cacheMiddleware: true }, // its middleware resolved once per command, as db()'s (shared/store/client.ts)
    ),
  );
  return client;
}

function env(name: 'QUEUE_URL' | 'DEAD_LETTER_QUEUE_URL'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
export const queueUrl = () => env('QUEUE_URL');
export const deadLetterQueueUrl = () => env('DEAD_LETTER_QUEUE_URL');

/** SendMessageBatch allows 10 entries and 256 KiB in all; entries are grouped to fit both. */
const maxBatchBytes = 240 * 1024;

/** Publishes messages (each optionally delayed, at most 900 s); returns the ids of the entries SQS did not accept. */
export async function publish(entries: readonly { id: string; message: DeliveryMessage; delaySeconds?: number }[]): Promise<string[]> {
  const batches: { Id: string; MessageBody: string; DelaySeconds?: number }[][] = [];
  let current: { Id: string; MessageBody: string; DelaySeconds?: number }[] = [];
  let bytes = 0;
  for (const { id, message, delaySeconds } of entries) {
    const body = JSON.stringify(message);
    const size = Buffer.byteLength(body, 'utf8');
    if (current.length === 10 || (current.length > 0 && bytes + size > maxBatchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push({
      Id: id,
      MessageBody: body,
      ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))) } : {}),
    });
    bytes += size;
  }
  if (current.length) batches.push(current);
  const failed: string[] = [];
  await Promise.all(
    batches.map(async (batch) => {
      try {
        const out = await sqs().send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: batch }));
        failed.push(...(out.Failed ?? []).map((f) => f.Id!));
      } catch {
        failed.push(...batch.map((e) => e.Id));
      }
    }),
  );
  return failed;
}

/** The next attempt as a new message, delayed by `seconds` (at most 900): nothing stays in flight meanwhile. */
export async function sendDelayed(message: DeliveryMessage, seconds: number): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl(),
      MessageBody: JSON.stringify(message),
      DelaySeconds: Math.min(900, Math.max(0, Math.ceil(seconds))),
    }),
  );
}

/** Makes a received message visible again after `seconds` (a deferred message of a busy event). */
export async function retryAfter(receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

/** Sends a message to the dead-letter queue (its last attempt failed). */
export async function sendToDeadLetter(message: DeliveryMessage): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: deadLetterQueueUrl(), MessageBody: JSON.stringify(message) }));
}

async function queueArn(url: string): Promise<string> {
  const out = await sqs().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = out.Attributes?.QueueArn;
  if (!arn) throw new Error(`no ARN for ${url}`);
  return arn;
}

export async function queueDepths() {
  const depth = async (url: string) => {
    const out = await sqs().send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const a = out.Attributes ?? {};
    return {
      visible: Number(a.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  };
  const [queue, deadLetters] = await Promise.all([depth(queueUrl()), depth(deadLetterQueueUrl())]);
  return { queue, deadLetters };
}

/**
 * Moves every dead letter back to the webhook queue with an SQS message move task and waits for
 * it to end. The destination is named explicitly: letters the dispatcher dead-lettered itself
 * carry no DeadLetterQueueSourceArn.
 */
export async function redriveDeadLetters(options: { waitMs?: number; maxPerSecond?: number } = {}) {
  const [source, destination] = await Promise.all([queueArn(deadLetterQueueUrl()), queueArn(queueUrl())]);
  const before = (await queueDepths()).deadLetters;
  if (before.visible === 0) return { status: 'NOTHING_TO_MOVE', moved: 0, failureReason: null as string | null };
  await sqs().send(
    new StartMessageMoveTaskCommand({
      SourceArn: source,
      DestinationArn: destination,
      ...(options.maxPerSecond ? { MaxNumberOfMessagesPerSecond: options.maxPerSecond } : {}),
    }),
  );
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  for (;;) {
    const out = await sqs().send(new ListMessageMoveTasksCommand({ SourceArn: source, MaxResults: 10 }));
    const task = out.Results?.[0]; // the most recent task first: the one just started
    if (task && task.Status !== 'RUNNING') {
      return {
        status: task.Status ?? 'UNKNOWN',
        moved: Number(task.ApproximateNumberOfMessagesMoved ?? 0),
        failureReason: task.FailureReason ?? null,
      };
    }
    if (Date.now() > deadline)
      return { status: 'RUNNING', moved: Number(task?.ApproximateNumberOfMessagesMoved ?? 0), failureReason: null };
    await new Promise((r) => setTimeout(r, 250));
  }
}
