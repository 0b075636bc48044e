import { QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import type { PaymentEffect } from '#shared/domain/core/refund.ts';
import { refundFirstDueAt, type Refund } from '#shared/domain/refund.ts';
import { db, fromItem, named, queryAll, scanPages, tableName, toValues, type TxItem } from './client.ts';
import { applied, putEntry, updateEntry, type When } from './entity.ts';
import { refundStatusChangedEvent } from '#shared/domain/events.ts';
import * as keys from './keys.ts';
import { getMoneyItem, moneyItemWrites, stripKeys } from './money-due.ts';
import { readShards, shardOf, writeShards } from './shards.ts';

/**
 * Refunds (`REFUND#<id>`), listed per transaction on GSI1 (`TXN#<paymentIntentId>#REFUND`,
 * `<requestedAt>#<id>`) and per merchant and mode on GSI3 (`MERCHANT#<id>#<mode>#REFUND[#<shard>]`,
 * same sort key; written at creation, never changed: status changes touch neither, though each
 * rewrites the entries, the indexes projecting ALL), in the money due index
 * while something is due (expiry, an attempt).
 *
 * The over-refund guard lives on the INTENT item: `refundReservedMinor` sums every refund of the
 * transaction that is not Failed, Cancelled, Rejected or Expired. The money core decides what each
 * refund's change does to it (shared/domain/core/refund.ts, `effect`); creating a refund ADDs its
 * amount under the condition `refundReservedMinor <= reservedAtMost` (DynamoDB conditions cannot
 * add, so the core gives the bound: amountMinor never changes); a release ADDs it back. Completion
 * ADDs to `refundedMinor`. These updates never touch `status` or
 * `version`: the intent is Completed (terminal), so no status transition can race them, and
 * transitionWrites() SETs neither counter, so nothing overwrites them.
 */

export function createRefundWrites(r: Refund, effect: PaymentEffect): TxItem[] {
  const dueAt = refundFirstDueAt(r);
  return [
    named(
      'refund',
      putEntry('Refund', keys.refund(r.id), {
        ...keys.refundListing(r.paymentIntentId, r.requestedAt, r.id),
        ...keys.refundOfMerchant(r.merchantId, r.mode, r.requestedAt, r.id, shardOf(r.id, writeShards(r.merchantId, r.mode))),
        ...keys.moneyDue(r.id, dueAt),
        dueAt,
        ...r,
      }),
    ),
    ...paymentCounterWrites(r.paymentIntentId, effect, new Date(r.requestedAt)),
  ];
}

/**
 * What a refund's decision does to its payment's counters (the core's `effect`), ADDed as decided, under the conditions
 * that map the core's rules onto the item: a reservation only on a Completed payment while it still fits (at most
 * `reservedAtMost` reserved before it), a release or a completion only of what is reserved. A completion stamps the
 * payment's updatedAt.
 */
export function paymentCounterWrites(paymentIntentId: string, effect: PaymentEffect, now: Date): TxItem[] {
  const { reservedMinor, refundedMinor, reservedAtMost = 0 } = effect;
  if (!reservedMinor && !refundedMinor) return [];
  const names = { '#refundReservedMinor': 'refundReservedMinor' };
  const when: When =
    reservedMinor > 0
      ? {
          eq: { status: 'Completed' },
          expr: '(attribute_not_exists(#refundReservedMinor) OR #refundReservedMinor <= :atMost)',
          names,
          values: { ':atMost': reservedAtMost },
        }
      : { expr: '#refundReservedMinor >= :covered', names, values: { ':covered': Math.max(-reservedMinor, refundedMinor) } };
  const add = { ...(reservedMinor ? { refundReservedMinor: reservedMinor } : {}), ...(refundedMinor ? { refundedMinor } : {}) };
  const stamp = refundedMinor > 0 ? { set: { updatedAt: now.toISOString() } } : {};
  return [named('reservation', updateEntry('Intent', keys.intent(paymentIntentId), { add, ...stamp, when }))];
}

/**
 * A change of a refund read as `current` (versionedChange) and its RefundStatusChanged (no callbackUrl),
 * built in a pure call and exported as functions (a Lambda that only reads refunds bundles none of it).
 */
const refundWrites = /* @__PURE__ */ moneyItemWrites<Refund, 'id' | 'paymentIntentId' | 'merchantId' | 'mode' | 'version'>(
  'refund',
  keys.refund,
  refundStatusChangedEvent,
  (r) => r.paymentIntentId,
);
export const refundChange: typeof refundWrites.change = (...args) => refundWrites.change(...args);
export const refundEventWrites: typeof refundWrites.eventWrites = (...args) => refundWrites.eventWrites(...args);

/** Access pattern: a refund by id (GetItem). */
export const getRefund = (id: string, consistent = true) => getMoneyItem<Refund>(keys.refund, id, consistent);

/** Access pattern: the refunds of one transaction, newest first (GSI1 Query; a transaction has few). */
export async function listRefundsOfIntent(paymentIntentId: string): Promise<Refund[]> {
  const { GSI1PK } = keys.refundsOfIntent(paymentIntentId);
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: toValues({ ':pk': GSI1PK }),
    ScanIndexForward: false,
  });
  return items.map((i) => stripKeys<Refund>(i));
}

