import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';

/**
 * GET /Gateway/v1/Transactions: newest first, filters, cursor paging, isolation, bad parameters;
 * for a merchant on one listing shard and one on five (shared/store/shards.ts: the same order and
 * cursor semantics over merged partitions).
 */
describe.each([1, 5])('transaction list (%i listing shards)', (shards) => {
  const gw = useGateway(routeList);
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 10, 12, minute)).toISOString();

  async function seedMany() {
    const m = await newMerchant();
    if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
    const seeded = [];
    for (let i = 0; i < 7; i++) {
      const intentType = (['checkout', 'deposit', 'withdrawal'] as const)[i % 3];
      seeded.push(await seedIntent(m.merchantId, 'test', { intentType, createdAt: at(i), updatedAt: at(i) }));
    }
    // Two become Completed, one Failed: the status index follows every transition.
    await changeStatus(seeded[0]!.paymentIntentId, () => ({ to: 'Completed' }));
    await changeStatus(seeded[3]!.paymentIntentId, () => ({ to: 'Completed' }));
    await changeStatus(seeded[1]!.paymentIntentId, () => ({ to: 'Failed', reason: 'card_declined' }));
    return { m, seeded };
  }
  const list = (key: string, qs = '') => call(gw.baseUrl, 'GET', `/Gateway/v1/Transactions${qs}`, { key });
  const ids = (r: { json: { items: { paymentIntentId: string }[] } }) => r.json.items.map((t) => t.paymentIntentId);

  it('lists newest first, as the lookup returns them, and pages with startingAfter', async () => {
    const { m, seeded } = await seedMany();
    const newestFirst = [...seeded].reverse().map((s) => s.paymentIntentId);
    const all = await list(m.test.apiKey);
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(newestFirst);
    expect(all.json.hasMore).toBe(false);
    const one = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${seeded[0]!.paymentIntentId}`, { key: m.test.apiKey });
    expect(all.json.items.at(-1)).toEqual(one.json);

    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 10; page++) {
      const r = await list(m.test.apiKey, `?limit=3${after ? `&startingAfter=${after}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...ids(r));
      if (!r.json.hasMore) break;
      expect(r.json.items.length).toBe(3);
      after = seen.at(-1)!;
    }
    expect(seen).toEqual(newestFirst);
  });

  it('filters by status, intentType (also combined and paged), orderRef, from and to', async () => {
    const { m, seeded } = await seedMany();
    const id = (i: number) => seeded[i]!.paymentIntentId;
    expect(ids(await list(m.test.apiKey, '?status=Completed'))).toEqual([id(3), id(0)]);
    expect(ids(await list(m.test.apiKey, '?intentType=checkout'))).toEqual([id(6), id(3), id(0)]);
    expect(ids(await list(m.test.apiKey, '?intentType=checkout&status=Pending'))).toEqual([id(6)]);
    expect(ids(await list(m.test.apiKey, '?status=Pending'))).toEqual([id(6), id(5), id(4), id(2)]);
    const first = await list(m.test.apiKey, '?status=Pending&limit=2');
    expect(ids(first)).toEqual([id(6), id(5)]);
    expect(first.json.hasMore).toBe(true);
    const second = await list(m.test.apiKey, `?status=Pending&limit=2&startingAfter=${id(5)}`);
    expect(ids(second)).toEqual([id(4), id(2)]);
    expect(second.json.hasMore).toBe(false);
    expect(ids(await list(m.test.apiKey, `?orderRef=${seeded[2]!.orderRef.orderRef}`))).toEqual([id(2)]);
    expect(ids(await list(m.test.apiKey, `?orderRef=${seeded[2]!.orderRef.orderRef}&status=Completed`))).toEqual([]);
    expect(ids(await list(m.test.apiKey, `?from=${at(2)}&to=${at(4)}`))).toEqual([id(4), id(3), id(2)]);
    expect(ids(await list(m.test.apiKey, `?from=${at(2)}&to=${at(4)}&intentType=deposit`))).toEqual([id(4)]);
    expect(ids(await list(m.test.apiKey, '?from=2026-01-11'))).toEqual([]);
    expect(ids(await list(m.test.apiKey, '?to=2026-01-10'))).toEqual([...seeded].reverse().map((s) => s.paymentIntentId));
  });

  it('never shows another merchant’s or mode’s transactions, nor accepts them as a cursor', async () => {
    const { m, seeded } = await seedMany();
    const other = await newMerchant();
    await seedIntent(m.merchantId, 'live');
    expect((await list(other.test.apiKey)).json).toEqual({ items: [], hasMore: false });
    expect((await list(m.live.apiKey)).json.items.length).toBe(1);
    expect((await list(m.live.apiKey, '?status=Completed')).json.items).toEqual([]);
    expect((await list(other.test.apiKey, `?orderRef=${seeded[0]!.orderRef.orderRef}`)).json.items).toEqual([]);
    const foreign = await list(other.test.apiKey, `?startingAfter=${seeded[0]!.paymentIntentId}`);
    expect(foreign.status).toBe(400);
    expect(foreign.json.errors).toHaveProperty(['query.startingAfter']);
  });

  it('refuses bad parameters with a 400 naming each one', async () => {
    const m = await newMerchant();
    for (const [qs, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=abc', 'limit'],
      ['?status=Done', 'status'],
      ['?intentType=refund', 'intentType'],
      ['?from=yesterday', 'from'],
      ['?startingAfter=nope', 'startingAfter'],
      ['?from=2026-02-01&to=2026-01-01', 'from'],
      ['?colour=red', 'colour'],
    ] as const) {
      const r = await list(m.test.apiKey, qs);
      expect(r.status, qs).toBe(400);
      expect(Object.keys(r.json.errors ?? {}).join(' '), qs).toContain(field);
    }
    expect((await list('pk_test_nope')).status).toBe(401);
  });
});
