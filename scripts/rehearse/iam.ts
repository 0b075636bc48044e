import { runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import { rehearsalAccount } from './template.ts';

/**
 * What AWS authorizes for one API call, and the evaluation of it against a role's policies with
 * @cloud-copilot/iam-simulate. A DynamoDB call may be several authorizations: a transaction is
 * authorized item by item (PutItem, UpdateItem, DeleteItem, ConditionCheckItem, GetItem), a batch
 * per table. Condition keys: dynamodb:LeadingKeys (the partition key values the call touches),
 * dynamodb:Attributes (the top-level attribute names it names), dynamodb:ReturnValues and
 * dynamodb:Select.
 */
export interface Authorization {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** The partition keys, for the log and the use record. */
  keys: string[];
}

export interface TableSchema {
  /** Table name → its partition key attribute, its sort key and each index's partition key. */
  [table: string]: { partitionKey: string; sortKey?: string; indexes: Record<string, string> };
}

const arnOf = (region: string) => ({
  table: (name: string) => `arn:aws:dynamodb:${region}:${rehearsalAccount}:table/${name}`,
  queue: (url: string) => `arn:aws:sqs:${region}:${rehearsalAccount}:${url.split('/').pop()}`,
});

const keywords = new Set(['and', 'or', 'not', 'between', 'in', 'set', 'remove', 'add', 'delete']);

/** Top-level attribute names an expression names (`#n` through ExpressionAttributeNames; nested paths by their first segment). */
export function expressionAttributes(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const found: string[] = [];
  const token = /(\.|\[)?\s*(#[\w]+|:[\w]+|[A-Za-z_][\w]*)(\s*\()?/g;
  for (const m of expression.matchAll(token)) {
    const [, before, name, call] = m;
    if (before || call || name!.startsWith(':')) continue;
    if (!name!.startsWith('#') && keywords.has(name!.toLowerCase())) continue;
    found.push(name!.startsWith('#') ? (names[name!] ?? name!) : name!);
  }
  return found;
}

/** The partition key value a Query's key condition fixes (`#pk = :v` or `PK = :v`). */
function queryPartition(body: any, attribute: string): string | undefined {
  const names: Record<string, string> = body.ExpressionAttributeNames ?? {};
  for (const m of String(body.KeyConditionExpression ?? '').matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    const name = m[1]!.startsWith('#') ? names[m[1]!] : m[1];
    if (name === attribute) return body.ExpressionAttributeValues?.[m[2]!]?.S;
  }
  return undefined;
}

const keyOf = (item: any, attribute: string): string | undefined => item?.[attribute]?.S;

function dynamoContext(body: any, keys: string[], attributes: string[]): Record<string, string | string[]> {
  return {
    ...(keys.length ? { 'dynamodb:LeadingKeys': keys } : {}),
    ...(attributes.length ? { 'dynamodb:Attributes': [...new Set(attributes)] } : {}),
    ...(body.ReturnValues ? { 'dynamodb:ReturnValues': body.ReturnValues } : {}),
    ...(body.Select ? { 'dynamodb:Select': body.Select } : {}),
  };
}

function itemAuthorization(action: string, op: any, schema: TableSchema, region: string): Authorization {
  const table = schema[op.TableName];
  const names = op.ExpressionAttributeNames ?? {};
  const key = op.Key ?? op.Item;
  const keys = table ? [keyOf(key, table.partitionKey)].filter((k): k is string => Boolean(k)) : [];
  const attributes = [
    ...Object.keys(op.Key ?? {}),
    ...Object.keys(op.Item ?? {}),
    ...expressionAttributes(op.UpdateExpression, names),
    ...expressionAttributes(op.ConditionExpression, names),
    ...expressionAttributes(op.ProjectionExpression, names),
  ];
  return { action, resource: arnOf(region).table(op.TableName), context: dynamoContext(op, keys, attributes), keys };
}

/** The authorizations of one DynamoDB or DynamoDB Streams call (`operation` from X-Amz-Target). */
export function dynamoAuthorizations(operation: string, body: any, schema: TableSchema, region: string): Authorization[] {
  const arn = arnOf(region);
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [itemAuthorization(`dynamodb:${operation}`, body, schema, region)];
    case 'TransactWriteItems':
      return (body.TransactItems ?? []).map((item: any) => {
        const [kind, op] = Object.entries(item)[0] as [string, any];
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind];
        return itemAuthorization(`dynamodb:${action}`, op, schema, region);
      });
    case 'TransactGetItems':
      return (body.TransactItems ?? []).map((item: any) => itemAuthorization('dynamodb:GetItem', item.Get, schema, region));
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.entries(body.RequestItems ?? {}).map(([name, request]: [string, any]) => {
        const pk = schema[name]?.partitionKey ?? '';
        const items =
          operation === 'BatchGetItem' ? (request.Keys ?? []) : request.map((r: any) => r.PutRequest?.Item ?? r.DeleteRequest?.Key);
        const keys = [...new Set(items.map((i: any) => keyOf(i, pk)).filter(Boolean))] as string[];
        return { action: `dynamodb:${operation}`, resource: arn.table(name), context: dynamoContext({}, keys, []), keys };
      });
    case 'Query':
    case 'Scan': {
      const table = schema[body.TableName];
      const attribute = body.IndexName ? table?.indexes[body.IndexName] : table?.partitionKey;
      const key = operation === 'Query' && attribute ? queryPartition(body, attribute) : undefined;
      const keys = key ? [key] : [];
      const names = body.ExpressionAttributeNames ?? {};
      const attributes = expressionAttributes(body.ProjectionExpression, names);
      const resource = arn.table(body.TableName) + (body.IndexName ? `/index/${body.IndexName}` : '');
      return [{ action: `dynamodb:${operation}`, resource, context: dynamoContext(body, keys, attributes), keys }];
    }
    case 'DescribeStream':
    case 'GetShardIterator':
      return [{ action: `dynamodb:${operation}`, resource: body.StreamArn, context: {}, keys: [] }];
    case 'GetRecords': {
      // DynamoDB Local's shard iterators carry the stream ARN; AWS authorizes GetRecords on the stream.
      const stream = /arn:aws:dynamodb:[^|]+?\/stream\/[^|]+/.exec(String(body.ShardIterator))?.[0] ?? '*';
      return [{ action: 'dynamodb:GetRecords', resource: stream, context: {}, keys: [] }];
    }
    case 'ListStreams':
      return [{ action: 'dynamodb:ListStreams', resource: '*', context: {}, keys: [] }];
    default:
      return [{ action: `dynamodb:${operation}`, resource: body.TableName ? arn.table(body.TableName) : '*', context: {}, keys: [] }];
  }
}

const sqsBatches: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

export function sqsAuthorizations(operation: string, body: any, region: string): Authorization[] {
  const on = (action: string, resource: string): Authorization => ({ action: `sqs:${action}`, resource, context: {}, keys: [] });
  // A dead-letter redrive: on its source queue, the task and the reads and deletes it makes; on its destination, the sends.
  if (operation === 'StartMessageMoveTask') {
    const source = String(body.SourceArn ?? '*');
    return [
      ...['StartMessageMoveTask', 'ReceiveMessage', 'DeleteMessage', 'GetQueueAttributes'].map((a) => on(a, source)),
      ...(body.DestinationArn ? [on('SendMessage', String(body.DestinationArn))] : []),
    ];
  }
  if (operation === 'ListMessageMoveTasks') return [on('ListMessageMoveTasks', String(body.SourceArn ?? '*'))];
  const resource = body.QueueUrl ? arnOf(region).queue(body.QueueUrl) : '*';
  return [{ action: `sqs:${sqsBatches[operation] ?? operation}`, resource, context: {}, keys: [] }];
}

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

/**
 * One role's policies, evaluated per authorization. Decisions are cached by the exact request
 * (evaluation is deterministic), so repeated calls cost a map lookup.
 */
export class RoleEvaluator {
  private cache = new Map<string, Decision>();

  constructor(
    readonly roleArn: string,
    private readonly policies: { name: string; policy: unknown }[],
  ) {}

  decide(authorization: Authorization): Decision {
    const cacheKey = JSON.stringify([authorization.action, authorization.resource, authorization.context]);
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const decision = runUnsafeSimulation(
      {
        identityPolicies: this.policies as never,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: authorization.action,
          principal: this.roleArn,
          resource: { resource: authorization.resource, accountId: rehearsalAccount },
          contextVariables: authorization.context,
        },
      } as never,
      {},
    ) as unknown as Decision;
    if (this.cache.size > 20_000) this.cache.clear();
    this.cache.set(cacheKey, decision);
    return decision;
  }
}

/** The family of a partition key as the use record keeps it: `MERCHANT#abc` → `MERCHANT#`. */
/**
 * The family a key belongs to, as the allowlist names it: its literal upper-case segments (`MERCHANT#` of
 * `MERCHANT#<id>#SHARD#2`, `BANKFILE#LINE#` of `BANKFILE#LINE#<reference>`: a family of two segments), else the key.
 */
export const keyPrefix = (key: string) => /^[A-Z_]+#(?:[A-Z_]+#)?/.exec(key)?.[0] ?? key;
