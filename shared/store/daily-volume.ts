import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import type { Currency } from '#shared/domain/money.ts';
import { named, queryAll, toValues, type TxItem } from './client.ts';
import { updateEntry } from './entity.ts';
import * as keys from './keys.ts';
import { readShards, shardOf, writeShards } from './shards.ts';

/**
 * Daily payment volume (docs/access-patterns.md V1-V2): the dashboard's Home chart and "today" read
 * a merchant's completed volume per UTC day, mode and currency from aggregate items, never from the
 * transactions themselves.
 *
 * Exact and idempotent by construction: the aggregate's ADD is one more write in the SAME
 * TransactWriteItems as the status change to Completed (transitionWrites), whose condition
 * (`status = :from AND version = :v`) lets exactly one change to Completed ever commit. A retried or
 * raced outcome re-reads, finds the payment Completed and writes nothing, so there is no event to
 * process twice and no marker to keep (a stream consumer would need both, and would lag).
 *
 * Contention: that transaction already credits the merchant's wallet (a shard of it, for a big
 * merchant). The aggregate is spread the same way: one item per (day, currency) and wallet shard,
 * chosen by the payment id among the shards writers use, so completions meet on an aggregate item no
 * more often than on a wallet shard, and the partition gains one small item write per completion
 * (docs/scaling.md). A reader sums the day's items over every shard it reads.
 *
 *   item  PK MERCHANT#<id>[#SHARD#<n>]  SK DAILY#<mode>#<yyyy-mm-dd>#<currency>  { count, amountMinor, feeMinor }
 */
export interface DailyVolume {
  day: string;
  currency: Currency;
  count: number;
  amountMinor: number;
  feeMinor: number;
}

/** Payments that count as volume: money in (checkouts and deposits), not payouts. */
export const countsAsVolume = (intent: Pick<PaymentIntent, 'intentType'>) => intent.intentType !== 'withdrawal';

/** Access pattern V1: the ADD for a payment becoming Completed at `at`, for the status change's transaction. */
export function dailyVolumeWrite(completed: PaymentIntent, at: string): TxItem {
  const shard = shardOf(completed.paymentIntentId, writeShards(completed.merchantId, completed.mode));
  const { merchantId, mode, currency } = completed;
  const day = at.slice(0, 10);
  return named(
    'dailyVolume',
    updateEntry('DailyVolume', keys.dailyVolume(merchantId, mode, day, currency, shard), {
      set: { day, currency },
      add: { count: 1, amountMinor: completed.amountMinor, feeMinor: completed.feeMinor },
      upsert: true,
    }),
  );
}

/**
 * Access pattern V2: a merchant's daily volumes in one mode from `fromDay` to `toDay` (inclusive,
 * `yyyy-mm-dd`), summed over its shards: one Query per shard (at most days × currencies items each).
 */
export async function dailyVolumes(merchantId: string, mode: Mode, fromDay: string, toDay: string): Promise<DailyVolume[]> {
  const shards = await readShards(merchantId, mode);
  const reads = Array.from({ length: shards }, (_, shard) => {
    const k = keys.dailyVolumesOfMerchant(merchantId, mode, shard);
    return queryAll<DailyVolume>({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: toValues({ ':pk': k.PK, ':lo': `${k.SKPrefix}${fromDay}`, ':hi': `${k.SKPrefix}${toDay}#\uffff` }),
    });
  });
  const sums = new Map<string, DailyVolume>();
  for (const item of (await Promise.all(reads)).flat()) {
    const key = `${item.day}#${item.currency}`;
    const sum = sums.get(key) ?? { day: item.day, currency: item.currency, count: 0, amountMinor: 0, feeMinor: 0 };
    sum.count += item.count ?? 0;
    sum.amountMinor += item.amountMinor ?? 0;
    sum.feeMinor += item.feeMinor ?? 0;
    sums.set(key, sum);
  }
  return [...sums.values()].sort((a, b) => (a.day === b.day ? a.currency.localeCompare(b.currency) : a.day < b.day ? -1 : 1));
}
