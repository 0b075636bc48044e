import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  type ConsumedCapacity,
  DynamoDBClient,
  QueryCommand,
  ScanCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type AttributeValue,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { commitPointName, faultPoint } from '#shared/faults.ts';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import { traceAwsClient } from '#shared/aws/tracing.ts';

/**
 * The DynamoDB client and the few helpers every access pattern shares. Locally DYNAMODB_ENDPOINT
 * points at DynamoDB Local; in AWS it is unset and the SDK uses the Lambda's role.
 */
let client: DynamoDBClient | undefined;

/**
 * `cacheMiddleware`: the client resolves its middleware stack once per command class instead of on
 * every call (the SDK's own option), about 0.5-1 ms of CPU saved per call (measured against DynamoDB
 * Local: a GetItem 1.2-2.2 → 0.75 ms of the caller's CPU, a 4-item TransactWriteItems 2.3 → 1.0-1.4).
 * The stack is complete before the first call (tracing, the dispatcher's dropSdkLogging at its
 * module's load); tests and benches that add a middleware later do it through addDbMiddleware.
 */
export function db(): DynamoDBClient {
  // Traced (an X-Ray subsegment per call) inside Lambda; unchanged elsewhere (shared/aws/tracing.ts).
  client ??= traceAwsClient(
    new DynamoDBClient(
      process.env.DYNAMODB_ENDPOINT
        ? {
            endpoint: process.env.DYNAMODB_ENDPOINT,
            region: process.env.AWS_REGION ?? 'local',
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            maxAttempts: 5,
            cacheMiddleware: true,
          }
        : { cacheMiddleware: true },
    ),
  );
  return client;
}

let addedMiddleware = 0;

/**
 * Test/bench-only: the middleware `install` adds to the shared client (under `name`) stays until the
 * returned function is called (to count, observe or refuse calls). While one is installed the
 * client resolves its stack on every call (cacheMiddleware off), so it takes effect from the next
 * call and is gone after its removal.
 */
export function addDbMiddleware(name: string, install: (stack: DynamoDBClient['middlewareStack']) => void): () => void {
  const c = db();
  install(c.middlewareStack);
  addedMiddleware++;
  c.config.cacheMiddleware = false;
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    c.middlewareStack.remove(name);
    if (--addedMiddleware === 0) c.config.cacheMiddleware = true;
  };
}

/**
 * Bench/test-only: what each call consumed. `captureConsumedCapacity(listener)` adds one middleware
 * to the shared client that asks every call for `ReturnConsumedCapacity: 'INDEXES'` and hands the
 * command, its input and the ConsumedCapacity answered to `listener`; the returned function removes
 * it again. Nothing calls it in the request path, so production clients carry no middleware and
 * send exactly what they did (bench/heat.ts uses it).
 */
export interface CapacityRecord {
  command: string;
  input: Record<string, unknown>;
  consumed: ConsumedCapacity[];
  failed: boolean;
  /** A BatchGetItem's items found (`<PK>|<SK>`): DynamoDB Local bills no unit for a key it did not find. */
  found?: string[];
}

const capacityCommands = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);

export function captureConsumedCapacity(listener: (record: CapacityRecord) => void): () => void {
  const name = 'captureConsumedCapacity';
  return addDbMiddleware(name, (stack) =>
    stack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName ?? '').replace(/Command$/, '');
        if (!capacityCommands.has(command)) return next(args);
        const input = args.input as Record<string, unknown>;
        input.ReturnConsumedCapacity = 'INDEXES';
        try {
          const out = await next(args);
          const output = out.output as {
            ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
            Responses?: Record<string, Record<string, AttributeValue>[]>;
          };
          const consumed = output.ConsumedCapacity;
          const found =
            command === 'BatchGetItem'
              ? Object.values(output.Responses ?? {}).flatMap((items) => items.map((i) => `${i.PK?.S}|${i.SK?.S}`))
              : undefined;
          listener({
            command,
            input,
            consumed: consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed],
            failed: false,
            ...(found ? { found } : {}),
          });
          return out;
        } catch (error) {
          listener({ command, input, consumed: [], failed: true });
          throw error;
        }
      },
      { step: 'initialize', name },
    ),
  );
}

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

