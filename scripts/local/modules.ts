import type { Message } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './config.ts';

/** Loads a Lambda handler module (a route's or a job's) once, by its repository-relative path. */
const loaded = new Map<string, Promise<unknown>>();

/**
 * A bundle of a script that serves handlers (test/support/script-bundles.ts) lists them here: it
 * holds no .ts files to import, and the handlers must share the script's modules (one fault-point
 * registry, one table client). Unset when the source runs (tsx, vitest).
 */
const bundled = (file: string) => (globalThis as { __bundledHandlers?: Map<string, () => Promise<unknown>> }).__bundledHandlers?.get(file);

export function loadHandler<H>(file: string): Promise<H> {
  let handler = loaded.get(file);
  if (!handler) {
    const load = bundled(file) ?? (() => import(pathToFileURL(resolve(repoRoot, file)).href));
    handler = load().then((m) => (m as { handler: unknown }).handler);
    loaded.set(file, handler);
  }
  return handler as Promise<H>;
}

/** A sleep that ends early when `signal` aborts (the local runners' loops stop promptly on Ctrl-C). */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve(); // an abort that already happened fires no event
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The pause after an empty poll in the local runners' loops (queue pollers, stream pollers):
 * `first` ms after the first empty poll, doubling while the polls stay empty, at most `max`; any
 * work resets it. Idle pollers otherwise cost CPU all the time: an idle webhook stack (stream
 * poller and one queue poller) took about 200 ms of CPU per second on the 2-core machine when it
 * polled every 100 ms and every short poll, about as much as the tests that use it.
 */
export function idleBackoff(first: number, max: number) {
  let next = 0;
  return {
    wait(signal: AbortSignal) {
      next = Math.min(max, next ? next * 2 : first);
      return sleep(next, signal);
    },
    reset() {
      next = 0;
    },
  };
}

/** The event an SQS event source mapping hands its function: one record per received message. */
export const sqsEvent = (messages: readonly Message[], eventSourceARN: string, awsRegion: string): SQSEvent => ({
  Records: messages.map((m) => ({
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: m.Attributes as never,
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  })),
});
