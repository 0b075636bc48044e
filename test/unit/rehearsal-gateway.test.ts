import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDoubledPrefixAnswer, doubledPrefixProblem } from '#infra/route-stack.ts';
import {
  gatewayResponses,
  greedyPathPattern,
  invokeBehindGateway,
  mockAnswer,
  streamBehindGateway,
} from '../../scripts/rehearse/gateway.ts';
import { LambdaFunction } from '../../scripts/rehearse/runtime.ts';
import type { StackTemplate } from '../../scripts/rehearse/template.ts';

/**
 * The deploy rehearsal's API Gateway in front of a function (scripts/rehearse/gateway.ts, issue 23:
 * "a function past its timeout answers as API Gateway does"): a bundled handler run by the
 * rehearsal's Lambda runtime, past its Timeout, past the integration's timeout, failing, or
 * answering no proxy result, gets API Gateway's answer; the templates' gateway responses apply.
 */
let assetDir = '';
const functions: LambdaFunction[] = [];
const lambda = (timeoutSeconds: number) => {
  const fn = new LambdaFunction(
    { id: 'Slow', assetDir, handler: 'index.handler', environment: { AWS_REGION: 'us-east-1' }, timeoutSeconds, memoryMb: 128 },
    () => undefined,
  );
  functions.push(fn);
  return fn;
};
const event = (path: string) => ({ path, httpMethod: 'GET', headers: {} });

/** A template with the gateway responses given (what infra/gateway-stack.ts customizes: a problem body, a fixed status). */
const stacksWith = (responses: Record<string, { StatusCode?: string; body: string }>): StackTemplate[] => [
  {
    name: 'Root',
    passed: {},
    resources: Object.fromEntries(
      Object.entries(responses).map(([type, r]) => [
        `Problem${type}`,
        {
          Type: 'AWS::ApiGateway::GatewayResponse',
          Properties: {
            ResponseType: type,
            ...(r.StatusCode ? { StatusCode: r.StatusCode } : {}),
            ResponseParameters: { 'gatewayresponse.header.Svc-Trace-Id': 'context.requestId' },
            ResponseTemplates: { 'application/json': r.body },
          },
        },
      ]),
    ),
  },
];
const problem500 = JSON.stringify({ status: 500, title: 'Internal Server Error', traceId: '$context.requestId' });
const uncustomized = gatewayResponses(stacksWith({}));
const customized = gatewayResponses(stacksWith({ DEFAULT_5XX: { StatusCode: '500', body: problem500 } }));
const quiet = () => undefined;

beforeAll(() => {
  assetDir = mkdtempSync(join(tmpdir(), 'rehearsal-gateway-'));
  writeFileSync(
    join(assetDir, 'index.mjs'),
    `export const handler = async (event) => {
      if (event.path === '/slow') await new Promise((ok) => setTimeout(ok, 60_000));
      if (event.path === '/fail') throw new Error('boom');
      if (event.path === '/malformed') return 'not a proxy result';
      return { statusCode: 201, body: 'made' };
    };`,
  );
});
beforeAll(() => {
  // Its Init (the module's top level) takes longer than the function's timeout.
  writeFileSync(
    join(assetDir, 'slowinit.mjs'),
    `await new Promise((ok) => setTimeout(ok, 600));
    export const handler = async () => ({ statusCode: 200, body: 'warm now' });`,
  );
});
beforeAll(() => {
  // A streamified handler, as the CSV exports are: it uses the runtime's awslambda global from its top level.
  writeFileSync(
    join(assetDir, 'stream.mjs'),
    `export const handler = awslambda.streamifyResponse(async (event, responseStream) => {
      if (event.path === '/fail') throw new Error('boom');
      const stream = awslambda.HttpResponseStream.from(responseStream, { statusCode: 200, headers: { 'Content-Type': 'text/csv' } });
      for (let i = 0; i < 3; i++) {
        stream.write('row ' + i + '\\r\\n');
        await new Promise((ok) => setTimeout(ok, 5));
      }
      if (event.path === '/cut') throw new Error('failed after the metadata');
      stream.end();
    });`,
  );
});
afterAll(async () => {
  await Promise.all(functions.map((f) => f.stop()));
  rmSync(assetDir, { recursive: true, force: true });
});

