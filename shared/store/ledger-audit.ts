import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import type { Journal } from '#shared/domain/ledger.ts';
import type { Refund } from '#shared/domain/refund.ts';
import type { Settlement } from '#shared/domain/settlement.ts';
import { queryAll, toValues } from './client.ts';
import * as keys from './keys.ts';
import { getRefund, listRefundsOfIntent } from './refunds.ts';
import { readShards, transactionListShards } from './shards.ts';
import { listJournals, sumWalletItems } from './wallets.ts';

/**
 * Read side of the ledger verifier (shared/services/ledger-verify.ts): everything that carries or
 * implies money for one merchant and mode, read with Queries only (the merchant partition, the
 * GSI1 listings of intents and settlements, the refunds of refunded transactions). No Scan.
 */

/** A wallet item as stored: balances by attribute (available, held, held_<HoldType>). */
export type StoredWallet = { currency: string; updatedAt?: string } & Record<string, unknown>;

export interface MerchantLedger {
  merchantId: string;
  mode: Mode;
  wallets: StoredWallet[];
  /** Every shard item of those wallets on its own (one per currency for a one-shard merchant). */
  walletShards: StoredWalletShard[];
  journals: Journal[];
  intents: (PaymentIntent & { refundReservedMinor?: number })[];
  settlements: Settlement[];
  refunds: Refund[];
}

/** Access pattern: every merchant id (GSI1 MERCHANTS listing, a Query). */
export async function listMerchantIds(): Promise<string[]> {
  const items = await queryAll<{ merchantId: string }>({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: toValues({ ':pk': keys.allMerchants().GSI1PK }),
    ProjectionExpression: 'merchantId',
  });
  return items.map((i) => i.merchantId);
}

/** One wallet shard's item as stored, with its shard number (0 for every one-shard merchant's wallet). */
export type StoredWalletShard = StoredWallet & { shard: number };

/** Access pattern: every shard item of a merchant's wallets in one mode (each shard partition, WALLET#<mode># prefix). */
async function listWalletShards(merchantId: string, mode: Mode, changedSince?: string): Promise<StoredWalletShard[]> {
  const shards = await readShards(merchantId, mode);
  const parts = await Promise.all(
    Array.from({ length: shards }, async (_, n) => {
      const k = keys.walletsOfMerchant(merchantId, mode, n);
      const items = await queryAll<StoredWallet>({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ...(changedSince ? { FilterExpression: 'updatedAt >= :since' } : {}),
        ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix, ...(changedSince ? { ':since': changedSince } : {}) }),
        ConsistentRead: true,
      });
      return items.map((item) => ({ ...item, shard: n }));
    }),
  );
  return parts.flat();
}

/** The shards' items summed by currency: one wallet per currency. */
function sumByCurrency(items: StoredWallet[]): StoredWallet[] {
  const byCurrency = new Map<string, StoredWallet[]>();
  for (const { shard: _, ...item } of items as StoredWalletShard[])
    byCurrency.set(item.currency, [...(byCurrency.get(item.currency) ?? []), item]);
  return [...byCurrency.values()].map((same) => sumWalletItems(same)!);
}

/** Access pattern: a merchant's wallets in one mode, a sharded wallet's shards summed by currency. */
export async function listWallets(merchantId: string, mode: Mode, changedSince?: string): Promise<StoredWallet[]> {
  return sumByCurrency(await listWalletShards(merchantId, mode, changedSince));
}

export async function readMerchantLedger(merchantId: string, mode: Mode): Promise<MerchantLedger> {
  const [walletShards, journals, intents, settlements] = await Promise.all([
    listWalletShards(merchantId, mode),
    listJournals(merchantId, mode),
    readShards(merchantId, mode).then(async (shards) =>
      (
        await Promise.all(
          Array.from({ length: transactionListShards(shards) }, (_, n) =>
            queryAll<MerchantLedger['intents'][number]>({
              IndexName: 'GSI1',
              KeyConditionExpression: 'GSI1PK = :pk',
              ExpressionAttributeValues: toValues({ ':pk': keys.intentsOfMerchant(merchantId, mode, n).GSI1PK }),
            }),
          ),
        )
      ).flat(),
    ),
    queryAll<Settlement>({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: toValues({ ':pk': keys.settlementsOfMerchant(merchantId, mode).GSI1PK }),
    }),
  ]);
  // Refunds: those of every transaction with a refund reserved or paid, plus any a journal names.
  const refunds = new Map<string, Refund>();
  for (const intent of intents.filter((i) => (i.refundReservedMinor ?? 0) > 0 || (i.refundedMinor ?? 0) > 0)) {
    for (const r of await listRefundsOfIntent(intent.paymentIntentId)) refunds.set(r.id, r);
  }
  for (const j of journals.filter((j) => j.kind.startsWith('refund.') && !refunds.has(j.reference))) {
    const r = await getRefund(j.reference);
    if (r) refunds.set(r.id, r);
  }
  return {
    merchantId,
    mode,
    wallets: sumByCurrency(walletShards),
    walletShards,
    journals,
    intents,
    settlements,
    refunds: [...refunds.values()],
  };
}
