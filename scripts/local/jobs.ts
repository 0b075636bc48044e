import { randomUUID } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { jobList, type Job } from '#functions/jobs.ts';
import { logger } from '#shared/logger.ts';
import { loadHandler } from './modules.ts';

/**
 * Runs the jobs table on this machine, with the same handler modules as AWS: schedules on timers,
 * queue jobs from a local SQS poller. Each loop waits for its previous run (no overlap, like a
 * Lambda with reserved concurrency 1) and `stop()` ends them all.
 */
export interface JobRunnerOptions {
  queueUrl: string;
  sqsEndpoint: string;
  /** Seconds between schedule ticks; tests shorten it. Defaults to each job's `everySeconds`. */
  scheduleEverySeconds?: number;
}

export interface RunningJobs {
  stop(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve(); // an abort that already happened fires no event
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

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
async function queueLoop(job: Job & { trigger: { kind: 'queue' } }, options: JobRunnerOptions, signal: AbortSignal) {
  const handler = await loadHandler<(event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>>(job.handler);
  const sqs = new SQSClient({ endpoint: options.sqsEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  while (!signal.aborted) {
    try {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(10, job.trigger.batchSize),
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) continue;
      const event: SQSEvent = {
        Records: messages.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body ?? '',
          attributes: m.Attributes as never,
          messageAttributes: {},
          md5OfBody: m.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: `arn:aws:sqs:local:000000000000:${options.queueUrl.split('/').pop()}`,
          awsRegion: 'local',
        })),
      };
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
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      }
    } catch (error) {
      if (!signal.aborted) logger.error('queue poller error', { job: job.id, error });
      await sleep(500, signal);
    }
  }
  sqs.destroy();
}

export function startJobs(options: JobRunnerOptions, jobs: readonly Job[] = jobList): RunningJobs {
  const controller = new AbortController();
  const loops = jobs.map((job) => {
    const trigger = job.trigger;
    switch (trigger.kind) {
      case 'schedule':
        return scheduleLoop({ ...job, trigger }, options.scheduleEverySeconds ?? trigger.everySeconds, controller.signal);
      case 'queue':
        return queueLoop({ ...job, trigger }, options, controller.signal);
      case 'stream':
        throw new Error(`job ${job.id}: the local stream trigger is not available yet`);
    }
  });
  return {
    async stop() {
      controller.abort();
      await Promise.allSettled(loops);
    },
  };
}
