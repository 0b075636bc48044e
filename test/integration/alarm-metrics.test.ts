import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '#functions/routes.ts';
import { repoRoot } from '#infra/bundling.ts';
import { PaymentGatewayStack } from '#infra/gateway-stack.ts';
import { metricNames, metricsNamespace } from '#shared/metrics.ts';
import { wholeTemplate } from '../support/templates.ts';
import { testApp } from '../support/cdk-app.ts';
import { captureJsonLines } from '../support/output.ts';
import { streamGroupHandler } from '#functions/dashboard/group.ts';
import * as listExport from '#functions/dashboard/list-export.ts';
import { addDbMiddleware } from '#shared/store/client.ts';
import { dashboardUser } from '../support/dashboard.ts';
import { newMerchant } from '../support/gateway.ts';
import { seedIntents } from '../support/intents.ts';
import { readPrelude, ResponseStreamSink } from '../../scripts/local/response-stream.ts';

/**
 * Every alarm on a gateway (EMF) metric watches a metric its function emits (issue 23: the hosted
 * pages and the docs used wrappers without the request metrics, so their latency alarms watched
 * nothing). The alarms come from the synthesized templates (root and nested stacks); each per-route
 * alarm's function handler runs once locally and its EMF output must carry that metric with the
 * alarm's dimensions.
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

type Dimension = { Name: string; Value: unknown };
const stack = new PaymentGatewayStack(testApp(), 'Alarms');
const alarms = Object.entries(wholeTemplate(stack).toJSON().Resources as Record<string, { Type: string; Properties: any }>)
  .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
  .flatMap(([id, r]) => {
    const metrics: { Namespace?: string; MetricName: string; Dimensions?: Dimension[] }[] = r.Properties.MetricName
      ? [r.Properties]
      : (r.Properties.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    return metrics.map((m) => ({ id, name: m.MetricName, namespace: m.Namespace, dimensions: m.Dimensions ?? [] }));
  })
  .filter((a) => a.namespace === metricsNamespace);

type EmfLine = { _aws?: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] }; [key: string]: unknown };
const captureEmf = () => captureJsonLines<EmfLine>();

/** A request API Gateway could send for the route: path parameters filled with unknown values. */
function eventFor(route: (typeof routes)[keyof typeof routes]): APIGatewayProxyEvent {
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    pathParameters[name] = name === 'version' ? '1' : randomUUID();
    return pathParameters[name]!;
  });
  return {
    httpMethod: route.method,
    path,
    resource: route.path,
    pathParameters,
    queryStringParameters: null,
    headers: route.method === 'POST' ? { 'Content-Type': 'application/json' } : {},
    body: route.method === 'POST' ? '{}' : null,
    isBase64Encoded: false,
    requestContext: { requestId: randomUUID(), identity: { sourceIp: '127.0.0.1' } },
  } as unknown as APIGatewayProxyEvent;
}

