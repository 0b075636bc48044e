import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { deliveryStates, webhookEventTypes, type DeliveryState, type WebhookEvent, type WebhookEventType } from '#shared/domain/events.ts';
import { db, fromItem, queryAll, tableName, toItem, toValues, type TxItem } from './client.ts';
import * as keys from './keys.ts';
import { readShards, shardOf, writeShards } from './shards.ts';

/**
 * The events feed (GET /Gateway/v1/Events; docs/access-patterns.md): one `EventFeed` item per
 * event, `EVENTFEED#<eventId>`, kept 30 days (ttl). It carries the event as sent (deflated) and its current
 * delivery state, and is listed two ways, always newest first by `<createdAt>#<eventId>`:
 *   GSI1  EVENTS#<merchantId>#<mode>                          every event of a merchant in a mode
 *   GSI3  EVENTS#<merchantId>#<mode>#<type>#<deliveryState>   by type and delivery state
 * It is written `pending` in the transaction that commits the event, and replaced (Put) by the
 * webhook dispatcher in the same BatchWriteItem as the delivery item whenever an attempt changes
 * the delivery state, which moves it to its new GSI3 partition. So every filter is a key condition
 * on at most 18 partitions (one type: 6 states; one state: 3 types; both: 1), never a Scan or a filter
 * expression, and the cost of a page is bounded by `limit` whatever the merchant's volume.
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

/**
 * The envelope as sent, stored deflated (`eventZ`, binary): DynamoDB bills every write of the entry
 * per KB on the table, on GSI1 and on GSI3 (twice when its state moves it), and the envelope as a map
 * put a typical entry just over 1 KB (1,095 bytes), so each of those writes cost 2 units, not 1
 * (docs/scaling.md, cost per operation). Entries written before keep their `event` map; both are read.
 */
const packEvent = (event: WebhookEvent) => deflateRawSync(JSON.stringify(event));
const unpackEvent = (item: Record<string, unknown>): WebhookEvent =>
  item.eventZ instanceof Uint8Array ? JSON.parse(inflateRawSync(item.eventZ).toString('utf8')) : (item.event as WebhookEvent);

function feedItem(e: FeedEntry) {
  // A big merchant's feed is spread over its shards (shared/store/shards.ts); a rewrite may move an
  // entry to another shard after a raise, which readers read too.
  const shard = shardOf(e.eventId, writeShards(e.merchantId, e.mode));
  const { event, ...entry } = e;
  return toItem({
    ...keys.eventFeed(e.eventId),
    ...keys.eventFeedListing(e.merchantId, e.mode, e.createdAt, e.eventId, shard),
    ...keys.eventFeedByTypeState(e.merchantId, e.mode, e.type, e.deliveryState, e.createdAt, e.eventId, shard),
    entity: 'EventFeed',
    ...entry,
    eventZ: packEvent(event),
    ttl: Math.floor((Date.parse(e.createdAt) + retentionMs) / 1000),
  });
}

/** The entry of a new event (Put, in the transaction that commits the event). */
export function feedEntryWrite(e: Omit<FeedEntry, 'deliveryState'>): TxItem {
  return {
    Put: { TableName: tableName(), Item: feedItem({ ...e, deliveryState: 'pending' }), ConditionExpression: 'attribute_not_exists(PK)' },
  };
}

/**
 * The entry with a new delivery state, as a whole item for the dispatcher's BatchWriteItem, or
 * undefined once the event is past retention (a resend of an old event does not bring it back).
 */
export function feedEntryItem(e: FeedEntry, now: Date): Record<string, AttributeValue> | undefined {
  return now.getTime() - Date.parse(e.createdAt) < retentionMs ? feedItem(e) : undefined;
}

/** Access pattern: one feed entry by event id (GetItem), to turn a `startingAfter` event id into a position. */
export async function getFeedEntry(eventId: string): Promise<FeedEntry | undefined> {
  const out = await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(keys.eventFeed(eventId)) }));
  return out.Item ? strip(fromItem<FeedEntry & Record<string, unknown>>(out.Item)) : undefined;
}

const strip = (item: Record<string, unknown>): FeedEntry => {
  const { eventId, merchantId, mode, type, createdAt, deliveryState } = item as unknown as FeedEntry;
  return { eventId, merchantId, mode, type, createdAt, deliveryState, event: unpackEvent(item) };
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
      ).then((items) => items.map((i) => ({ sk: String(i[`${index}SK`]), entry: strip(i) }))),
    ),
  );
  const merged = pages
    .flat()
    .filter((x) => !(exclusive && x.sk === upper))
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
  return { items: merged.slice(0, q.limit).map((x) => x.entry), hasMore: merged.length > q.limit };
}
