import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import type { Decided } from '#shared/domain/core/decision.ts';
import { decideLinkUse, linkOf, linkUseOf, type LinkCounters } from '#shared/domain/core/payment-link.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import type { PaymentLink } from '#shared/domain/payment-link.ts';
import { db, fromItem, named, tableName, toValues, type TxItem } from './client.ts';
import { checkEntry, get, putEntry, updateEntry, type When } from './entity.ts';
import * as keys from './keys.ts';
import { stripKeys } from './money-due.ts';

/**
 * Payment links (`PAYLINK#<linkId>`), listed per merchant and mode on GSI1, with one pointer per
 * checkout created from the link in the link's partition (`PAYMENT#<createdAt>#<id>`).
 *
 * The use limit is a counter on the link item: `usesHeld` counts the link's checkouts that hold a
 * use: a payment attempt under way (the session's `details.linkUseHeld`) or paid. Opening a
 * session holds nothing (its transaction only checks that the link is still active and below
 * maxPayments), so sessions nobody pays into cannot use a link up. The change that marks a
 * session's attempt as started (linkUseHeld false → true) ADDs 1 under the condition `usesHeld <
 * maxPayments`, read from the link item itself, so two customers racing for the last use cannot
 * both start paying: DynamoDB serialises the two transactions and the second one's condition fails
 * (named `linkUse`). The change that ends the attempt unpaid (linkUseHeld back to false, or the
 * session Failed, Cancelled or Expired) ADDs −1; Completed ADDs to paidCount and paidMinor (the use
 * stays taken for good). The money core decides each (shared/domain/core/payment-link.ts decideLinkUse; linkUseWrites
 * writes what it moved, its refusal mapped to that condition). All of them ride in the intent's own version-conditioned change
 * (transitionWrites, sameStatusWrites: shared/store/intents.ts), so each runs once per change.
 */
type Stored = PaymentLink & Record<string, unknown>;

export function createLinkWrite(link: PaymentLink): TxItem {
  const listing = keys.paymentLinkListing(link.merchantId, link.mode, link.createdAt, link.linkId);
  return named('paymentLink', putEntry('PaymentLink', keys.paymentLink(link.linkId), { ...listing, ...link }));
}

/** Access pattern: a payment link by id (GetItem, strongly consistent). */
export async function getLink(linkId: string): Promise<PaymentLink | undefined> {
  const item = await get<Stored>(keys.paymentLink(linkId));
  return item ? stripKeys<PaymentLink>(item) : undefined;
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
  const when = { eq: { merchantId: link.merchantId, mode: link.mode } };
  return named(
    'paymentLink',
    updateEntry('PaymentLink', keys.paymentLink(link.linkId), { set: { active, updatedAt: now.toISOString() }, when }),
  );
}

// A use left on the link item: the core refuses a use taken without one (decideLinkUse, linkUnavailable's used_up).
// maxPayments is stored null without a limit (createLinkWrite).
const belowMax: When = {
  exists: true,
  expr: '(attribute_type(#maxPayments, :null) OR #usesHeld < #maxPayments)',
  names: { '#maxPayments': 'maxPayments', '#usesHeld': 'usesHeld' },
  values: { ':null': 'NULL' },
};

/**
 * A checkout session created from the link: records the payment's pointer, and checks (named `linkUse`) that the link
 * still takes payments as the core found it (linkUnavailable on the link as read): its expiry and limit never change,
 * so what may have changed since the read is checked, that it is still active and this merchant's and has a use left
 * (deactivated, or another customer's payment took the last use). It takes no use: a payment attempt does (linkUseWrites).
 */
export function linkSessionWrites(link: PaymentLink, intent: PaymentIntent): TxItem[] {
  return [
    named('linkUse', checkEntry(keys.paymentLink(link.linkId), { ...belowMax, eq: { active: true, merchantId: link.merchantId } })),
    named(
      'linkPayment',
      putEntry('LinkPayment', keys.linkPayment(link.linkId, intent.createdAt, intent.paymentIntentId), {
        paymentIntentId: intent.paymentIntentId,
      }),
    ),
  ];
}

/** The link a checkout was created from (details.paymentLinkId), if any. */
export { linkOf };

/**
 * What a change of a link's checkout (`current` → `next`, in the change's own transaction) does to the link, as the
 * money core decides it (shared/domain/core/payment-link.ts: `linkUseOf`, `decideLinkUse`): the counters it moves,
 * ADDed, and its refusal when no use is left mapped to the condition `usesHeld < maxPayments` on the link item itself
 * (named `linkUse`; the other changes, `linkOutcome`, only need the link). Nothing for other changes or checkouts not
 * made from a link.
 */
export function linkUseWrites(current: PaymentIntent, next: PaymentIntent): TxItem[] {
  const linkId = linkOf(current);
  const use = linkUseOf(current, next);
  if (!linkId || !use) return [];
  // Decided on the link as this change knows it, unread (no counters, no limit: never refused): what it counts is ADDed.
  const unread: LinkCounters = { usesHeld: 0, paidCount: 0, paidMinor: 0, maxPayments: null };
  const { maxPayments, ...counted } = (decideLinkUse(unread, use) as Decided<LinkCounters>).state;
  const add = Object.fromEntries(Object.entries(counted).filter(([, moved]) => moved));
  const when = use.limited ? belowMax : { exists: true };
  return [named(use.limited ? 'linkUse' : 'linkOutcome', updateEntry('PaymentLink', keys.paymentLink(linkId), { add, when }))];
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