export const toItem = (value: Record<string, unknown>) =>
  marshall(value, { removeUndefinedValues: true, convertClassInstanceToMap: false });
export const fromItem = <T>(item: Record<string, AttributeValue>) => unmarshall(item) as T;
/** A DynamoDB stream record's image (Lambda's event types declare it loosely) as a plain item. */
export const fromStreamImage = (image: unknown) => unmarshall(image as Record<string, AttributeValue>) as Record<string, unknown>;
export const toValues = (values: Record<string, unknown>) =>
  marshall(values as Record<string, NativeAttributeValue>, { removeUndefinedValues: true });

export type TxItem = TransactWriteItem;

/**
 * Named transaction items: a builder tags the writes it returns (`'settlement'`, `'wallet'`,
 * `'reservation'`, ...), and a caller asks `failed.on('wallet')` instead of counting positions.
 * The names live beside the items (a WeakMap), so the items sent to DynamoDB are unchanged.
 */
const itemNames = new WeakMap<TxItem, string>();

export function named<T extends TxItem | TxItem[]>(name: string, items: T): T {
  for (const item of Array.isArray(items) ? items : [items]) itemNames.set(item, name);
  return items;
}

/** Refused by a settlement cut-off (a journal positioned before it, or a cut-off that moved since it was read): decide again. */
export const cutoffRefused = 'cutoff';

const refusalNames = new WeakMap<TxItem, (old: Record<string, unknown>) => string>();

/**
 * An item whose refusal may mean two things (a wallet update: an overdraft, or a settlement cut-off,
 * shared/store/wallets.ts): `refine` names the refusal from the item as it was (the write asks for
 * ReturnValuesOnConditionCheckFailure ALL_OLD), so `failed.on(name)` tells them apart.
 */
export function namedBy(name: string, item: TxItem, refine: (old: Record<string, unknown>) => string): TxItem {
  itemNames.set(item, name);
  refusalNames.set(item, refine);
  return item;
}

/**
 * A TransactWriteItems that failed. `reasons[i]` is the cancellation code of item i
 * (`None`, `ConditionalCheckFailed`, `TransactionConflict`, ...), so callers can tell which rule
 * stopped it. `item` holds the current item when the condition asked for it.
 */
export class TransactionFailed extends Error {
  constructor(
    readonly reasons: { code: string; item?: Record<string, unknown> }[],
    private readonly names: (string | undefined)[] = [],
  ) {
    super(`transaction cancelled: ${reasons.map((r) => r.code).join(',')}`);
  }

  failedAt(index: number): boolean {
    return this.reasons[index]?.code === 'ConditionalCheckFailed';
  }

  /** True when an item named `name` (see named()) refused its condition. */
  on(name: string): boolean {
    return this.reasons.some((r, i) => r.code === 'ConditionalCheckFailed' && this.names[i] === name);
  }

  /**
   * The item named `name` as it was when its condition refused (the write asked for ALL_OLD):
   * the condition's own read. Null when it refused without an item (none stored under the key);
   * undefined when no item of that name refused.
   */
  refusedItem(name: string): Record<string, unknown> | null | undefined {
    const i = this.reasons.findIndex((r, n) => r.code === 'ConditionalCheckFailed' && this.names[n] === name);
    return i < 0 ? undefined : (this.reasons[i]!.item ?? null);
  }

  get conflicted(): boolean {
    return this.reasons.some((r) => r.code === 'TransactionConflict');
  }
}

/**
 * The Idempotency-Key of this request is already taken: a twin committed first or is in flight.
 * The request pipeline answers with the twin's response, a 409 or a 422 (docs/merchant-guide.md, Idempotency).
 */
export class IdempotencyKeyTaken extends Error {}