describe('alarms on gateway metrics (issue 23)', () => {
  afterEach(() => vi.restoreAllMocks());

  const perRoute = alarms.filter((a) => a.dimensions.some((d) => d.Name === 'Route'));

  it('lists a p99 latency alarm per route with its own Lambda, and the job metrics', () => {
    expect(perRoute.length).toBe(Object.values(routes).filter((r) => !('lambda' in r)).length);
    expect(perRoute.every((a) => a.name === metricNames.requestLatency)).toBe(true);
    // The others watch metrics the jobs emit: dead letters (dispatcher), sweeper lag, ledger discrepancies,
    // card outcomes left for the operator (due sweeper; emitted in test/integration/live-cards.test.ts), payments held
    // for the operator (the wallet callback, the card return and the sweep; emitted in test/integration/held-approvals.test.ts).
    expect([...new Set(alarms.filter((a) => !perRoute.includes(a)).map((a) => a.name))].sort()).toEqual(
      [
        metricNames.deadLetters,
        metricNames.dueSweeperLag,
        metricNames.ledgerDiscrepancies,
        metricNames.cardOutcomeUnresolved,
        metricNames.approvalsHeld,
        metricNames.exportsIncomplete,
      ].sort(),
    );
  });

  it('the exports Lambda emits what ExportFailed watches when a read fails after the first byte, and the whole download time', async () => {
    const alarm = alarms.find((a) => a.name === metricNames.exportsIncomplete)!;
    expect(alarm.dimensions).toEqual(expect.arrayContaining([{ Name: 'Reason', Value: 'failed' }]));
    const m = await newMerchant();
    const u = await dashboardUser(m, 'finance');
    // The payments the export reads, in bulk (the store's own items: test/support/bulk-seed.ts); the metric's path is the export's.
    await seedIntents(
      m.merchantId,
      'test',
      Array.from({ length: 120 }, (_, i) => ({ createdAt: new Date(Date.now() - i * 1000).toISOString() })),
    );
    const lambda = streamGroupHandler('dashboardExports', [listExport]);
    // The second page's Query fails (a throttled read): the first page of 100 has gone out by then.
    let queries = 0;
    const name = 'failSecondExportPage';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'QueryCommand' && ++queries === 2)
            throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
          return next(args);
        },
        { step: 'initialize', name },
      ),
    );
    const sink = new ResponseStreamSink();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    const emitted = captureEmf();
    try {
      const event = {
        ...eventFor(routes.dashboardListExport),
        path: '/dashboard/exports/payments',
        pathParameters: { list: 'payments' },
        headers: { Cookie: u.cookie },
      } as APIGatewayProxyEvent;
      await (lambda as unknown as (e: APIGatewayProxyEvent, s: ResponseStreamSink, c: Context) => Promise<void>)(event, sink, {
        getRemainingTimeInMillis: () => 900_000,
      } as Context);
      await new Promise((ok) => setImmediate(ok));
    } finally {
      removeMiddleware();
      vi.restoreAllMocks();
    }
    const { metadata, body } = await readPrelude(
      (async function* () {
        yield* chunks;
      })(),
    );
    let text = '';
    for await (const chunk of body) text += chunk.toString('utf8');
    expect(metadata.statusCode).toBe(200);
    expect(text.trim().split('\r\n').at(-1)).toMatch(/^# INCOMPLETE EXPORT: this export failed after 100 rows/);
    const points = (metric: string) =>
      emitted.filter((l) =>
        l._aws?.CloudWatchMetrics.some((c) => c.Namespace === metricsNamespace && c.Metrics.some((x) => x.Name === metric)),
      );
    const failed = points(alarm.name).filter((l) => alarm.dimensions.every((d) => l[d.Name] === d.Value));
    expect(failed).toHaveLength(1);
    expect(points(metricNames.exportDuration).map((l) => l.List)).toEqual(['payments']);
  });

  it.each(perRoute.map((a) => [a.dimensions.find((d) => d.Name === 'Route')!.Value as string, a] as const))(
    'route %s emits the metric its alarm watches',
    async (routeId, alarm) => {
      const route = routes[routeId as keyof typeof routes];
      const { handler } = (await import(pathToFileURL(join(repoRoot, route.handler)).href)) as {
        handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number }>;
      };
      const emitted = captureEmf();
      const response = await handler(eventFor(route), {} as Context);
      vi.restoreAllMocks();
      expect(response.statusCode).toBeGreaterThanOrEqual(200);
      const matching = emitted.filter(
        (line) =>
          line._aws &&
          line._aws.CloudWatchMetrics.some((m) => m.Namespace === metricsNamespace && m.Metrics.some((x) => x.Name === alarm.name)) &&
          alarm.dimensions.every((d) => line[d.Name] === d.Value),
      );
      expect(matching, `${alarm.name} ${JSON.stringify(alarm.dimensions)}`).toHaveLength(1);
    },
  );
});
