import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jobs } from '#functions/jobs.ts';
import { lambdaGroups, routes, type Route } from '#functions/routes.ts';
import { groupModule } from '#infra/dashboard-lambdas.ts';
import { repoRoot } from '#infra/bundling.ts';
import { bundleRoute, lambdaLikeEnv, median, runtimePreload } from './bundles.ts';
import { targets } from './targets.ts';
import type { SampleMerchant } from './samples.ts';

/**
 * Cold start in a Lambda-like process (issue 26, target 4): per function kind, one representative
 * Lambda bundled as the stack ships it, started in a fresh Node process with the environment a
 * function gets (AWS_LAMBDA_FUNCTION_NAME set: metrics on, as in AWS) against the bench's DynamoDB
 * Local, and timed in three parts: the import of the bundle (init), the first invocation (the
 * first DynamoDB client and connection, the master key, the first request's own work), and a
 * second, warm invocation of the same event for comparison. Node's own start-up is not counted
 * (Lambda's runtime does it before the init phase). BENCH_LOAD_RUNS (5) processes each; medians,
 * by the wall clock and by the process's CPU time. The import is held to the module-load target
 * (targets.loadMs, 50 ms).
 */
export interface ColdStartResult {
  kind: string;
  lambda: string;
  request: string;
  runs: number;
  importMs: number;
  /** The import (Lambda's init of the module) within the module-load target (targets.loadMs). */
  importMet: boolean;
  firstInvokeMs: number;
  warmInvokeMs: number;
  /** The process's CPU time (user + system) for the import and the first invocation: less inflated by a busy machine. */
  importCpuMs: number;
  firstInvokeCpuMs: number;
  /** import + first invocation: what the first caller waits for beyond the runtime's own start. */
  totalMs: number;
  status?: number;
  error?: string;
}

interface Sample {
  kind: string;
  lambda: string;
  handler: string;
  request: string;
  assets?: readonly string[];
  event: (merchant: SampleMerchant) => unknown;
}

const apiEvent = (route: Pick<Route, 'method' | 'path'>, path: string, headers: Record<string, string>, body: string | null) => ({
  resource: route.path,
  path,
  httpMethod: route.method,
  headers,
  multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: { version: '1', paymentIntentId: '00000000-0000-4000-8000-000000000000' },
  stageVariables: null,
  body,
  isBase64Encoded: false,
  requestContext: {
    accountId: 'local',
    apiId: 'local',
    httpMethod: route.method,
    identity: { sourceIp: '127.0.0.1', userAgent: 'bench' },
    path,
    stage: 'local',
    requestId: 'cold-start',
    requestTimeEpoch: Date.now(),
    resourcePath: route.path,
  },
});

/** One webhook-queue message for the sample merchant, as the event source mapping hands it over. */
function sqsRecord(m: SampleMerchant) {
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const paymentIntentId = randomUUID();
  const createdAt = new Date().toISOString();
  const body = {
    v: 1,
    eventId,
    paymentIntentId,
    merchantId: m.merchantId,
    mode: 'test',
    callbackUrl: null,
    eventCreatedAt: createdAt,
    roundId: 'initial',
    event: {
      id: eventId,
      type: 'TransactionStatusChanged',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      api_version: 'v1',
      data: {
        TransactionId: paymentIntentId,
        PreviousStatus: 'Pending',
        CurrentStatus: 'Completed',
        Amount: 150,
        Currency: 'PKR',
        Reason: null,
        ReasonDetail: null,
        TransactionReference: 'TRX-COLD-START',
        CustomerRef: null,
        OrderRef: null,
        MerchantId: m.merchantId,
        Timestamp: createdAt,
        TraceId: randomUUID(),
        IntentType: 'checkout',
        MetadataJson: null,
      },
    },
  };
  return {
    messageId: randomUUID(),
    receiptHandle: 'cold-start',
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-events',
    awsRegion: 'local',
  };
}

const samples: Sample[] = [
  {
    kind: 'API route, API key (read)',
    lambda: routes.queryBalance.id,
    handler: routes.queryBalance.handler,
    request: 'POST query-balance',
    event: (m) =>
      apiEvent(
        routes.queryBalance,
        '/Gateway/v1/Account/query-balance',
        { 'Svc-API-Key': m.test.apiKey, 'Content-Type': 'application/json' },
        '{}',
      ),
  },
  {
    kind: 'API route, no key',
    lambda: routes.openApiDocument.id,
    handler: routes.openApiDocument.handler,
    request: 'GET openapi.json',
    assets: routes.openApiDocument.assets,
    event: () => apiEvent(routes.openApiDocument, '/Gateway/v1/openapi.json', {}, null),
  },
  {
    kind: 'hosted checkout page',
    lambda: routes.checkoutPage.id,
    handler: routes.checkoutPage.handler,
    request: 'GET /pay/{id} (unknown id: 404 page)',
    event: () => apiEvent(routes.checkoutPage, '/pay/00000000-0000-4000-8000-000000000000', {}, null),
  },
  {
    kind: 'dashboard',
    lambda: lambdaGroups.dashboardSignIn.id,
    handler: groupModule('dashboardSignIn'),
    request: 'GET /dashboard/sign-in',
    event: () => apiEvent(routes.dashboardSignInPage, '/dashboard/sign-in', {}, null),
  },
  {
    kind: 'queue job (webhook dispatcher)',
    lambda: jobs.webhookDispatcher.id,
    handler: jobs.webhookDispatcher.handler,
    request: 'one SQS message (merchant without endpoint: recorded no_destination)',
    event: (m) => ({ Records: [sqsRecord(m)] }),
  },
];