/**
 * Access pattern R5: a merchant's refunds in one mode, newest first, one page: a GSI3 Query per
 * listing shard (one for a merchant never sharded; `Limit` limit + 1 each), merged newest first,
 * optionally before a cursor (the `<requestedAt>#<id>` of the last refund shown, excluded, on every
 * shard). A refund's shard is FNV-1a(id) mod the writers' shard count; shard 0 is the unsharded key,
 * where every refund from before the sharding (and every backfilled one) stays. The caller checks
 * the cursor refund belongs to the merchant and mode.
 */
export async function pageRefundsOfMerchant(
  merchantId: string,
  mode: Mode,
  limit: number,
  before?: { requestedAt: string; id: string },
): Promise<{ items: Refund[]; hasMore: boolean }> {
  const shards = await readShards(merchantId, mode);
  const pages = await Promise.all(
    Array.from({ length: shards }, async (_, n) => {
      const { GSI3PK } = keys.refundOfMerchant(merchantId, mode, '', '', n);
      const out = await db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'GSI3',
          KeyConditionExpression: before ? 'GSI3PK = :pk AND GSI3SK < :before' : 'GSI3PK = :pk',
          ExpressionAttributeValues: toValues({ ':pk': GSI3PK, ...(before ? { ':before': `${before.requestedAt}#${before.id}` } : {}) }),
          ScanIndexForward: false,
          Limit: limit + 1,
        }),
      );
      return (out.Items ?? []).map((i) => fromItem<Record<string, unknown>>(i));
    }),
  );
  const position = (i: Record<string, unknown>) => String(i.GSI3SK);
  const merged = pages.flat().sort((a, b) => (position(a) < position(b) ? 1 : position(a) > position(b) ? -1 : 0));
  return { items: merged.slice(0, limit).map((i) => stripKeys<Refund>(i)), hasMore: merged.length > limit };
}

/**
 * Migration R6 (not a request path; `ops migrate-refund-index`): give every refund written before
 * the merchant-wide list its GSI3 keys, by Scan (`entity = Refund`) and one conditional UpdateItem
 * per refund without them. Safe to re-run and to run while refunds are created and change status
 * (the keys never change once set). Returns how many refunds it indexed.
 */
export async function backfillRefundIndex(): Promise<number> {
  let updated = 0;
  const missing = {
    FilterExpression: 'entity = :e AND attribute_not_exists(GSI3PK)',
    ExpressionAttributeValues: toValues({ ':e': 'Refund' }),
  };
  for await (const page of scanPages(missing)) {
    for (const raw of page) {
      const r = fromItem<Refund>(raw);
      const want = keys.refundOfMerchant(r.merchantId, r.mode, r.requestedAt, r.id);
      // Unless indexed meanwhile.
      const unindexed = { exists: true, expr: 'attribute_not_exists(#GSI3PK)' };
      const indexing = updateEntry('Refund', keys.refund(r.id), { set: want, when: unindexed });
      if (await applied(db().send(new UpdateItemCommand(indexing.Update!)))) updated++;
    }
  }
  return updated;
}