describe('rehearsal: API Gateway in front of a function', () => {
  it('a function past its Timeout: its sandbox is ended and API Gateway answers 502 "Internal server error"', async () => {
    const fn = lambda(0.3);
    expect(await fn.invoke(event('/slow'))).toMatchObject({ kind: 'timeout' });
    const answer = await invokeBehindGateway(fn, event('/slow'), 29_000, uncustomized, quiet);
    expect(answer.statusCode).toBe(502);
    expect(JSON.parse(answer.body)).toEqual({ message: 'Internal server error' });
    // A new sandbox (a cold start) serves the next request.
    expect(await invokeBehindGateway(fn, event('/ok'), 29_000, uncustomized, quiet)).toEqual({ statusCode: 201, body: 'made' });
  });

  it('a cold start’s Init is not part of the timeout (as in Lambda): a slow module load still answers', async () => {
    const fn = new LambdaFunction(
      {
        id: 'SlowInit',
        assetDir,
        handler: 'slowinit.handler',
        environment: { AWS_REGION: 'us-east-1' },
        timeoutSeconds: 0.3,
        memoryMb: 128,
      },
      () => undefined,
    );
    functions.push(fn);
    expect(await fn.invoke(event('/'))).toMatchObject({ kind: 'ok', result: { statusCode: 200, body: 'warm now' } });
  });

  it('past the integration timeout (the function still running): 504 "Endpoint request timed out"', async () => {
    const answer = await invokeBehindGateway(lambda(30), event('/slow'), 200, uncustomized, quiet);
    expect(answer.statusCode).toBe(504);
    expect(JSON.parse(answer.body)).toEqual({ message: 'Endpoint request timed out' });
  });

  it('a function error and an answer that is no proxy result are 502s too; a good answer passes through', async () => {
    const fn = lambda(5);
    expect((await invokeBehindGateway(fn, event('/fail'), 29_000, uncustomized, quiet)).statusCode).toBe(502);
    expect((await invokeBehindGateway(fn, event('/malformed'), 29_000, uncustomized, quiet)).statusCode).toBe(502);
    expect(await invokeBehindGateway(fn, event('/ok'), 29_000, uncustomized, quiet)).toEqual({ statusCode: 201, body: 'made' });
  });

  it('the templates’ DEFAULT_5XX stands in for every 5xx: its body, headers and fixed status (the 500 problem)', async () => {
    for (const [path, integrationMs, timeoutSeconds] of [
      ['/slow', 29_000, 0.3],
      ['/slow', 200, 30],
      ['/fail', 29_000, 5],
    ] as const) {
      const answer = await invokeBehindGateway(lambda(timeoutSeconds), event(path), integrationMs, customized, quiet);
      expect(answer.statusCode, path).toBe(500);
      const body = JSON.parse(answer.body);
      expect(body).toMatchObject({ status: 500, title: 'Internal Server Error' });
      expect(answer.headers?.['Svc-Trace-Id']).toBe(body.traceId);
    }
  });

  it('a response type the templates customize keeps its own status; one they do not falls back to DEFAULT_4XX or DEFAULT_5XX', () => {
    const answer = gatewayResponses(
      stacksWith({
        MISSING_AUTHENTICATION_TOKEN: { StatusCode: '404', body: '{"status":404}' },
        DEFAULT_4XX: { StatusCode: '400', body: '{"status":400}' },
      }),
    );
    expect(answer('MISSING_AUTHENTICATION_TOKEN', 403)).toMatchObject({ statusCode: 404, body: '{"status":404}' });
    expect(answer('BAD_REQUEST_PARAMETERS', 400)).toMatchObject({ statusCode: 400, body: '{"status":400}' });
    expect(answer('INTEGRATION_TIMEOUT', 504)).toMatchObject({ statusCode: 504 });
  });

  it('a STREAM integration: metadata becomes status and headers, writes the body as they come; failures as API Gateway', async () => {
    const fn = new LambdaFunction(
      { id: 'Stream', assetDir, handler: 'stream.handler', environment: { AWS_REGION: 'us-east-1' }, timeoutSeconds: 5, memoryMb: 128 },
      () => undefined,
    );
    functions.push(fn);
    const server = createServer((req, res) => {
      void streamBehindGateway(fn, event(req.url ?? '/'), 29_000, uncustomized, res, quiet);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await fetch(`${url}/ok`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('text/csv');
      expect(ok.headers.get('transfer-encoding')).toBe('chunked');
      expect(await ok.text()).toBe('row 0\r\nrow 1\r\nrow 2\r\n');
      // Failing before its metadata: API Gateway's 502.
      const failed = await fetch(`${url}/fail`);
      expect(failed.status).toBe(502);
      expect(await failed.json()).toEqual({ message: 'Internal server error' });
      // Failing after it: the body is cut short (the client sees an error, never a clean end).
      const cut = await fetch(`${url}/cut`);
      expect(cut.status).toBe(200);
      await expect(cut.text()).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });
});

describe('a MOCK method (the doubled /Gateway/v1 answer) behind the rehearsal gateway', () => {
  it('answers the integration response the stack synthesizes: its status, headers and body, with the request id', () => {
    const stack = new Stack(new App(), 'Mock');
    const api = new RestApi(stack, 'Api', { deploy: false });
    addDoubledPrefixAnswer(api, '/Gateway/v1');
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, { Type: string; Properties: any }>;
    const method = Object.values(resources).find((r) => r.Type === 'AWS::ApiGateway::Method')!;
    const pattern = greedyPathPattern('/Gateway/v1/Gateway/{proxy+}');
    expect(['/Gateway/v1/Gateway/v1/Payment/deposit', '/Gateway/v1/Gateway/v1'].map((p) => pattern.test(p))).toEqual([true, true]);
    expect(['/Gateway/v1/Payment/deposit', '/Gateway/v1/Gateway'].map((p) => pattern.test(p))).toEqual([false, false]);
    const answer = mockAnswer(method.Properties.Integration);
    expect(answer.statusCode).toBe(404);
    expect(answer.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' });
    expect(JSON.parse(answer.body)).toEqual({ ...doubledPrefixProblem.body(String(answer.headers!['Svc-Trace-Id'])) });
    expect(JSON.parse(answer.body).traceId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
