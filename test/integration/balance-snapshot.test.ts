import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { walletBalance } from '#shared/services/balance.ts';
import { homeSummary } from '#shared/services/dashboard.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { forgetShardConfigs, maxShards, raiseShards, shardOf } from '#shared/store/shards.ts';
import { getWallet, rebalanceWallet } from '#shared/store/wallets.ts';
import { shardBalances } from '../support/shards.ts';
import { call, newMerchant, useGateway } from '../support/gateway.ts';

/**
 * Issue 28 §0: every balance shown of a sharded merchant is one that existed. Moves between shards
 * (one TransactWriteItems each, the same kind a hold makes when it gathers its amount into one shard)
 * never change the total, so while only moves run, every read of the balance (the API's query-balance,
 * its service, the dashboard's home) must show exactly the total. A read of the shards that is not a
 * snapshot (the BatchGetItem it was) sees some moves half done: money counted twice or not at all.
 */
describe('a sharded balance read under moves', () => {
  const gw = useGateway(routeList);

  it('reads every shard in one TransactGetItems: the most shards a merchant can have fit its 100 items', () => {
    expect(maxShards).toBeLessThanOrEqual(100);
  });

  for (const shards of [4, 16]) {
    it(`reads ${shards} shards as one snapshot: every balance read while moves run equals the conserved total`, async () => {
      const m = await newMerchant();
      await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      for (let i = 0; i < 2 * shards; i++) await creditTestWallet(m.merchantId, 'test', 61_50 + i, 'PKR');
      const total = Array.from({ length: 2 * shards }, (_, i) => 61_50 + i).reduce((a, b) => a + b, 0);

      let moving = true;
      let moved = 0;
      const movers = Array.from({ length: 3 }, async (_, worker) => {
        for (let round = 0; moving && round < 400; round++) {
          // Everything into one shard, then into another: each move empties shards and fills one.
          const into = (round * 3 + worker) % shards;
          if ((await rebalanceWallet(m.merchantId, 'test', 'PKR', { into })) > 0) moved++;
        }
      });
      const seen: number[] = [];
      const readers = Array.from({ length: 3 }, async (_, reader) => {
        for (let i = 0; i < (reader === 2 ? 10 : 40); i++) {
          if (reader === 0) {
            const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey });
            expect(r.status).toBe(200);
            seen.push(Math.round(r.json.availableBalance * 100), Math.round(r.json.currentBalance * 100));
          } else if (reader === 1) {
            const b = await walletBalance(m.merchantId, 'test', 'PKR');
            seen.push(Math.round(b.availableBalance * 100));
          } else {
            const home = await homeSummary(m.merchantId, 'test');
            seen.push(...home.balances.map((b) => Math.round(b.availableBalance * 100)));
          }
        }
      });
      await Promise.all(readers);
      moving = false;
      await Promise.all(movers);

      expect(moved).toBeGreaterThan(0); // the reads did race real moves
      expect(seen.length).toBeGreaterThanOrEqual(130);
      expect(seen.filter((b) => b !== total)).toEqual([]);
      expect(Math.round((await walletBalance(m.merchantId, 'test', 'PKR')).availableBalance * 100)).toBe(total);
    }, 180_000);
  }

  it('spreads operator credits (`ops wallet credit`) over the shards, even from a fresh process (no shard count cached)', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    const expected = [0, 0, 0, 0];
    for (let i = 0; i < 8; i++) {
      forgetShardConfigs(); // what every `npm run ops` process starts with
      const credit = await creditTestWallet(m.merchantId, 'test', 10_00 + i, 'PKR');
      expected[shardOf(credit.journalId, 4)]! += 10_00 + i;
    }
    expect(expected.filter((b) => b > 0).length).toBeGreaterThan(1);
    expect(await shardBalances(m.merchantId, 4)).toEqual(expected);
    expect((await getWallet(m.merchantId, 'test', 'PKR')).available).toBe(expected.reduce((a, b) => a + b, 0));
  });
});
