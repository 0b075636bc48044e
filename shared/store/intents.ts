import { BatchGetItemCommand, QueryCommand, type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import {
  statusChangedEvent,
  type StoredEvent,
  type EventSubject,
  type TransactionStatusChanged,
  type WebhookEvent,
} from '#shared/domain/events.ts';
import {
  canTransition,
  intentStatuses,
  intentTypes,
  heldApprovalOf,
  IllegalTransition,
  isTerminal,
  type IntentStatus,
  type IntentType,
  type PaymentIntent,
} from '#shared/domain/intent.ts';
import {
  db,
  fromItem,
  named,
  queryAll,
  scanPages,
  tableName,
  toItem,
  toValues,
  transact,
  TransactionFailed,
  type TxItem,
} from './client.ts';
import { applied, get, inPartition, putEntry, updateEntry } from './entity.ts';
import { customerIndexWrites } from './customer-index.ts';
import { countsAsVolume, dailyVolumeWrite } from './daily-volume.ts';
import { orderRefIndexKeys, transactionReferenceIndexKeys } from './reference-index.ts';
import { queryDueIndex } from './due-index.ts';
import * as keys from './keys.ts';
import { stripKeys } from './money-due.ts';
import { linkUseWrites } from './payment-links.ts';
import { readShards, shardOf, transactionListShards, writeShards } from './shards.ts';
import { outboxWrites } from './webhooks.ts';

/**
 * Payment intents, their reference pointers and their outbox events. A status change is built by
 * transitionWrites(): the conditional intent update and its event, to which callers add journal
 * writes and the idempotency record before one transact().
 */
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Index of the orderRef uniqueness write inside createIntentWrites (duplicate orderRef → 422). */
export const orderRefWriteIndex = 1;

export function createIntentWrites(intent: PaymentIntent, options: { dueAt?: string } = {}): TxItem[] {
  const pointer = { paymentIntentId: intent.paymentIntentId, merchantId: intent.merchantId, mode: intent.mode };
  // A big merchant's listings are spread over its shards (shared/store/shards.ts); one shard = the unsuffixed keys.
  const shard = shardOf(intent.paymentIntentId, writeShards(intent.merchantId, intent.mode));
  const { merchantId, mode, paymentIntentId, createdAt, transactionReference } = intent;
  const listShard = shardOf(paymentIntentId, transactionListShards(writeShards(merchantId, mode)));
  return [
    named(
      'intent',
      putEntry('Intent', keys.intent(paymentIntentId), {
        ...keys.intentListing(merchantId, mode, createdAt, paymentIntentId, listShard),
        ...keys.intentByTypeStatus(merchantId, mode, intent.intentType, intent.status, createdAt, paymentIntentId, shard),
        ...(options.dueAt ? { ...keys.due(paymentIntentId, options.dueAt), dueAt: options.dueAt } : {}),
        ...intent,
      }),
    ),
    // Both pointers carry the dashboard's prefix search keys (shared/store/reference-index.ts).
    named(
      'orderRef',
      putEntry('OrderRef', keys.orderRef(mode, merchantId, intent.orderRef.orderRef), {
        ...orderRefIndexKeys(merchantId, mode, intent.orderRef.orderRef, shard),
        ...pointer,
      }),
    ),
    named(
      'transactionReference',
      putEntry('TxRef', keys.transactionReference(mode, merchantId, transactionReference), {
        ...transactionReferenceIndexKeys(merchantId, mode, transactionReference, paymentIntentId, shard),
        ...pointer,
      }),
    ),
    // The customer's e-mail and phone pointers (dashboard search; shared/store/customer-index.ts).
    ...customerIndexWrites(intent),
  ];
}

export interface Transition {
  /** The intent as it will be after the change. */
  next: PaymentIntent;
  event: TransactionStatusChanged;
  /** The conditional update and the outbox event; add journal and idempotency writes, then transact(). */
  writes: TxItem[];
}

/**
 * A status change of an intent read at `current.version` to `next`, the state the money core decided
 * (shared/domain/core): this module only writes it, and refuses one that is not a permitted move from `current` (the
 * state machine's, version + 1, the same amount and wallet shard). The update only applies if the intent is still at
 * that version and status (so two racing outcomes cannot both win, and a terminal status is never left). `dueAt`
 * keeps (or sets) the intent in the due index; a terminal status removes it.
 */
export function transitionWrites(
  current: PaymentIntent,
  next: PaymentIntent,
  change: { dueAt?: string | null | undefined; now?: Date } = {},
): Transition {
  const now = change.now ?? new Date();
  const to = next.status;
  const same = (['paymentIntentId', 'amountMinor', 'walletShard'] as const).every((f) => next[f] === current[f]);
  if (!canTransition(current.intentType, current.status, to) || !same || next.version !== current.version + 1)
    throw new IllegalTransition(current.status, to);
  const event = statusChangedEvent(next, current.status, now);
  const due = !isTerminal(to) && change.dueAt ? { ...keys.due(current.paymentIntentId, change.dueAt), dueAt: change.dueAt } : undefined;
  const set: Record<string, unknown> = {
    status: next.status,
    reason: next.reason,
    reasonDetail: next.reasonDetail,
    details: next.details,
    feeMinor: next.feeMinor,
    updatedAt: next.updatedAt,
    version: next.version,
    ...keys.intentByTypeStatus(
      current.merchantId,
      current.mode,
      current.intentType,
      to,
      current.createdAt,
      current.paymentIntentId,
      shardOf(current.paymentIntentId, writeShards(current.merchantId, current.mode)),
    ),
    ...due,
  };
  const keepDue = !isTerminal(to) && change.dueAt === undefined;
  return {
    next,
    event,
    writes: [
      named(
        'intent',
        updateEntry('Intent', keys.intent(current.paymentIntentId), {
          set,
          ...(due || keepDue ? {} : { remove: ['GSI2PK', 'GSI2SK', 'dueAt'] }),
          when: { eq: { status: current.status, version: current.version } },
        }),
      ),
      ...named('event', outboxWrite(current, event)),
      // The day's volume, exactly once: in the transaction that makes the payment Completed (shared/store/daily-volume.ts).
      ...(to === 'Completed' && countsAsVolume(current) ? [dailyVolumeWrite(next, next.updatedAt)] : []),
      // A payment link's checkout: its use is given back, or its payment counted (shared/store/payment-links.ts).
      ...linkUseWrites(current, next),
    ],
  };
}

function outboxWrite(intent: PaymentIntent, event: TransactionStatusChanged): TxItem[] {
  return outboxWrites(
    {
      eventId: event.id,
      paymentIntentId: intent.paymentIntentId,
      subject: { kind: 'transaction', id: intent.paymentIntentId },
      merchantId: intent.merchantId,
      mode: intent.mode,
      /** Where it goes: the request's callbackUrl, else the merchant's endpoint for the mode. */
      callbackUrl: intent.callbackUrl,
      event,
    },
    event.data.Timestamp,
  );
}

type Stored = PaymentIntent & Record<string, unknown>;
const strip = (item: Stored): PaymentIntent => stripKeys<PaymentIntent>(item);

/** Access pattern: an intent by id (GetItem). */
export async function getIntent(paymentIntentId: string, consistent = true): Promise<PaymentIntent | undefined> {
  if (!uuidShape.test(paymentIntentId)) return undefined;
  const item = await get<Stored>(keys.intent(paymentIntentId), consistent);
  return item ? strip(item) : undefined;
}

/**
 * Access pattern: a merchant's intent by paymentIntentId, orderRef or transactionReference, in one
 * mode. Another merchant's or mode's intent is "not found", never "forbidden".
 */
export async function findIntent(merchantId: string, mode: Mode, reference: string): Promise<PaymentIntent | undefined> {
  if (uuidShape.test(reference)) {
    const intent = await getIntent(reference);
    if (intent) return intent.merchantId === merchantId && intent.mode === mode ? intent : undefined;
  }
  const pointers = [keys.orderRef(mode, merchantId, reference), keys.transactionReference(mode, merchantId, reference)];
  const out = await db().send(
    new BatchGetItemCommand({ RequestItems: { [tableName()]: { Keys: pointers.map((k) => toItem(k)), ConsistentRead: true } } }),
  );
  const found = (out.Responses?.[tableName()] ?? []).map((i) => fromItem<{ SK: string; paymentIntentId: string }>(i));
  const id = (found.find((p) => p.SK === 'ORDERREF') ?? found[0])?.paymentIntentId;
  if (!id) return undefined;
  const intent = await getIntent(id);
  return intent && intent.merchantId === merchantId && intent.mode === mode ? intent : undefined;
}

/**
 * Access pattern C3 (second step): intents by id, in the order given, only this merchant's in this
 * mode (BatchGetItem, consistent, at most 100 ids; unprocessed keys asked again).
 */
export async function getIntentsOf(merchantId: string, mode: Mode, ids: readonly string[]): Promise<PaymentIntent[]> {
  if (ids.length > 100) throw new Error('at most 100 ids per call');
  const found = new Map<string, PaymentIntent>();
  let pending: Record<string, AttributeValue>[] = [...new Set(ids)].map((id) => toItem(keys.intent(id)));
  for (let round = 0; pending.length && round < 5; round++) {
    const out = await db().send(new BatchGetItemCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of out.Responses?.[tableName()] ?? []) {
      const intent = strip(fromItem<Stored>(item));
      found.set(intent.paymentIntentId, intent);
    }
    pending = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, AttributeValue>[];
  }
  return ids.map((id) => found.get(id)).filter((i): i is PaymentIntent => Boolean(i && i.merchantId === merchantId && i.mode === mode));
}

/**
 * Undoes a create transaction that nothing followed (a deposit whose charge the provider refused before it was prompted,
 * shared/services/deposits.ts): every item `created` put is deleted, the intent only while it is still `current` (its
 * status and version), so the orderRef and the references are free again and the intent never existed for anyone.
 */
export function discardIntentWrites(current: PaymentIntent, created: TxItem[]): TxItem[] {
  const intentKey = toItem(keys.intent(current.paymentIntentId));
  return created.flatMap((write) => {
    const item = write.Put?.Item;
    if (!item?.PK || !item.SK) return [];
    const Key = { PK: item.PK, SK: item.SK };
    if (item.PK.S !== intentKey.PK!.S || item.SK.S !== intentKey.SK!.S) return [{ Delete: { TableName: tableName(), Key } }];
    return [
      named('intent', {
        Delete: {
          TableName: tableName(),
          Key,
          ConditionExpression: '#status = :status AND #version = :expected',
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: toValues({ ':status': current.status, ':expected': current.version }),
        },
      }),
    ];
  });
}

/**
 * Access pattern: is an orderRef already used by this merchant in this mode? (GetItem; a pre-check, the create transaction still decides.)
 */
export async function orderRefTaken(merchantId: string, mode: Mode, orderRef: string): Promise<boolean> {
  return Boolean(await get(keys.orderRef(mode, merchantId, orderRef)));
}

/**
 * The pointer from a wallet provider's own charge reference to the intent (its callbacks name only
 * that reference): a Put for the create transaction, failing if the reference was already recorded.
 */
export function providerReferenceWrite(
  providerCode: string,
  providerReference: string,
  pointer: { paymentIntentId: string; mode: Mode },
): TxItem {
  const { paymentIntentId, mode } = pointer;
  return putEntry('ProviderRef', keys.providerReference(providerCode, providerReference), { paymentIntentId, mode });
}

/** Access pattern: the intent a wallet provider's charge reference points at (GetItem, strongly consistent). */
export async function findProviderReference(
  providerCode: string,
  providerReference: string,
): Promise<{ paymentIntentId: string; mode: Mode } | undefined> {
  return get<{ paymentIntentId: string; mode: Mode }>(keys.providerReference(providerCode, providerReference));
}

/** Access pattern: a merchant's intents in one mode, newest first (GSI1), at most `limit`. For operators. */
export async function listIntentsOfMerchant(merchantId: string, mode: Mode, limit = 200): Promise<PaymentIntent[]> {
  const shards = transactionListShards(await readShards(merchantId, mode));
  const pages = await Promise.all(
    Array.from({ length: shards }, (_, n) =>
      queryAll<Stored>(
        {
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: toValues({ ':pk': keys.intentsOfMerchant(merchantId, mode, n).GSI1PK }),
          ScanIndexForward: false,
        },
        limit,
      ),
    ),
  );
  return newestFirst(pages.flat(), (i) => String(i.GSI1SK))
    .slice(0, limit)
    .map(strip);
}

/** Items of several partitions of one listing, merged newest first by their sort key. */
function newestFirst<T>(items: T[], sk: (item: T) => string): T[] {
  return items.sort((a, b) => (sk(a) < sk(b) ? 1 : sk(a) > sk(b) ? -1 : 0));
}

/** Access pattern: the outbox events of an intent (or, given its subject, a refund or settlement), oldest first. */
export async function listEvents(paymentIntentId: string): Promise<StoredEvent<TransactionStatusChanged>[]>;
export async function listEvents(subject: EventSubject): Promise<StoredEvent<WebhookEvent>[]>;
export async function listEvents(about: string | EventSubject): Promise<StoredEvent<WebhookEvent>[]> {
  const k = keys.eventsOf(typeof about === 'string' ? { kind: 'transaction', id: about } : about);
  const out = await db().send(new QueryCommand({ TableName: tableName(), ...inPartition(k), ConsistentRead: true }));
  return (out.Items ?? [])
    .map((i) => fromItem<StoredEvent<WebhookEvent> & { entity: string }>(i))
    .filter((e) => e.entity === 'OutboxEvent');
}

/** Access pattern: intents due by `now` (the due index, shards `DUE#0-31`, or the given ones). For sweeps. */
export async function listDueIntents(
  now: Date,
  limitPerShard = 100,
  shards: readonly string[] = keys.dueShards(),
): Promise<PaymentIntent[]> {
  const items = await queryDueIndex(shards, now, limitPerShard);
  return items.filter((i) => i.entity === 'Intent').map((i) => strip(i as Stored));
}

/**
 * The writes of a change that keeps the status, as the money core decided it (`next`: shared/domain/core, keepingStatus):
 * next's details, updatedAt and version, due again at `dueAt`, applied only to the intent as read (`current`'s status
 * and version), so it never overwrites an outcome that won meanwhile; a payment link's use taken or given back with it.
 * No event (nothing a merchant watches changed). A `next` that changes what only a status change may (status, amount,
 * fee, wallet shard) is refused before anything is written.
 */
export const sameStatusWrites = (current: PaymentIntent, next: PaymentIntent, dueAt: string): TxItem[] => [
  // The intent's write first (callers ask failedAt(0)).
  keptStatusWrite(current, next, { ...keys.due(current.paymentIntentId, dueAt), dueAt }),
  ...linkUseWrites(current, next),
];

/**
 * sameStatusWrites() of a change no payment link's use moves with (a deposit's charge answered: a deposit has no link),
 * without the link's writes, so the deposit request's Lambda carries none of their rules; refused when one would move.
 */
export const unlinkedSameStatusWrites = (current: PaymentIntent, next: PaymentIntent, dueAt: string): TxItem[] => [
  keptStatusWrite(current, next, { ...keys.due(current.paymentIntentId, dueAt), dueAt }, undefined, true),
];

/**
 * sameStatusWrites() of money the core held for the operator (holdApproval: next's heldApproval, no link's use moved):
 * out of the due index (neither expiring nor asked about again) and into the held list.
 */
export function heldWrites(current: PaymentIntent, next: PaymentIntent): TxItem[] {
  const held = heldApprovalOf(next);
  if (!held) throw new Error(`${current.paymentIntentId} is not held`);
  return [keptStatusWrite(current, next, keys.heldApproval(current.paymentIntentId, held.heldAt), ['dueAt'], true)];
}

/** The intent's write of a same-status change (`unlinked`: one that must move no payment link's use). */
function keptStatusWrite(current: PaymentIntent, next: PaymentIntent, index: Record<string, unknown>, remove?: string[], unlinked?: true) {
  const moved = (['paymentIntentId', 'status', 'amountMinor', 'feeMinor', 'walletShard'] as const).filter((f) => next[f] !== current[f]);
  if (unlinked && next.details.linkUseHeld !== current.details.linkUseHeld) moved.push('linkUseHeld' as never);
  if (moved.length || next.version !== current.version + 1)
    throw new Error(`same-status write of ${current.paymentIntentId} changes ${moved.join(', ') || 'version'}`);
  return versionedIntentWrite(current, next, index, remove);
}

/**
 * The write of an intent that keeps its status: its new details, updatedAt and version, plus `set`
 * (index keys) and `remove`d attributes, applied only to the intent as read (`current`'s status and
 * version).
 */
function versionedIntentWrite(current: PaymentIntent, next: PaymentIntent, extra: Record<string, unknown>, remove?: string[]): TxItem {
  return named(
    'intent',
    updateEntry('Intent', keys.intent(current.paymentIntentId), {
      set: { details: next.details, updatedAt: next.updatedAt, version: next.version, ...extra },
      ...(remove && { remove }),
      when: { eq: { status: current.status, version: current.version } },
    }),
  );
}

/** Access pattern: wallet approvals held for an operator decision, oldest first (GSI2 `HELDAPPROVAL`). */
export async function listHeldApprovals(limit = 500): Promise<PaymentIntent[]> {
  const { GSI2PK } = keys.heldApproval('', '');
  const items = await queryAll<Stored>(
    { IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', ExpressionAttributeValues: toValues({ ':pk': GSI2PK }) },
    limit,
  );
  return items.map(strip);
}

/**
 * "Look again later" (the core's `note`, decided as `next`): keeps a still-open intent in the due index until `dueAt`.
 * False if it changed meanwhile.
 */
export async function rescheduleDue(current: PaymentIntent, next: PaymentIntent, dueAt: string): Promise<boolean> {
  try {
    await transact(sameStatusWrites(current, next, dueAt));
    return true;
  } catch (error) {
    if (error instanceof TransactionFailed && error.on('intent')) return false;
    throw error;
  }
}

export interface IntentPageQuery {
  intentType?: IntentType;
  status?: IntentStatus;
  /** Inclusive createdAt bounds (ISO 8601, UTC). */
  from?: string;
  to?: string;
  /** Exclusive upper bound: the `<createdAt>#<id>` of the last item already seen. */
  before?: string;
  limit: number;
}

/**
 * Access pattern: a merchant's intents in one mode, newest first, optionally of one type and/or
 * status, within createdAt bounds, after a cursor. Without filters: one GSI1 query. With filters:
 * one GSI3 query per matching (type, status) partition (at most 6), each reading at most limit+1
 * items, merged newest first. Never a Scan, never a filter expression, so the cost is bounded by
 * `limit` whatever the merchant's volume.
 */
export async function pageIntents(
  merchantId: string,
  mode: Mode,
  q: IntentPageQuery,
): Promise<{ items: PaymentIntent[]; hasMore: boolean }> {
  const lower = q.from ?? '0'; // below every ISO timestamp (a key value may not be empty)
  const upperInclusive = q.to ? `${q.to}#\uffff` : '\uffff';
  const upper = q.before && q.before < upperInclusive ? q.before : upperInclusive;
  const exclusive = Boolean(q.before && q.before < upperInclusive);
  // Every shard of every matching listing partition (one shard for a merchant that was never sharded).
  const count = await readShards(merchantId, mode);
  const shards = Array.from({ length: count }, (_, n) => n);
  const partitions: { index: 'GSI1' | 'GSI3'; pk: string }[] =
    q.intentType === undefined && q.status === undefined
      ? Array.from({ length: transactionListShards(count) }, (_, n) => ({
          index: 'GSI1' as const,
          pk: keys.intentsOfMerchant(merchantId, mode, n).GSI1PK,
        }))
      : intentTypes
          .filter((t) => q.intentType === undefined || t === q.intentType)
          .flatMap((t) =>
            intentStatuses.filter((s) => (q.status === undefined || s === q.status) && reachable(t, s)).map((s) => ({ t, s })),
          )
          .flatMap(({ t, s }) =>
            shards.map((n) => ({ index: 'GSI3' as const, pk: keys.intentByTypeStatus(merchantId, mode, t, s, '', '', n).GSI3PK })),
          );
  const pages = await Promise.all(
    partitions.map(({ index, pk }) =>
      queryAll<Stored>(
        {
          IndexName: index,
          KeyConditionExpression: `#pk = :pk AND #sk BETWEEN :lo AND :hi`,
          ExpressionAttributeNames: { '#pk': `${index}PK`, '#sk': `${index}SK` },
          ExpressionAttributeValues: toValues({ ':pk': pk, ':lo': lower, ':hi': upper }),
          ScanIndexForward: false,
        },
        q.limit + 2, // +1 for hasMore, +1 for an exclusive cursor item on the bound
      ).then((items) => items.map((i) => ({ sk: String(i[`${index}SK`]), intent: strip(i) }))),
    ),
  );
  const merged = pages
    .flat()
    .filter((x) => !(exclusive && x.sk === upper))
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  return { items: merged.slice(0, q.limit).map((x) => x.intent), hasMore: merged.length > q.limit };
}

/** Can an intent of this type ever be in this status? (So a list by type reads only real partitions.) */
function reachable(type: IntentType, status: IntentStatus): boolean {
  return status === 'Pending' || intentStatuses.some((from) => canTransition(type, from, status));
}

/** The `<createdAt>#<id>` cursor of an intent (its position in every listing index). */
export const intentCursor = (intent: PaymentIntent) => `${intent.createdAt}#${intent.paymentIntentId}`;

/** Migration (not a request path): give every intent its GSI3 keys, by Scan — for `ops migrate-transaction-index` only. */
export async function backfillIntentIndex(): Promise<number> {
  let updated = 0;
  for await (const page of scanPages({ FilterExpression: 'entity = :e', ExpressionAttributeValues: toValues({ ':e': 'Intent' }) })) {
    for (const raw of page) {
      const item = strip(fromItem<Stored>(raw));
      const want = keys.intentByTypeStatus(item.merchantId, item.mode, item.intentType, item.status, item.createdAt, item.paymentIntentId);
      const have = fromItem<Record<string, unknown>>(raw);
      // A big merchant's intent may sit in a shard of its partition (`<want>#<n>`): that is where it belongs.
      if ((have.GSI3PK === want.GSI3PK || String(have.GSI3PK).startsWith(`${want.GSI3PK}#`)) && have.GSI3SK === want.GSI3SK) continue;
      // Only if its status is unchanged: else a transition wrote the keys meanwhile.
      const indexing = updateEntry('Intent', keys.intent(item.paymentIntentId), { set: want, when: { eq: { status: item.status } } });
      if (await applied(db().send(new UpdateItemCommand(indexing.Update!)))) updated++;
    }
  }
  return updated;
}

/** Access pattern: a merchant's intent by its orderRef in one mode (the ORDERREF pointer, then GetItem). */
export async function findIntentByOrderRef(merchantId: string, mode: Mode, orderRef: string): Promise<PaymentIntent | undefined> {
  const id = (await get<{ paymentIntentId: string }>(keys.orderRef(mode, merchantId, orderRef)))?.paymentIntentId;
  const intent = id ? await getIntent(id) : undefined;
  return intent && intent.merchantId === merchantId && intent.mode === mode ? intent : undefined;
}
