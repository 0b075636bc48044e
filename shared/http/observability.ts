import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RouteDefinition } from './route.ts';
import { logger } from '#shared/logger.ts';
import { emitMetric, metricNames, MetricUnit } from '#shared/metrics.ts';
import { handlerBase } from '#shared/aws/handler-base.ts';
import { traceAndLog, type GatewayContext, type GatewayResponse } from './middlewares.ts';

/**
 * Request metrics and log context (docs/operator-runbook.md), two small middlewares the pipeline
 * adds (shared/http/pipeline.ts):
 *   requestMetrics(route)  right after traceAndLog: every log line of the request carries traceId
 *                          and route; at the end, Requests {Route, StatusClass} and
 *                          RequestLatency {Route} (ms), then the request's log keys are cleared.
 *   authLogKeys()          right after apiKeyAuth: adds merchantId and mode to those log lines.
 */
type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | GatewayResponse, Error, GatewayContext>;

export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export function requestMetrics(route: RouteDefinition): Middleware {
  const finish: NonNullable<Middleware['after']> = (request) => {
    const gw = request.context.gateway;
    const status = (request.response as { statusCode?: number } | undefined)?.statusCode ?? 500;
    emitMetric(metricNames.requests, 1, { Route: route.id, StatusClass: statusClass(status) });
    if (gw) emitMetric(metricNames.requestLatency, Date.now() - gw.startedAt, { Route: route.id }, MetricUnit.Milliseconds);
    logger.resetKeys();
  };
  return {
    before: (request) => {
      logger.appendKeys({ traceId: request.context.gateway.traceId, route: route.id });
    },
    after: finish,
    onError: finish,
  };
}

export function authLogKeys(): Middleware {
  return {
    before: (request) => {
      const auth = request.context.gateway.auth;
      if (auth) logger.appendKeys({ merchantId: auth.merchantId, mode: auth.mode });
    },
  };
}

/**
 * The start of every HTTP kind's middy chain (API, hosted page, dashboard): the handler base
 * (shared/aws/handler-base.ts), then traceAndLog and requestMetrics; the kind's pipeline adds the rest.
 */
export function httpBase<Result>(route: RouteDefinition, options: { streamifyResponse?: true } = {}) {
  type Mw = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult | Result, Error, GatewayContext>;
  return handlerBase<APIGatewayProxyEvent, APIGatewayProxyResult | Result, GatewayContext>(options)
    .use(traceAndLog(route) as unknown as Mw)
    .use(requestMetrics(route) as unknown as Mw);
}
