import { BatchWriteItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { again, retry, retryPolicies } from '#shared/retry.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { subjectOf, type AddressedEvent, type DeliveryState, type EventSubject, type WebhookEventType } from '#shared/domain/events.ts';
import { batchGetConsistent, db, fromItem, scanPages, tableName, toItem, toValues, ttlIn, type TxItem } from './client.ts';
import { healthByDestination, healthKey, type Destination, type EndpointHealth } from './webhook-health.ts';
import type { StoredEvent } from '#shared/domain/events.ts';
import { queryDueIndex } from './due-index.ts';
import { feedEntryItem, feedEntryWrite, feedShard, type FeedEntry } from './event-feed.ts';
import { applied, get, inPartition, putEntry, updateEntry } from './entity.ts';
import * as keys from './keys.ts';

/**
 * The webhook delivery log (docs/access-patterns.md): an immutable pointer finds an event by its
 * id; per event, one delivery item in the transaction's partition next to the event itself,
 * holding its state, rounds and latest attempt, and each earlier attempt as an immutable item of its
 * own beside it; resend requests are table items too, so the stream relays them like events (no
 * queue access from the API). The dispatcher reads and writes a whole batch at once: two DynamoDB
 * round trips per batch of up to 10 deliveries.
 *
 * Version 2 of the delivery item (`v: 2`, docs/scaling.md "cost per operation") is written
 * `pending` in the transaction that commits the event, and is the events feed's index by type
 * and delivery state (GSI3), so an attempt writes this one item of under 1 KB and its index
 * entry (3 units when the state changes), plus the attempt it displaces (1 unit) on a later
 * attempt. Items from before (no `v`: their whole log inline, no GSI3, the state on the feed
 * entry) are read as they are and written as they were until their event's last attempt.
 */
export interface EventPointer {
  eventId: string;
  /** The transaction (null for a settlement event); `subject` says where the event lives (subjectOf). */
  paymentIntentId: string | null;
  subject?: EventSubject;
  merchantId: string;
  mode: Mode;
  /** The outbox item's createdAt (part of its sort key). */
  eventCreatedAt: string;
}

export type { DeliveryState };
/** States that end a round: a message of that round is then acknowledged without an attempt. */
export const closedStates: readonly DeliveryState[] = ['delivered', 'dead_lettered', 'no_destination', 'endpoint_disabled'];

/**
 * The webhook sweep (shared/webhooks/sweep.ts) acts on an outbox event this long after it was
 * committed if no delivery item exists by then, and on a retry this long after its nextAttemptAt
 * if no attempt replaced it. WEBHOOK_SWEEP_GRACE_SECONDS overrides it (tests).
 */
export const sweepGraceSeconds = (): number => {
  const raw = Number(process.env.WEBHOOK_SWEEP_GRACE_SECONDS);
  return Number.isFinite(raw) && raw >= 0 ? raw : 180;
};
const plusSeconds = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();
/** When the sweep first looks at a new outbox event (its GSI2 due time). */
export const outboxCheckAt = (createdAt: string) => plusSeconds(createdAt, sweepGraceSeconds());

/** A queue message kept on a delivery item while its retry waits (the sweep can send it again). */
export interface WaitingMessage extends AddressedEvent {
  v: 1;
  eventCreatedAt: string;
  roundId: string;
}

export interface RoundRecord {
  attempts: number;
  state: DeliveryState;
  startedAt: string;
}

export interface DeliveryRecord {
  /** 2: written with the event, state indexed on it, the latest attempt inline (absent: from before). */
  v?: 2;
  eventId: string;
  paymentIntentId: string | null;
  subject?: EventSubject;
  merchantId: string;
  mode: Mode;
  /** Attempts over every round (the number of the latest). */
  attempts: number;
  /** Per round (shared/webhooks/messages.ts): its attempts and state; the most recent rounds only. */
  rounds: Record<string, RoundRecord>;
  /** The round of the latest attempt and its state. */
  roundId: string;
  state: DeliveryState;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  /**
   * While `retrying`: the message of the next attempt and when the sweep sends it (again): at
   * nextAttemptAt for a parked retry (no message on the queue), a grace period later for a retry
   * waiting on the queue as a delayed message (in case that message is lost).
   */
  waiting?: {
    /** The message itself: kept by items from before; a version 2 item keeps `eventCreatedAt` instead (outboxMessages). */
    message?: WaitingMessage;
    eventCreatedAt?: string;
    sweepAt: string;
  } | null;
  /** The first successful delivery. */
  deliveredAt: string | null;
  updatedAt: string;
  /**
   * The attempts, oldest first: the latest `maxLoggedAttempts` of them. Of a version 2 item, as the
   * dispatcher reads it, the latest only (getDelivery reads the earlier ones too); as it writes it,
   * the latest and the one before, which moves to an item of its own.
   */
  log: AttemptRecord[];
  /** Where a version 2 item is listed (its GSI3 key): the event's type and createdAt. Not stored. */
  listedAs?: { type: WebhookEventType; createdAt: string };
}

/** Attempts kept per event (12 full rounds of 8); `attempts` still counts every one. */
export const maxLoggedAttempts = 100;

export interface AttemptRecord {
  eventId: string;
  paymentIntentId: string | null;
  /** 1, 2, … over every round. */
  attempt: number;
  /** 1 … 8 within its round. */
  roundAttempt: number;
  roundId: string;
  trigger: 'automatic' | 'resend' | 'redrive';
  deliveryId: string;
  attemptedAt: string;
  url: string | null;
  destination: 'callbackUrl' | 'endpoint' | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: 'delivered' | 'failed' | 'no_destination' | 'endpoint_disabled';
  /** When the next attempt of the round is due (null: none). */
  nextAttemptAt: string | null;
}

/**
 * The writes that publish an event, for the transaction that commits what caused it (the
 * transactional outbox): the outbox item in the event's home partition, which the stream relays
 * and which sits in the sweep's due index until an attempt is recorded, the event's entry in the
 * events feed, its delivery item (`pending`, version 2: the feed's index by delivery state), and
 * its pointer by event id: an event the feed lists can be resent and its attempts read at once.
 * The outbox item says so (`deliveryLog: 2`): the relay writes the pointer only for events
 * committed before (pointerWritten).
 */
export function outboxWrites(addressed: AddressedEvent, createdAt: string): TxItem[] {
  const subject = subjectOf(addressed);
  const pending: DeliveryRecord = {
    v: 2,
    eventId: addressed.eventId,
    paymentIntentId: addressed.paymentIntentId,
    subject,
    merchantId: addressed.merchantId,
    mode: addressed.mode,
    attempts: 0,
    rounds: {},
    roundId: 'initial',
    state: 'pending',
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: null,
    deliveredAt: null,
    updatedAt: createdAt,
    log: [],
    listedAs: { type: addressed.event.type, createdAt },
  };
  return [
    putEntry('OutboxEvent', keys.outboxEvent(subject, createdAt, addressed.eventId), {
      // The webhook sweep checks it once the pipeline had time to deliver (shared/webhooks/sweep.ts).
      ...keys.webhookDue(addressed.eventId, outboxCheckAt(createdAt)),
      ...withoutSubject(addressed),
      ...storedSubject(addressed),
      createdAt,
      deliveryLog: 2,
    }),
    feedEntryWrite({
      eventId: addressed.eventId,
      merchantId: addressed.merchantId,
      mode: addressed.mode,
      type: addressed.event.type,
      createdAt,
      event: addressed.event,
      home: keys.eventHome(subject),
    }),
    putEntry('WebhookDelivery', deliveryItemKey(pending), deliveryAttributes(pending), { when: { exists: false } }),
    putEntry(
      'EventPointer',
      keys.eventPointer(addressed.eventId),
      { ...pointerOf({ ...addressed, eventCreatedAt: createdAt }) },
      { when: false },
    ),
  ];
}

/**
 * The subject as stored on the outbox and delivery items: only when it is not the event's own
 * transaction, which subjectOf gives without it (65 bytes that put a typical outbox item past 1 KB).
 */
const storedSubject = (e: { paymentIntentId: string | null; subject?: EventSubject }) => {
  const subject = subjectOf(e);
  return subject.kind === 'transaction' && subject.id === e.paymentIntentId ? {} : { subject };
};
const withoutSubject = <T extends { subject?: EventSubject }>({ subject: _s, ...rest }: T) => rest;

/**
 * Whether the pointer of a relayed outbox item still has to be written: not for events committed
 * with it (`deliveryLog: 2`), saving the relay a write per event; yes for those from before.
 */
export const pointerWritten = (outboxItem: object) => (outboxItem as { deliveryLog?: unknown }).deliveryLog === 2;

const pointerItem = (p: EventPointer) => toItem({ ...keys.eventPointer(p.eventId), entity: 'EventPointer', ...p });

/** The pointer of an event being relayed (or sent again by the sweep or a replay). */
export const pointerOf = (m: Omit<EventPointer, 'subject'> & { subject?: EventSubject }): EventPointer => ({
  eventId: m.eventId,
  paymentIntentId: m.paymentIntentId,
  subject: subjectOf(m),
  merchantId: m.merchantId,
  mode: m.mode,
  eventCreatedAt: m.eventCreatedAt,
});

/** Access pattern: record where events live, by id (BatchWriteItem of immutable puts; idempotent). */
export async function putEventPointers(pointers: readonly EventPointer[]): Promise<void> {
  await batchWrite(pointers.map(pointerItem));
}

async function batchWrite(items: Record<string, AttributeValue>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let requests: WriteRequest[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await retry(
      retryPolicies.batch,
      async () => {
        const out = await db().send(new BatchWriteItemCommand({ RequestItems: { [tableName()]: requests } }));
        requests = out.UnprocessedItems?.[tableName()] ?? [];
        return requests.length ? again : undefined;
      },
      () => new Error('BatchWriteItem: unprocessed items after retries'),
    );
  }
}

/** Access pattern: an event's pointer by event id (GetItem). */
export async function getEventPointer(eventId: string): Promise<EventPointer | undefined> {
  const item = await get<EventPointer & { PK: string; SK: string; entity: string }>(keys.eventPointer(eventId), false);
  if (!item) return undefined;
  const { PK: _pk, SK: _sk, entity: _e, ...pointer } = item;
  return pointer;
}

/** Access pattern: one outbox event from its pointer (GetItem). */
export async function getOutboxEvent(pointer: EventPointer): Promise<StoredEvent | undefined> {
  return get<StoredEvent>(keys.outboxEvent(subjectOf(pointer), pointer.eventCreatedAt, pointer.eventId), false);
}

type EventRef = { paymentIntentId: string | null; subject?: EventSubject; eventId: string };
export const deliveryKey = (d: EventRef) => `${keys.eventHome(subjectOf(d))}/${d.eventId}`;

const deliveryItemKey = (e: EventRef) => keys.webhookDelivery(subjectOf(e), e.eventId);

/**
 * A version 2 delivery item as stored: the record without what its latest attempt says again
 * (lastAttemptAt, lastStatusCode, lastError), a transaction's own subject, an empty `waiting` or a
 * waiting retry's message, and with that attempt inline (`last`, without the event's ids), so the item stays under 1 KB;
 * its GSI3 key places it in the feed by state.
 */
function deliveryAttributes(d: DeliveryRecord): Record<string, unknown> {
  const { log, listedAs, lastAttemptAt: _at, lastStatusCode: _code, lastError: _error, subject: _s, waiting, ...rest } = d;
  // What its keys say again: the event id (SK), a transaction's own id (PK, when no other subject is stored), no delivery yet.
  const { eventId: _id, paymentIntentId, deliveredAt, ...stored } = rest;
  const ownTransaction = Object.keys(storedSubject(d)).length === 0;
  const latest = log.at(-1);
  const { eventId: _e, paymentIntentId: _p, ...last } = latest ?? ({} as AttemptRecord);
  const shard = listedAs ? feedShard(d.merchantId, d.mode, d.eventId) : 0;
  return {
    ...(listedAs ? keys.eventFeedByTypeState(d.merchantId, d.mode, listedAs.type, d.state, listedAs.createdAt, d.eventId, shard) : {}),
    ...legacyDue(d),
    ...stored,
    ...(ownTransaction ? {} : { paymentIntentId }),
    ...(deliveredAt ? { deliveredAt } : {}),
    ...storedSubject(d),
    // Not the message (the envelope, about 1 KB): the sweep rebuilds it from the outbox item (outboxMessages), whose
    // createdAt GSI3SK holds.
    ...(waiting ? { waiting: { sweepAt: waiting.sweepAt } } : {}),
    ...(latest ? { last } : {}),
  };
}
/** A delivery item as the dispatcher's BatchWriteItem replaces it. */
const deliveryItem = (d: DeliveryRecord) => toItem({ ...deliveryItemKey(d), entity: 'WebhookDelivery', ...deliveryAttributes(d) });

/** A delivery item as read: a version 2 item's latest attempt is its log (getDelivery adds the earlier ones). */
function readDelivery(item: Record<string, unknown>): DeliveryRecord {
  type Stored = DeliveryRecord & { last?: Omit<AttemptRecord, 'eventId' | 'paymentIntentId'>; PK: string; SK: string; GSI3SK?: string };
  const raw = item as unknown as Stored;
  if (raw.v !== 2) return raw;
  const d = {
    ...raw,
    eventId: raw.eventId ?? eventIdOf(raw),
    paymentIntentId: raw.paymentIntentId ?? (raw.subject ? null : raw.PK.slice('TXN#'.length)),
    deliveredAt: raw.deliveredAt ?? null,
  };
  const { last, ...record } = d;
  const latest = last ? { eventId: d.eventId, paymentIntentId: d.paymentIntentId, ...last } : undefined;
  const eventCreatedAt = raw.GSI3SK?.split('#')[0]; // `<createdAt>#<eventId>`
  return {
    ...record,
    waiting: record.waiting ? { ...record.waiting, ...(eventCreatedAt ? { eventCreatedAt } : {}) } : null,
    lastAttemptAt: latest?.attemptedAt ?? null,
    lastStatusCode: latest?.statusCode ?? null,
    lastError: latest?.error ?? null,
    log: latest ? [latest] : [],
  };
}

/** A version 2 delivery item's event id: its sort key's (`DELIVERY#<eventId>`). */
const eventIdOf = (item: { SK: string }) => item.SK.slice('DELIVERY#'.length);

/** The delivery items among `items`, keyed by deliveryKey (`<home>/<eventId>`). */
function deliveriesOf(items: readonly Record<string, AttributeValue>[]): Map<string, DeliveryRecord> {
  const found = new Map<string, DeliveryRecord>();
  for (const item of items) {
    if (item.entity?.S !== 'WebhookDelivery') continue;
    const d = readDelivery(fromItem(item));
    found.set(deliveryKey(d), d);
  }
  return found;
}

/** Access pattern: the delivery items of these events (one BatchGetItem per 100, consistent), keyed by deliveryKey. */
export async function getDeliveries(events: readonly EventRef[]): Promise<Map<string, DeliveryRecord>> {
  return deliveriesOf(await batchGetConsistent(events.map(deliveryItemKey)));
}

/**
 * Access pattern: what a dispatcher batch reads before its attempts, in ONE BatchGetItem
 * (consistent): its events' delivery items (keyed by deliveryKey) and its destinations' health
 * items (keyed by destinationKey). A batch of 10 asks at most 20 keys.
 */
export async function getDispatchState(
  events: readonly EventRef[],
  destinations: readonly Destination[],
): Promise<{ deliveries: Map<string, DeliveryRecord>; health: Map<string, EndpointHealth> }> {
  const items = await batchGetConsistent([...events.map(deliveryItemKey), ...destinations.map(healthKey)]);
  return { deliveries: deliveriesOf(items), health: healthByDestination(items) };
}

/**
 * Access pattern: write a dispatcher batch's log, one BatchWriteItem for up to 10 deliveries: each
 * event's delivery item, replaced whole (the dispatcher read it at the start of the batch and
 * appended this attempt to its log). A version 2 item keeps only the new attempt inline and the
 * one it displaces becomes an item of its own, written before it (immutable: a batch written twice
 * writes the same items); an item from before keeps its whole log, and its feed entry follows its
 * state (`feed`).
 */
export async function writeDeliveries(
  deliveries: readonly DeliveryRecord[],
  feed: readonly FeedEntry[] = [],
  now = new Date(),
): Promise<void> {
  // The attempts a version 2 item's new one displaces go first (a BatchWriteItem of their own, on a retry only), so a
  // reader never sees the new attempt on the item without the one before it among the earlier attempts.
  const displaced = deliveries.flatMap((d) =>
    d.v === 2
      ? d.log
          .slice(0, -1)
          .slice(-1) // the previous latest attempt (one attempt per event per batch)
          .map((a) => toItem({ ...keys.webhookAttempt(subjectOf(d), d.eventId, a.attempt), entity: 'WebhookAttempt', ...a }))
      : [],
  );
  if (displaced.length) await batchWrite(displaced);
  await batchWrite([
    ...deliveries.map((d) =>
      d.v === 2
        ? deliveryItem(d)
        : toItem({ ...keys.webhookDelivery(subjectOf(d), d.eventId), ...legacyDue(d), entity: 'WebhookDelivery', ...d }),
    ),
    // The events feed's entries from before whose delivery state changed (shared/store/event-feed.ts).
    ...feed.flatMap((e) => {
      const item = feedEntryItem(e, now);
      return item ? [item] : [];
    }),
  ]);
}

/** In the sweep's due index only while a retry waits. */
const legacyDue = (d: DeliveryRecord) => (d.state === 'retrying' && d.waiting ? keys.webhookDue(d.eventId, d.waiting.sweepAt) : {});

/**
 * Access pattern: the messages of waiting version 2 delivery items, rebuilt from their outbox items
 * (one BatchGetItem per 100, consistent): the envelope and callbackUrl as committed, in the round
 * that waits (a resend's and a redrive's message carry the same event). Keyed by deliveryKey.
 */
export async function outboxMessages(
  waiting: readonly (DeliveryRecord & { waiting: { eventCreatedAt?: string } })[],
): Promise<Map<string, Record<string, unknown>>> {
  const wanted = waiting.flatMap((d) =>
    d.waiting.eventCreatedAt ? [keys.outboxEvent(subjectOf(d), d.waiting.eventCreatedAt, d.eventId)] : [],
  );
  const found = new Map<string, Record<string, unknown>>();
  for (const raw of wanted.length ? await batchGetConsistent(wanted) : []) {
    const item = fromItem<Record<string, unknown> & EventRef>(raw);
    found.set(deliveryKey(item), item);
  }
  return found;
}

/** An item of the webhook sweep's due index: an outbox event or a waiting delivery item. */
export type WebhookDueItem =
  | ({ entity: 'OutboxEvent'; PK: string; SK: string; GSI2SK: string; createdAt: string } & AddressedEvent)
  | ({ entity: 'WebhookDelivery'; PK: string; SK: string; GSI2SK: string } & DeliveryRecord);

/** Access pattern: what the webhook sweep must look at by `now` (GSI2 query per shard, oldest first, bounded). */
export async function listWebhookDue(now: Date, limitPerShard = 200): Promise<WebhookDueItem[]> {
  const items = (await queryDueIndex(keys.webhookDueShards(), now, limitPerShard)) as unknown as Record<string, unknown>[];
  // A delivery item as readDelivery gives it (a version 2 item's ids from its keys), its keys kept.
  return items.map((i) => (i.entity === 'WebhookDelivery' ? readDelivery(i) : i)) as unknown as WebhookDueItem[];
}

/**
 * Access pattern: take an item out of the sweep's index (dueAt null) or move its due time, only if
 * nobody changed its entry since the sweep read it (the dispatcher's write wins). False = changed.
 */
export async function moveWebhookDue(
  item: { entity: 'OutboxEvent' | 'WebhookDelivery'; PK: string; SK: string; GSI2SK: string; eventId: string },
  dueAt: string | null,
): Promise<boolean> {
  const next = dueAt ? keys.webhookDue(item.eventId, dueAt) : undefined;
  const change = next ? { set: { GSI2SK: next.GSI2SK } } : { remove: ['GSI2PK', 'GSI2SK'] };
  const update = updateEntry(item.entity, { PK: item.PK, SK: item.SK }, { ...change, when: { eq: { GSI2SK: item.GSI2SK } } });
  return (await applied(db().send(new UpdateItemCommand(update.Update!)))) !== undefined;
}

async function queryPrefix<T>(k: { PK: string; SKPrefix: string }): Promise<T[]> {
  const found: T[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...inPartition(k),
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    found.push(...(out.Items ?? []).map((i) => fromItem<T>(i)));
    start = out.LastEvaluatedKey;
  } while (start);
  return found;
}

/** Access pattern: the delivery items of a transaction's events (Query, one partition), without the earlier attempts. */
export async function listDeliveries(paymentIntentId: string): Promise<DeliveryRecord[]> {
  const k = keys.deliveriesOfIntent(paymentIntentId);
  const items = await queryPrefix<Record<string, unknown>>(k);
  return items.filter((i) => i.entity === 'WebhookDelivery').map(readDelivery);
}

/**
 * Access pattern: an event's delivery item with its attempts, the latest `maxLoggedAttempts`
 * (GetItem, consistent; and for a version 2 item a Query of its earlier attempts, newest first).
 */
export async function getDelivery(about: EventSubject | string, eventId: string): Promise<DeliveryRecord | undefined> {
  const subject: EventSubject = typeof about === 'string' ? { kind: 'transaction', id: about } : about; // a string: a transaction's id
  const item = await get(keys.webhookDelivery(subject, eventId));
  if (!item) return undefined;
  const delivery = readDelivery(item);
  if (delivery.v !== 2 || delivery.attempts <= 1) return delivery;
  const earlier = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...inPartition(keys.attemptsOf(subject, eventId)),
      ConsistentRead: true,
      ScanIndexForward: false,
      Limit: maxLoggedAttempts - 1,
    }),
  );
  const older = (earlier.Items ?? []).map((i) => fromItem<AttemptRecord & { PK?: string; SK?: string; entity?: string }>(i));
  const attempts = older.map(({ PK: _pk, SK: _sk, entity: _e, ...a }) => a as AttemptRecord).reverse();
  return { ...delivery, log: [...attempts, ...delivery.log] };
}

