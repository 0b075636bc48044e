import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { modes, type Mode } from '#shared/domain/credentials.ts';
import { nextSettlementRun, type SettlementSchedule } from '#shared/domain/merchant.ts';
import type { breakdownJobAttributes, Settlement, SettlementStatus } from '#shared/domain/settlement.ts';
import { noSums, type BreakdownSums, type SettlementBreakdown } from '#shared/domain/settlement-breakdown.ts';
import { db, fromItem, named, tableName, toItem, toValues, updateIfStill, type TxItem } from './client.ts';
import { settlementStatusChangedEvent } from '#shared/domain/events.ts';
import * as keys from './keys.ts';
import { getMoneyItem, moneyItemWrites, stripKeys } from './money-due.ts';

/**
 * Settlements and the automatic-settlement run items. A settlement is one item (`SETTLEMENT#<id>`)
 * listed per merchant and mode on GSI1 (`MERCHANT#<id>#<mode>#SETTLEMENT`, `<requestedAt>#<id>`),
 * and in the money due index while the sweep has work on it.
 */

export function createSettlementWrite(s: Settlement, options: { dueAt?: string } = {}): TxItem {
  return named('settlement', {
    Put: {
      TableName: tableName(),
      Item: toItem({
        ...keys.settlement(s.id),
        ...keys.settlementListing(s.merchantId, s.mode, s.requestedAt, s.id),
        ...(options.dueAt ? { ...keys.moneyDue(s.id, options.dueAt), dueAt: options.dueAt } : {}),
        entity: 'Settlement',
        ...s,
      }),
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });
}

/**
 * A change of a settlement read as `current` (versionedChange) and its SettlementStatusChanged. Built in
 * a pure call and exported as functions, so a Lambda that only reads settlements bundles none of it
 * (a top-level destructuring is kept whole by esbuild: the event builders, the outbox writes).
 */
const settlementWrites = /* @__PURE__ */ moneyItemWrites<Settlement, 'id' | 'merchantId' | 'mode' | 'version'>(
  'settlement',
  keys.settlement,
  settlementStatusChangedEvent,
  () => null,
);
export const settlementChange: typeof settlementWrites.change = (...args) => settlementWrites.change(...args);
export const settlementEventWrites: typeof settlementWrites.eventWrites = (...args) => settlementWrites.eventWrites(...args);

/**
 * A settlement's breakdown, stored once computed (shared/services/settlement-breakdown.ts). Not a versioned change: the
 * breakdown is a fact of the settlement's window, the same whoever computes it; false when one was stored first.
 */
export async function saveSettlementBreakdown(id: string, breakdown: SettlementBreakdown): Promise<boolean> {
  return updateIfStill({
    Key: toItem(keys.settlement(id)),
    UpdateExpression: 'SET breakdown = :b',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(breakdown)',
    ExpressionAttributeValues: toValues({ ':b': breakdown }),
  });
}

/**
 * A large breakdown being summed in the background (shared/services/settlement-breakdown.ts): one item beside the
 * settlement, in the money due index while it is being summed; `cursors` where each wallet shard's read stands
 * (balance-transactions.ts windowChunk), `sums` what was read so far, `step` the version each step is conditioned on.
 */
export interface BreakdownJob {
  id: string;
  step: number;
  cursors: string[];
  sums: BreakdownSums;
  queuedAt: string;
  dueAt: string;
}

/**
 * Access pattern 8j: queue a settlement's breakdown for the sweep, due now (once: false when it is queued already).
 * An UpdateItem that creates the item, so a read route queues it with its narrow update grant (no PutItem).
 */
export async function queueBreakdownJob(id: string, shards: number, now: Date): Promise<boolean> {
  const dueAt = now.toISOString();
  const job: BreakdownJob = { id, step: 0, cursors: Array<string>(shards).fill(''), sums: noSums, queuedAt: dueAt, dueAt };
  const item: Record<(typeof breakdownJobAttributes)[number], unknown> = {
    ...keys.moneyDue(id, dueAt),
    entity: 'SettlementBreakdown',
    ...job,
  };
  const names = Object.keys(item);
  return updateIfStill({
    Key: toItem(keys.settlementBreakdownJob(id)),
    UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
    ConditionExpression: 'attribute_not_exists(PK)',
    ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
    ExpressionAttributeValues: toValues(Object.fromEntries(names.map((n) => [`:${n}`, item[n as keyof typeof item]]))),
  });
}

/** Access pattern 8j: a settlement's breakdown job, if one is queued (GetItem). */
export async function getBreakdownJob(id: string): Promise<BreakdownJob | undefined> {
  const out = await db().send(
    new GetItemCommand({ TableName: tableName(), Key: toItem(keys.settlementBreakdownJob(id)), ConsistentRead: true }),
  );
  return out.Item ? stripKeys<BreakdownJob>(fromItem(out.Item)) : undefined;
}

/** A step's progress, due again at `dueAt`; false when another sweep stepped it first (conditioned on the step read). */
export async function saveBreakdownProgress(job: BreakdownJob, cursors: string[], sums: BreakdownSums, dueAt: string): Promise<boolean> {
  return updateIfStill({
    Key: toItem(keys.settlementBreakdownJob(job.id)),
    UpdateExpression: 'SET cursors = :c, sums = :s, step = :next, dueAt = :due, GSI2SK = :sk',
    ConditionExpression: 'step = :read',
    ExpressionAttributeValues: toValues({
      ':c': cursors,
      ':s': sums,
      ':next': job.step + 1,
      ':due': dueAt,
      ':sk': keys.moneyDue(job.id, dueAt).GSI2SK,
      ':read': job.step,
    }),
  });
}

/** The job is done (its breakdown stored on the settlement, or found there): out of the due index. */
export async function dropBreakdownJob(id: string): Promise<void> {
  await db().send(new DeleteItemCommand({ TableName: tableName(), Key: toItem(keys.settlementBreakdownJob(id)) }));
}

/** Access pattern: a settlement by id (GetItem). */
export const getSettlement = (id: string, consistent = true) => getMoneyItem<Settlement>(keys.settlement, id, consistent);

export interface SettlementQuery {
  status?: SettlementStatus;
  /** Inclusive bounds on requestedAt, ISO 8601 (UTC, milliseconds). */
  from?: string;
  to?: string;
  page: number;
  pageSize: number;
}

function listingQuery(merchantId: string, mode: Mode, q: SettlementQuery) {
  const { GSI1PK } = keys.settlementsOfMerchant(merchantId, mode);
  const values: Record<string, unknown> = { ':pk': GSI1PK };
  let keyCondition = 'GSI1PK = :pk';
  // GSI1SK is `<requestedAt>#<id>`: `from` sorts before every key of that instant, `<to>#~` after.
  if (q.from !== undefined) values[':lo'] = q.from;
  if (q.to !== undefined) values[':hi'] = `${q.to}#~`;
  if (q.from !== undefined && q.to !== undefined) keyCondition += ' AND GSI1SK BETWEEN :lo AND :hi';
  else if (q.from !== undefined) keyCondition += ' AND GSI1SK >= :lo';
  else if (q.to !== undefined) keyCondition += ' AND GSI1SK <= :hi';
  if (q.status !== undefined) values[':status'] = q.status;
  return {
    TableName: tableName(),
    IndexName: 'GSI1',
    KeyConditionExpression: keyCondition,
    ...(q.status !== undefined ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ExpressionAttributeValues: toValues(values),
  };
}

/**
 * Access pattern: a merchant's settlements in one mode, newest first, one page (GSI1 Query; the
 * requestedAt range is the key condition, Status a filter). Offset paging: page N reads the first
 * N × pageSize matching index entries and returns the last pageSize. totalCount is a second Query
 * with Select COUNT on the same condition (it reads, and is billed for, every matching entry; at
 * most 1 MB per round trip). Both run in parallel.
 */
export async function listSettlements(
  merchantId: string,
  mode: Mode,
  q: SettlementQuery,
): Promise<{ items: Settlement[]; totalCount: number }> {
  const base = listingQuery(merchantId, mode, q);
  const need = q.page * q.pageSize;
  const readItems = async () => {
    const found: Settlement[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const out = await db().send(
        new QueryCommand({
          ...base,
          ScanIndexForward: false,
          ExclusiveStartKey: start,
          // Without a filter every entry read is a match: read no more than the page needs.
          ...(q.status === undefined ? { Limit: need - found.length } : {}),
        }),
      );
      found.push(...(out.Items ?? []).map((i) => stripKeys<Settlement>(fromItem(i))));
      start = out.LastEvaluatedKey;
    } while (start && found.length < need);
    return found.slice((q.page - 1) * q.pageSize, need);
  };
  const count = async () => {
    let total = 0;
    let start: Record<string, AttributeValue> | undefined;
    do {
      const out = await db().send(new QueryCommand({ ...base, Select: 'COUNT', ExclusiveStartKey: start }));
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return total;
  };
  const [items, totalCount] = await Promise.all([readItems(), count()]);
  return { items, totalCount };
}

/**
 * Access pattern S3a: a merchant's settlements in one mode, newest first, read by cursor (GSI1 Query
 * from `ExclusiveStartKey` = the previous read's LastEvaluatedKey, Status a filter): at most `limit`
 * index entries evaluated, so a walk over the whole list (a CSV export) reads each entry once, where
 * the page-numbered S3 re-reads the earlier pages and counts them all again. `next` is undefined at
 * the end of the list; a read may hold fewer than `limit` matches (the filter) and still have a next.
 */
export async function settlementsFrom(
  merchantId: string,
  mode: Mode,
  q: { status?: SettlementStatus },
  limit: number,
  start?: Record<string, unknown>,
): Promise<{ items: Settlement[]; next?: Record<string, unknown> }> {
  const out = await db().send(
    new QueryCommand({
      ...listingQuery(merchantId, mode, { ...q, page: 1, pageSize: limit }),
      ScanIndexForward: false,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: toItem(start) } : {}),
    }),
  );
  const items = (out.Items ?? []).map((i) => stripKeys<Settlement>(fromItem(i)));
  return { items, ...(out.LastEvaluatedKey ? { next: fromItem<Record<string, unknown>>(out.LastEvaluatedKey) } : {}) };
}

/** The automatic-settlement run of a merchant and mode: when it is next due. */
export interface AutoSettlementRun {
  merchantId: string;
  mode: Mode;
  runAt: string;
}

/** Arms (runAt) or disarms (null) a merchant's automatic-settlement run in one mode. */
export async function setAutoSettlementRun(merchantId: string, mode: Mode, runAt: string | null): Promise<void> {
  const key = keys.autoSettlement(merchantId, mode);
  if (runAt === null) {
    await db().send(new DeleteItemCommand({ TableName: tableName(), Key: toItem(key) }));
    return;
  }
  const id = `autosettle:${merchantId}:${mode}`;
  await db().send(
    new PutItemCommand({
      TableName: tableName(),
      Item: toItem({ ...key, ...keys.moneyDue(id, runAt), dueAt: runAt, entity: 'AutoSettlement', merchantId, mode, runAt }),
    }),
  );
}

/** Arms (or, for a manual schedule, disarms) a merchant's automatic settlement runs in both modes. */
export async function armAutoSettlements(merchantId: string, schedule: SettlementSchedule, now = new Date()): Promise<void> {
  const next = nextSettlementRun(schedule, now)?.toISOString() ?? null;
  for (const mode of modes) await setAutoSettlementRun(merchantId, mode, next);
}

export async function getAutoSettlementRun(merchantId: string, mode: Mode): Promise<AutoSettlementRun | undefined> {
  const out = await db().send(
    new GetItemCommand({ TableName: tableName(), Key: toItem(keys.autoSettlement(merchantId, mode)), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const { merchantId: m, mode: md, runAt } = fromItem<AutoSettlementRun>(out.Item);
  return { merchantId: m, mode: md, runAt };
}

/** Moves a run from `runAt` to `nextRunAt` (null: disarm); refused if another sweep moved it first. */
export function rearmAutoSettlementWrite(run: AutoSettlementRun, nextRunAt: string | null): TxItem {
  const key = toItem(keys.autoSettlement(run.merchantId, run.mode));
  if (nextRunAt === null) {
    return named('run', {
      Delete: {
        TableName: tableName(),
        Key: key,
        ConditionExpression: 'runAt = :runAt',
        ExpressionAttributeValues: toValues({ ':runAt': run.runAt }),
      },
    });
  }
  const due = keys.moneyDue(`autosettle:${run.merchantId}:${run.mode}`, nextRunAt);
  return named('run', {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET runAt = :next, dueAt = :next, GSI2PK = :pk, GSI2SK = :sk',
      ConditionExpression: 'runAt = :runAt',
      ExpressionAttributeValues: toValues({ ':runAt': run.runAt, ':next': nextRunAt, ':pk': due.GSI2PK, ':sk': due.GSI2SK }),
    },
  });
}
