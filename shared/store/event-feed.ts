import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { deliveryStates, webhookEventTypes, type DeliveryState, type WebhookEvent, type WebhookEventType } from '#shared/domain/events.ts';
import { batchGetConsistent, fromItem, queryAll, toItem, toValues, type TxItem } from './client.ts';
import { get, putEntry } from './entity.ts';
import * as keys from './keys.ts';
import { readShards, shardOf, writeShards } from './shards.ts';

/**
 * The events feed (GET /Gateway/v1/Events; docs/access-patterns.md): one `EventFeed` item per
 * event, `EVENTFEED#<eventId>`, kept 30 days (ttl), carrying the event as sent (deflated). It is
 * written once, in the transaction that commits the event, and listed newest first by
 * `<createdAt>#<eventId>` on GSI1 `EVENTS#<merchantId>#<mode>` (every event of a merchant in a mode).
 * The delivery state is not on it: it is the event's delivery item's (shared/store/webhooks.ts,
 * written `pending` in the same transaction), which is also the feed's index by type and state,
 *   GSI3  EVENTS#<merchantId>#<mode>#<type>#<deliveryState>   moved by the attempt that changes it,
 * so recording an attempt rewrites one small item and its one index entry, not this entry and its
 * two indexes (docs/scaling.md, cost per operation). A page joins the two with one BatchGetItem:
 * an unfiltered page reads its entries' delivery items (where `home` says), a filtered one its
 * delivery items' entries. Every filter stays a key condition on at most 18 partitions (one type:
 * 6 states; one state: 3 types; both: 1) per shard, never a Scan or a filter expression, and a
 * page's cost is bounded by `limit` whatever the merchant's volume.
 *
 * Entries written before (`deliveryState` on the entry, GSI3 on the entry) stay readable as they
 * are: their events' delivery items have no GSI3, and the dispatcher keeps rewriting such an entry
 * when its state changes (feedEntryItem), so each event is in exactly one GSI3 partition either way.
 */
export const eventRetentionDays = 30;
const retentionMs = eventRetentionDays * 24 * 3600 * 1000;

export { deliveryStates };

export interface FeedEntry {
  eventId: string;
  merchantId: string;
  mode: Mode;
  type: WebhookEventType;
  /** The outbox item's createdAt (the event's data.Timestamp). */
  createdAt: string;
  deliveryState: DeliveryState;
  event: WebhookEvent;
}

/** A new entry: its event's home partition (`home`, keys.eventHome) locates its delivery item. */
export interface NewFeedEntry extends Omit<FeedEntry, 'deliveryState'> {
  home: string;
}

/**
 * The envelope as sent, stored deflated (`eventZ`, binary): DynamoDB bills every write of the entry
 * per KB on the table and on GSI1, and the envelope as a map put a typical entry just over 1 KB
 * (1,095 bytes), so each of those writes cost 2 units, not 1 (docs/scaling.md, cost per
 * operation). Entries written before keep their `event` map; both are read.
 */
const packEvent = (event: WebhookEvent) => deflateRawSync(JSON.stringify(event));
const unpackEvent = (item: Record<string, unknown>): WebhookEvent =>
  item.eventZ instanceof Uint8Array ? JSON.parse(inflateRawSync(item.eventZ).toString('utf8')) : (item.event as WebhookEvent);

/** A big merchant's feed is spread over its shards (shared/store/shards.ts); readers read every shard. */
export const feedShard = (merchantId: string, mode: Mode, eventId: string) => shardOf(eventId, writeShards(merchantId, mode));
const ttlOf = (createdAt: string) => Math.floor((Date.parse(createdAt) + retentionMs) / 1000);

/** The entry of a new event (Put, in the transaction that commits the event, beside its `pending` delivery item). */
export function feedEntryWrite(e: NewFeedEntry): TxItem {
  const { event, ...entry } = e;
  return putEntry('EventFeed', keys.eventFeed(e.eventId), {
    ...keys.eventFeedListing(e.merchantId, e.mode, e.createdAt, e.eventId, feedShard(e.merchantId, e.mode, e.eventId)),
    ...entry,
    eventZ: packEvent(event),
    ttl: ttlOf(e.createdAt),
  });
}

/**
 * An entry from before (its state and GSI3 on the entry) with a new delivery state, as a whole item
 * for the dispatcher's BatchWriteItem, or undefined once the event is past retention (a resend of
 * an old event does not bring it back). Only for events whose delivery item has no state index.
 */
export function feedEntryItem(e: FeedEntry, now: Date): Record<string, AttributeValue> | undefined {
  if (now.getTime() - Date.parse(e.createdAt) >= retentionMs) return undefined;
  const shard = feedShard(e.merchantId, e.mode, e.eventId);
  const { event, ...entry } = e;
  return toItem({
    ...keys.eventFeed(e.eventId),
    ...keys.eventFeedListing(e.merchantId, e.mode, e.createdAt, e.eventId, shard),
    ...keys.eventFeedByTypeState(e.merchantId, e.mode, e.type, e.deliveryState, e.createdAt, e.eventId, shard),
    entity: 'EventFeed',
    ...entry,
    eventZ: packEvent(event),
    ttl: ttlOf(e.createdAt),
  });
}

/** Access pattern: one feed entry by event id (GetItem), to turn a `startingAfter` event id into a position. */
export async function getFeedEntry(eventId: string): Promise<Omit<FeedEntry, 'deliveryState'> | undefined> {
  const item = await get(keys.eventFeed(eventId), false);
  return item ? strip(item, 'pending') : undefined;
}