export interface ResendRequest extends AddressedEvent {
  resendId: string;
  eventCreatedAt: string;
  requestedAt: string;
}

/** Kept a week: long enough for the stream to relay it, then it is only history. */
const resendRetentionSeconds = 7 * 24 * 3600;

/** A resend request (Put, for the caller's transaction): the stream relays it to the queue. */
export function resendWrite(request: ResendRequest): TxItem {
  const key = keys.webhookResend(subjectOf(request), request.requestedAt, request.resendId);
  return putEntry('WebhookResend', key, { ...request, ttl: ttlIn(resendRetentionSeconds, Date.parse(request.requestedAt)) });
}

/**
 * Operator access pattern (`ops webhooks replay` only, never a request path): the outbox events
 * committed in [since, until], optionally of one merchant and mode, page by page. A filtered
 * Scan: its cost is the table's size, acceptable for a rare recovery run, and independent of the
 * stream's 24 h retention.
 */
export async function* scanOutboxEvents(filter: {
  since: string;
  until: string;
  merchantId?: string;
  mode?: Mode;
}): AsyncGenerator<(AddressedEvent & { createdAt: string; entity: 'OutboxEvent' })[]> {
  const conditions = [
    'entity = :entity',
    'createdAt BETWEEN :since AND :until',
    ...(filter.merchantId ? ['merchantId = :merchantId'] : []),
    ...(filter.mode ? ['#mode = :mode'] : []),
  ];
  const pages = scanPages({
    FilterExpression: conditions.join(' AND '),
    ...(filter.mode ? { ExpressionAttributeNames: { '#mode': 'mode' } } : {}),
    ExpressionAttributeValues: toValues({
      ':entity': 'OutboxEvent',
      ':since': filter.since,
      ':until': filter.until,
      ':merchantId': filter.merchantId,
      ':mode': filter.mode,
    }),
  });
  for await (const page of pages) yield page.map((i) => fromItem<AddressedEvent & { createdAt: string; entity: 'OutboxEvent' }>(i));
}
