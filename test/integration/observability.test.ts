import { afterEach, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { routes } from '#functions/routes.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import { logger } from '#shared/logger.ts';
import { newMerchant } from '../support/gateway.ts';
import { captureJsonLines } from '../support/output.ts';

/**
 * The pipeline's observability (shared/http/observability.ts): every log line a request writes
 * carries traceId, route, merchantId and mode, and each request emits Requests {Route,
 * StatusClass} and RequestLatency {Route} (EMF, metrics on as inside Lambda).
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const captureOutput = () => captureJsonLines();

const event = (apiKey: string, requestId: string) =>
  ({
    httpMethod: 'POST',
    path: '/Gateway/v1/Account/query-balance',
    pathParameters: { version: '1' },
    headers: { 'Svc-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: '{}',
    isBase64Encoded: false,
    requestContext: { requestId },
  }) as unknown as APIGatewayProxyEvent;

describe('request observability', () => {
  afterEach(() => vi.restoreAllMocks());

  it('puts traceId, route, merchant and mode on every log line of a request and counts it by route and status', async () => {
    const m = await newMerchant();
    const handler = httpHandler(routes.queryBalance, {}, async () => {
      logger.warn('inside the service');
      return ok({ fine: true });
    });
    const failing = httpHandler(routes.queryBalance, {}, async () => {
      throw new Error('boom');
    });
    const lines = captureOutput();
    const r = await handler(event(m.test.apiKey, 'trace-one'), {} as Context);
    const bad = await failing(event(m.test.apiKey, 'trace-two'), {} as Context);
    logger.warn('after the request');
    vi.restoreAllMocks();

    expect(r.statusCode).toBe(200);
    expect(bad.statusCode).toBe(500);
    expect(lines.find((l) => l.message === 'inside the service')).toMatchObject({
      traceId: 'trace-one',
      route: 'queryBalance',
      merchantId: m.merchantId,
      mode: 'test',
    });
    expect(lines.find((l) => l.message === 'unhandled error')).toMatchObject({
      traceId: 'trace-two',
      route: 'queryBalance',
      merchantId: m.merchantId,
      mode: 'test',
    });
    expect(lines.find((l) => l.message === 'after the request')).not.toHaveProperty('traceId');

    const requests = lines.filter((l) => l._aws && 'Requests' in l).map((l) => ({ Route: l.Route, StatusClass: l.StatusClass }));
    expect(requests).toEqual([
      { Route: 'queryBalance', StatusClass: '2xx' },
      { Route: 'queryBalance', StatusClass: '5xx' },
    ]);
    expect(lines.filter((l) => l._aws && 'RequestLatency' in l).map((l) => l.Route)).toEqual(['queryBalance', 'queryBalance']);
  });
});
