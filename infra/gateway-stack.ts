import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { ComparisonOperator, TreatMissingData, type Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, type CfnTable, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { jobList, type Job } from '#functions/jobs.ts';
import { routeList, type Route, type SecretName } from '#functions/routes.ts';
import { HttpProblem, problemFor, problems } from '#shared/http/problem.ts';
import { NotFoundError } from '#shared/domain/errors.ts';
import { defaultRateLimits, perIpPaths, type RateLimits } from '#shared/http/rate-limits.ts';
import { partitionPrefixes } from '#shared/store/keys.ts';
import { tableDefinition } from '#shared/store/table.ts';
import { queueMaxReceiveCount } from '#shared/webhooks/policy.ts';
import { repoRoot } from '#infra/bundling.ts';
import { GatewayFunction, logRetention } from '#infra/gateway-function.ts';
import {
  acknowledge,
  acknowledgeApiMethods,
  attributeUpdateStatement,
  exceptKeyFamilies,
  indexQueryStatement,
  keyFamilies,
  leadingKeys,
  addRouteFunctions,
  type NestedRouteStackName,
  nestedRouteStackNames,
  resourcePaths,
  type RouteResources,
  RouteStack,
  routeStackOf,
  secretsFor,
  versionRootsOf,
  doubledPrefixProblem,
} from '#infra/route-stack.ts';
import { Observability } from '#infra/observability.ts';

/**
 * Problems API Gateway answers itself, before any Lambda runs: the same bodies as the pipeline's
 * (shared/http/problem.ts), with `traceId` the API Gateway request id.
 */
const gatewayProblems: readonly { type: ResponseType; problem: HttpProblem; headers?: Record<string, string> }[] = [
  // Unknown path, unknown method on a known path, or an unsupported API version.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, problem: problemFor(new NotFoundError('No such endpoint.')) },
  { type: ResponseType.THROTTLED, problem: new HttpProblem(429, 'Rate limit exceeded.'), headers: { 'Retry-After': "'1'" } },
  // API Gateway's own 10 MB payload limit; the pipeline enforces the contract's 64 KiB.
  { type: ResponseType.REQUEST_TOO_LARGE, problem: problems.tooLarge(10 * 1024 * 1024) },
  { type: ResponseType.WAF_FILTERED, problem: problems.forbidden('The request was blocked.') },
  // Catch-alls: the usual status varies by cause, but the body states one, so it is fixed.
  {
    type: ResponseType.DEFAULT_4XX,
    problem: problems.badRequest('The request could not be processed.', { '(request)': ['refused by the API gateway'] }),
  },
  { type: ResponseType.DEFAULT_5XX, problem: problems.internal() },
];

/** The REST API's one stage (the API version is in the path, not the stage). */
const apiStageName = 'prod';

export interface PaymentGatewayStackProps extends StackProps {
  /** The route table to serve; functions/routes.ts unless a test synthesizes a variant. */
  readonly routes?: readonly Route[];
}

/**
 * The root stack (`cdk deploy PaymentGateway`): the table, queues, secrets, the REST API with its
 * deployment, stage and web ACL, the background jobs, alarms and dashboard, and the `/docs` routes.
 * The other routes live in nested stacks (infra/route-stack.ts) deployed with it, so that no stack
 * nears CloudFormation's 500 resources (docs/operator-guide.md, Deploying).
 */
export class PaymentGatewayStack extends Stack {
  readonly table: Table;
  readonly masterKey: Secret;
  /** The key of the unauthenticated paths (page CSRF tokens, provider-callback verification); only those functions read it. */
  readonly publicPathsKey: Secret;
  /** The key that seals dashboard users' TOTP seeds; only the dashboard functions that check codes read it. */
  readonly totpKey: Secret;
  /** Webhook deliveries; the dispatcher (added later) retries through visibility timeouts. */
  readonly webhookQueue: Queue;
  readonly deadLetterQueue: Queue;
  /** Failure destination of the table stream consumers (the outbox relay). */
  readonly streamFailureQueue: Queue;
  readonly alarmTopic: Topic;
  readonly api: RestApi;
  readonly webAcl: CfnWebACL;
  /** Environment every function gets from the deployment's context values. */
  private deploymentEnvironment: Record<string, string> = {};
  /** Every secret by name (shared/http/route.ts SecretName); `liveProviders` only when configured. */
  private secrets: Partial<Record<SecretName, ISecret>> = {};
  /** The nested stacks serving most routes (infra/route-stack.ts), by name. */
  readonly routeStacks: ReadonlyMap<NestedRouteStackName, RouteStack>;
  /** One Lambda per route, by route id (in this stack or a nested one), and per job. */
  readonly functions: ReadonlyMap<string, GatewayFunction>;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: PaymentGatewayStackProps = {}) {
    const { routes: routeTable = routeList, ...stackProps } = props;
    super(scope, id, stackProps);

    const { partitionKey, sortKey, ttlAttribute, streamView, globalSecondaryIndexes } = tableDefinition;
    const stringKey = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: stringKey(partitionKey),
      sortKey: stringKey(sortKey),
      timeToLiveAttribute: ttlAttribute,
      stream: StreamViewType[streamView],
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: stringKey(gsi.partitionKey),
        sortKey: stringKey(gsi.sortKey),
      });
    }

    // shared/crypto/seal.ts derives the AES-256-GCM key as SHA-256 of this string: 64 random
    // alphanumerics, about 380 bits. Losing it makes every sealed secret unreadable: RETAIN.
    this.masterKey = new Secret(this, 'SecretsMasterKey', {
      description: 'Master key that seals merchant secret keys and webhook signing secrets.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.masterKey,
      'Rotating the master key means re-sealing every stored secret under the new key; ' +
        'it is an operator procedure, not a Secrets Manager rotation Lambda.',
      'AwsSolutions-SMG4',
    );
    // Separate from the master key so that code answering unauthenticated requests never holds the
    // key that unseals merchants' secrets (issue 10 point 16). Rotating it only invalidates open
    // checkout forms and in-flight sandbox callbacks.
    this.publicPathsKey = new Secret(this, 'PublicPathsKey', {
      description: 'Key of the unauthenticated paths: hosted checkout anti-CSRF tokens and provider callback verification.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    acknowledge(
      this.publicPathsKey,
      'Rotation invalidates open checkout forms and in-flight callbacks; it is an ' +
        'operator procedure (update the secret value), not a rotation Lambda.',
      'AwsSolutions-SMG4',
    );
    // Seals dashboard users' TOTP seeds (shared/crypto/seal.ts dashboardTotpKey), read only by the
    // dashboard functions that check codes. Losing it makes every enrolled user re-enrol: RETAIN.
    this.totpKey = new Secret(this, 'DashboardTotpKey', {
      description: "Key that seals dashboard users' two-factor (TOTP) seeds.",
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.totpKey,
      'Rotating it means re-sealing every TOTP seed under the new key; it is an operator procedure, not a rotation Lambda.',
      'AwsSolutions-SMG4',
    );

    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    this.deadLetterQueue = new Queue(this, 'WebhookDeadLetterQueue', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    acknowledge(
      this.deadLetterQueue,
      'This is the dead-letter queue; the operator redrives it (npm run ops).',
      'Serverless-SQSRedrivePolicy',
    );
    // docs/merchant-guide.md, Webhooks: the first attempt plus 7 retries (5 s ... 10 h), then the dead-letter queue.
    // Visibility timeout: six times the consumer's timeout (AWS guidance for event source mappings).
    this.webhookQueue = new Queue(this, 'WebhookQueue', {
      ...queueDefaults,
      visibilityTimeout: Duration.seconds(6 * 30),
      // The dispatcher dead-letters by its own attempt count (8); SQS's count also includes deferred
      // and failed-batch receives, so its redrive is only a high safety net.
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: queueMaxReceiveCount },
    });
    // Stream batches that keep failing after every retry land here instead of being dropped.
    this.streamFailureQueue = new Queue(this, 'StreamFailureQueue', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    acknowledge(
      this.streamFailureQueue,
      'This is the stream failure destination itself; an operator inspects and replays it.',
      'Serverless-SQSRedrivePolicy',
      'AwsSolutions-SQS3',
    );

    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: 'Payment gateway alarms', enforceSSL: true });
    acknowledge(
      this.alarmTopic,
      'Alarm notifications carry no sensitive data, and CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key.',
      'AwsSolutions-SNS2',
    );
    const alarm = (alarmId: string, metric: Metric, description: string) =>
      metric
        .createAlarm(this, alarmId, {
          alarmDescription: description,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        })
        .addAlarmAction(new SnsAction(this.alarmTopic));
    const minute = Duration.minutes(1);
    alarm(
      'WebhookDeadLetterAlarm',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum' }),
      'Webhook deliveries exhausted their retries.',
    );

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: logRetention });
    this.api = new RestApi(this, 'Api', {
      restApiName: 'payment-gateway',
      description: 'Merchant payment gateway',
      endpointTypes: [EndpointType.REGIONAL],
      // Binary answers leave as bytes, not base64 text, for clients that accept them: the payment links' PNG QR
      // codes (functions/links/qr.ts) and statement PDFs (the Lambda answers base64, isBase64Encoded).
      binaryMediaTypes: ['image/png', 'application/pdf'],
      cloudWatchRole: true,
      deployOptions: {
        // The API version is in the path (/Gateway/v1/...), so the stage is not a version.
        stageName: apiStageName,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false, // never log bodies: they carry secrets and card data
        // A high safety net for the whole stage; clients are limited one by one by the web ACL below.
        throttlingRateLimit: Number(this.node.tryGetContext('stageRateLimit') ?? 2000),
        throttlingBurstLimit: Number(this.node.tryGetContext('stageBurstLimit') ?? 4000),
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
      },
    });
    // Gateway response header values are mappings (`context.requestId`) or literals in single quotes.
    for (const { type, problem, headers } of gatewayProblems) {
      this.api.addGatewayResponse(`Problem${type.responseType}`, {
        type,
        statusCode: String(problem.status),
        responseHeaders: { 'Content-Type': "'application/problem+json'", 'Svc-Trace-Id': 'context.requestId', ...headers },
        templates: { 'application/json': JSON.stringify(problem.body('$context.requestId')) },
      });
    }
    acknowledgeApiMethods(this.api);
    this.webAcl = clientLimitsWebAcl(this, this.api.deploymentStage.stageArn, {
      perKey: Number(this.node.tryGetContext('rateLimitPerKey') ?? defaultRateLimits.perKey),
      perIp: Number(this.node.tryGetContext('rateLimitPerIp') ?? defaultRateLimits.perIp),
      windowSeconds: Number(this.node.tryGetContext('rateLimitWindowSeconds') ?? defaultRateLimits.windowSeconds),
    });
    acknowledge(
      this.api,
      'API Gateway needs an account-level role to write execution logs; ' +
        'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-maintained policy for it.',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    );
    alarm('Api5xxAlarm', this.api.metricServerError({ period: Duration.minutes(5) }), 'The API returned 5xx responses.');

    const tableLogicalId: string = this.resolve(this.getLogicalId(this.table.node.defaultChild as CfnTable));
    // The hosted checkout host of `checkoutUrl` ({checkout_url}/pay/{id}): this API's stage URL
    // (built from the API id, not `api.url`, which would make the functions depend on the
    // deployment that depends on them), or the `publicBaseUrl` context value for a custom domain.
    const customDomain = this.customDomain();
    const publicBaseUrl: string =
      this.node.tryGetContext('publicBaseUrl') ??
      (customDomain
        ? `https://${customDomain}`
        : `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${apiStageName}`);
    // Deployment configuration passed to every function: `cdk deploy -c fxRateSourceUrl=https://…`
    // plugs the live FX rate source into settlements (shared/providers/fx-rates.ts).
    const fxRateSourceUrl: string | undefined = this.node.tryGetContext('fxRateSourceUrl');
    // `cdk deploy -c liveProvidersSecretArn=arn:…` installs the live wallet, refund and payout adapters
    // (shared/providers/live, docs/operator-guide.md "Live providers") from that JSON secret at cold
    // start; every function may move money through a service that loads them, so each may read it.
    // Without it live mode refuses money operations with a 422, as before.
    const liveProvidersSecretArn: string | undefined = this.node.tryGetContext('liveProvidersSecretArn');
    this.secrets = {
      masterKey: this.masterKey,
      publicPathsKey: this.publicPathsKey,
      totpKey: this.totpKey,
      ...(liveProvidersSecretArn
        ? { liveProviders: Secret.fromSecretCompleteArn(this, 'LiveProvidersSecret', liveProvidersSecretArn) }
        : {}),
    };
    this.deploymentEnvironment = {
      PUBLIC_BASE_URL: publicBaseUrl,
      ...(fxRateSourceUrl ? { FX_RATE_SOURCE_URL: fxRateSourceUrl } : {}),
    };
    const shared: RouteResources = {
      table: this.table,
      alarmTopic: this.alarmTopic,
      environment: this.deploymentEnvironment,
      secrets: this.secrets,
    };
    // The routes of the root's own subtrees, then one nested stack per group of subtrees
    // (infra/route-stack.ts routeStackBySegment), each with its functions, methods and permissions.
    const functions = addRouteFunctions(
      this,
      this.api,
      routeTable.filter((r) => routeStackOf(r) === 'root'),
      shared,
      `${tableLogicalId}.Arn`,
      minute,
    );
    const routeStacks = new Map<NestedRouteStackName, RouteStack>();
    for (const name of nestedRouteStackNames) {
      const routes = routeTable.filter((r) => routeStackOf(r) === name);
      if (!routes.length) continue;
      const nested = new RouteStack(this, name, { restApi: this.api, stageName: apiStageName, routes, shared, minute });
      routeStacks.set(name, nested);
      for (const [id, fn] of nested.functions) functions.set(id, fn);
      // The stage's deployment must follow the nested methods: it waits for their stack, and a
      // change of any nested route (or of the function behind it) makes a new deployment.
      this.api.latestDeployment!.node.addDependency(nested);
      this.api.latestDeployment!.addToLogicalId({
        stack: name,
        routes: routes.map((r) => ({ method: r.method, paths: resourcePaths(r), fn: r.lambda ?? r.id })),
        doubledPrefixAnswers: versionRootsOf(routes).map((root) => [root, doubledPrefixProblem.detail]),
      });
    }
    this.routeStacks = routeStacks;
    for (const job of jobList) functions.set(job.id, this.jobFunction(job, tableLogicalId, alarm));
    this.functions = functions;
    alarm(
      'StreamFailureAlarm',
      this.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum' }),
      'Outbox events failed to relay after every retry.',
    );
    // Dashboard and on-call alarms (docs/operator-runbook.md).
    this.observability = new Observability(this, 'Observability', {
      api: this.api,
      // p99 latency alarms per row of its own Lambda; the dashboard's grouped rows are watched by their
      // group's Errors alarm.
      routes: routeTable.filter((r) => !r.lambda),
      functions,
      webhookQueue: this.webhookQueue,
      deadLetterQueue: this.deadLetterQueue,
      alarmTopic: this.alarmTopic,
      streamConsumerId: 'webhookRelay',
    });

    new CfnOutput(this, 'StreamFailureQueueUrl', { value: this.streamFailureQueue.queueUrl });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; append /Gateway/v1/... or /pay/...' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'QueueUrl', { value: this.webhookQueue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'Subscribe the on-call address here.' });
    new CfnOutput(this, 'SecretsMasterKeyArn', { value: this.masterKey.secretArn });
    new CfnOutput(this, 'PublicPathsKeyArn', { value: this.publicPathsKey.secretArn });
    new CfnOutput(this, 'DashboardTotpKeyArn', { value: this.totpKey.secretArn });
    // What `ops --aws --outputs <file>` builds dashboard invite links from (scripts/ops.ts).
    new CfnOutput(this, 'PublicBaseUrl', { value: publicBaseUrl, description: 'Hosted checkout and dashboard host.' });
  }

  /**
   * `cdk deploy -c domainName=pay.example.com -c certificateArn=arn:aws:acm:…` serves the API (and so
   * the hosted checkout and the dashboard) on the merchant-facing host: a regional custom domain with
   * an ACM certificate of the same region, TLS 1.2, mapped at its root to the stage. The DNS record
   * (CNAME or alias to the `CustomDomainTarget` output) is the operator's, as the zone may live anywhere.
   */
  private customDomain(): string | undefined {
    const domainName: string | undefined = this.node.tryGetContext('domainName');
    const certificateArn: string | undefined = this.node.tryGetContext('certificateArn');
    if (!domainName && !certificateArn) return undefined;
    if (!domainName || !certificateArn) {
      throw new Error('A custom domain needs both context values: -c domainName=… -c certificateArn=arn:aws:acm:…');
    }
    const domain = this.api.addDomainName('CustomDomain', {
      domainName,
      certificate: Certificate.fromCertificateArn(this, 'CustomDomainCertificate', certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new CfnOutput(this, 'CustomDomainTarget', {
      value: domain.domainNameAliasDomainName,
      description: `Point ${domainName} here: a CNAME, or an alias record in the zone CustomDomainZoneId.`,
    });
    new CfnOutput(this, 'CustomDomainZoneId', { value: domain.domainNameAliasHostedZoneId });
    return domainName;
  }

  /** A background function from functions/jobs.ts, with its trigger and grants. */
  private jobFunction(job: Job, tableLogicalId: string, alarm: (id: string, metric: Metric, description: string) => void): GatewayFunction {
    const fn = new GatewayFunction(this, job.id, {
      entry: join(repoRoot, job.handler),
      description: job.summary,
      table: this.table,
      secrets: secretsFor(job.permissions.secrets, this.secrets),
      timeout: Duration.seconds(job.timeoutSeconds),
      environment: {
        ...this.deploymentEnvironment,
        QUEUE_URL: this.webhookQueue.queueUrl,
        DEAD_LETTER_QUEUE_URL: this.deadLetterQueue.queueUrl,
      },
    });
    // Exactly the actions the job's code calls (functions/jobs.ts): Query on the table, the indexes or both, as it queries.
    const tableArn = this.table.tableArn;
    const { queries } = job.permissions;
    const onTable = queries === 'table' || queries === 'tableAndIndexes';
    const onIndexes = queries === 'indexes' || queries === 'tableAndIndexes';
    // Its writes reach its writePartitions only (or every family but the API keys': exceptKeyFamilies); no job changes a key.
    const isWrite = (action: string) => /^(Put|Update|Delete|BatchWrite)Item$/.test(action);
    // Its UpdateItem on its `updates` families (and attributes) alone, when it names them.
    const { readPartitions, updates } = job.permissions;
    const reads = job.permissions.table.filter((action) => !isWrite(action));
    const writes = job.permissions.table.filter((action) => isWrite(action) && !(updates && action === 'UpdateItem'));
    const dynamodb = (actions: readonly string[]) => actions.map((action) => `dynamodb:${action}`);
    // Its item reads and table queries on its code's families (readPartitions) only.
    const readConditions = readPartitions ? { conditions: leadingKeys(readPartitions) } : {};
    if (reads.length || onTable)
      fn.addToRolePolicy(
        new PolicyStatement({ actions: dynamodb([...reads, ...(onTable ? ['Query'] : [])]), resources: [tableArn], ...readConditions }),
      );
    if (writes.length)
      fn.addToRolePolicy(new PolicyStatement({ actions: dynamodb(writes), resources: [tableArn], conditions: jobWriteConditions(job) }));
    if (updates && job.permissions.table.includes('UpdateItem')) {
      if (updates.partitions.some((family) => (keyFamilies as readonly string[]).includes(family)))
        throw new Error(`${job.id}: no job updates API-key items`);
      fn.addToRolePolicy(
        updates.attributes
          ? attributeUpdateStatement(
              tableArn,
              updates.partitions.map((family) => partitionPrefixes[family]),
              updates.attributes,
            )
          : new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [tableArn], conditions: leadingKeys(updates.partitions) }),
      );
    }
    // An index serves Query (and Scan, which no job may call): item actions stay on the table.
    if (onIndexes) fn.addToRolePolicy(indexQueryStatement(tableArn, job.permissions.indexPartitions, job.id));
    // SendMessage only: the queue trigger grants the dispatcher's receive, delete and visibility changes.
    const send = (queue: Queue) => fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    if (job.permissions.webhookQueue === 'send') send(this.webhookQueue);
    if (job.permissions.deadLetterQueue === 'send') send(this.deadLetterQueue);
    if (onIndexes) {
      acknowledge(
        fn.role!,
        'The wildcard is the indexes of this one table (GSI1, GSI2, GSI3), which the access patterns query.',
        `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      );
    }
    const trigger = job.trigger;
    switch (trigger.kind) {
      case 'schedule': {
        const rule = new Rule(this, `${job.id}Schedule`, {
          schedule: Schedule.rate(Duration.minutes(Math.max(1, Math.ceil(trigger.everySeconds / 60)))),
          targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
        });
        acknowledge(
          rule,
          'A missed tick of an idempotent sweep is made up by the next one a minute ' +
            'later; there is no event worth keeping in a dead-letter queue.',
          'Serverless-EventBusDLQ',
        );
        acknowledge(
          fn,
          'A scheduled sweep is idempotent and runs again at the next tick; a ' +
            'failed run is retried by the schedule, not a dead-letter queue.',
          'Serverless-LambdaDLQ',
          'Serverless-LambdaAsyncFailureDestination',
        );
        break;
      }
      case 'queue':
        fn.addEventSource(
          new SqsEventSource(this.webhookQueue, {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            ...(trigger.maxConcurrency ? { maxConcurrency: trigger.maxConcurrency } : {}),
          }),
        );
        acknowledge(
          fn,
          'Invoked synchronously by the SQS event source mapping; failed messages return to the queue and end in its dead-letter queue.',
          'Serverless-LambdaDLQ',
          'Serverless-LambdaAsyncFailureDestination',
        );
        // SQS event source mappings have no on-failure destination: the queue's redrive policy is it.
        acknowledge(
          fn,
          'An SQS event source mapping cannot have an on-failure destination; the webhook ' +
            "queue's redrive policy moves failing messages to its dead-letter queue.",
          'Serverless-LambdaEventSourceMappingDestination',
        );
        break;
      case 'stream':
        fn.addEventSource(
          new DynamoEventSource(this.table, {
            startingPosition: StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            bisectBatchOnError: true,
            reportBatchItemFailures: true,
            // A record that keeps failing blocks its shard for minutes, not 24 h: it then goes to the
            // failure destination, and the webhook sweep sends its event from the table (the outbox
            // item stays in the due index until a delivery item exists; docs/webhooks-operations.md).
            retryAttempts: trigger.retryAttempts,
            maxRecordAge: Duration.seconds(trigger.maxRecordAgeSeconds),
            onFailure: new SqsDlq(this.streamFailureQueue),
            filters: [
              FilterCriteria.filter({
                eventName: FilterRule.isEqual('INSERT'),
                dynamodb: { NewImage: { entity: { S: [...trigger.entities] } } },
              }),
            ],
          }),
        );
        acknowledge(
          fn,
          'Invoked synchronously by the stream event source mapping, whose failure destination is the StreamFailureQueue.',
          'Serverless-LambdaDLQ',
          'Serverless-LambdaAsyncFailureDestination',
        );
        break;
    }
    alarm(`${job.id}ErrorsAlarm`, fn.metricErrors({ period: Duration.minutes(1) }), `${job.id}: unhandled errors.`);
    return fn;
  }
}

/**
 * Per-client limits (docs/security-and-limits.md; the same numbers the local server applies):
 * rate-based rules counted per Svc-API-Key header (requests without it are not counted by that
 * rule) and per client IP on the public pages, the provider callbacks and the merchant dashboard
 * (its sign-in above all; not limited by the local server), plus the AWS managed rule groups
 * (common rule set, known bad inputs, IP reputation). A limited client gets 429 with a
 * problem body; WAF prefixes custom headers, so Retry-After arrives as `x-amzn-waf-retry-after`.
 */
function clientLimitsWebAcl(scope: Construct, stageArn: string, limits: RateLimits): CfnWebACL {
  const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });
  const tooMany = {
    block: {
      customResponse: {
        responseCode: 429,
        customResponseBodyKey: 'tooManyRequests',
        responseHeaders: [{ name: 'Retry-After', value: String(limits.windowSeconds) }],
      },
    },
  };
  const pathContains = (text: string) => ({
    byteMatchStatement: {
      fieldToMatch: { uriPath: {} },
      positionalConstraint: 'CONTAINS',
      searchString: text,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  });
  const managed = (name: string, priority: number, countOnly: string[] = []) => ({
    name,
    priority,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name,
        ...(countOnly.length ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) } : {}),
      },
    },
    visibilityConfig: visibility(name),
  });
  const acl = new CfnWebACL(scope, 'ClientLimits', {
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('payment-gateway'),
    customResponseBodies: {
      tooManyRequests: {
        contentType: 'APPLICATION_JSON',
        content: JSON.stringify(
          problems
            .tooManyRequests('Too many requests from this client; retry after the Retry-After seconds.', limits.windowSeconds)
            .body('waf'),
        ),
      },
    },
    rules: [
      {
        name: 'PerApiKey',
        priority: 0,
        action: tooMany,
        statement: {
          rateBasedStatement: {
            limit: limits.perKey,
            evaluationWindowSec: limits.windowSeconds,
            aggregateKeyType: 'CUSTOM_KEYS',
            customKeys: [{ header: { name: 'svc-api-key', textTransformations: [{ priority: 0, type: 'NONE' }] } }],
          },
        },
        visibilityConfig: visibility('PerApiKey'),
      },
      {
        name: 'PerIpPublic',
        priority: 1,
        action: tooMany,
        statement: {
          rateBasedStatement: {
            limit: limits.perIp,
            evaluationWindowSec: limits.windowSeconds,
            aggregateKeyType: 'IP',
            scopeDownStatement: {
              orStatement: { statements: [...perIpPaths.map(pathContains), pathContains('/dashboard')] },
            },
          },
        },
        visibilityConfig: visibility('PerIpPublic'),
      },
      managed('AWSManagedRulesAmazonIpReputationList', 2),
      // Bodies up to 64 KiB are valid here (the pipeline answers 413 above that); server-to-server
      // merchant clients need not send a User-Agent.
      managed('AWSManagedRulesCommonRuleSet', 3, ['SizeRestrictions_BODY', 'NoUserAgent_HEADER']),
      managed('AWSManagedRulesKnownBadInputsRuleSet', 4),
    ],
  });
  new CfnWebACLAssociation(scope, 'ClientLimitsAssociation', { resourceArn: stageArn, webAclArn: acl.attrArn });
  return acl;
}

/** A job's write condition: dynamodb:LeadingKeys of its writePartitions, else any family but the API keys'. */
function jobWriteConditions(job: Job) {
  return job.permissions.writePartitions ? leadingKeys(job.permissions.writePartitions) : exceptKeyFamilies;
}
