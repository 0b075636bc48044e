import { GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import type { IntentStatus, PaymentIntent } from '#shared/domain/intent.ts';
import type { PaymentLink } from '#shared/domain/payment-link.ts';
import { db, fromItem, named, tableName, toItem, toValues, type TxItem } from './client.ts';
import * as keys from './keys.ts';
import { stripKeys } from './money-due.ts';

/**
 * Payment links (`PAYLINK#<linkId>`), listed per merchant and mode on GSI1, with one pointer per
 * checkout created from the link in the link's partition (`PAYMENT#<createdAt>#<id>`).
 *
 * The use limit is a counter on the link item: `usesHeld` counts the link's checkouts that are
 * Pending or Completed. The transaction that creates a checkout from the link ADDs 1 under the
 * condition that the link is still active, unexpired and `usesHeld < maxPayments` (both bounds
 * never change after creation, so they come from the link read), so two customers racing for the
 * last use cannot both get a session: DynamoDB serialises the two transactions and the second
 * one's condition fails. The status change that ends such a checkout Failed, Cancelled or Expired
 * ADDs −1 in the same transaction (transitionWrites, shared/store/intents.ts); Completed ADDs to
 * paidCount and paidMinor instead (the use stays taken). Both are guarded by the intent's own
 * version condition, so each runs once per checkout.
 */
type Stored = PaymentLink & Record<string, unknown>;

export function createLinkWrite(link: PaymentLink): TxItem {
  return named('paymentLink', {
    Put: {
      TableName: tableName(),
      Item: toItem({
        ...keys.paymentLink(link.linkId),
        ...keys.paymentLinkListing(link.merchantId, link.mode, link.createdAt, link.linkId),
        entity: 'PaymentLink',
        ...link,
      }),
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });
}

/** Access pattern: a payment link by id (GetItem, strongly consistent). */
export async function getLink(linkId: string): Promise<PaymentLink | undefined> {
  const out = await db().send(new GetItemCommand({ TableName: tableName(), Key: toItem(keys.paymentLink(linkId)), ConsistentRead: true }));
  return out.Item ? stripKeys<PaymentLink>(fromItem<Stored>(out.Item)) : undefined;
}

/** Access pattern: a merchant's payment links in one mode, newest first (GSI1), before a `<createdAt>#<linkId>` cursor. */
export async function pageLinks(
  merchantId: string,
  mode: Mode,
  q: { before?: string; limit: number },
): Promise<{ items: PaymentLink[]; hasMore: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: q.before ? 'GSI1PK = :pk AND GSI1SK < :before' : 'GSI1PK = :pk',
      ExpressionAttributeValues: toValues({
        ':pk': keys.paymentLinksOfMerchant(merchantId, mode).GSI1PK,
        ...(q.before ? { ':before': q.before } : {}),
      }),
      ScanIndexForward: false,
      Limit: q.limit + 1,
    }),
  );
  const items = (out.Items ?? []).map((i) => stripKeys<PaymentLink>(fromItem<Stored>(i)));
  return { items: items.slice(0, q.limit), hasMore: items.length > q.limit };
}

/** The `<createdAt>#<linkId>` cursor of a link (its position in the listing). */
export const linkCursor = (link: PaymentLink) => `${link.createdAt}#${link.linkId}`;

/** Activates or deactivates the merchant's link (refused, as `paymentLink`, if it is not this merchant's and mode's). */
export function setLinkActiveWrite(link: PaymentLink, active: boolean, now: Date): TxItem {
  return named('paymentLink', {
    Update: {
      TableName: tableName(),
      Key: toItem(keys.paymentLink(link.linkId)),
      UpdateExpression: 'SET active = :active, updatedAt = :now',
      ConditionExpression: 'merchantId = :merchantId AND #mode = :mode',
      ExpressionAttributeNames: { '#mode': 'mode' },
      ExpressionAttributeValues: toValues({
        ':active': active,
        ':now': now.toISOString(),
        ':merchantId': link.merchantId,
        ':mode': link.mode,
      }),
    },
  });
}

