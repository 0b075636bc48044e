import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName, toValues } from '#shared/store/client.ts';
import { pageEventFeed } from '#shared/store/event-feed.ts';
import { backfillIntentIndex, pageIntents } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';
import {
  cacheMs,
  forgetShardConfigs,
  getShardConfig,
  raiseShards,
  readShards,
  shardOf,
  transactionListShards,
  writeShards,
} from '#shared/store/shards.ts';
import { newMerchant } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { useOps } from '../support/ops.ts';

/**
 * A big merchant's listings spread over shards (shared/store/shards.ts, docs/scaling.md): the count
 * is raised without downtime (readers first, writers two cache periods later), data written before
 * stays in shard 0 and is still read, merged lists keep their order and cursor.
 */
const at = (minute: number) => new Date(Date.UTC(2026, 1, 1, 9, minute)).toISOString();

async function gsi1Count(pk: string) {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: toValues({ ':pk': pk }),
      Select: 'COUNT',
    }),
  );
  return out.Count ?? 0;
}

describe('listing shards', () => {
  const ops = useOps();

  it('a merchant never sharded has one shard and the keys it always had', async () => {
    const m = await newMerchant();
    expect(await getShardConfig(m.merchantId, 'test')).toEqual({ shards: 1, previousShards: 1, effectiveAt: null });
    expect(await readShards(m.merchantId, 'test')).toBe(1);
    expect(writeShards(m.merchantId, 'test')).toBe(1);
    const intent = await seedIntent(m.merchantId, 'test');
    expect(await gsi1Count(keys.intentsOfMerchant(m.merchantId, 'test').GSI1PK)).toBe(1);
    expect(keys.intentsOfMerchant(m.merchantId, 'test').GSI1PK).toBe(`MERCHANT#${m.merchantId}#test#TXN`);
    expect((await pageIntents(m.merchantId, 'test', { limit: 10 })).items.map((i) => i.paymentIntentId)).toEqual([intent.paymentIntentId]);
  });

  it('a raise: readers read the new shards at once, writers use them only two cache periods later; never lowered', async () => {
    const m = await newMerchant();
    const now = new Date();
    const c = await raiseShards(m.merchantId, 'test', 8, { now });
    expect(c).toEqual({ shards: 8, previousShards: 1, effectiveAt: new Date(now.getTime() + 2 * cacheMs).toISOString() });
    expect(await readShards(m.merchantId, 'test', now.getTime())).toBe(8);
    expect(writeShards(m.merchantId, 'test', now.getTime())).toBe(1);
    expect(writeShards(m.merchantId, 'test', now.getTime() + 2 * cacheMs)).toBe(8);
    await expect(raiseShards(m.merchantId, 'test', 4)).rejects.toThrow(/only grow/);
    await expect(raiseShards(m.merchantId, 'test', 65)).rejects.toThrow(RangeError);
    // Raised again before the first took effect: writers keep what they wrote so far.
    expect((await raiseShards(m.merchantId, 'test', 16, { now: new Date(now.getTime() + 1000) })).previousShards).toBe(1);
    expect(await getShardConfig(m.merchantId, 'live')).toMatchObject({ shards: 1 });
  });

  it('intents written before a raise stay in shard 0 and are listed with the new ones, newest first, paged by cursor', async () => {
    const m = await newMerchant();
    const seeded = [];
    for (let i = 0; i < 4; i++) seeded.push(await seedIntent(m.merchantId, 'test', { createdAt: at(i), updatedAt: at(i) }));
    await raiseShards(m.merchantId, 'test', 6, { immediate: true });
    for (let i = 4; i < 16; i++)
      seeded.push(
        await seedIntent(m.merchantId, 'test', { intentType: i % 2 ? 'deposit' : 'checkout', createdAt: at(i), updatedAt: at(i) }),
      );
    await changeStatus(seeded[1]!.paymentIntentId, () => ({ to: 'Completed' }));
    await changeStatus(seeded[9]!.paymentIntentId, () => ({ to: 'Completed' }));

    // The new ones are spread: more than one shard holds some, shard 0 holds every old one. The
    // all-transactions listing has twice the partitions (12), the ones by type and status 6.
    expect(transactionListShards(6)).toBe(12);
    const counts = await Promise.all(
      Array.from({ length: 12 }, (_, n) => gsi1Count(keys.intentsOfMerchant(m.merchantId, 'test', n).GSI1PK)),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(16);
    expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
    expect(counts[0]).toBeGreaterThanOrEqual(4);
    for (const s of seeded.slice(4))
      expect(await gsi1Count(keys.intentsOfMerchant(m.merchantId, 'test', shardOf(s.paymentIntentId, 12)).GSI1PK)).toBeGreaterThan(0);

    const newestFirst = [...seeded].reverse().map((s) => s.paymentIntentId);
    expect((await pageIntents(m.merchantId, 'test', { limit: 50 })).items.map((i) => i.paymentIntentId)).toEqual(newestFirst);
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await pageIntents(m.merchantId, 'test', { limit: 5, ...(before ? { before } : {}) });
      seen.push(...r.items.map((i) => i.paymentIntentId));
      if (!r.hasMore) break;
      const last = r.items.at(-1)!;
      before = `${last.createdAt}#${last.paymentIntentId}`;
    }
    expect(seen).toEqual(newestFirst);
    expect((await pageIntents(m.merchantId, 'test', { status: 'Completed', limit: 10 })).items.map((i) => i.paymentIntentId)).toEqual([
      seeded[9]!.paymentIntentId,
      seeded[1]!.paymentIntentId,
    ]);
    // 6 deposits, one Completed
    expect((await pageIntents(m.merchantId, 'test', { intentType: 'deposit', status: 'Pending', limit: 50 })).items).toHaveLength(5);

    // The GSI3 backfill (ops migrate-transaction-index) leaves sharded keys where they are.
    const before3 = (await pageIntents(m.merchantId, 'test', { status: 'Pending', limit: 50 })).items.length;
    await backfillIntentIndex();
    expect((await pageIntents(m.merchantId, 'test', { status: 'Pending', limit: 50 })).items.length).toBe(before3);
  });

  it('the events feed of a sharded merchant lists every event newest first', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    const intents = [];
    for (let i = 0; i < 8; i++) intents.push(await seedIntent(m.merchantId, 'test'));
    const events = [];
    for (const intent of intents) {
      const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      if (change.changed) events.push(change.transition.event.id);
    }
    const feed = await pageEventFeed(m.merchantId, 'test', { limit: 20 });
    expect(feed.items.map((e) => e.eventId).sort()).toEqual([...events].sort());
    const sk = feed.items.map((e) => `${e.createdAt}#${e.eventId}`);
    expect(sk).toEqual([...sk].sort().reverse());
  });

  it('ops shards raise / show: raises for a merchant, refuses to lower', async () => {
    const m = await newMerchant();
    const raised = await ops('shards', 'raise', '--merchant', m.merchantId, '--mode', 'live', '--shards', '4', '--json');
    expect(raised.json).toMatchObject({ merchantId: m.merchantId, mode: 'live', shards: 4, previousShards: 1 });
    expect((await ops('shards', 'show', '--merchant', m.merchantId, '--mode', 'live', '--json')).json).toMatchObject({ shards: 4 });
    const lower = await ops('shards', 'raise', '--merchant', m.merchantId, '--mode', 'live', '--shards', '2');
    expect('failed' in lower && lower.failed).toBe(true);
    forgetShardConfigs();
    expect(await readShards(m.merchantId, 'live')).toBe(4);
  });
});
