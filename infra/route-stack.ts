import { join } from 'node:path';
import { CfnParameter, Duration, NestedStack, Validations } from 'aws-cdk-lib';
import {
  type IRestApi,
  LambdaIntegration,
  MockIntegration,
  PassthroughBehavior,
  ResponseTransferMode,
  RestApi,
  Stage,
} from 'aws-cdk-lib/aws-apigateway';
import { ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct, IConstruct } from 'constructs';
import { lambdaGroups, streamingTimeoutSeconds, supportedVersions, type Route, type SecretName } from '#functions/routes.ts';
import { type IndexFamily, indexPartitions, type PartitionFamily, partitionPrefixes } from '#shared/store/keys.ts';
import { doubledVersionPrefixDetail, HttpProblem } from '#shared/http/problem.ts';
import { securityHeaders } from '#shared/http/middlewares.ts';
import { repoRoot } from '#infra/bundling.ts';
import { GatewayFunction } from '#infra/gateway-function.ts';
import { lambdaModuleOf } from '#infra/dashboard-lambdas.ts';

/**
 * Which stack serves each first path segment of the route table: the root stack or one of its
 * nested stacks. CloudFormation allows 500 resources per stack and every route brings a method, a
 * Lambda permission and path resources (and, with a Lambda of its own, a function, role, policy,
 * log group and alarm), so the routes live in nested stacks that `cdk deploy` deploys with the root
 * (test/infra/stack.test.ts bounds each). A segment is a whole subtree, so no API Gateway resource
 * is created by two stacks. A new first segment must be placed here (synthesis fails otherwise).
 * The root keeps the reference pages: CDK refuses a REST API without a method of its own.
 */
export const routeStackBySegment = {
  Gateway: 'MerchantApi',
  pay: 'HostedPages',
  l: 'HostedPages',
  providers: 'HostedPages',
  dashboard: 'Dashboard',
  docs: 'root',
} as const satisfies Record<string, string>;

export type RouteStackName = (typeof routeStackBySegment)[keyof typeof routeStackBySegment];
export type NestedRouteStackName = Exclude<RouteStackName, 'root'>;
export const nestedRouteStackNames = ['MerchantApi', 'HostedPages', 'Dashboard'] as const satisfies readonly NestedRouteStackName[];

/** The stack that serves a route (by its first path segment). */
export function routeStackOf(route: Route): RouteStackName {
  const segment = route.path.split('/')[1] ?? '';
  const stack = (routeStackBySegment as Record<string, RouteStackName>)[segment];
  if (!stack) throw new Error(`Route ${route.id} (${route.path}): place /${segment} in routeStackBySegment (infra/route-stack.ts).`);
  return stack;
}

/**
 * API Gateway path parameters must be whole segments, so `v{version}` cannot be one: each supported
 * version gets literal resources (`/Gateway/v1/...`) and any other version is an unknown path, the
 * gateway's 404 problem. Whole-segment `{param}`s stay path parameters.
 */
export function resourcePaths(route: Route): string[] {
  return route.path.includes('{version}') ? supportedVersions.map((v) => route.path.replaceAll('{version}', v)) : [route.path];
}

/**
 * Table actions of request paths (routes.ts `permissions`): item reads (also inside TransactGetItems),
 * BatchGetItem and Query only for rows that name them (`batchGets`, `queries`), and for `readWrite`
 * conditional puts and updates (also inside TransactWriteItems; puts alone for `putsOnly` rows); ConditionCheckItem only for rows
 * whose transactions hold ConditionCheck items (`conditionChecks`); DeleteItem (inside TransactWriteItems) only for
 * rows that undo their own first commit (`deletes`: a deposit whose charge the provider refused). Never Scan or
 * BatchWriteItem: no request path calls them (jobs have their own list).
 * test/infra/code-grants.test.ts compares these with each bundle's calls, action by action.
 */
function routeTableActions(permissions: Route['permissions']): { read: string[]; write: string[] } {
  return {
    read: [
      'dynamodb:GetItem',
      ...(permissions.batchGets ? ['dynamodb:BatchGetItem'] : []),
      ...(permissions.queries === 'table' || permissions.queries === 'tableAndIndexes' ? ['dynamodb:Query'] : []),
    ],
    write:
      permissions.table === 'readWrite'
        ? [
            'dynamodb:PutItem',
            ...(permissions.putsOnly ? [] : ['dynamodb:UpdateItem']),
            ...(permissions.deletes ? ['dynamodb:DeleteItem'] : []),
          ]
        : [],
  };
}

