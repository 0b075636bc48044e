import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { hashApiKey } from '#shared/domain/credentials.ts';
import { refundsOfMerchant } from '#shared/services/refund-requests.ts';
import { db, fromItem, tableName, toItem } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { getApiKeyById, keyUseIntervalMs, recordKeyUse } from '#shared/store/merchants.ts';
import { raiseShards, shardOf } from '#shared/store/shards.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';
import { useOps } from '../support/ops.ts';

/**
 * The dashboard's merchant-wide refunds list (GSI3 `MERCHANT#<id>#<mode>#REFUND`, cursor paging,
 * `ops migrate-refund-index` for refunds written before it) and an API key's last-used time
 * (written at most once per interval, beside the request).
 */
describe('refunds of a merchant; API key last used', () => {
  const gw = useGateway(routeList);
  const ops = useOps();
  const refund = async (m: TestMerchant, amount: number) => {
    const payment = await completedPayment(m.merchantId, 'test', 200_00);
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { trxnRef: payment.paymentIntentId, amount, reason: `refund ${amount}` },
    });
    expect(r.status, r.text).toBe(201);
    return r.json.id as string;
  };
  const ids = (page: Awaited<ReturnType<typeof refundsOfMerchant>>) => (page === 'invalid_cursor' ? page : page.items.map((r) => r.id));

  it('lists every refund of the merchant and mode, newest first, page by page; other merchants and modes stay out', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const made = [];
    for (const amount of [11, 12, 13]) made.push(await refund(m, amount));
    const theirs = await refund(other, 20);

    const first = await refundsOfMerchant(m.merchantId, 'test', { limit: 2 });
    expect(ids(first)).toEqual([made[2], made[1]]);
    expect(first !== 'invalid_cursor' && first.hasMore).toBe(true);
    const second = await refundsOfMerchant(m.merchantId, 'test', { limit: 2, startingAfter: made[1]! });
    expect(ids(second)).toEqual([made[0]]);
    expect(second !== 'invalid_cursor' && second.hasMore).toBe(false);
    expect(second !== 'invalid_cursor' && second.items[0]).toMatchObject({ amount: 11, currency: 'PKR', status: 0, reason: 'refund 11' });

    expect(ids(await refundsOfMerchant(m.merchantId, 'live', { limit: 10 }))).toEqual([]);
    expect(ids(await refundsOfMerchant(other.merchantId, 'test', { limit: 10 }))).toEqual([theirs]);
    // Another merchant's refund (or the other mode's view of one) is not a cursor.
    expect(await refundsOfMerchant(m.merchantId, 'test', { limit: 2, startingAfter: theirs })).toBe('invalid_cursor');
    expect(await refundsOfMerchant(m.merchantId, 'live', { limit: 2, startingAfter: made[0]! })).toBe('invalid_cursor');
  });

  it('a sharded merchant: refunds spread over its listing shards by id, those from before stay in shard 0, one list in order', async () => {
    const m = await newMerchant();
    const before = [await refund(m, 21), await refund(m, 22)];
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    const after = [];
    for (const amount of [23, 24, 25, 26, 27, 28]) after.push(await refund(m, amount));
    const stored = async (id: string) =>
      fromItem<{ GSI3PK: string }>((await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(keys.refund(id)) }))).Item!)
        .GSI3PK;
    const base = `MERCHANT#${m.merchantId}#test#REFUND`;
    for (const id of before) expect(await stored(id)).toBe(base);
    for (const id of after) expect(await stored(id)).toBe(keys.refundOfMerchant(m.merchantId, 'test', '', '', shardOf(id, 4)).GSI3PK);

    // Newest first across the shards, page by page (limit 3), the cursor excluded on every shard.
    const made = [...before, ...after].reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 4; page++) {
      const p = await refundsOfMerchant(m.merchantId, 'test', { limit: 3, ...(cursor ? { startingAfter: cursor } : {}) });
      if (p === 'invalid_cursor') throw new Error('invalid cursor');
      seen.push(...p.items.map((r) => r.id));
      cursor = seen.at(-1);
      expect(p.hasMore).toBe(seen.length < made.length);
      if (!p.hasMore) break;
    }
    expect(seen).toEqual(made);
  });

  it('ops migrate-refund-index gives refunds written before the list their keys; re-running changes nothing', async () => {
    const m = await newMerchant();
    const old = await refund(m, 15);
    const indexed = await refund(m, 16);
    // As written before the merchant-wide list existed: no GSI3 keys.
    await db().send(
      new UpdateItemCommand({ TableName: tableName(), Key: toItem(keys.refund(old)), UpdateExpression: 'REMOVE GSI3PK, GSI3SK' }),
    );
    expect(ids(await refundsOfMerchant(m.merchantId, 'test', { limit: 10 }))).toEqual([indexed]);

    const run = await ops('migrate-refund-index', '--json');
    expect(run.json, run.stderr).toMatchObject({ updated: expect.any(Number) });
    expect(run.json.updated).toBeGreaterThanOrEqual(1);
    expect(ids(await refundsOfMerchant(m.merchantId, 'test', { limit: 10 }))).toEqual([indexed, old]);
    const again = await ops('migrate-refund-index');
    expect(again.stdout).toMatch(/Indexed \d+ refund\(s\)/);
    expect(ids(await refundsOfMerchant(m.merchantId, 'test', { limit: 10 }))).toEqual([indexed, old]);
  });

  it("records a key's last use on its first request and at most once per interval after that, on read-only routes too", async () => {
    const m = await newMerchant();
    expect((await getApiKeyById(m.test.keyId))?.lastUsedAt).toBeUndefined();
    const before = Date.now();
    const read = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?limit=1', { key: m.test.apiKey });
    expect(read.status).toBe(200);
    const first = (await getApiKeyById(m.test.keyId))?.lastUsedAt;
    expect(first).toBeDefined();
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(before - 1000);

    // Within the interval a request writes nothing (the stored value stays as it was).
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey })).status).toBe(200);
    expect((await getApiKeyById(m.test.keyId))?.lastUsedAt).toBe(first);
    // A refused key (wrong mode) is not a use of the live key; the test key is untouched too.
    expect((await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions?limit=1', { key: `${m.live.apiKey}x` })).status).toBe(401);
    expect((await getApiKeyById(m.live.keyId))?.lastUsedAt).toBeUndefined();

    // The conditional write: refused while the stored value is fresh, applied once it is older than the interval.
    const hash = hashApiKey(m.test.apiKey);
    expect(await recordKeyUse(hash, new Date(Date.parse(first!) + 1000))).toBe(false);
    const later = new Date(Date.parse(first!) + keyUseIntervalMs + 1000);
    expect(await recordKeyUse(hash, later)).toBe(true);
    expect(await recordKeyUse(hash, later)).toBe(false);
    expect((await getApiKeyById(m.test.keyId))?.lastUsedAt).toBe(later.toISOString());
  });
});