/** Run in the fresh process: argv = bundle URL, event file, function name. */
const child = `
${runtimePreload}
import { readFileSync } from 'node:fs';
const [url, eventFile, name] = process.argv.slice(1);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = () => ({ functionName: name, awsRequestId: crypto.randomUUID(), memoryLimitInMB: '512',
  getRemainingTimeInMillis: () => 30000, callbackWaitsForEmptyEventLoop: false });
const now = performance.now.bind(performance);
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const t0 = now(), c0 = cpu();
const { handler } = await import(url);
const t1 = now(), c1 = cpu();
const first = await handler(event, context());
const t2 = now(), c2 = cpu();
await handler(event, context());
const t3 = now();
process.stderr.write('\\n@@cold-start ' + JSON.stringify({ importMs: t1 - t0, firstInvokeMs: t2 - t1, warmInvokeMs: t3 - t2,
  importCpuMs: c1 - c0, firstInvokeCpuMs: c2 - c1, status: first?.statusCode }) + '\\n');
process.exit(0);
`;

interface Run {
  importMs: number;
  firstInvokeMs: number;
  warmInvokeMs: number;
  importCpuMs: number;
  firstInvokeCpuMs: number;
  status?: number;
}

function runOnce(file: string, eventFile: string, name: string, env: NodeJS.ProcessEnv) {
  return new Promise<Run>((ok, fail) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', child, pathToFileURL(file).href, eventFile, name], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.once('error', fail);
    proc.once('close', (code) => {
      clearTimeout(timer);
      const line = /@@cold-start (.*)/.exec(err)?.[1];
      if (code === 0 && line) ok(JSON.parse(line));
      else fail(new Error(`${name}: exit ${code}: ${err.slice(-800)}`));
    });
  });
}

export async function measureColdStarts(
  outDir: string,
  merchant: SampleMerchant,
  env: Record<string, string>,
  runs: number,
): Promise<ColdStartResult[]> {
  const results: ColdStartResult[] = [];
  for (const s of samples) {
    const base = { kind: s.kind, lambda: s.lambda, request: s.request, runs };
    try {
      const dir = join(outDir, `cold-${s.lambda}`);
      const { file } = await bundleRoute({ id: `cold-${s.lambda}`, handler: s.handler } as Route, outDir);
      for (const asset of s.assets ?? []) {
        const [source, name] = asset.split(':') as [string, string];
        copyFileSync(resolve(repoRoot, source), join(dir, name));
      }
      const eventFile = join(dir, 'event.json');
      writeFileSync(eventFile, JSON.stringify(s.event(merchant)));
      const fnEnv = lambdaLikeEnv({ ...env, AWS_LAMBDA_FUNCTION_NAME: s.lambda });
      const all = [];
      for (let i = 0; i < runs; i++) all.push(await runOnce(file, eventFile, s.lambda, fnEnv));
      const importMs = median(all.map((r) => r.importMs));
      results.push({
        ...base,
        importMs,
        importMet: importMs <= targets.loadMs,
        firstInvokeMs: median(all.map((r) => r.firstInvokeMs)),
        importCpuMs: median(all.map((r) => r.importCpuMs)),
        firstInvokeCpuMs: median(all.map((r) => r.firstInvokeCpuMs)),
        warmInvokeMs: median(all.map((r) => r.warmInvokeMs)),
        totalMs: median(all.map((r) => r.importMs + r.firstInvokeMs)),
        ...(all[0]!.status !== undefined ? { status: all[0]!.status } : {}),
      });
    } catch (error) {
      const failed = {
        importMs: Number.NaN,
        importMet: false,
        firstInvokeMs: Number.NaN,
        warmInvokeMs: Number.NaN,
        importCpuMs: Number.NaN,
        firstInvokeCpuMs: Number.NaN,
        totalMs: Number.NaN,
      };
      results.push({ ...base, ...failed, error: (error as Error).message });
    }
  }
  return results;
}
