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
