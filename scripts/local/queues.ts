import { createSqsServer } from 'local-aws-sqs';

/**
 * Local SQS (local-aws-sqs serves the real SQS JSON API): the webhook queue and its dead-letter
 * queue, with the same redrive policy as the CDK stack.
 */
export const webhookQueueName = 'webhook-events';
export const deadLetterQueueName = 'webhook-events-dlq';
export const maxReceiveCount = 8;

export interface RunningQueues {
  endpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  stop(): Promise<void>;
}

export async function startLocalQueues(port: number): Promise<RunningQueues> {
  const accountId = '000000000000';
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
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:${region}:${accountId}:${deadLetterQueueName}`, maxReceiveCount }),
        },
      },
    ],
  });
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.AWS_ENDPOINT_URL_SQS = endpoint;
  return {
    endpoint,
    queueUrl: `${endpoint}/${accountId}/${webhookQueueName}`,
    deadLetterQueueUrl: `${endpoint}/${accountId}/${deadLetterQueueName}`,
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
