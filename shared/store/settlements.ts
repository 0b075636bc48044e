import { DeleteItemCommand, PutItemCommand, QueryCommand, type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { modes, type Mode } from '#shared/domain/credentials.ts';
import type { breakdownJobAttributes, Settlement, SettlementStatus } from '#shared/domain/settlement.ts';
import { noSums, type BreakdownSums, type SettlementBreakdown } from '#shared/domain/settlement-breakdown.ts';
import { db, fromItem, named, tableName, toItem, toValues, type TxItem } from './client.ts';
import { applied, deleteEntry, get, putEntry, updateEntry } from './entity.ts';
import { settlementStatusChangedEvent } from '#shared/domain/events.ts';
import * as keys from './keys.ts';
import { getMoneyItem, moneyItemWrites, stripKeys } from './money-due.ts';

/**
 * Settlements and the automatic-settlement run items. A settlement is one item (`SETTLEMENT#<id>`)
 * listed per merchant and mode on GSI1 (`MERCHANT#<id>#<mode>#SETTLEMENT`, `<requestedAt>#<id>`),
 * and in the money due index while the sweep has work on it.
 */

export function createSettlementWrite(s: Settlement, options: { dueAt?: string } = {}): TxItem {
  return named(
    'settlement',
    putEntry('Settlement', keys.settlement(s.id), {
      ...keys.settlementListing(s.merchantId, s.mode, s.requestedAt, s.id),
      ...(options.dueAt ? { ...keys.moneyDue(s.id, options.dueAt), dueAt: options.dueAt } : {}),
      ...s,
    }),
  );
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
  const once = { exists: true, expr: 'attribute_not_exists(#breakdown)' };
  const stored = updateEntry('Settlement', keys.settlement(id), { set: { breakdown }, when: once });
  return (await applied(db().send(new UpdateItemCommand(stored.Update!)))) !== undefined;
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
  const set: Record<Exclude<(typeof breakdownJobAttributes)[number], 'entity'>, unknown> = { ...keys.moneyDue(id, dueAt), ...job };
  const queued = updateEntry('SettlementBreakdown', keys.settlementBreakdownJob(id), { set, upsert: true, when: { exists: false } });
  return (await applied(db().send(new UpdateItemCommand(queued.Update!)))) !== undefined;
}

/** Access pattern 8j: a settlement's breakdown job, if one is queued (GetItem). */
export async function getBreakdownJob(id: string): Promise<BreakdownJob | undefined> {
  const item = await get(keys.settlementBreakdownJob(id));
  return item ? stripKeys<BreakdownJob>(item) : undefined;
}

/** A step's progress, due again at `dueAt`; false when another sweep stepped it first (conditioned on the step read). */
export async function saveBreakdownProgress(job: BreakdownJob, cursors: string[], sums: BreakdownSums, dueAt: string): Promise<boolean> {
  const set = { cursors, sums, step: job.step + 1, dueAt, GSI2SK: keys.moneyDue(job.id, dueAt).GSI2SK };
  const stepped = updateEntry('SettlementBreakdown', keys.settlementBreakdownJob(job.id), { set, when: { eq: { step: job.step } } });
  return (await applied(db().send(new UpdateItemCommand(stepped.Update!)))) !== undefined;
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
async function setAutoSettlementRun(merchantId: string, mode: Mode, runAt: string | null): Promise<void> {
  const key = keys.autoSettlement(merchantId, mode);
  if (runAt === null) {
    await db().send(new DeleteItemCommand({ TableName: tableName(), Key: toItem(key) }));
    return;
  }
  const id = `autosettle:${merchantId}:${mode}`;
  await db().send(
    new PutItemCommand(
      putEntry('AutoSettlement', key, { ...keys.moneyDue(id, runAt), dueAt: runAt, merchantId, mode, runAt }, { when: false }).Put!,
    ),
  );
}

/** Arms a merchant's automatic settlement runs in both modes at `nextRunAt`, given by its caller (null: disarms them). */
export async function armAutoSettlementRuns(merchantId: string, nextRunAt: string | null): Promise<void> {
  for (const mode of modes) await setAutoSettlementRun(merchantId, mode, nextRunAt);
}

export async function getAutoSettlementRun(merchantId: string, mode: Mode): Promise<AutoSettlementRun | undefined> {
  const item = await get<AutoSettlementRun>(keys.autoSettlement(merchantId, mode));
  return item && { merchantId: item.merchantId, mode: item.mode, runAt: item.runAt };
}

/** Moves a run from `runAt` to `nextRunAt` (null: disarm); refused if another sweep moved it first. */
export function rearmAutoSettlementWrite(run: AutoSettlementRun, nextRunAt: string | null): TxItem {
  const key = keys.autoSettlement(run.merchantId, run.mode);
  const when = { eq: { runAt: run.runAt } };
  if (nextRunAt === null) return named('run', deleteEntry(key, when));
  const due = keys.moneyDue(`autosettle:${run.merchantId}:${run.mode}`, nextRunAt);
  return named('run', updateEntry('AutoSettlement', key, { set: { runAt: nextRunAt, dueAt: nextRunAt, ...due }, when }));
}