/** IAM's condition confining a statement to the items of some partition families. */
export const leadingKeys = (families: readonly PartitionFamily[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': families.map((family) => `${partitionPrefixes[family]}*`) },
});

/**
 * The Query grant on the table's indexes, confined to the index partition families `families` (an index Query's
 * dynamodb:LeadingKeys is the index's partition key value): `who` names the row or job when it names none.
 */
export function indexQueryStatement(tableArn: string, families: readonly IndexFamily[] | undefined, who: string): PolicyStatement {
  if (!families?.length) throw new Error(`${who}: index queries need their indexPartitions (shared/store/keys.ts indexPartitions)`);
  return new PolicyStatement({
    actions: ['dynamodb:Query'],
    resources: [`${tableArn}/index/*`],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': families.map((family) => indexPartitions[family]) } },
  });
}

/** The families only the key-managing functions write (`managesKeys`): API keys and their id pointers. */
export const keyFamilies = ['apiKey', 'apiKeyId'] as const satisfies readonly PartitionFamily[];

/**
 * The write condition of a function that writes many families (a readWrite row without `writePartitions`, a job that
 * writes): any partition but the API keys' (dynamodb:LeadingKeys), so no such function can change a key's scopes,
 * mode or revocation (issue 40). The key-managing functions (`managesKeys`) go without it.
 */
export const exceptKeyFamilies = {
  'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': keyFamilies.map((family) => `${partitionPrefixes[family]}*`) },
};

/**
 * The table grants of one route: its actions on the table and its indexes; a route confined to
 * `partitions` gets them on the table only (no index), under a `dynamodb:LeadingKeys` condition
 * that allows only partition keys of those item families, and its writes only on its
 * `writePartitions` when it names fewer (the dashboard's sign-in Lambda reads the merchant profile,
 * never writes it).
 */
export function routeTablePolicies(route: Route, tableArn: string): PolicyStatement[] {
  const { table, partitions, readPartitions, writePartitions, conditionChecks, queries, managesKeys } = route.permissions;
  if (table === 'none') return [];
  if (!managesKeys && writePartitions?.some((family) => (keyFamilies as readonly string[]).includes(family)))
    throw new Error(`${route.id}: only a key-managing row (managesKeys) writes API-key items`);
  const { read: reads, write } = routeTableActions(route.permissions);
  const writes = [...write, ...(write.length && conditionChecks ? ['dynamodb:ConditionCheckItem'] : [])];
  // An index serves Query only (and Scan, which no request path calls): item actions on the table alone.
  if (!partitions) {
    // Reads anywhere the merchant's data lives (each is checked against the authenticated merchant in code);
    // writes only on the row's `writePartitions`, or on every family but the API keys' (exceptKeyFamilies).
    // Item reads and table queries only on the row's `readPartitions` (its code's families) when it names them.
    const writeConditions = writePartitions ? leadingKeys(writePartitions) : managesKeys ? undefined : exceptKeyFamilies;
    const apart = (writes.length > 0 && writeConditions !== undefined) || readPartitions !== undefined;
    const readConditions = readPartitions ? { conditions: leadingKeys(readPartitions) } : {};
    return [
      new PolicyStatement({ actions: apart ? reads : [...reads, ...writes], resources: [tableArn], ...readConditions }),
      ...(apart && writes.length
        ? [new PolicyStatement({ actions: writes, resources: [tableArn], ...(writeConditions ? { conditions: writeConditions } : {}) })]
        : []),
      ...(queries === 'indexes' || queries === 'tableAndIndexes'
        ? [indexQueryStatement(tableArn, route.permissions.indexPartitions, route.id)]
        : []),
    ];
  }
  if (!writePartitions || !writes.length) {
    return [new PolicyStatement({ actions: [...reads, ...writes], resources: [tableArn], conditions: leadingKeys(partitions) })];
  }
  return [
    new PolicyStatement({ actions: reads, resources: [tableArn], conditions: leadingKeys(partitions) }),
    new PolicyStatement({ actions: writes, resources: [tableArn], conditions: leadingKeys(writePartitions) }),
  ];
}

