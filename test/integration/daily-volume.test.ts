import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { homeSummary } from '#shared/services/dashboard.ts';
import { db, tableName, toValues } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { changeStatus, seedIntent } from '../support/intents.ts';
import { completedPayment } from '../support/money.ts';

/**
 * Daily volume aggregates (shared/store/daily-volume.ts, docs/access-patterns.md V1-V2) on DynamoDB
 * Local: written in the transaction that makes a payment Completed, so counted exactly once however
 * often or concurrently the outcome is applied; read for Home's 30-day chart and today's figure with
 * one Query per shard, never from the transactions.
 */
describe('daily payment volume (dashboard Home)', () => {
  useGateway(routeList);
  const day = (daysAgo: number, now = new Date()) => new Date(now.getTime() - daysAgo * 86_400_000);
  const pkr = (s: Awaited<ReturnType<typeof homeSummary>>) => s.volume.find((v) => v.currency === 'PKR')!;

  it('counts completed checkouts and deposits once each, per UTC day, in this mode only; payouts and failures not at all', async () => {
    const m = await newMerchant();
    await completedPayment(m.merchantId, 'test', 100_00);
    await completedPayment(m.merchantId, 'test', 250_50, { intentType: 'deposit' });
    await completedPayment(m.merchantId, 'test', 999_00, { intentType: 'withdrawal' }); // made Failed: a payout never counts
    await completedPayment(m.merchantId, 'live', 77_00);
    const failed = await seedIntent(m.merchantId, 'test', { amountMinor: 5_00 });
    await changeStatus(failed.paymentIntentId, () => ({ to: 'Failed' }));
    // Two days ago, and 40 days ago (outside the chart).
    for (const [daysAgo, amountMinor] of [
      [2, 40_00],
      [40, 1_000_00],
    ] as const) {
      // Made then too: an intent's updatedAt never moves backwards (touchedAt), so the day is its own.
      const then = day(daysAgo).toISOString();
      const old = await seedIntent(m.merchantId, 'test', { amountMinor, createdAt: then, updatedAt: then });
      await changeStatus(
        old.paymentIntentId,
        () => ({ to: 'Completed' }),
        () => day(daysAgo),
      );
    }

    const s = await homeSummary(m.merchantId, 'test');
    expect(s.today).toEqual({ count: 2, volume: [{ currency: 'PKR', amount: 350.5 }] });
    const chart = pkr(s);
    expect(chart.days).toHaveLength(30);
    expect(chart.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), count: 2, amount: 350.5 });
    expect(chart.days.at(-3)).toEqual({ day: day(2).toISOString().slice(0, 10), count: 1, amount: 40 });
    expect(chart.days.filter((d) => d.count > 0)).toHaveLength(2);
    expect(chart).toMatchObject({ count: 3, total: 390.5, peak: 350.5 });
    expect((await homeSummary(m.merchantId, 'live')).today).toEqual({ count: 1, volume: [{ currency: 'PKR', amount: 77 }] });
  });

  it('an outcome applied again, or twice at once, is counted once (the status change and the aggregate commit together)', async () => {
    const m = await newMerchant();
    const intent = await seedIntent(m.merchantId, 'test', { amountMinor: 12_00 });
    const racing = await Promise.all(Array.from({ length: 4 }, () => changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }))));
    expect(racing.filter((r) => r.changed)).toHaveLength(1);
    expect((await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }))).changed).toBe(false);
    expect((await homeSummary(m.merchantId, 'test')).today).toEqual({ count: 1, volume: [{ currency: 'PKR', amount: 12 }] });
  });

  it("a sharded merchant's completions spread over its shards and are summed back", async () => {
    const m = await newMerchant();
    await raiseShards(m.merchantId, 'test', 4, { immediate: true });
    for (let i = 0; i < 12; i++) {
      const intent = await seedIntent(m.merchantId, 'test', { amountMinor: 10_00 });
      await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
    }
    const today = new Date().toISOString().slice(0, 10);
    const perShard = await Promise.all(
      [0, 1, 2, 3].map(async (shard) => {
        const k = keys.dailyVolume(m.merchantId, 'test', today, 'PKR', shard);
        const out = await db().send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND SK = :sk',
            ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SK }),
          }),
        );
        return Number(out.Items?.[0]?.count?.N ?? 0);
      }),
    );
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(12);
    expect(perShard.filter((c) => c > 0).length).toBeGreaterThan(1);
    expect((await homeSummary(m.merchantId, 'test')).today).toEqual({ count: 12, volume: [{ currency: 'PKR', amount: 120 }] });
  });
});
