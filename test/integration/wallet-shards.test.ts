import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { db, fromItem, tableName, toItem } from '#shared/store/client.ts';
import { keys } from '#shared/store/keys.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, listJournals, listWallets, rebalanceWallet } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

/**
 * A big merchant's wallet on N shards (shared/store/wallets.ts, docs/scaling.md): credits spread,
 * debits and holds on shard 0 under the no-overdraft condition, the balance the exact sum, a
 * rebalance when shard 0 runs short. The same ledger a one-shard merchant has, by every check.
 */
async function shardBalances(merchantId: string, shards: number) {
  const out = [];
  for (let n = 0; n < shards; n++) {
    const r = await db().send(
      new GetItemCommand({ TableName: tableName(), Key: toItem(keys.walletShard(merchantId, 'test', 'PKR', n)), ConsistentRead: true }),
    );
    out.push(r.Item ? (fromItem<{ available?: number }>(r.Item).available ?? 0) : 0);
  }
  return out;
}

describe('wallet shards', () => {
  const gw = useGateway(routeList);
  const withdraw = (m: TestMerchant, orderRef: string) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: {
        amount: 300,
        currency: 'PKR',
        description: 'Payout',
        autoProcessPayout: false,
        customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef },
      },
    });

  it('spreads credits over the shards; the balance, the journals, the dashboard list and ledger verify all see the exact sum', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    for (let i = 0; i < 20; i++) await creditTestWallet(m.merchantId, 'test', 100_00, 'PKR');
    const spread = await shardBalances(m.merchantId, 4);
    expect(spread.reduce((a, b) => a + b, 0)).toBe(2000_00);
    expect(spread.filter((b) => b > 0).length).toBeGreaterThan(1);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00);
    expect((await getWallet(m.merchantId, 'test', 'PKR')).available).toBe(2000_00);
    expect((await listWallets(m.merchantId, 'test')).map((w) => [w.currency, w.available])).toEqual([['PKR', 2000_00]]);
    expect(await listJournals(m.merchantId, 'test')).toHaveLength(20);
    const balance = await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey });
    expect(balance.json.availableBalance).toBe(2000);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);

    // A rebalance moves every credit shard into shard 0; the sum does not change.
    const moved = await rebalanceWallet(m.merchantId, 'test', 'PKR');
    expect(moved).toBe(2000_00 - spread[0]!);
    expect(await shardBalances(m.merchantId, 4)).toEqual([2000_00, 0, 0, 0]);
    expect(await rebalanceWallet(m.merchantId, 'test', 'PKR')).toBe(0);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  });

  it('never overdraws: of 50 concurrent withdrawals against a sharded balance for 10, exactly 10 are accepted', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    // 10 withdrawals' worth (300 + the 13 fee each), credited in pieces that land on several shards.
    for (let i = 0; i < 10; i++) await creditTestWallet(m.merchantId, 'test', 313_00, 'PKR');
    expect((await shardBalances(m.merchantId, 4)).filter((b) => b > 0).length).toBeGreaterThan(1);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => withdraw(m, `SHARDW${i}X${m.merchantId.slice(0, 8)}`)));
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 422);
    expect(accepted.length).toBe(10);
    expect(refused.length).toBe(40);
    for (const r of refused) expect(r.json.code).toBe('insufficient_balance');
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(wallet).toMatchObject({ available: 0, held: 10 * 313_00, pendingCount: 10 });
    expect((await shardBalances(m.merchantId, 4)).every((b) => b === 0)).toBe(true);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  }, 120_000);
});
