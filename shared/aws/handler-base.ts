import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '#shared/logger.ts';

/**
 * THE handler base: every Lambda of the gateway, of every kind, starts with handlerBase(), so what
 * each invocation gets is set up in one place.
 *   api        shared/http/pipeline.ts   httpHandler: auth, JSON, idempotency, problem details
 *   page       shared/http/pages.ts      pageHandler: the hosted checkout's forms and pages
 *   dashboard  shared/http/dashboard.ts  dashboardHandler: sessions, CSRF, dashboard pages
 *   job        jobHandler below          schedules, the webhook queue, the table stream (functions/jobs.ts)
 * Every kind: the Powertools logger carries the Lambda context (function, request id, cold start)
 * and forgets the invocation's keys at its end (Powertools' injectLambdaContext middleware). The
 * HTTP kinds add httpBase (shared/http/observability.ts): trace id, Svc-Trace-Id, one access log
 * line, log keys traceId and route, and the request metrics the per-route alarms watch
 * (test/integration/alarm-metrics.test.ts). Jobs add the log key `job` and log a failure once
 * before the trigger retries it. Tracing needs no per-handler set-up: Lambda's active tracing
 * records the invocation and the AWS SDK clients trace their own calls (./tracing.ts). How errors
 * become answers: shared/http/presenter.ts. This module imports no HTTP code, so a job's bundle
 * holds none. `streamifyResponse`: a handler whose body is a stream (shared/http/dashboard-stream.ts).
 */
export const handlerBase = <Event, Result, Ctx extends Context = Context>(options: { streamifyResponse?: true } = {}) =>
  middy<Event, Result, Error, Ctx>(options).use(injectLambdaContext(logger, { resetKeys: true }));

/** A job's handler (functions/jobs.ts): `fn` on the base; an error fails the invocation. */
export function jobHandler<Event, Result>(
  id: string,
  fn: (event: Event, context: Context) => Promise<Result>,
): (event: Event, context?: Context) => Promise<Result> {
  return handlerBase<Event, Result>()
    .use({
      before: () => logger.appendKeys({ job: id }),
      onError: ({ error }) => logger.error('job failed', { job: id, errorName: error?.name, errorMessage: error?.message }),
    })
    .handler(fn) as (event: Event, context?: Context) => Promise<Result>;
}