/**
 * A checkout created from the link: takes one use (named `linkUse`: refused when the link was
 * deactivated, expired or used up meanwhile) and records the payment's pointer.
 */
export function takeLinkUseWrites(link: PaymentLink, intent: PaymentIntent, now: Date): TxItem[] {
  const conditions = ['active = :true', 'merchantId = :merchantId'];
  const values: Record<string, unknown> = { ':true': true, ':one': 1, ':merchantId': link.merchantId };
  if (link.expiresAt !== null) {
    conditions.push('expiresAt > :now');
    values[':now'] = now.toISOString();
  }
  if (link.maxPayments !== null) {
    conditions.push('usesHeld < :max');
    values[':max'] = link.maxPayments;
  }
  return [
    named('linkUse', {
      Update: {
        TableName: tableName(),
        Key: toItem(keys.paymentLink(link.linkId)),
        UpdateExpression: 'ADD usesHeld :one',
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeValues: toValues(values),
      },
    }),
    named('linkPayment', {
      Put: {
        TableName: tableName(),
        Item: toItem({
          ...keys.linkPayment(link.linkId, intent.createdAt, intent.paymentIntentId),
          entity: 'LinkPayment',
          paymentIntentId: intent.paymentIntentId,
        }),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
  ];
}

/** The link a checkout was created from (details.paymentLinkId), if any. */
export const linkOf = (intent: PaymentIntent): string | undefined =>
  intent.intentType === 'checkout' ? ((intent.details as { paymentLinkId?: string }).paymentLinkId ?? undefined) : undefined;

/**
 * What a terminal status of a link's checkout does to the link, in the status change's own
 * transaction: Completed counts the payment and its amount; Failed, Cancelled and Expired give the
 * use back. Nothing for other statuses or checkouts not made from a link.
 */
export function linkOutcomeWrites(current: PaymentIntent, to: IntentStatus): TxItem[] {
  const linkId = linkOf(current);
  if (!linkId || to === 'Pending' || to === 'Processing') return [];
  const paid = to === 'Completed';
  return [
    named('linkOutcome', {
      Update: {
        TableName: tableName(),
        Key: toItem(keys.paymentLink(linkId)),
        UpdateExpression: paid ? 'ADD paidCount :one, paidMinor :amount' : 'ADD usesHeld :minusOne',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: toValues(paid ? { ':one': 1, ':amount': current.amountMinor } : { ':minusOne': -1 }),
      },
    }),
  ];
}

/**
 * Access pattern: the ids of a link's checkouts, newest first (Query in the link's partition),
 * before the `linkPaymentCursor` of the previous page's last payment.
 */
export async function pageLinkPayments(
  linkId: string,
  q: { before?: string; limit: number },
): Promise<{ ids: string[]; hasMore: boolean }> {
  const k = keys.paymentsOfLink(linkId);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: q.before ? 'PK = :pk AND SK BETWEEN :sk AND :before' : 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: toValues({ ':pk': k.PK, ':sk': k.SKPrefix, ...(q.before ? { ':before': q.before } : {}) }),
      ScanIndexForward: false,
      Limit: q.limit + 2,
    }),
  );
  // BETWEEN is inclusive: the cursor's own pointer is left out here.
  const ids = (out.Items ?? [])
    .filter((i) => !q.before || fromItem<{ SK: string }>(i).SK !== q.before)
    .map((i) => fromItem<{ paymentIntentId: string }>(i).paymentIntentId);
  return { ids: ids.slice(0, q.limit), hasMore: ids.length > q.limit };
}

/** The position of a link's checkout in pageLinkPayments (its pointer's sort key). */
export const linkPaymentCursor = (intent: PaymentIntent) => keys.linkPayment('', intent.createdAt, intent.paymentIntentId).SK;
