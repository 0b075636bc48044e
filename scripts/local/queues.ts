import { queueMaxReceiveCount } from '#shared/webhooks/policy.ts';
import { createSqsServer } from 'local-aws-sqs';

/**
 * Local SQS (local-aws-sqs serves the real SQS JSON API): the webhook queue and its dead-letter
 * queue, with the redrive policy of the CDK stack (see localMaxReceiveCount).
 */
export const webhookQueueName = 'webhook-events';
export const deadLetterQueueName = 'webhook-events-dlq';
/** Safety net only (see below and shared/webhooks/policy.ts). */
export const maxReceiveCount = queueMaxReceiveCount;
/**
 * local-aws-sqs (2.0.2) counts ChangeMessageVisibility as a receive: its changeVisibility runs the
 * code that increments ApproximateReceiveCount, so a message the dispatcher defers (another message
 * of the same event in its batch) gains 2 per receive; retries are new messages. The local redrive policy doubles the count to
 * keep the AWS meaning. It is only a safety net either way: the dispatcher counts attempts in its
 * own delivery log and dead-letters a message itself after the 8th failed attempt.
 */
export const localMaxReceiveCount = 2 * maxReceiveCount;
const accountId = '000000000000';

/** The queue URLs of a local SQS on `port` (the ops tool finds `npm start`'s queues with it). */
export function localQueueUrls(port: number) {
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    queueUrl: `${endpoint}/${accountId}/${webhookQueueName}`,
    deadLetterQueueUrl: `${endpoint}/${accountId}/${deadLetterQueueName}`,
  };
}

export interface RunningQueues {
  endpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  stop(): Promise<void>;
}

export async function startLocalQueues(port: number): Promise<RunningQueues> {
  const region = 'local';
  const server = await createSqsServer({
    port,
    hostname: '127.0.0.1',
    region,
    accountId,
    emulateQueueCreationLifecycle: false,
    queues: [
      { QueueName: deadLetterQueueName },
      {
        QueueName: webhookQueueName,
        Attributes: {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: `arn:aws:sqs:${region}:${accountId}:${deadLetterQueueName}`,
            maxReceiveCount: localMaxReceiveCount,
          }),
        },
      },
    ],
  });
  const { endpoint, queueUrl, deadLetterQueueUrl } = localQueueUrls(port);
  process.env.AWS_ENDPOINT_URL_SQS = endpoint;
  return {
    endpoint,
    queueUrl,
    deadLetterQueueUrl,
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
