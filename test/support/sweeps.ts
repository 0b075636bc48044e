import type { Mode } from '#shared/domain/credentials.ts';
import { processDue } from '#shared/services/due.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { listIntentsOfMerchant } from '#shared/store/intents.ts';
import * as keys from '#shared/store/keys.ts';

/**
 * The due sweeps of one merchant at `at` (its due intents; of the money items only `moneyIds`, its
 * refunds and settlements), as the due sweeper would handle them. Only the due index partitions
 * these items can sit in are read: every intent of the merchant (also one whose id a crash lost) is
 * in its listing, and the money items are named. So what is swept is what a pass over all 32
 * partitions of each index would find for them, in a few queries instead of 64: on DynamoDB Local
 * those 64 mostly empty queries cost more CPU than the flows that sweep
 * (test/faults/checkouts-crashes.faults.test.ts: 41.7 s of CPU -> 32.9 s). Written without vitest:
 * the fault tests' child process sweeps too.
 */
export async function sweepMerchant(at: Date, merchantId: string, mode: Mode, moneyIds: Iterable<string>) {
  const partitions = (ids: Iterable<string>, key: (id: string, dueAt: string) => { GSI2PK: string }) => [
    ...new Set([...ids].map((id) => key(id, at.toISOString()).GSI2PK)),
  ];
  const intents = (await listIntentsOfMerchant(merchantId, mode)).map((i) => i.paymentIntentId);
  await processDue(at, (i) => i.merchantId === merchantId, partitions(intents, keys.due));
  const mine = new Set(moneyIds);
  await processDueSettlementsAndRefunds(at, (item) => mine.has(item.id), partitions(mine, keys.moneyDue));
}

/** How many intents per mode the listing below reads: a merchant with more is swept over all 32 partitions. */
const listingLimit = 200;

/**
 * The due sweep of one merchant's intents at `at` (both modes), as the due sweeper's pass would handle
 * them: processDue over the due index partitions its intents sit in, the same per-partition reads
 * as a pass over all 32 minus those holding none of them (see `sweepMerchant`). Tests that poll a
 * sweep until a provider answers made thousands of mostly empty queries over all 32
 * (test/integration/live-providers.test.ts: 6,720 in one file). Returns how many it handled.
 */
export async function sweepIntentsOf(at: Date, merchantId: string): Promise<number> {
  const listed = await Promise.all((['test', 'live'] as const).map((mode) => listIntentsOfMerchant(merchantId, mode, listingLimit)));
  const complete = listed.every((intents) => intents.length < listingLimit);
  const partitions = [...new Set(listed.flat().map((i) => keys.due(i.paymentIntentId, at.toISOString()).GSI2PK))];
  return processDue(at, (i) => i.merchantId === merchantId, complete ? partitions : undefined);
}
