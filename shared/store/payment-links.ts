import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Mode } from '#shared/domain/credentials.ts';
import { linkOf, linkUseOf } from '#shared/domain/core/payment-link.ts';
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
 * session holds nothing (its transaction only checks that the link is active, unexpired and below
 * maxPayments), so sessions nobody pays into cannot use a link up. The change that marks a
 * session's attempt as started (linkUseHeld false → true) ADDs 1 under the condition `usesHeld <
 * maxPayments`, read from the link item itself, so two customers racing for the last use cannot
 * both start paying: DynamoDB serialises the two transactions and the second one's condition fails
 * (named `linkUse`). The change that ends the attempt unpaid (linkUseHeld back to false, or the
 * session Failed, Cancelled or Expired) ADDs −1; Completed ADDs to paidCount and paidMinor (the use
 * stays taken for good). All of them ride in the intent's own version-conditioned change
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

/**
 * A checkout session created from the link: checks (named `linkUse`: refused when the link was
 * deactivated, expired or had no use left meanwhile) and records the payment's pointer. It takes no
 * use: a use is taken when a payment attempt starts (linkUseWrites).
 */
export function linkSessionWrites(link: PaymentLink, intent: PaymentIntent, now: Date): TxItem[] {
  // Active, this merchant's, unexpired and below maxPayments (each limit only where the link has one).
  const when: When = { eq: { active: true, merchantId: link.merchantId }, names: {}, values: {} };
  const also = (condition: string, attribute: string, value: unknown) => {
    when.expr = when.expr ? `${when.expr} AND ${condition}` : condition;
    Object.assign(when.names!, { [`#${attribute}`]: attribute });
    Object.assign(when.values!, { [condition.split(' ').at(-1)!]: value });
  };
  if (link.expiresAt !== null) also('#expiresAt > :now', 'expiresAt', now.toISOString());
  if (link.maxPayments !== null) also('#usesHeld < :max', 'usesHeld', link.maxPayments);
  return [
    named('linkUse', checkEntry(keys.paymentLink(link.linkId), when)),
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
 * What a change of a link's checkout (`current` → `next`, in the change's own transaction) does to
 * the link's counters:
 * - an attempt starts (linkUseHeld set): takes one use, named `linkUse`, only while `usesHeld <
 *   maxPayments`; a completion that sets it (a sandbox card paid in one step) takes it the same way;
 * - the attempt ends unpaid (linkUseHeld cleared, or Failed, Cancelled, Expired): gives it back;
 * - Completed: counts the payment and its amount; a session that held no use (none should: every
 *   attempt takes one before money moves) takes one without condition, since the money has moved.
 * Nothing for other changes or checkouts not made from a link.
 */
export function linkUseWrites(current: PaymentIntent, next: PaymentIntent): TxItem[] {
  const linkId = linkOf(current);
  const use = linkUseOf(current, next);
  if (!linkId || !use) return [];
  const update = (name: string, add: Record<string, number>, when: When = { exists: true }) =>
    named(name, updateEntry('PaymentLink', keys.paymentLink(linkId), { add, when }));
  // maxPayments is stored null without a limit (createLinkWrite).
  const belowMax: When = {
    exists: true,
    expr: '(attribute_type(#maxPayments, :null) OR #usesHeld < #maxPayments)',
    names: { '#maxPayments': 'maxPayments', '#usesHeld': 'usesHeld' },
    values: { ':null': 'NULL' },
  };
  switch (use.kind) {
    case 'take':
      return [update('linkUse', { usesHeld: 1 }, belowMax)];
    case 'give-back':
      return [update('linkOutcome', { usesHeld: -1 })];
    case 'paid': {
      const paid = { paidCount: 1, paidMinor: use.amountMinor };
      if (use.take === 'held') return [update('linkOutcome', paid)];
      if (use.take === 'conditional') return [update('linkUse', { usesHeld: 1, ...paid }, belowMax)];
      return [update('linkOutcome', { usesHeld: 1, ...paid })];
    }
  }
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