/**
 * One TransactWriteItems. An idempotency claim, when the request has one, goes first so that its
 * failure is recognised as IdempotencyKeyTaken; the indexes of `items` in TransactionFailed.reasons
 * are then shifted by one, which failedAt() accounts for.
 */
export async function transact(items: TxItem[], options: { idempotency?: TxItem } = {}): Promise<void> {
  const all = options.idempotency ? [options.idempotency, ...items] : items;
  if (all.length === 0) return;
  let failed: TransactionFailed | undefined;
  await retry(
    retryPolicies.transactionConflict,
    async () => {
      try {
        await db().send(new TransactWriteItemsCommand({ TransactItems: all }));
        faultPoint(commitPointName);
        return;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = (error.CancellationReasons ?? []).map((r) => ({
          code: r.Code ?? 'None',
          ...(r.Item ? { item: unmarshall(r.Item) } : {}),
        }));
        if (options.idempotency && reasons[0]?.code === 'ConditionalCheckFailed') throw new IdempotencyKeyTaken();
        failed = new TransactionFailed(
          options.idempotency ? reasons.slice(1) : reasons,
          items.map((i, n) => {
            const old = (options.idempotency ? reasons.slice(1) : reasons)[n]?.item;
            const refine = refusalNames.get(i);
            return refine && old ? refine(old) : itemNames.get(i);
          }),
        );
        // A conflict with a concurrent transaction changed nothing: every write is condition-guarded,
        // so running it again is safe. A failed condition is an answer, not a race.
        const onlyConflict =
          reasons.some((r) => r.code === 'TransactionConflict') && !reasons.some((r) => r.code === 'ConditionalCheckFailed');
        if (!onlyConflict) throw failed;
        return again;
      }
    },
    () => failed!,
  );
}

/** Epoch seconds for the TTL attribute. */
export const ttlIn = (seconds: number, now = Date.now()) => Math.floor(now / 1000) + seconds;

/**
 * Every item a Query matches, following LastEvaluatedKey, unmarshalled; `limit` stops early (the
 * due index reads a bounded number per shard). Used by access patterns that read whole (small)
 * collections: a merchant's keys, a transaction's refunds, a journal.
 */
export async function queryAll<T = Record<string, unknown>>(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  limit = Infinity,
): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        ...input,
        TableName: tableName(),
        ExclusiveStartKey: start,
        ...(Number.isFinite(limit) ? { Limit: limit - items.length } : {}),
      }),
    );
    items.push(...(out.Items ?? []).map((i) => unmarshall(i) as T));
    start = out.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
}

/**
 * The items of these keys that exist (any order), strongly consistent: one BatchGetItem per 100
 * keys, unprocessed keys asked again with a short backoff. Duplicate keys are asked once.
 */
export async function batchGetConsistent(keys: readonly Record<string, string>[]): Promise<Record<string, AttributeValue>[]> {
  const found: Record<string, AttributeValue>[] = [];
  const unique = [...new Map(keys.map((k) => [`${k.PK}\u0000${k.SK}`, k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let requested: Record<string, AttributeValue>[] = unique.slice(i, i + 100).map((k) => toItem(k));
    await retry(
      retryPolicies.batch,
      async () => {
        const out: BatchGetItemCommandOutput = await db().send(
          new BatchGetItemCommand({ RequestItems: { [tableName()]: { Keys: requested, ConsistentRead: true } } }),
        );
        found.push(...(out.Responses?.[tableName()] ?? []));
        requested = out.UnprocessedKeys?.[tableName()]?.Keys ?? [];
        return requested.length ? again : undefined;
      },
      () => new Error('BatchGetItem: unprocessed keys after retries'),
    );
  }
  return found;
}

/** Every non-empty page of a Scan of the table (one-off migrations and operator replays, never a request path). */
export async function* scanPages(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, AttributeValue>[]> {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await db().send(new ScanCommand({ ...input, TableName: tableName(), ExclusiveStartKey: start }));
    if (out.Items?.length) yield out.Items;
    start = out.LastEvaluatedKey;
  } while (start);
}