/** The attributes the key last-used update may name: the key (PK, SK) and lastUsedAt (shared/store/merchants.ts recordKeyUse). */
export const keyUseAttributes = ['PK', 'SK', 'lastUsedAt'] as const;

/**
 * UpdateItem on the items of some partition families only (`dynamodb:LeadingKeys`), naming no
 * attribute but the key and `attributes` (`dynamodb:Attributes`), returning nothing
 * (`dynamodb:ReturnValues` NONE): a read route's narrow writes.
 */
export function attributeUpdateStatement(tableArn: string, prefixes: readonly string[], attributes: readonly string[]): PolicyStatement {
  return new PolicyStatement({
    actions: ['dynamodb:UpdateItem'],
    resources: [tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...new Set(['PK', 'SK', ...attributes])] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    },
  });
}

/**
 * Every route that authenticates with an API key records the key's last use (at most one
 * conditional UpdateItem per key per 5 minutes, docs/dashboard.md): UpdateItem on API-key items
 * only, naming no attribute but lastUsedAt. Its general writes (readWrite rows) never reach an
 * API-key item: no row but the key-managing ones lists the apiKey family in `writePartitions`.
 */
export function keyUsePolicy(route: Route, tableArn: string): PolicyStatement | undefined {
  if (route.auth !== 'apiKey' || route.permissions.table === 'none') return undefined;
  return attributeUpdateStatement(tableArn, [partitionPrefixes.apiKey], keyUseAttributes);
}

/** What a signed-in page's session update may name: the idle clock and the mode switch (shared/store/dashboard.ts updateSession). */
export const sessionClockAttributes = ['lastSeenAt', 'mode', 'revokedAt'] as const;

/**
 * A signed-in dashboard page moves its session's idle clock (at most once a minute) and the mode switch sets the
 * session's mode: UpdateItem on session items only, naming no attribute but those (its condition reads revokedAt),
 * returning nothing. For Lambdas whose general writes do not cover session items (`writePartitions` without dashSession).
 */
export function sessionClockPolicy(rows: readonly Route[], tableArn: string): PolicyStatement | undefined {
  const { table, writePartitions } = rows[0]!.permissions;
  if (!rows.some((r) => r.auth === 'session') || table !== 'readWrite' || !writePartitions) return undefined;
  if (writePartitions.includes('dashSession')) return undefined;
  return attributeUpdateStatement(tableArn, [partitionPrefixes.dashSession], sessionClockAttributes);
}

/** A read route's `attributeUpdates` (routes.ts permissions): UpdateItem of those attributes on those families' items only. */
export function attributeUpdatePolicy(route: Route, tableArn: string): PolicyStatement | undefined {
  const updates = route.permissions.attributeUpdates;
  if (!updates) return undefined;
  // A readWrite row's narrow updates are of families its general writes do not reach (writePartitions).
  const general = route.permissions.table === 'readWrite' ? (route.permissions.writePartitions ?? []) : [];
  if (route.permissions.table !== 'read' && (!route.permissions.writePartitions || updates.partitions.some((f) => general.includes(f))))
    throw new Error(`${route.id}: attributeUpdates narrows writes to families its writePartitions leave out`);
  return attributeUpdateStatement(
    tableArn,
    updates.partitions.map((family) => partitionPrefixes[family]),
    updates.attributes,
  );
}

export const acknowledge = (scope: IConstruct, reason: string, ...ids: string[]) =>
  Validations.of(scope).acknowledge(...ids.map((id) => ({ id, reason })));

/** The REST API's methods, wherever they are defined, authenticate and validate in the Lambda pipeline. */
export function acknowledgeApiMethods(api: IConstruct): void {
  acknowledge(
    api,
    'Merchant routes authenticate with the Svc-API-Key header, checked by the Lambda pipeline against SHA-256 key hashes ' +
      '(docs/merchant-guide.md, Keys and modes); the hosted checkout page is public by design. There are no IAM or Cognito users.',
    'AwsSolutions-APIG4',
    'AwsSolutions-COG4',
  );
  acknowledge(
    api,
    'The Lambda pipeline validates requests (content type, size, schema) so that failures are ' +
      'RFC 9457 problems with per-field errors (docs/merchant-guide.md, Errors).',
    'AwsSolutions-APIG2',
  );
}

