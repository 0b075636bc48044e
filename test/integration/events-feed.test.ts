import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { approveRefund } from '#shared/services/refunds.ts';
import { captureConsumedCapacity, db, fromItem, tableName, toItem, toValues } from '#shared/store/client.ts';
import { feedEntryItem, pageEventFeed } from '#shared/store/event-feed.ts';
import * as keys from '#shared/store/keys.ts';
import { listEvents } from '#shared/store/intents.ts';
import { dispatch } from '#shared/webhooks/dispatcher.ts';
import { messageFromItem } from '#shared/webhooks/messages.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { completedPayment } from '../support/money.ts';
import { startReceiver, type Receiver } from '../support/webhooks.ts';

/**
 * GET /Gateway/v1/Events (issue 11 point 8): a merchant's events in the key's mode, newest first,
 * filtered by type, delivery state and time, paged with startingAfter. No pipeline runs here: the
 * events stay `pending` until the test hands some to the dispatcher itself, so every state is known.
 */
const gw = useGateway(routeList);
let hook: Receiver;
beforeAll(async () => {
  process.env.WEBHOOK_MERCHANT_CACHE_MS = '0';
  hook = await startReceiver();
});
afterAll(() => hook.stop());

const ports = { deadLetter: async () => undefined, requeue: async () => undefined };
const pause = () => new Promise((r) => setTimeout(r, 3)); // distinct millisecond timestamps, so time bounds pick exact events

interface FeedItem {
  eventId: string;
  type: string;
  created: number;
  deliveryState: string;
  event: { id: string; type: string; data: Record<string, any> };
}
const feed = async (m: TestMerchant, query = '', key = m.test.apiKey) => call(gw.baseUrl, 'GET', `/Gateway/v1/Events${query}`, { key });
const ids = (items: FeedItem[]) => items.map((i) => i.eventId);

/** Every page of a query, following startingAfter. */
async function allPages(m: TestMerchant, query: string, limit: number) {
  const seen: FeedItem[] = [];
  let after: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = await feed(m, `?limit=${limit}${query}${after ? `&startingAfter=${after}` : ''}`);
    expect(r.status).toBe(200);
    expect(r.json.items.length).toBeLessThanOrEqual(limit);
    seen.push(...r.json.items);
    if (!r.json.hasMore) return seen;
    after = r.json.items.at(-1).eventId;
  }
  throw new Error('paging did not end');
}