/** An entry as listed, with the state its delivery item gives (`state`) unless it carries its own (from before). */
const strip = (item: Record<string, unknown>, state: DeliveryState): FeedEntry => {
  const { eventId, merchantId, mode, type, createdAt, deliveryState } = item as unknown as FeedEntry;
  return { eventId, merchantId, mode, type, createdAt, deliveryState: deliveryState ?? state, event: unpackEvent(item) };
};

export const feedPosition = (e: Pick<FeedEntry, 'createdAt' | 'eventId'>) => `${e.createdAt}#${e.eventId}`;

export interface FeedQuery {
  /** Only these types (absent: every type). */
  types?: readonly WebhookEventType[];
  deliveryState?: DeliveryState;
  /** Inclusive createdAt bounds, ISO 8601 UTC with milliseconds. */
  since?: string;
  until?: string;
  /** Exclusive: the position (feedPosition) of the last entry already seen. */
  before?: string;
  limit: number;
}

/**
 * Access pattern: a merchant's events in one mode, newest first, optionally of one type and/or
 * delivery state, within createdAt bounds (never older than retention: an expired entry TTL has
 * not removed yet is outside the key condition), after a cursor. One Query per partition, each
 * reading at most limit + 2 entries, merged newest first.
 */
export async function pageEventFeed(
  merchantId: string,
  mode: Mode,
  q: FeedQuery,
  now = new Date(),
): Promise<{ items: FeedEntry[]; hasMore: boolean }> {
  const oldest = new Date(now.getTime() - retentionMs).toISOString();
  const lower = q.since && q.since > oldest ? q.since : oldest;
  const upperInclusive = q.until ? `${q.until}#\uffff` : '\uffff';
  const exclusive = Boolean(q.before && q.before < upperInclusive);
  const upper = exclusive ? q.before! : upperInclusive;
  if (upper < lower) return { items: [], hasMore: false };
  const shards = Array.from({ length: await readShards(merchantId, mode) }, (_, n) => n);
  const partitions: { index: 'GSI1' | 'GSI3'; pk: string }[] =
    q.types === undefined && q.deliveryState === undefined
      ? shards.map((n) => ({ index: 'GSI1', pk: keys.eventFeedListing(merchantId, mode, '', '', n).GSI1PK }))
      : webhookEventTypes
          .filter((t) => q.types === undefined || q.types.includes(t))
          .flatMap((t) => deliveryStates.filter((s) => q.deliveryState === undefined || s === q.deliveryState).map((s) => ({ t, s })))
          .flatMap(({ t, s }) =>
            shards.map((n) => ({ index: 'GSI3' as const, pk: keys.eventFeedByTypeState(merchantId, mode, t, s, '', '', n).GSI3PK })),
          );
  const pages = await Promise.all(
    partitions.map(({ index, pk }) =>
      queryAll<Record<string, unknown>>(
        {
          IndexName: index,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
          ExpressionAttributeNames: { '#pk': `${index}PK`, '#sk': `${index}SK` },
          ExpressionAttributeValues: toValues({ ':pk': pk, ':lo': lower, ':hi': upper }),
          ScanIndexForward: false,
        },
        q.limit + 2, // +1 for hasMore, +1 for the cursor's own entry on the bound
      ).then((items) => items.map((item) => ({ sk: String(item[`${index}SK`]), item }))),
    ),
  );
  const merged = pages
    .flat()
    .filter((x) => !(exclusive && x.sk === upper))
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  const items = await joinStates(merged.slice(0, q.limit).map((x) => x.item));
  return { items, hasMore: merged.length > q.limit };
}

/**
 * A page's entries with their delivery states, in order, with ONE BatchGetItem: GSI1 gives entries
 * (an entry from before carries its state; a new one's state is its delivery item's, `pending`
 * until one exists), GSI3 gives delivery items (whose entries hold the envelopes) and entries from before.
 */
async function joinStates(found: readonly Record<string, unknown>[]): Promise<FeedEntry[]> {
  // A delivery item's event id is its sort key's (`DELIVERY#<eventId>`; version 2 items do not repeat it).
  const idOf = (i: Record<string, unknown>) => String(i.eventId ?? String(i.SK).slice('DELIVERY#'.length));
  const wanted = found.flatMap((i) =>
    i.entity === 'WebhookDelivery'
      ? [keys.eventFeed(idOf(i))]
      : i.deliveryState === undefined && typeof i.home === 'string'
        ? [keys.webhookDeliveryIn(i.home, String(i.eventId))]
        : [],
  );
  const joined = new Map<string, Record<string, unknown>>();
  for (const raw of wanted.length ? await batchGetConsistent(wanted) : []) {
    const item = fromItem<Record<string, unknown>>(raw);
    joined.set(`${String(item.entity)}/${idOf(item)}`, item);
  }
  return found.flatMap((i) => {
    if (i.entity !== 'WebhookDelivery')
      return [strip(i, (joined.get(`WebhookDelivery/${String(i.eventId)}`)?.state as DeliveryState | undefined) ?? 'pending')];
    const entry = joined.get(`EventFeed/${idOf(i)}`);
    return entry ? [strip(entry, i.state as DeliveryState)] : []; // an entry gone (past retention) is not listed
  });
}
