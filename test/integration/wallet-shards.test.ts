import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { resolveBankCode } from '#shared/domain/bank-codes.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { approveWithdrawal, rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { requestWithdrawal } from '#shared/services/withdrawal-requests.ts';
import { reconcileWithdrawal } from '#shared/services/withdrawals.ts';
import { getIntent } from '#shared/store/intents.ts';
import type { Fee } from '#shared/domain/merchant.ts';
import { getMerchant } from '#shared/store/merchants.ts';
import { addDbMiddleware } from '#shared/store/client.ts';
import { commitRequest } from '#shared/store/request.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, listJournals, listWalletCurrencies, rebalanceWallet, withFunds } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { shardBalances, shardItem } from '../support/shards.ts';

/**
 * A big merchant's wallet on N shards (shared/store/wallets.ts, docs/scaling.md): credits spread,
 * holds taken from a shard that has the amount under the no-overdraft condition and released or
 * completed on that shard, the missing part moved into shard 0 when none has it, the balance the
 * exact sum. The same ledger a one-shard merchant has, by every check.
 */
describe('wallet shards', () => {
  const gw = useGateway(routeList);
  const payoutBody = (orderRef: string, autoProcessPayout = false) => ({
    amount: 300,
    currency: 'PKR',
    description: 'Payout',
    autoProcessPayout,
    customerRef: { bankAccountNumber: 'PK36SCBL0000001123450000', bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
    orderRef: { orderRef },
  });
  const withdraw = (m: TestMerchant, orderRef: string, autoProcessPayout = false) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: payoutBody(orderRef, autoProcessPayout),
    });

  /** The service the withdraw endpoint calls, without HTTP (300.00 asked). */
  const withdrawDirect = (m: TestMerchant, fee: Fee, ref: string, autoProcessPayout = false) =>
    commitRequest(
      (place) =>
        requestWithdrawal(
          {
            ...{ merchantId: m.merchantId, mode: 'test', traceId: randomUUID(), fee, amountMinor: 300_00, currency: 'PKR' },
            ...{ description: 'Payout', autoProcessPayout, metadataJson: null, callbackUrl: null },
            orderRef: { orderRef: `${ref}X${m.merchantId.slice(0, 8)}`, discount: null, tax: null },
            ...{ bank: resolveBankCode('MEEZAN')!, accountNumber: 'PK36SCBL0000001123450000', accountTitle: 'Ayesha Khan' },
            ...{ customer: {}, allowInsecureWebhooks: false },
          },
          place,
        ),
      undefined,
      withFunds,
    );

  it('spreads credits over the shards; the balance, the journals, the dashboard list and ledger verify all see the exact sum', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    for (let i = 0; i < 20; i++) await creditTestWallet(m.merchantId, 'test', 100_00, 'PKR');
    const spread = await shardBalances(m.merchantId, 4);
    expect(spread.reduce((a, b) => a + b, 0)).toBe(2000_00);
    expect(spread.filter((b) => b > 0).length).toBeGreaterThan(1);
    expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(2000_00);
    expect((await getWallet(m.merchantId, 'test', 'PKR')).available).toBe(2000_00);
    expect(await listWalletCurrencies(m.merchantId, 'test')).toEqual(['PKR']);
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

  it('places a hold on a shard that has the amount, records it on the intent, and releases it to that shard', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    for (let i = 0; i < 12; i++) await creditTestWallet(m.merchantId, 'test', 313_00, 'PKR');
    const before = await shardBalances(m.merchantId, 4);
    const r = await withdraw(m, `PLACE${m.merchantId.slice(0, 8)}`);
    expect(r.status).toBe(200);
    const intent = (await getIntent(r.json.paymentIntentId))!;
    const shard = intent.walletShard ?? 0;
    expect(before[shard]).toBeGreaterThanOrEqual(313_00); // a shard that had the amount, no rebalance
    const after = await shardBalances(m.merchantId, 4);
    expect(after).toEqual(before.map((b, n) => (n === shard ? b - 313_00 : b)));
    expect((await shardItem(m.merchantId, shard)).held_Withdrawal).toBe(313_00);
    const hold = (await listJournals(m.merchantId, 'test')).find((j) => j.kind === 'withdrawal.hold')!;
    expect(hold.walletShard ?? 0).toBe(shard);

    await rejectWithdrawal(r.json.paymentIntentId, 'not today');
    expect(await shardBalances(m.merchantId, 4)).toEqual(before);
    expect((await shardItem(m.merchantId, shard)).held_Withdrawal).toBe(0);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  });

  it('moves only the missing part into shard 0 when no shard has the amount', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    // 100 credits of 20.00 land on every shard, none near the 1,000.00 + fee asked.
    for (let i = 0; i < 100; i++) await creditTestWallet(m.merchantId, 'test', 20_00, 'PKR');
    const before = await shardBalances(m.merchantId, 4);
    const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { ...payoutBody(`BIG${m.merchantId.slice(0, 8)}`), amount: 1000 },
    });
    expect(r.status).toBe(200);
    const need = Math.round(r.json.totalRequired * 100); // amount + fee
    expect(need).toBeGreaterThan(Math.max(...before));
    expect(r.json.availableBalance).toBe(2000 - r.json.totalRequired);
    expect((await getIntent(r.json.paymentIntentId))!.walletShard ?? 0).toBe(0);
    const after = await shardBalances(m.merchantId, 4);
    expect(after.reduce((a, b) => a + b, 0)).toBe(2000_00 - need);
    expect(after[0]).toBe(0); // shard 0 got exactly what the hold needed
    expect((await shardItem(m.merchantId, 0)).held_Withdrawal).toBe(need);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  });

  it('answers a withdrawal the wallet cannot cover with two transactions when its placement read was stale', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    // Every shard holds whole withdrawals (300 + the 13 fee): the placement read shows all four able to take one.
    for (let i = 0; i < 100 && Math.min(...(await shardBalances(m.merchantId, 4))) < 313_00; i++) {
      await creditTestWallet(m.merchantId, 'test', 313_00, 'PKR');
    }
    expect(Math.min(...(await shardBalances(m.merchantId, 4)))).toBeGreaterThanOrEqual(313_00);
    const fee = (await getMerchant(m.merchantId))!.fees.withdrawal;
    // Right after the withdrawal's placement read, other withdrawals take every shard's funds (as in the race
    // below, where all 200 read the shards before the 10 holds commit); then its transactions are counted.
    let stage: 'armed' | 'draining' | 'counting' = 'armed';
    let transactions = 0;
    let drained = 0;
    const name = 'staleHoldPlacement';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          if (stage === 'counting' && context.commandName === 'TransactWriteItemsCommand') transactions++;
          const out = await next(args);
          if (stage === 'armed' && context.commandName === 'BatchGetItemCommand') {
            stage = 'draining';
            for (; ; drained++) {
              const taken = await withdrawDirect(m, fee, `DRAIN${drained}`).catch((e: { code?: string }) => e);
              if ('code' in taken) break;
            }
            stage = 'counting';
          }
          return out;
        },
        { step: 'initialize', name },
      ),
    );
    let refused: unknown;
    try {
      refused = await withdrawDirect(m, fee, 'STALE').catch((e: unknown) => e);
    } finally {
      removeMiddleware();
    }
    expect(stage).toBe('counting');
    expect((refused as { code?: string }).code).toBe('insufficient_balance');
    expect(await shardBalances(m.merchantId, 4)).toEqual([0, 0, 0, 0]);
    expect(await getWallet(m.merchantId, 'test', 'PKR', true)).toMatchObject({
      available: 0,
      held: drained * 313_00,
      pendingCount: drained,
    });
    // One hold refused on the shard the stale read chose, then (the shards read again: none has it; the
    // snapshot: the whole wallet is short) the final one on shard 0. Trying each shard the stale read showed
    // with funds made four refused transactions before that one.
    expect(transactions).toBe(2);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  });

  it('never overdraws: of 200 concurrent withdrawals against a sharded balance for 10, exactly 10 are accepted', async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    // 10 withdrawals' worth (300 + the 13 fee each), credited in halves, so some holds find a shard
    // with the amount and others need the missing half moved into shard 0.
    for (let i = 0; i < 20; i++) await creditTestWallet(m.merchantId, 'test', 156_50, 'PKR');
    expect((await shardBalances(m.merchantId, 4)).filter((b) => b > 0).length).toBeGreaterThan(1);
    // The service the withdraw endpoint calls, 200 at once: on a loaded machine 200 concurrent HTTP
    // requests outlive the local Lambda emulation's 30 s deadline, which is not what this tests
    // (the one-shard test in withdrawals.test.ts and the test above go through HTTP).
    const fee = (await getMerchant(m.merchantId))!.fees.withdrawal;
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => withdrawDirect(m, fee, `SHARDW${i}`, i % 2 === 0)));
    const accepted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as { code?: string; message?: string }] : []));
    expect(refused.filter((e) => e.code !== 'insufficient_balance').map((e) => `${e.code} ${e.message}`)).toEqual([]);
    expect(accepted.length).toBe(10);
    expect(refused.length).toBe(190);
    for (const r of accepted) expect(r.availableBalance).toBeGreaterThanOrEqual(0);
    expect(await getWallet(m.merchantId, 'test', 'PKR', true)).toMatchObject({ available: 0, held: 10 * 313_00, pendingCount: 10 });
    expect((await shardBalances(m.merchantId, 4)).every((b) => b === 0)).toBe(true);

    // Every hold completes on the shard it was taken from (approved or automatic, then the inquiry).
    for (const r of accepted) if (r.payoutInfo.status === 'Pending') await approveWithdrawal(r.paymentIntentId);
    for (const r of accepted) await reconcileWithdrawal((await getIntent(r.paymentIntentId))!, new Date(Date.now() + 40_000));
    // A shard that never took a hold has no held attributes at all (absent = 0): which shards do is up to the race.
    for (let n = 0; n < 4; n++) {
      const shard = await shardItem(m.merchantId, n);
      expect({ available: shard.available ?? 0, held: shard.held ?? 0, held_Withdrawal: shard.held_Withdrawal ?? 0 }, `shard ${n}`).toEqual(
        {
          available: 0,
          held: 0,
          held_Withdrawal: 0,
        },
      );
    }
    expect(await getWallet(m.merchantId, 'test', 'PKR', true)).toMatchObject({ available: 0, held: 0, pendingCount: 0 });
    const completed = await Promise.all(accepted.map(async (r) => (await getIntent(r.paymentIntentId))!.status));
    expect(completed.every((s) => s === 'Completed')).toBe(true);
    expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
  }, 300_000);
});