describe('events feed', { timeout: 60_000 }, () => {
  it('lists only this merchant and mode, newest first, with the envelope as sent; filters, bounds and cursor', async () => {
    const m = await newMerchant({ name: 'Feed Merchant', webhookUrl: hook.url, allowInsecureWebhooks: true });
    const other = await newMerchant();
    // Six transaction events (the first is the refundable payment), then one refund event.
    const payment = await completedPayment(m.merchantId, 'test', 100_00);
    const intents = [payment];
    for (let i = 0; i < 5; i++) {
      await pause();
      const intent = await seedIntent(m.merchantId, 'test');
      expect(
        (await changeStatus(intent.paymentIntentId, () => ({ to: i % 2 ? 'Failed' : 'Completed', reason: i % 2 ? 'card_declined' : null })))
          .changed,
      ).toBe(true);
      intents.push(intent);
    }
    await pause();
    const refund = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { trxnRef: payment.orderRef.orderRef, amount: 10 },
    });
    await approveRefund(refund.json.id);
    // Noise that must never appear: the same merchant's live events, another merchant's.
    const live = await seedIntent(m.merchantId, 'live');
    await changeStatus(live.paymentIntentId, () => ({ to: 'Completed' }));
    const foreign = await seedIntent(other.merchantId, 'test');
    await changeStatus(foreign.paymentIntentId, () => ({ to: 'Completed' }));

    const stored = (await Promise.all(intents.map((i) => listEvents(i.paymentIntentId)))).map((e) => e[0]!);
    // Two transaction events delivered by the dispatcher; the rest stay pending.
    for (const s of [stored[1]!, stored[3]!]) {
      expect(await dispatch(messageFromItem({ ...s, entity: 'OutboxEvent' })!, ports)).toMatchObject({ kind: 'delivered' });
    }

    const everything = await feed(m);
    expect(everything.status).toBe(200);
    expect(everything.json.hasMore).toBe(false);
    const items: FeedItem[] = everything.json.items;
    expect(items).toHaveLength(7);
    expect(items[0]).toMatchObject({
      type: 'RefundStatusChanged',
      deliveryState: 'pending',
      event: { type: 'RefundStatusChanged', data: { RefundId: refund.json.id, PreviousStatus: 0, CurrentStatus: 1 } },
    });
    expect(ids(items.slice(1))).toEqual(stored.map((s) => s.eventId).reverse()); // newest first
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['created', 'deliveryState', 'event', 'eventId', 'type']);
      expect(item.event.id).toBe(item.eventId);
      expect(item.created).toBe((item.event as { created?: number }).created);
    }
    expect(items.find((i) => i.eventId === stored[0]!.eventId)!.event).toEqual(stored[0]!.event); // the envelope as sent
    expect(
      items
        .filter((i) => i.deliveryState === 'delivered')
        .map((i) => i.eventId)
        .sort(),
    ).toEqual([stored[1]!.eventId, stored[3]!.eventId].sort());
    // The delivery that was sent is exactly the event the feed shows.
    expect(hook.deliveries.map((d) => d.event.id).sort()).toEqual([stored[1]!.eventId, stored[3]!.eventId].sort());

    // Filters: type, deliveryState, both.
    expect(ids((await feed(m, '?type=RefundStatusChanged')).json.items)).toEqual([items[0]!.eventId]);
    expect((await feed(m, '?type=SettlementStatusChanged')).json).toEqual({ items: [], hasMore: false });
    expect(ids((await feed(m, '?type=SettlementStatusChanged,RefundStatusChanged,TransactionStatusChanged')).json.items)).toEqual(
      ids(items),
    );
    expect(ids((await feed(m, '?type=RefundStatusChanged,SettlementStatusChanged&deliveryState=pending')).json.items)).toEqual([
      items[0]!.eventId,
    ]);
    expect(ids((await feed(m, '?deliveryState=delivered')).json.items)).toEqual([stored[3]!.eventId, stored[1]!.eventId]);
    expect(ids((await feed(m, '?type=TransactionStatusChanged&deliveryState=pending')).json.items)).toEqual(
      [stored[5]!, stored[4]!, stored[2]!, stored[0]!].map((s) => s.eventId),
    );
    expect(ids((await feed(m, '?deliveryState=pending')).json.items)).toEqual([
      items[0]!.eventId,
      ...[stored[5]!, stored[4]!, stored[2]!, stored[0]!].map((s) => s.eventId),
    ]);
    expect((await feed(m, '?deliveryState=dead_lettered')).json.items).toEqual([]);

    // Time bounds are inclusive, on the event's commit time.
    const at = (i: number) => stored[i]!.createdAt;
    expect(ids((await feed(m, `?since=${at(2)}&until=${at(4)}`)).json.items)).toEqual(
      [stored[4]!, stored[3]!, stored[2]!].map((s) => s.eventId),
    );
    expect(ids((await feed(m, `?since=${at(5)}&type=TransactionStatusChanged`)).json.items)).toEqual([stored[5]!.eventId]);
    expect(ids((await feed(m, `?until=${at(0)}`)).json.items)).toEqual([stored[0]!.eventId]);

    // The cursor walks every page exactly once, with and without filters.
    for (const limit of [1, 2, 3, 7]) expect(ids(await allPages(m, '', limit))).toEqual(ids(items));
    expect(ids(await allPages(m, '&deliveryState=pending', 2))).toEqual(ids((await feed(m, '?deliveryState=pending')).json.items));
    expect(ids(await allPages(m, `&type=TransactionStatusChanged&since=${at(1)}`, 2))).toEqual(
      stored
        .slice(1)
        .map((s) => s.eventId)
        .reverse(),
    );
    const page = await feed(m, '?limit=2');
    expect(page.json.hasMore).toBe(true);
    expect(ids((await feed(m, `?limit=100&startingAfter=${page.json.items[1].eventId}`)).json.items)).toEqual(ids(items.slice(2)));

    // Other merchants and modes: never listed, and their event ids are no cursor here.
    expect((await feed(m, '', m.live.apiKey)).json.items.map((i: FeedItem) => i.event.data.TransactionId)).toEqual([live.paymentIntentId]);
    expect((await feed(other)).json.items.map((i: FeedItem) => i.event.data.TransactionId)).toEqual([foreign.paymentIntentId]);
    const foreignEvent = (await listEvents(foreign.paymentIntentId))[0]!.eventId;
    expect(await feed(m, `?startingAfter=${foreignEvent}`)).toMatchObject({ status: 400, json: { status: 400, title: 'Bad Request' } });
    const liveEvent = (await listEvents(live.paymentIntentId))[0]!.eventId;
    expect((await feed(m, `?startingAfter=${liveEvent}`)).status).toBe(400);
  });

  it('resends an event and shows its attempts as soon as the feed lists it, before the pipeline has relayed it', async () => {
    const m = await newMerchant({ name: 'Resend Merchant', webhookUrl: hook.url, allowInsecureWebhooks: true });
    const intent = await seedIntent(m.merchantId, 'test');
    expect((await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed', reason: null }))).changed).toBe(true);
    const listed = await feed(m);
    expect(listed.status).toBe(200);
    const eventId = (listed.json.items as FeedItem[])[0]!.eventId;
    const attempts = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${eventId}/attempts`, { key: m.test.apiKey });
    expect(attempts.status, attempts.text).toBe(200);
    expect(attempts.json).toMatchObject({ eventId, paymentIntentId: intent.paymentIntentId, items: [] });
    const resent = await call(gw.baseUrl, 'POST', `/Gateway/v1/Events/${eventId}/resend`, { key: m.test.apiKey });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.json).toMatchObject({ eventId, status: 'queued' });
  });

  it('refuses bad queries with a 400 problem', async () => {
    const m = await newMerchant();
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?type=Bogus',
      '?type=RefundStatusChanged,Bogus',
      '?deliveryState=lost',
      '?since=yesterday',
      '?startingAfter=abc',
      '?since=2026-02-02&until=2026-02-01',
      '?colour=red',
    ]) {
      const r = await feed(m, query);
      expect(r.status, query).toBe(400);
      expect(r.json).toMatchObject({ status: 400, title: 'Bad Request', code: expect.any(String) });
    }
  });

  it('stores the envelope deflated, and reads entries written before (an event map) as it always did', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test');
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    const before = await feed(m);
    expect(before.status).toBe(200);
    const [listed] = before.json.items as FeedItem[];
    const key = toItem(keys.eventFeed(listed!.eventId));
    const stored = (await db().send(new GetItemCommand({ TableName: tableName(), Key: key }))).Item!;
    expect(stored.eventZ?.B).toBeInstanceOf(Uint8Array);
    expect(stored.event).toBeUndefined();
    expect(listed!.event).toMatchObject({ id: listed!.eventId, type: 'TransactionStatusChanged', data: { CurrentStatus: 'Completed' } });

    // As written before: the envelope as a map, no eventZ.
    const { eventZ: _z, ...rest } = stored;
    await db().send(new PutItemCommand({ TableName: tableName(), Item: { ...rest, event: toItem({ event: listed!.event }).event! } }));
    const after = await feed(m);
    expect(after.json.items).toEqual(before.json.items);
    expect((await feed(m, `?startingAfter=${listed!.eventId}`)).json.items).toEqual([]);
  });

  it('records an attempt on the delivery item written with the event (its state indexed there), earlier attempts beside it', async () => {
    let calls = 0;
    const flaky = await startReceiver(() => (++calls < 3 ? 500 : 200));
    try {
      const m = await newMerchant({ name: 'Attempts Merchant', webhookUrl: flaky.url, allowInsecureWebhooks: true });
      const intent = await seedIntent(m.merchantId, 'test');
      await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      const [event] = await listEvents(intent.paymentIntentId);
      const deliveryKey = toItem(keys.webhookDelivery({ kind: 'transaction', id: intent.paymentIntentId }, event!.eventId));
      const read = async () =>
        fromItem<Record<string, any>>((await db().send(new GetItemCommand({ TableName: tableName(), Key: deliveryKey }))).Item!);
      // Written with the event: pending, in the feed's state index; the feed entry carries no state.
      expect(await read()).toMatchObject({
        v: 2,
        state: 'pending',
        attempts: 0,
        GSI3PK: expect.stringMatching(/#TransactionStatusChanged#pending$/),
      });
      const entry = (await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(keys.eventFeed(event!.eventId)) }))).Item!;
      expect(entry.GSI3PK).toBeUndefined();
      expect(entry.deliveryState).toBeUndefined();
      expect(ids((await feed(m, '?deliveryState=pending')).json.items)).toEqual([event!.eventId]);

      const message = messageFromItem({ ...event!, entity: 'OutboxEvent' })!;
      // What each attempt's write costs (DynamoDB Local's ReturnConsumedCapacity: table and indexes).
      const units: number[] = [];
      const attempt = async () => {
        let written = 0;
        const stop = captureConsumedCapacity((r) => {
          if (r.command === 'BatchWriteItem') written += r.consumed.reduce((a, c) => a + (c.CapacityUnits ?? 0), 0);
        });
        try {
          return await dispatch(message, ports);
        } finally {
          stop();
          units.push(written);
        }
      };
      expect(await attempt()).toMatchObject({ kind: 'retry', attempt: 1 });
      expect(ids((await feed(m, '?deliveryState=retrying')).json.items)).toEqual([event!.eventId]);
      expect((await feed(m, '?deliveryState=pending')).json.items).toEqual([]);
      expect(await attempt()).toMatchObject({ kind: 'retry', attempt: 2 });
      expect(await attempt()).toMatchObject({ kind: 'delivered', attempt: 3 });
      // Each under 1 KB: a first failure writes the item (1), moves its state entry (2) and enters the due index (1); a
      // retry also puts the attempt it displaces (1) and moves its due entry (2) or leaves the index (1).
      expect(units[0]).toBeLessThanOrEqual(4);
      expect(units.slice(1).every((u) => u <= 5)).toBe(true);

      // The item holds the latest attempt only; the two before it are items of their own.
      const item = await read();
      expect(item).toMatchObject({ v: 2, state: 'delivered', attempts: 3, last: { attempt: 3, outcome: 'delivered', statusCode: 200 } });
      expect(item.log).toBeUndefined();
      expect(item.GSI3PK).toMatch(/#TransactionStatusChanged#delivered$/);
      const earlier = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: toValues({ ':pk': `TXN#${intent.paymentIntentId}`, ':sk': `DELIVERY#${event!.eventId}#ATTEMPT#` }),
        }),
      );
      expect((earlier.Items ?? []).map((i) => fromItem<{ attempt: number; statusCode: number }>(i))).toMatchObject([
        { attempt: 1, statusCode: 500 },
        { attempt: 2, statusCode: 500 },
      ]);
      // The attempts API and the feed show all of it.
      const attempts = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${event!.eventId}/attempts`, { key: m.test.apiKey });
      expect(attempts.json.items.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])).toEqual([
        [1, 'failed'],
        [2, 'failed'],
        [3, 'delivered'],
      ]);
      expect(attempts.json.delivery).toMatchObject({ state: 'delivered', attempts: 3, lastStatusCode: 200 });
      expect((await feed(m)).json.items).toMatchObject([{ eventId: event!.eventId, deliveryState: 'delivered' }]);
      expect(ids((await feed(m, '?deliveryState=delivered')).json.items)).toEqual([event!.eventId]);
      expect((await feed(m, '?deliveryState=retrying')).json.items).toEqual([]);
    } finally {
      await flaky.stop();
    }
  });

  it('reads and keeps current an event written before (its state on its feed entry, no delivery item with it)', async () => {
    const m = await newMerchant({ name: 'Legacy Merchant', webhookUrl: hook.url, allowInsecureWebhooks: true });
    const intent = await seedIntent(m.merchantId, 'test');
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    const [event] = await listEvents(intent.paymentIntentId);
    // As committed before: no delivery item, the feed entry in GSI3 by its state.
    const deliveryKey = toItem(keys.webhookDelivery({ kind: 'transaction', id: intent.paymentIntentId }, event!.eventId));
    await db().send(new DeleteItemCommand({ TableName: tableName(), Key: deliveryKey }));
    const legacy = { eventId: event!.eventId, merchantId: m.merchantId, mode: 'test' as const, type: event!.event.type };
    const entry = { ...legacy, createdAt: event!.createdAt, deliveryState: 'pending' as const, event: event!.event };
    await db().send(new PutItemCommand({ TableName: tableName(), Item: feedEntryItem(entry, new Date())! }));
    expect((await feed(m)).json.items).toMatchObject([{ eventId: event!.eventId, deliveryState: 'pending' }]);
    expect(ids((await feed(m, '?deliveryState=pending')).json.items)).toEqual([event!.eventId]);

    expect(await dispatch(messageFromItem({ ...event!, entity: 'OutboxEvent' })!, ports)).toMatchObject({ kind: 'delivered' });
    // Its delivery item stays as items were (no state index); its feed entry follows the state.
    const item = (await db().send(new GetItemCommand({ TableName: tableName(), Key: deliveryKey }))).Item!;
    expect(item.GSI3PK).toBeUndefined();
    expect(item.log?.L).toHaveLength(1);
    expect((await feed(m)).json.items).toMatchObject([{ eventId: event!.eventId, deliveryState: 'delivered' }]);
    expect(ids((await feed(m, '?deliveryState=delivered')).json.items)).toEqual([event!.eventId]);
    expect((await feed(m, '?deliveryState=pending')).json.items).toEqual([]);
    const attempts = await call(gw.baseUrl, 'GET', `/Gateway/v1/Events/${event!.eventId}/attempts`, { key: m.test.apiKey });
    expect(attempts.json).toMatchObject({ delivery: { state: 'delivered', attempts: 1 }, items: [{ attempt: 1, outcome: 'delivered' }] });
  });

  it('keeps events 30 days: older entries are outside every query, whatever TTL has not removed yet', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test');
    await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    const now = Date.now();
    expect((await pageEventFeed(m.merchantId, 'test', { limit: 10 }, new Date(now + 29 * 86_400_000))).items).toHaveLength(1);
    expect((await pageEventFeed(m.merchantId, 'test', { limit: 10 }, new Date(now + 31 * 86_400_000))).items).toHaveLength(0);
  });
});
