import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createRequestHandler } from 'local-aws-sqs';
import type { Route } from '#functions/routes.ts';
import { startEmulatedProviders, type EmulatedProviders } from '../emulators/index.ts';
import { startDynamoLocal, type RunningDynamo } from '../local/dynamo.ts';
import { sleep } from '../local/modules.ts';
import { compile, matchRoute, toProxyEvent } from '../local/server.ts';
import { type GivenUpBatch, streamLoop } from '../local/streams.ts';
import { RoleEvaluator, type TableSchema } from './iam.ts';
import { gatewayResponses, greedyPathPattern, invokeBehindGateway, mockAnswer, startingGate, streamBehindGateway } from './gateway.ts';
import { startProxy, type Principal, type RunningProxy } from './proxy.ts';
import { pollQueue } from './queue-mapping.ts';
import { operatorPolicy } from './operator.ts';
import { type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from './receiver.ts';
import { LambdaFunction } from './runtime.ts';
import { type Credentials, generateCredentials } from './sigv4.ts';
import { matchesPattern } from './filter.ts';
import {
  defaultPhysical,
  type Physical,
  readTemplates,
  referencedId,
  rehearsalAccount,
  rehearsalLiveProvidersArn,
  rehearsalRegion,
  resolver,
  resourcesOf,
  type StackTemplate,
} from './template.ts';

/**
 * `npm run rehearse` (docs/deploy-rehearsal.md): what `cdk deploy` would ship, run on this machine.
 * The synthesized templates (root and nested) say everything: the API Gateway methods and the
 * functions behind them (bundled assets, handler, environment, timeout, memory), the table, queues
 * and secrets, the triggers (SQS and DynamoDB stream event source mappings, schedule rules) and
 * each function's role, enforced on every call by ./proxy.ts. The live providers are the emulators
 * (scripts/emulators) on 127.0.0.1: their credentials are the live providers secret the templates name.
 */
export interface RehearsalOptions {
  /** Where the templates are (cdk.out, or a test's edited copy) and where the assets are (cdk.out). */
  templatesDir: string;
  assetsDir: string;
  /** Where use.json, denials.json, metrics.json, logs/ and cdk-outputs.json go. */
  outDir: string;
  /** API port (0: any free port). */
  port?: number;
  /** Seconds between schedule runs = rate × scheduleScale (default 1/60: a minute is a second), at least 2 s; 0 = on demand only. */
  scheduleScale?: number;
  /** Each request the https webhook receiver gets (./receiver.ts), as it arrives. */
  onWebhook?: (request: ReceivedRequest) => void;
}

export interface EmittedMetric {
  functionId: string;
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
}

export interface Rehearsal {
  baseUrl: string;
  outputsFile: string;
  proxy: RunningProxy;
  /** The JazzCash and Easypaisa emulators that live mode talks to (their callbacks go to the rehearsal's API). */
  providers: EmulatedProviders;
  /**
   * A merchant's https endpoint as a deployed dispatcher meets one (./receiver.ts): `receiver.url`
   * resolves and routes to it on the functions' network only (./network.ts), its certificate signed
   * by a CA the functions trust through NODE_EXTRA_CA_CERTS in this rehearsal only.
   */
  receiver: HttpsReceiver;
  functions: Map<string, LambdaFunction>;
  /** Every API Gateway method of the templates: its path (under the stage) and the function behind it. */
  methods: { method: string; path: string; functionId: string }[];
  /** Each function's role policies, resolved to the local ARNs (what ./proxy.ts enforces). */
  policies: Map<string, { name: string; policy: unknown }[]>;
  /** The operator's policy (docs/operator-policy.json) filled with the local ARNs: what `ops --aws` calls are evaluated against. */
  operatorPolicy: unknown;
  /** The invocation records the stream mapping sent to its on-failure destination (a batch given up after its retries). */
  failureDestinations: { functionId: string; destination: string; record: Record<string, any> }[];
  /** DynamoDB Local's own address (no function is given it; it holds the table under the proxy's key only). */
  dynamoLocalEndpoint: string;
  metrics: EmittedMetric[];
  /** The operator's environment for `ops --aws --outputs <outputsFile>`. */
  operatorEnv: Record<string, string>;
  /** Runs a schedule rule's targets now (by rule logical id); resolves when they finished. */
  runRule(ruleId: string): Promise<void>;
  rules: string[];
  stop(): Promise<void>;
}

const stageName = (stacks: StackTemplate[]) =>
  (resourcesOf(stacks, 'AWS::ApiGateway::Stage')[0]?.resource.Properties?.StageName as string | undefined) ?? 'prod';

const listen = (server: Server, port: number) =>
  new Promise<number>((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', () => ok((server.address() as AddressInfo).port)));

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe, 0);
  await new Promise((ok) => probe.close(ok));
  return port;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

export async function startRehearsal(options: RehearsalOptions): Promise<Rehearsal> {
  const stacks = readTemplates(options.templatesDir);
  const root = stacks[0]!;
  const stage = stageName(stacks);
  mkdirSync(join(options.outDir, 'logs'), { recursive: true });
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    // The API server listens first: its address is the base URL every function is given. Until the
    // rehearsal is ready it answers every request at once with a 503 problem (./gateway.ts startingGate).
    const gate = startingGate();
    const api = createServer(gate.listener);
    const apiPort = await listen(api, options.port ?? 0);
    cleanups.push(async () => {
      api.closeAllConnections();
      await new Promise((ok) => api.close(ok));
    });
    const baseUrl = `http://127.0.0.1:${apiPort}/${stage}`;

    // The table, as the template defines it, in DynamoDB Local (in memory: a rehearsal starts empty).
    const [tableEntry, ...moreTables] = resourcesOf(stacks, 'AWS::DynamoDB::Table');
    if (!tableEntry || moreTables.length) throw new Error('the rehearsal expects exactly one DynamoDB table');
    // Without -sharedDb: the table is in the database of the proxy's own key, which nothing else is given.
    const dynamo: RunningDynamo = await startDynamoLocal({ port: await freePort(), sharedDb: false });
    cleanups.push(() => dynamo.stop());
    const backend = { endpoint: dynamo.endpoint, credentials: generateCredentials('user') };
    const tableName = `${root.name}-${tableEntry.id}`;
    const t = tableEntry.resource.Properties;
    const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: rehearsalRegion, credentials: backend.credentials });
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: t.AttributeDefinitions,
        KeySchema: t.KeySchema,
        GlobalSecondaryIndexes: t.GlobalSecondaryIndexes,
        StreamSpecification: t.StreamSpecification
          ? { StreamEnabled: true, StreamViewType: t.StreamSpecification.StreamViewType }
          : undefined,
      }),
    );
    if (t.TimeToLiveSpecification?.Enabled) {
      await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: t.TimeToLiveSpecification }));
    }
    const streamArn = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn ?? '';
    client.destroy();
    const hash = (schema: { AttributeName: string; KeyType: string }[]) => schema.find((k) => k.KeyType === 'HASH')!.AttributeName;
    const schema: TableSchema = {
      [tableName]: {
        partitionKey: hash(t.KeySchema),
        indexes: Object.fromEntries((t.GlobalSecondaryIndexes ?? []).map((g: any) => [g.IndexName, hash(g.KeySchema)])),
      },
    };

    // The secrets the template defines, each with a generated value.
    const secrets = new Map<string, string>();
    const secretArn = (id: string) => `arn:aws:secretsmanager:${rehearsalRegion}:${rehearsalAccount}:secret:${id}-Rhrsl`;
    for (const { id, resource } of resourcesOf(stacks, 'AWS::SecretsManager::Secret')) {
      secrets.set(secretArn(id), resource.Properties?.SecretString ?? randomBytes(48).toString('base64url').slice(0, 64));
    }
    // The live providers secret (imported by ARN, `-c liveProvidersSecretArn`): the emulators' credentials, and
    // live bank payouts and settlements through the bank transfer file of the operator's bank REHEARSAL.
    const providers = await startEmulatedProviders(baseUrl);
    cleanups.push(() => providers.close());
    secrets.set(rehearsalLiveProvidersArn, JSON.stringify({ ...providers.config, bankFile: { bank: 'REHEARSAL' } }));
    // A merchant's https webhook endpoint, reachable from the functions' network only (docs/deploy-rehearsal.md).
    const receiver = await startHttpsReceiver(options.onWebhook);
    cleanups.push(() => receiver.close());

    // The queues (local SQS, served inside the proxy: no port of their own), their redrive policies resolved below.
    const principals = new Map<string, Principal>();
    const credentialsOf = new Map<string, Credentials>();
    let sqsHandler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const proxy = await startProxy({
      region: rehearsalRegion,
      dynamo: backend,
      sqs: (req, res) => sqsHandler!(req, res),
      schema,
      principals,
      secrets,
      usePath: join(options.outDir, 'use.json'),
      denialsPath: join(options.outDir, 'denials.json'),
    });
    cleanups.push(() => proxy.stop());
    const queueUrl = (id: string) => `${proxy.endpoint}/${rehearsalAccount}/${id}`;
    const queueArn = (id: string) => `arn:aws:sqs:${rehearsalRegion}:${rehearsalAccount}:${id}`;

    const apiStageUrl = `https://rehearsal.execute-api.${rehearsalRegion}.amazonaws.com/${stage}`;
    const physical = (stack: StackTemplate, id: string): Physical => {
      const type = stack.resources[id]!.Type;
      if (type === 'AWS::DynamoDB::Table') {
        return {
          ref: tableName,
          attributes: { Arn: `arn:aws:dynamodb:${rehearsalRegion}:${rehearsalAccount}:table/${tableName}`, StreamArn: streamArn },
        };
      }
      if (type === 'AWS::SQS::Queue')
        return { ref: queueUrl(id), attributes: { Arn: queueArn(id), QueueName: id, QueueUrl: queueUrl(id) } };
      if (type === 'AWS::SecretsManager::Secret') return { ref: secretArn(id) };
      return defaultPhysical(type, id);
    };
    const resolveIn = resolver(physical);
    // The stage URL the templates build from the API id is this server's base URL.
    const localize = (value: unknown): string => String(value).replaceAll(apiStageUrl, baseUrl);

    const queues = resourcesOf(stacks, 'AWS::SQS::Queue').map(({ stack, id, resource }) => {
      const p = resolveIn(stack, resource.Properties ?? {});
      return {
        QueueName: id,
        Attributes: {
          ...(p.VisibilityTimeout ? { VisibilityTimeout: Number(p.VisibilityTimeout) } : {}),
          // local-aws-sqs counts ChangeMessageVisibility as a receive (scripts/local/queues.ts): twice the count keeps AWS's meaning.
          ...(p.RedrivePolicy
            ? { RedrivePolicy: JSON.stringify({ ...p.RedrivePolicy, maxReceiveCount: 2 * p.RedrivePolicy.maxReceiveCount }) }
            : {}),
        },
      };
    });
    queues.sort((a, b) => Number('RedrivePolicy' in a.Attributes) - Number('RedrivePolicy' in b.Attributes));
    const proxyUrl = new URL(proxy.endpoint);
    sqsHandler = createRequestHandler({
      port: Number(proxyUrl.port),
      hostname: proxyUrl.hostname,
      region: rehearsalRegion,
      accountId: rehearsalAccount,
      emulateQueueCreationLifecycle: false,
      queues,
    }).requestHandler;

    // Every function: its asset, handler, environment (resolved), timeout, memory and role.
    const metrics: EmittedMetric[] = [];
    const onLine = (functionId: string, line: string) => {
      appendFileSync(join(options.outDir, 'logs', `${functionId}.log`), `${line}\n`);
      if (!line.startsWith('{')) return;
      try {
        const parsed = JSON.parse(line) as Record<string, any>;
        for (const directive of parsed._aws?.CloudWatchMetrics ?? []) {
          const dimensions = Object.fromEntries((directive.Dimensions ?? []).flat().map((d: string) => [d, String(parsed[d])]));
          for (const m of directive.Metrics ?? []) metrics.push({ functionId, namespace: directive.Namespace, name: m.Name, dimensions });
        }
        if (parsed.level === 'ERROR') console.error(`[${functionId}] ${line.slice(0, 600)}`);
      } catch {
        // not JSON: a plain log line
      }
    };
    const functions = new Map<string, LambdaFunction>();
    const policiesOf = new Map<string, { name: string; policy: unknown }[]>();
    for (const stack of stacks) {
      const policies = Object.entries(stack.resources).filter(([, r]) => r.Type === 'AWS::IAM::Policy');
      for (const [id, fn] of Object.entries(stack.resources)) {
        if (fn.Type !== 'AWS::Lambda::Function') continue;
        const p = fn.Properties;
        const roleId = referencedId(p.Role)!;
        const role = stack.resources[roleId]!;
        const rolePolicies = [
          ...(role.Properties?.Policies ?? []).map((x: any) => ({ name: x.PolicyName, policy: resolveIn(stack, x.PolicyDocument) })),
          ...policies
            .filter(([, r]) => (r.Properties.Roles ?? []).some((x: unknown) => referencedId(x) === roleId))
            .map(([name, r]) => ({ name, policy: resolveIn(stack, r.Properties.PolicyDocument) })),
        ];
        policiesOf.set(id, rolePolicies);
        // The role's session credentials, generated: the proxy verifies each request's signature with them.
        const credentials = generateCredentials('role');
        credentialsOf.set(id, credentials);
        principals.set(credentials.accessKeyId, {
          functionId: id,
          callerArn: `arn:aws:sts::${rehearsalAccount}:assumed-role/${roleId}/${id}`,
          credentials,
          evaluator: new RoleEvaluator(`arn:aws:iam::${rehearsalAccount}:role/${roleId}`, rolePolicies),
        });
        const variables = Object.fromEntries(
          Object.entries(resolveIn(stack, p.Environment?.Variables ?? {})).map(([k, v]) => [k, localize(v)]),
        );
        const memoryMb = Number(p.MemorySize ?? 128);
        const environment: Record<string, string> = {
          ...variables,
          // What Lambda sets, with the role's credentials (this function's own access key id).
          AWS_REGION: rehearsalRegion,
          AWS_DEFAULT_REGION: rehearsalRegion,
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          AWS_SESSION_TOKEN: credentials.sessionToken!,
          AWS_LAMBDA_FUNCTION_NAME: id,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          _HANDLER: p.Handler,
          // The rehearsal's stand-ins: every AWS endpoint and the secrets extension are the proxy.
          AWS_ENDPOINT_URL: proxy.endpoint,
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: new URL(proxy.endpoint).port,
          // The rehearsal's CA (the https receiver's), trusted as a function configured with it would trust it; not in the stack.
          NODE_EXTRA_CA_CERTS: receiver.caFile,
        };
        const assetPath = fn.Metadata?.['aws:asset:path'];
        if (typeof assetPath !== 'string') throw new Error(`${id} has no bundled asset (aws:asset:path)`);
        functions.set(
          id,
          new LambdaFunction(
            {
              id,
              assetDir: resolve(options.assetsDir, assetPath),
              handler: p.Handler,
              environment,
              timeoutSeconds: Number(p.Timeout ?? 3),
              memoryMb,
              // The network a sandbox sees: loopback and the receiver's name, nothing else (./network.ts).
              network: receiver.network,
            },
            onLine,
          ),
        );
      }
    }
    cleanups.push(async () => void (await Promise.all([...functions.values()].map((f) => f.stop()))));
    const functionFor = (stack: StackTemplate, value: unknown) => {
      const fn = functions.get(referencedId(value) ?? '');
      if (!fn) throw new Error(`${stack.name}: ${JSON.stringify(value).slice(0, 200)} names no function`);
      return fn;
    };

    // The API: every method of every stack, by the path its resources spell; MOCK methods answer without a function.
    const mocks: { pattern: RegExp; answer: Parameters<typeof mockAnswer>[0] }[] = [];
    const routes = resourcesOf(stacks, 'AWS::ApiGateway::Method').flatMap(({ stack, id, resource }) => {
      const segments: string[] = [];
      let parent: string = resolveIn(stack, resource.Properties.ResourceId);
      for (let depth = 0; parent !== 'root' && depth < 50; depth++) {
        const r = stack.resources[parent];
        if (!r) throw new Error(`${stack.name}: method ${id} under unknown resource ${parent}`);
        segments.unshift(r.Properties.PathPart);
        parent = resolveIn(stack, r.Properties.ParentId);
      }
      const integration = resource.Properties.Integration ?? {};
      if (integration.Type === 'MOCK') {
        mocks.push({ pattern: greedyPathPattern(`/${segments.join('/')}`), answer: integration });
        return [];
      }
      return {
        route: { id, path: `/${segments.join('/')}`, method: resource.Properties.HttpMethod } as unknown as Route,
        fn: functionFor(stack, integration.Uri),
        integrationTimeoutMs: Number(integration.TimeoutInMillis ?? 29_000),
        // The STREAM transfer mode invokes the function with InvokeWithResponseStream (its own URI).
        streaming:
          integration.ResponseTransferMode === 'STREAM' && JSON.stringify(integration.Uri).includes('/response-streaming-invocations'),
      };
    });
    const compiled = routes.map((r) => compile(r.route));
    const byRoute = new Map(routes.map((r) => [r.route, r]));
    const gatewayAnswer = gatewayResponses(stacks);
    const serveApi = async (req: IncomingMessage, res: ServerResponse) => {
      const send = (r: APIGatewayProxyResult) => {
        res.writeHead(r.statusCode, (r.headers ?? {}) as Record<string, string>);
        res.end(r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
      };
      try {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        if (!url.pathname.startsWith(`/${stage}/`)) return send(gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', 403));
        const path = url.pathname.slice(stage.length + 1);
        const match = matchRoute(compiled, req.method ?? 'GET', path);
        const mock = match ? undefined : mocks.find((m) => m.pattern.test(path));
        if (mock) return send(mockAnswer(mock.answer));
        if (!match) return send(gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', 403));
        if (match === 'bad-escape') return send(gatewayAnswer('BAD_REQUEST_PARAMETERS', 400));
        const target = byRoute.get(match.route)!;
        const body = await readBody(req);
        const event = toProxyEvent(req, new URL(path + url.search, 'http://127.0.0.1'), match.route, match.pathParameters, body);
        Object.assign(event.requestContext, { stage, path: url.pathname, apiId: 'rehearsal', accountId: rehearsalAccount });
        if (target.streaming) await streamBehindGateway(target.fn, event, target.integrationTimeoutMs, gatewayAnswer, res);
        else send(await invokeBehindGateway(target.fn, event, target.integrationTimeoutMs, gatewayAnswer));
      } catch (error) {
        console.error('[rehearsal] gateway error', error);
        if (!res.headersSent) send(gatewayAnswer('DEFAULT_5XX', 500));
      }
    };

    // Triggers: event source mappings and schedule rules, as the templates define them.
    const controller = new AbortController();
    const failureDestinations: Rehearsal['failureDestinations'] = [];
    const loops: Promise<unknown>[] = [];
    cleanups.push(async () => {
      controller.abort();
      await Promise.allSettled(loops);
    });
    const signedAs = (id: string) => ({ endpoint: proxy.endpoint, region: rehearsalRegion, credentials: credentialsOf.get(id)! });
    for (const { stack, resource } of resourcesOf(stacks, 'AWS::Lambda::EventSourceMapping')) {
      const p = resolveIn(stack, resource.Properties);
      const fn = functionFor(stack, resource.Properties.FunctionName);
      const reportFailures = (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures');
      if (String(p.EventSourceArn).startsWith('arn:aws:sqs:')) {
        const queueId = String(p.EventSourceArn).split(':').pop()!;
        const pollers = Math.max(1, Math.min(Number(p.ScalingConfig?.MaximumConcurrency ?? 2), 2));
        for (let i = 0; i < pollers; i++) {
          loops.push(
            pollQueue(
              {
                functionId: fn.spec.id,
                queueUrl: queueUrl(queueId),
                queueArn: p.EventSourceArn,
                region: rehearsalRegion,
                batchSize: Number(p.BatchSize ?? 10),
                batchingWindowSeconds: Number(p.MaximumBatchingWindowInSeconds ?? 0),
                reportFailures,
                client: signedAs(fn.spec.id),
                invoke: (event) => fn.invoke(event),
              },
              controller.signal,
            ),
          );
        }
      } else if (p.EventSourceArn === streamArn) {
        const patterns = (p.FilterCriteria?.Filters ?? []).map((f: { Pattern: string }) => JSON.parse(f.Pattern));
        const destination = p.DestinationConfig?.OnFailure?.Destination as string | undefined;
        if (destination && !destination.startsWith('arn:aws:sqs:'))
          throw new Error(`on-failure destination ${destination} is not rehearsed`);
        // The on-failure destination: as the Lambda service does, a given-up batch's invocation record (metadata, not the
        // records) is sent to the queue with the function's own role (its execution role needs sqs:SendMessage there).
        const onFailure =
          destination &&
          (async (functionId: string, batch: GivenUpBatch) => {
            const sequence = (r: GivenUpBatch['records'][number]) => r.dynamodb?.SequenceNumber;
            const arrival = (r: GivenUpBatch['records'][number] | undefined) => r?.dynamodb?.ApproximateCreationDateTime?.toISOString();
            const record = {
              requestContext: {
                requestId: randomUUID(),
                functionArn: `arn:aws:lambda:${rehearsalRegion}:${rehearsalAccount}:function:${functionId}`,
                condition: batch.condition,
                approximateInvokeCount: batch.invocations,
              },
              responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
              version: '1.0',
              timestamp: new Date().toISOString(),
              DDBStreamBatchInfo: {
                shardId: batch.shardId,
                startSequenceNumber: sequence(batch.records[0]!),
                endSequenceNumber: sequence(batch.records.at(-1)!),
                approximateArrivalOfFirstRecord: arrival(batch.records[0]),
                approximateArrivalOfLastRecord: arrival(batch.records.at(-1)),
                batchSize: batch.records.length,
                streamArn: batch.streamArn,
              },
            };
            const sqs = new SQSClient({ ...signedAs(functionId), maxAttempts: 1 });
            try {
              await sqs.send(
                new SendMessageCommand({ QueueUrl: queueUrl(destination.split(':').pop()!), MessageBody: JSON.stringify(record) }),
              );
              failureDestinations.push({ functionId, destination, record });
            } finally {
              sqs.destroy();
            }
          });
        const job = {
          id: fn.spec.id,
          summary: '',
          handler: '',
          timeoutSeconds: fn.spec.timeoutSeconds,
          permissions: {} as never,
          trigger: {
            kind: 'stream' as const,
            entities: [],
            batchSize: Number(p.BatchSize ?? 100),
            retryAttempts: Number(p.MaximumRetryAttempts ?? 10_000),
            maxRecordAgeSeconds: Number(p.MaximumRecordAgeInSeconds ?? 86_400),
          },
        };
        loops.push(
          streamLoop(
            job,
            {
              dynamoEndpoint: dynamo.endpoint,
              tableName,
              streams: new DynamoDBStreamsClient(signedAs(fn.spec.id)),
              streamArn,
              accepts: (record) => !patterns.length || patterns.some((pattern: unknown) => matchesPattern(pattern, record)),
              invoke: async (event) => {
                const outcome = await fn.invoke(event);
                if (outcome.kind !== 'ok') throw new Error(`${fn.spec.id}: ${outcome.kind}`);
                return reportFailures ? (outcome.result as never) : undefined;
              },
              onGiveUp: onFailure ? (batch) => onFailure(fn.spec.id, batch) : undefined,
            },
            () => ({}) as never,
            controller.signal,
          ).catch((error: unknown) => console.error(`[rehearsal] stream mapping of ${fn.spec.id} stopped`, error)),
        );
      } else {
        throw new Error(`event source ${p.EventSourceArn} is not rehearsed`);
      }
    }
    const rules = new Map<string, () => Promise<void>>();
    for (const { stack, id, resource } of resourcesOf(stacks, 'AWS::Events::Rule')) {
      const p = resource.Properties;
      const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(p.ScheduleExpression ?? '');
      if (!rate) continue;
      const seconds = Number(rate[1]) * { minute: 60, hour: 3600, day: 86_400 }[rate[2]!.replace(/s$/, '') as 'minute'];
      const targets = (p.Targets ?? []).map((target: { Arn: unknown }) => functionFor(stack, target.Arn));
      const run = async () => {
        const event = {
          version: '0',
          id: randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: rehearsalAccount,
          time: new Date().toISOString(),
          region: rehearsalRegion,
          resources: [`arn:aws:events:${rehearsalRegion}:${rehearsalAccount}:rule/${id}`],
          detail: {},
        };
        for (const fn of targets as LambdaFunction[]) {
          const outcome = await fn.invoke(event);
          if (outcome.kind !== 'ok') console.error(`[rehearsal] scheduled ${fn.spec.id}: ${outcome.kind}`);
        }
      };
      rules.set(id, run);
      const scale = options.scheduleScale ?? 1 / 60;
      if (scale > 0) {
        const every = Math.max(2, seconds * scale) * 1000;
        loops.push(
          (async () => {
            for (let tick = 0; tick < 1_000_000 && !controller.signal.aborted; tick++) {
              await sleep(every, controller.signal);
              if (!controller.signal.aborted) await run();
            }
          })(),
        );
      }
    }

    // The stack outputs, as `cdk deploy --outputs-file` writes them, for `ops --aws --outputs`.
    const outputs = Object.fromEntries(
      Object.entries((readRootOutputs(options.templatesDir, root.name) ?? {}) as Record<string, { Value: unknown }>).map(
        ([name, output]) => [name, localize(resolveIn(root, output.Value))],
      ),
    );
    const outputsFile = join(options.outDir, 'cdk-outputs.json');
    writeFileSync(outputsFile, JSON.stringify({ [root.name]: outputs }, null, 2));
    // The operator: an IAM user of its own, keys generated, every call evaluated against docs/operator-policy.json.
    const operator = generateCredentials('user');
    const operatorArn = `arn:aws:iam::${rehearsalAccount}:user/operator`;
    const operatorPolicyDocument = operatorPolicy(outputs, rehearsalRegion, rehearsalAccount);
    principals.set(operator.accessKeyId, {
      functionId: 'operator',
      callerArn: operatorArn,
      credentials: operator,
      evaluator: new RoleEvaluator(operatorArn, [{ name: 'OperatorPolicy', policy: operatorPolicyDocument }]),
    });
    const operatorEnv = {
      AWS_ENDPOINT_URL: proxy.endpoint,
      AWS_REGION: rehearsalRegion,
      AWS_ACCESS_KEY_ID: operator.accessKeyId,
      AWS_SECRET_ACCESS_KEY: operator.secretAccessKey,
    };
    gate.open((req, res) => void serveApi(req, res));
    const rehearsal: Rehearsal = {
      baseUrl,
      outputsFile,
      proxy,
      providers,
      receiver,
      functions,
      methods: routes.map((r) => ({ method: r.route.method, path: r.route.path, functionId: r.fn.spec.id })),
      policies: policiesOf,
      operatorPolicy: operatorPolicyDocument,
      failureDestinations,
      dynamoLocalEndpoint: dynamo.endpoint,
      metrics,
      operatorEnv,
      rules: [...rules.keys()],
      async runRule(ruleId) {
        const run = rules.get(ruleId);
        if (!run) throw new Error(`no schedule rule ${ruleId}`);
        await run();
      },
      async stop() {
        writeFileSync(join(options.outDir, 'metrics.json'), JSON.stringify(metrics));
        await stopAll();
      },
    };
    return rehearsal;
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function readRootOutputs(dir: string, name: string): Record<string, unknown> | undefined {
  return (JSON.parse(readFileSync(join(dir, `${name}.template.json`), 'utf8')) as { Outputs?: Record<string, unknown> }).Outputs;
}
