import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Job } from '#functions/jobs.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { startJobs, type RunningJobs } from '../../scripts/local/jobs.ts';
import { startLocalQueues, type RunningQueues } from '../../scripts/local/queues.ts';
import { freePort } from './global-setup.ts';

/**
 * Webhook tests run the real pipeline: their own table in the run's DynamoDB Local (so the stream
 * holds only this file's events), their own local SQS, and the jobs from functions/jobs.ts in this
 * process through the local runner (stream poller + queue pollers), delivering to real HTTP
 * receivers on 127.0.0.1.
 */
export interface WebhookStack {
  tableName: string;
  queues: RunningQueues;
  jobs?: RunningJobs;
}

/**
 * `queuePollers`: parallel pollers of the dispatcher's queue (the local runner's default is 4, like
 * Lambda's concurrency). Idle pollers short-poll the local SQS all the time: an idle dispatcher took
 * about 140 ms of CPU per second with 4 and 70 with 1 on the loaded 2-core machine, so suites that do
 * not test the dispatcher's concurrency (the browser and fault-point tests) run with 1.
 */
export function useWebhookStack(jobs: readonly Job[], options: { streamCheckpointDir?: string; queuePollers?: number } = {}) {
  const state = {} as WebhookStack;
  beforeAll(async () => {
    state.tableName = `webhooks-${randomUUID().slice(0, 8)}`;
    process.env.TABLE_NAME = state.tableName;
    await ensureTable(inject('dynamoEndpoint'), state.tableName, { stream: true }); // the relay reads it
    state.queues = await startLocalQueues(await freePort());
    if (jobs.length) {
      state.jobs = startJobs(
        {
          queueUrl: state.queues.queueUrl,
          sqsEndpoint: state.queues.endpoint,
          deadLetterQueueUrl: state.queues.deadLetterQueueUrl,
          ...options,
        },
        jobs,
      );
    } else {
      process.env.QUEUE_URL = state.queues.queueUrl;
      process.env.DEAD_LETTER_QUEUE_URL = state.queues.deadLetterQueueUrl;
    }
  });
  afterAll(async () => {
    await state.jobs?.stop();
    await state.queues?.stop();
  });
  return state;
}

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; created: number; data: Record<string, any>; [k: string]: any };
  /** performance.now() when the body was complete. */
  receivedAt: number;
}

/** What the receiver answers: a status, optionally after a delay, optionally with headers. */
export type Reply = number | { status: number; delayMs?: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Waits until `predicate(deliveries)` holds (polling), or fails with what was received. */
  waitFor(predicate: (deliveries: Delivery[]) => boolean, timeoutMs?: number): Promise<Delivery[]>;
  stop(): Promise<void>;
}

export async function startReceiver(
  reply: (delivery: Delivery, all: Delivery[]) => Reply | Promise<Reply> = () => 200,
  port = 0,
): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Delivery['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = { id: '', created: 0, data: {} };
      }
      const delivery: Delivery = { path: req.url ?? '', headers: req.headers, body, event, receivedAt: performance.now() };
      deliveries.push(delivery);
      const r = await reply(delivery, deliveries);
      const { status, delayMs, headers } = typeof r === 'number' ? { status: r, delayMs: 0, headers: {} } : r;
      if (delayMs) await new Promise((ok) => setTimeout(ok, delayMs));
      if (!res.destroyed) res.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end(String(status));
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries,
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(deliveries)) {
        if (Date.now() > deadline) {
          throw new Error(
            `receiver ${url}: condition not met in ${timeoutMs} ms; got ${deliveries.length} deliveries: ` +
              deliveries.map((d) => `${d.event.id}:${d.event.data?.CurrentStatus}`).join(', '),
          );
        }
        await new Promise((ok) => setTimeout(ok, 25));
      }
      return deliveries;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/** Polls `read` until `done(value)` holds; returns the value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}