/** What the route functions of any stack share with the root stack. */
export interface RouteResources {
  readonly table: Pick<ITable, 'tableName' | 'tableArn'>;
  readonly alarmTopic: ITopic;
  /** Environment every function gets from the deployment's context values. */
  readonly environment: Record<string, string>;
  /**
   * The secrets by name; `liveProviders` only with `cdk deploy -c liveProvidersSecretArn=…`
   * (docs/operator-guide.md), read only by the rows that list it.
   */
  readonly secrets: Partial<Record<SecretName, ISecret>>;
}

/** The secrets a route or job lists, as GatewayFunction wants them (an unconfigured one is left out). */
export function secretsFor(names: readonly SecretName[], secrets: RouteResources['secrets']): Partial<Record<SecretName, ISecret>> {
  return Object.fromEntries(names.flatMap((name) => (secrets[name] ? [[name, secrets[name]]] : [])));
}

/** An alarm on any metric above 0 over one period, notifying the alarm topic. */
export function zeroAlarm(scope: Construct, id: string, metric: Metric, topic: ITopic, description: string): void {
  metric
    .createAlarm(scope, id, {
      alarmDescription: description,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    })
    .addAlarmAction(new SnsAction(topic));
}

/**
 * One Lambda per route (or per Lambda group of rows) in `scope`, each with its least-privilege
 * table grant, its secrets, an errors alarm and its API Gateway methods on `api`.
 * `tableArnFinding` is how cdk-nag names the table ARN in this stack (for the index wildcard).
 */
export function addRouteFunctions(
  scope: Construct,
  api: IRestApi,
  routes: readonly Route[],
  shared: RouteResources,
  tableArnFinding: string,
  minute: Duration,
): Map<string, GatewayFunction> {
  const functions = new Map<string, GatewayFunction>();
  // Rows of a Lambda group (routes.ts lambdaGroups: the dashboard) share one function, created with the first row.
  const groupFunctions = new Map<string, GatewayFunction>();
  for (const route of routes) {
    const group = route.lambda ? lambdaGroups[route.lambda] : undefined;
    let fn = group ? groupFunctions.get(group.id) : undefined;
    if (!fn) {
      fn = new GatewayFunction(scope, group?.id ?? route.id, {
        entry: join(repoRoot, lambdaModuleOf(route)),
        description: group ? group.summary : `${route.method} ${route.path}`,
        table: shared.table,
        // A group's rows declare the same permissions (test/infra/stack.test.ts checks it).
        secrets: secretsFor(route.permissions.secrets, shared.secrets),
        environment: shared.environment,
        ...(route.assets ? { assets: route.assets } : {}),
        // A streamed response (route.ts `streaming`) may run as long as API Gateway streams one; the handler ends it before.
        ...(route.streaming ? { timeout: Duration.seconds(streamingTimeoutSeconds) } : {}),
      });
      // Least privilege per route (docs/security-and-limits.md): item reads, queries and conditional
      // puts/updates only; unauthenticated code (hosted pages, provider callbacks) also confined to
      // its partitions by dynamodb:LeadingKeys.
      const tablePolicies = routeTablePolicies(route, shared.table.tableArn);
      for (const policy of tablePolicies) fn.addToRolePolicy(policy);
      const rows = group ? routes.filter((r) => r.lambda === route.lambda) : [route];
      for (const narrow of [
        keyUsePolicy(route, shared.table.tableArn),
        sessionClockPolicy(rows, shared.table.tableArn),
        attributeUpdatePolicy(route, shared.table.tableArn),
      ])
        if (narrow) fn.addToRolePolicy(narrow);
      if (tablePolicies.length && !route.permissions.partitions) {
        acknowledge(
          fn.role!,
          'The wildcard is the indexes of this one table (GSI1, GSI2, GSI3), which the access patterns query.',
          `AwsSolutions-IAM5[Resource::<${tableArnFinding}>/index/*]`,
        );
      }
      acknowledge(
        fn,
        'Invoked synchronously by API Gateway: a failure is returned to the caller, there are no asynchronous events to dead-letter.',
        'Serverless-LambdaDLQ',
        'Serverless-LambdaAsyncFailureDestination',
      );
      zeroAlarm(
        scope,
        `${group?.id ?? route.id}ErrorsAlarm`,
        fn.metricErrors({ period: minute }),
        shared.alarmTopic,
        group ? `${group.summary} Unhandled errors.` : `${route.method} ${route.path}: unhandled errors.`,
      );
      if (group) groupFunctions.set(group.id, fn);
    }

    // A streaming row: API Gateway invokes with InvokeWithResponseStream and sends the body on as it comes (15 minutes at most).
    const integration = new LambdaIntegration(fn, {
      allowTestInvoke: false,
      ...(route.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.seconds(streamingTimeoutSeconds) } : {}),
    });
    for (const path of resourcePaths(route)) api.root.resourceForPath(path).addMethod(route.method, integration);
    functions.set(route.id, fn);
  }
  return functions;
}

