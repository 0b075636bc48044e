import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { jobList, type Job } from '#functions/jobs.ts';
import { logger } from '#shared/logger.ts';
import { idleBackoff, loadHandler, sleep, sqsEvent } from './modules.ts';
import { streamLoop } from './streams.ts';

/**
 * Runs the jobs table on this machine, with the same handler modules as AWS: schedules on timers,
 * queue jobs from a local SQS poller, stream jobs from a DynamoDB Local stream poller
 * (./streams.ts). Each loop waits for its previous run (no overlap, like a Lambda with reserved
 * concurrency 1); a queue job with `maxConcurrency` gets that many pollers (at most
 * `queuePollers`). `stop()` ends them all.
 */
export interface JobRunnerOptions {
  queueUrl: string;
  sqsEndpoint: string;
  /** The webhook dead-letter queue (DEAD_LETTER_QUEUE_URL for the handlers, as in AWS). */
  deadLetterQueueUrl?: string;
  /** Seconds between schedule ticks; tests shorten it. Defaults to each job's `everySeconds`. */
  scheduleEverySeconds?: number;
  /** Where stream jobs keep their checkpoints (one file per job); unset = in memory only. */
  streamCheckpointDir?: string;
  /** Upper bound on parallel pollers per queue job (default 4). */
  queuePollers?: number;
}

export interface RunningJobs {
  stop(): Promise<void>;
}

/** A Lambda context; once `signal` aborts, the remaining time reads 0 so long-running handlers wind down. */
export function jobContext(job: Job, signal?: AbortSignal): Context {
  const deadline = Date.now() + job.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: job.id,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${job.id}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${job.id}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => (signal?.aborted ? 0 : Math.max(0, deadline - Date.now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function scheduleLoop(job: Job & { trigger: { kind: 'schedule' } }, everySeconds: number, signal: AbortSignal) {
  const handler = await loadHandler<(event: unknown, context: Context) => Promise<unknown>>(job.handler);
  while (!signal.aborted) {
    const started = Date.now();
    try {
      await handler({ source: 'local.schedule', time: new Date().toISOString() }, jobContext(job, signal));
    } catch (error) {
      logger.error('scheduled job failed', { job: job.id, error });
    }
    // Like an EventBridge rate: the next run starts at the next tick, not `everySeconds` after this one ended.
    await sleep(Math.max(0, everySeconds * 1000 - (Date.now() - started)), signal);
  }
}

/** Delivers webhook-queue messages to a queue job as the SQS event source mapping would. */
async function queueLoop(job: Job & { trigger: { kind: 'queue' } }, options: JobRunnerOptions, sqs: SQSClient, signal: AbortSignal) {
  const handler = await loadHandler<(event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>>(job.handler);
  const deleting = new Set<Promise<void>>();
  const idle = idleBackoff(25, 250);
  while (!signal.aborted) {
    try {
      // Short polls: local-aws-sqs holds a long poll until the batch is FULL (SQS returns as soon as
      // a message is there), which would add up to WaitTimeSeconds to every delivery. While the
      // queue stays empty the polls slow down to one per 250 ms (idleBackoff), so a message waits
      // at most that long after an idle spell.
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(10, job.trigger.batchSize),
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['All'],
          AttributeNames: ['All'], // local-aws-sqs only honours the older parameter
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) {
        await idle.wait(signal);
        continue;
      }
      idle.reset();
      const event = sqsEvent(messages, `arn:aws:sqs:local:000000000000:${options.queueUrl.split('/').pop()}`, 'local');
      let failed = new Set<string>();
      try {
        const response = await handler(event, jobContext(job));
        failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (error) {
        logger.error('queue job failed', { job: job.id, error });
        failed = new Set(messages.map((m) => m.MessageId!));
      }
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length) {
        // Acknowledged while this poller receives its next batch (as the event source mapping
        // deletes apart from the function's invocations): the messages are invisible until then.
        // A failed delete only brings them back after the visibility timeout, as in AWS.
        const pending: Promise<void> = sqs
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          )
          .then(
            () => undefined,
            (error: unknown) => {
              if (!signal.aborted) logger.error('queue poller: delete failed', { job: job.id, error });
            },
          )
          .finally(() => deleting.delete(pending));
        deleting.add(pending);
      }
    } catch (error) {
      if (!signal.aborted) logger.error('queue poller error', { job: job.id, error });
      await sleep(500, signal);
    }
  }
  await Promise.allSettled(deleting);
}

/**
 * The pollers' SQS client (one per queue job, shared by its pollers, as the event source mapping is
 * one poller fleet). Without the SDK's logger middleware, which walks every received batch through
 * its sensitive-data filter even with no logger configured (the dispatcher's own clients drop it too).
 */
function pollerClient(options: JobRunnerOptions): SQSClient {
  const client = new SQSClient({
    endpoint: options.sqsEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

export function startJobs(options: JobRunnerOptions, jobs: readonly Job[] = jobList): RunningJobs {
  const controller = new AbortController();
  // What the stack gives every job function in AWS.
  process.env.QUEUE_URL = options.queueUrl;
  if (options.deadLetterQueueUrl) process.env.DEAD_LETTER_QUEUE_URL = options.deadLetterQueueUrl;
  const loops = jobs.flatMap((job) => {
    const trigger = job.trigger;
    switch (trigger.kind) {
      case 'schedule':
        return [scheduleLoop({ ...job, trigger }, options.scheduleEverySeconds ?? trigger.everySeconds, controller.signal)];
      case 'queue': {
        const pollers = Math.max(1, Math.min(trigger.maxConcurrency ?? 1, options.queuePollers ?? 4));
        const sqs = pollerClient(options);
        return [
          Promise.allSettled(Array.from({ length: pollers }, () => queueLoop({ ...job, trigger }, options, sqs, controller.signal))).then(
            () => sqs.destroy(),
          ),
        ];
      }
      case 'stream': {
        const dynamoEndpoint = process.env.DYNAMODB_ENDPOINT;
        const tableName = process.env.TABLE_NAME;
        if (!dynamoEndpoint || !tableName)
          throw new Error(`job ${job.id}: DYNAMODB_ENDPOINT and TABLE_NAME must be set for the local stream runner`);
        const checkpointFile = options.streamCheckpointDir ? join(options.streamCheckpointDir, `${job.id}.json`) : undefined;
        return [
          streamLoop(
            { ...job, trigger },
            { dynamoEndpoint, tableName, ...(checkpointFile ? { checkpointFile } : {}) },
            () => jobContext(job, controller.signal),
            controller.signal,
          ).catch((error: unknown) => {
            if (!controller.signal.aborted) logger.error('stream runner stopped', { job: job.id, error });
          }),
        ];
      }
      default:
        return [];
    }
  });
  return {
    async stop() {
      controller.abort();
      await Promise.allSettled(loops);
    },
  };
}
