import type { Refund, RefundableIntent } from '#shared/domain/refund.ts';
import { named, queryAll, tableName, toItem, toValues, type TxItem } from './client.ts';
import { refundStatusChangedEvent } from '#shared/domain/events.ts';
import { keys } from './keys.ts';
import { getMoneyItem, moneyItemWrites, stripKeys } from './money-due.ts';

/**
 * Refunds (`REFUND#<id>`), listed per transaction on GSI1 (`TXN#<paymentIntentId>#REFUND`,
 * `<requestedAt>#<id>`), in the money due index while something is due (expiry, an attempt).
 *
 * The over-refund guard lives on the INTENT item: `refundReservedMinor` sums every refund of the
 * transaction that is not Failed, Cancelled, Rejected or Expired. Creating a refund ADDs its amount
 * under the condition `refundReservedMinor <= amountMinor − amount` (DynamoDB conditions cannot
 * add, but amountMinor never changes, so the bound is computed from the intent read); a release
 * ADDs it back. Completion ADDs to `refundedMinor`. These updates never touch `status` or
 * `version`: the intent is Completed (terminal), so no status transition can race them, and
 * transitionWrites() SETs neither counter, so nothing overwrites them.
 */

/** Index of the reservation update inside createRefundWrites (its condition = over-refund / not refundable). */
export const reservationWriteIndex = 1;

export function createRefundWrites(r: Refund, intent: RefundableIntent): TxItem[] {
  return [
    named('refund', {
      Put: {
        TableName: tableName(),
        Item: toItem({
          ...keys.refund(r.id),
          ...keys.refundListing(r.paymentIntentId, r.requestedAt, r.id),
          ...keys.moneyDue(r.id, r.expiresAt),
          dueAt: r.expiresAt,
          entity: 'Refund',
          ...r,
        }),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
    named('reservation', {
      Update: {
        TableName: tableName(),
        Key: toItem(keys.intent(intent.paymentIntentId)),
        UpdateExpression: 'ADD refundReservedMinor :amount',
        ConditionExpression: '#status = :completed AND (attribute_not_exists(refundReservedMinor) OR refundReservedMinor <= :maxBefore)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: toValues({
          ':amount': r.amountMinor,
          ':completed': 'Completed',
          ':maxBefore': intent.amountMinor - r.amountMinor,
        }),
      },
    }),
  ];
}

/** Gives a refund's amount back to the transaction's refundable remainder. */
export function releaseReservationWrite(r: Refund): TxItem {
  return named('reservation', {
    Update: {
      TableName: tableName(),
      Key: toItem(keys.intent(r.paymentIntentId)),
      UpdateExpression: 'ADD refundReservedMinor :release',
      ConditionExpression: 'refundReservedMinor >= :amount',
      ExpressionAttributeValues: toValues({ ':release': -r.amountMinor, ':amount': r.amountMinor }),
    },
  });
}

/** A completed refund: the transaction's refundedAmount grows. */
export function recordRefundedWrite(r: Refund, now: Date): TxItem {
  return named('reservation', {
    Update: {
      TableName: tableName(),
      Key: toItem(keys.intent(r.paymentIntentId)),
      UpdateExpression: 'ADD refundedMinor :amount SET updatedAt = :now',
      ConditionExpression: 'refundReservedMinor >= :amount',
      ExpressionAttributeValues: toValues({ ':amount': r.amountMinor, ':now': now.toISOString() }),
    },
  });
}

/** A change of a refund read as `current` (versionedChange) and its RefundStatusChanged (no callbackUrl). */
export const { change: refundChange, eventWrites: refundEventWrites } = moneyItemWrites<
  Refund,
  'id' | 'paymentIntentId' | 'merchantId' | 'mode' | 'version'
>('refund', keys.refund, refundStatusChangedEvent, (r) => r.paymentIntentId);

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
