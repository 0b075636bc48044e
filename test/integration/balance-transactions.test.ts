import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { balanceMovement, balanceTransactionId } from '#shared/domain/balance-transaction.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { backfillJournalIndex } from '#shared/store/balance-transactions.ts';
import { db, tableName, toItem } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, listJournals } from '#shared/store/wallets.ts';
import { Gateway } from '../../sdk/node/src/client.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { mixedHistory } from '../support/mixed-history.ts';

/**
 * GET /Gateway/v1/BalanceTransactions (issue 28 §1): one item per journal, equal to the journal, for a
 * mixed history (card payments and a deposit with fees, an operator credit, a payout completed and one
 * rejected, a partial refund, a settlement) on a one-shard and a 4-shard merchant; filters by type,
 * source and time come from their indexes; the cursor and the SDK's auto-paging walk every item once.
 */
describe('balance transactions', () => {
  const gw = useGateway(routeList);
  const get = (m: TestMerchant, query: string) =>
    call(gw.baseUrl, 'GET', `/Gateway/v1/BalanceTransactions${query}`, { key: m.test.apiKey });

  for (const shards of [1, 4]) {
    it(`equal the journal for a mixed history (${shards} shard${shards > 1 ? 's' : ''}), filters, cursor, auto-paging`, async () => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      const ids = await mixedHistory(gw.baseUrl, m);
      expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);

      const journals = (await listJournals(m.merchantId, 'test')).reverse(); // newest first
      const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
      const all = await get(m, '?limit=100');
      expect(all.status).toBe(200);
      expect(all.json.hasMore).toBe(false);
      const items = all.json.items as Record<string, any>[];
      // One item per journal, in journal order, each equal to its journal's lines.
      expect(items.map((b) => b.id)).toEqual(journals.map((j) => balanceTransactionId(j.createdAt, j.journalId)));
      let after = wallet.available;
      for (const [n, j] of journals.entries()) {
        const b = balanceMovement(j);
        expect(items[n]).toEqual({
          id: balanceTransactionId(j.createdAt, j.journalId),
          type: b.type,
          source: { type: b.source.type, id: j.reference },
          amount: fromMinor(b.amountMinor, 'PKR'),
          fee: fromMinor(b.feeMinor, 'PKR'),
          net: fromMinor(b.netMinor, 'PKR'),
          availableChange: fromMinor(b.availableChangeMinor, 'PKR'),
          pendingChange: fromMinor(b.pendingChangeMinor, 'PKR'),
          currency: 'PKR',
          createdAt: j.createdAt,
          availableBalanceAfter: fromMinor(after, 'PKR'),
        });
        after -= b.availableChangeMinor;
      }
      expect(after).toBe(0); // the oldest movement started from an empty wallet
      const sum = (f: string) => Math.round(items.reduce((a, b) => a + b[f] * 100, 0));
      expect(sum('availableChange')).toBe(wallet.available);
      expect(sum('pendingChange')).toBe(wallet.held);
      expect(sum('net')).toBe(wallet.available + wallet.held);
      expect(items.map((b) => b.type).sort()).toEqual(
        [
          'adjustment',
          'payment',
          'payment',
          'deposit',
          'payout',
          'payout_paid',
          'payout',
          'payout_failure',
          'refund',
          'refund_paid',
          'settlement',
          'settlement_paid',
        ].sort(),
      );
      // Known figures: the card payment, the partial refund, the completed payout.
      expect(items.find((b) => b.type === 'payment' && b.source.id === ids.card.paymentIntentId)).toMatchObject({
        amount: 1500,
        fee: 37.5,
        net: 1462.5,
        availableChange: 1462.5,
      });
      expect(items.find((b) => b.type === 'refund_paid')).toMatchObject({ source: { type: 'refund', id: ids.refund }, amount: -40 });
      expect(items.find((b) => b.type === 'payout')).toMatchObject({ amount: 0, pendingChange: expect.any(Number) });

      // Filters: by type (GSI3), by source (GSI1), by time (the key range).
      const payouts = await get(m, '?type=payout_failure');
      expect(payouts.json.items.map((b: any) => b.source.id)).toEqual([ids.failed]);
      const ofPayout = await get(m, `?sourceId=${ids.payout}`);
      expect(ofPayout.json.items.map((b: any) => b.type)).toEqual(['payout_paid', 'payout']);
      const heldOnly = await get(m, `?sourceId=${ids.settlement}&type=settlement`);
      expect(heldOnly.json.items.map((b: any) => b.type)).toEqual(['settlement']);
      const since = journals[3]!.createdAt;
      const recent = await get(m, `?from=${encodeURIComponent(since)}&limit=100`);
      expect(recent.json.items.map((b: any) => b.id)).toEqual(items.filter((b) => b.createdAt >= since).map((b) => b.id));

      // Cursor: pages of 5 walk every item once, in order, with the same running balance.
      const paged: Record<string, any>[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const r = await get(m, `?limit=5${cursor ? `&startingAfter=${cursor}` : ''}`);
        paged.push(...r.json.items);
        if (!r.json.hasMore) break;
        cursor = r.json.items.at(-1).id;
      }
      expect(paged).toEqual(items);
      // The SDK's auto-paging gives the same.
      const gateway = new Gateway({ apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl });
      const viaSdk: unknown[] = [];
      for await (const b of gateway.balanceTransactions.all({ limit: 3 })) viaSdk.push(b);
      expect(viaSdk).toEqual(items);

      const bad = await get(m, '?startingAfter=nope');
      expect(bad.status).toBe(400);
      expect((await get(m, '?type=unknown')).status).toBe(400);
    }, 120_000);
  }

  it('finds journals posted before the index by type and source once `ops migrate-balance-index` ran (idempotent)', async () => {
    const m = await newMerchant();
    const credit = await creditTestWallet(m.merchantId, 'test', 75_00, 'PKR');
    const [old] = await listJournals(m.merchantId, 'test');
    // As a journal posted before this change: no index keys.
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.journal(m.merchantId, 'test', old!.createdAt, old!.journalId)),
        UpdateExpression: 'REMOVE GSI1PK, GSI1SK, GSI3PK, GSI3SK',
      }),
    );
    expect((await get(m, '?type=adjustment')).json.items).toEqual([]);
    expect((await get(m, '')).json.items).toHaveLength(1); // the time listing needs no index
    expect(await backfillJournalIndex()).toBeGreaterThanOrEqual(1);
    const found = await get(m, '?type=adjustment');
    expect(found.json.items.map((b: any) => b.id)).toEqual([balanceTransactionId(old!.createdAt, credit.journalId)]);
    expect((await get(m, `?sourceId=${encodeURIComponent(old!.reference)}`)).json.items).toHaveLength(1);
    expect(await backfillJournalIndex()).toBe(0);
  }, 60_000);
});