/** The `/Gateway/v{n}` roots the routes' resources hang under (infra/route-stack.ts resourcePaths). */
export const versionRootsOf = (routes: readonly Route[]): string[] => [
  ...new Set(routes.flatMap(resourcePaths).flatMap((path) => /^\/Gateway\/v\d+(?=\/)/.exec(path)?.[0] ?? [])),
];

/** The problem a path that repeats the version prefix answers (shared/http/problem.ts unknownEndpointDetail). */
export const doubledPrefixProblem = new HttpProblem(404, doubledVersionPrefixDetail);

/**
 * `/Gateway/v1/Gateway/…`, what a client whose base URL already ends in /Gateway/v1 sends: a mock method (no Lambda)
 * answers the 404 problem that says so. API Gateway's own 404 (MISSING_AUTHENTICATION_TOKEN, infra/gateway-stack.ts)
 * cannot look at the path: a gateway response template is plain substitution, not VTL.
 */
export function addDoubledPrefixAnswer(api: IRestApi, versionRoot: string): void {
  const headers: Record<string, string> = {
    'Content-Type': "'application/problem+json'",
    'Svc-Trace-Id': 'context.requestId',
    ...Object.fromEntries(Object.entries(securityHeaders).map(([name, value]) => [name, `'${value}'`])),
  };
  const integration = new MockIntegration({
    // Whatever the body, the mock answers the one response below.
    passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
    requestTemplates: { 'application/json': '{"statusCode": 404}' },
    integrationResponses: [
      {
        statusCode: '404',
        responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value])),
        responseTemplates: { 'application/json': JSON.stringify(doubledPrefixProblem.body('$context.requestId')) },
      },
    ],
  });
  api.root.resourceForPath(`${versionRoot}/Gateway/{proxy+}`).addMethod('ANY', integration, {
    methodResponses: [
      {
        statusCode: '404',
        responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true])),
      },
    ],
  });
}

export interface RouteStackProps {
  readonly restApi: RestApi;
  readonly stageName: string;
  readonly routes: readonly Route[];
  readonly shared: RouteResources;
  readonly minute: Duration;
}

/**
 * A nested stack serving whole path subtrees of the one REST API (routeStackBySegment): their
 * resources, methods, Lambda permissions and functions. The REST API, its deployment and stage
 * stay in the root stack, which redeploys the stage when a nested route changes. The table comes
 * in as the explicit parameters TableName and TableArn (so cdk-nag findings name them); the rest
 * (secrets, alarm topic, API id) as CDK's automatic cross-stack parameters.
 */
export class RouteStack extends NestedStack {
  readonly functions: ReadonlyMap<string, GatewayFunction>;

  constructor(scope: Construct, id: NestedRouteStackName, props: RouteStackProps) {
    const { restApi, stageName, routes, shared, minute } = props;
    super(scope, id, {
      description: `Payment gateway routes: ${id}.`,
      parameters: { TableName: shared.table.tableName, TableArn: shared.table.tableArn },
    });
    const table = {
      tableName: new CfnParameter(this, 'TableName', { type: 'String' }).valueAsString,
      tableArn: new CfnParameter(this, 'TableArn', { type: 'String' }).valueAsString,
    };
    const api = RestApi.fromRestApiAttributes(this, 'Api', { restApiId: restApi.restApiId, rootResourceId: restApi.restApiRootResourceId });
    acknowledgeApiMethods(api);
    // A literal stage name in the Lambda permissions' source ARNs: a reference to the root's stage
    // would make the stage (which depends on these methods) and this stack depend on each other.
    api.deploymentStage = Stage.fromStageAttributes(this, 'Stage', { stageName, restApi: api }) as Stage;
    this.functions = addRouteFunctions(this, api, routes, { ...shared, table }, 'TableArn', minute);
    for (const root of versionRootsOf(routes)) addDoubledPrefixAnswer(api, root);
  }
}
