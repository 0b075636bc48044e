import { checkoutDetails, holdsLinkUse } from '../checkout.ts';
import type { PaymentIntent } from '../intent.ts';
import type { Mode } from '../credentials.ts';
import { formatMoney, fromMinor, largestAmountMinor, type Currency } from '../money.ts';
import { limitReachedMessage, type CustomerField, type LinkPrice, type PaymentLink } from '../payment-link.ts';
import { decided, refuse, type Decided, type Decision, type Refusal } from './decision.ts';
import { isTerminal } from './machines.ts';

/**
 * Payment-link uses: a link with a limit of payments counts the uses its checkouts hold (`usesHeld`: payments under
 * way and paid ones). A payment attempt takes a use when it starts, only while one is left; an attempt that ends
 * unpaid gives it back; Completed counts the payment. So a link never takes more payments than its limit.
 */

/** What a change of a link's checkout (`current` → `next`, in one transaction) does to its link. */
export type LinkUse =
  /** An attempt starts: one use taken, only while usesHeld < maxPayments (refused otherwise). */
  | { kind: 'take' }
  /** The attempt ended unpaid: the use given back. */
  | { kind: 'give-back' }
  /**
   * Paid: counted. `take`: `held` when the checkout held its use already; `conditional` when the payment takes it
   * now (a sandbox card paid in one step, refused when none is left); `unconditional` when the money has moved
   * without a use (none should) and the count must follow it.
   */
  | { kind: 'paid'; amountMinor: number; take: 'held' | 'conditional' | 'unconditional' };

export const linkOf = (intent: PaymentIntent): string | undefined =>
  intent.intentType === 'checkout' ? ((intent.details as { paymentLinkId?: string }).paymentLinkId ?? undefined) : undefined;

const holds = (intent: PaymentIntent) => linkOf(intent) !== undefined && holdsLinkUse(checkoutDetails(intent));

/** The link use of a checkout's change; undefined for other changes and checkouts not made from a link. */
export function linkUseOf(current: PaymentIntent, next: PaymentIntent): LinkUse | undefined {
  if (!linkOf(current) || isTerminal(current.status)) return undefined;
  const before = holds(current);
  const taking = !before && holds(next);
  if (next.status === 'Completed')
    return { kind: 'paid', amountMinor: current.amountMinor, take: before ? 'held' : taking ? 'conditional' : 'unconditional' };
  if (isTerminal(next.status)) return before ? { kind: 'give-back' } : undefined;
  if (taking) return { kind: 'take' };
  if (before && !holds(next)) return { kind: 'give-back' };
  return undefined;
}

/** A use that takes one of the link's uses now: refused when none is left (the commit's condition `usesHeld < maxPayments`). */
export const takesUse = (use: LinkUse) => use.kind === 'take' || (use.kind === 'paid' && use.take === 'conditional');

/** What a use moves on a link: its counters, and its limit (null: none) that a use taken now must stay within. */
export type LinkCounters = Pick<PaymentLink, 'usesHeld' | 'paidCount' | 'paidMinor' | 'maxPayments'>;

/**
 * The link after a use (its counters; the commit ADDs what moved: shared/store/payment-links.ts linkUseWrites), or the
 * refusal when no use is left. The link's updatedAt is the merchant's (a use changes only the counters).
 */
export function decideLinkUse<L extends LinkCounters>(link: L, use: LinkUse): Decision<L> {
  if (takesUse(use) && link.maxPayments !== null && link.usesHeld >= link.maxPayments)
    return refuse('invalid_status', limitReachedMessage(link));
  switch (use.kind) {
    case 'take':
      return decided({ ...link, usesHeld: link.usesHeld + 1 });
    case 'give-back':
      return decided({ ...link, usesHeld: link.usesHeld - 1 });
    case 'paid':
      return decided({
        ...link,
        usesHeld: link.usesHeld + (use.take === 'held' ? 0 : 1),
        paidCount: link.paidCount + 1,
        paidMinor: link.paidMinor + use.amountMinor,
      });
  }
}

/** A link as the merchant asks for it (API or dashboard), well-formed field by field. */
export interface NewPaymentLink {
  currency: Currency;
  description: string;
  price: LinkPrice;
  maxQuantity: number | null;
  maxPayments: number | null;
  expiresAt: string | null;
  collect: CustomerField[];
  returnUrl: string | null;
}

/** Creating a link: its id and owner come in, with what the service read for it. */
export interface LinkCreate {
  linkId: string;
  owner: { merchantId: string; mode: Mode };
  input: NewPaymentLink;
  /** The checkout minimum in the link's currency: every payment on a link must be more. */
  minimumMinor: number;
  /** A live card or wallet provider is configured in this deployment (a live link needs one). */
  liveProvider: boolean;
}

/** A new link refused: a 422 with its code, or (`field`) a 400 naming the field with its message. */
export type LinkCreateRefusal = Refusal & { field?: { name: string; message: string } };

/**
 * A new link, or why not: a fixed price whose largest order (amount × maxQuantity) is more than one payment can be
 * (400, naming maxQuantity); then (422) an amount at or below the checkout minimum, a maximum below the minimum, an
 * expiry not in the future, a live link without a provider. Created active, with no use held or paid.
 */
export function decideLinkCreate(c: LinkCreate, now: Date): Decided<PaymentLink> | LinkCreateRefusal {
  const { input, owner } = c;
  const { price, currency } = input;
  if (price.type === 'fixed' && price.amountMinor * (input.maxQuantity ?? 1) > largestAmountMinor) {
    const most = `amount × maxQuantity must be at most ${formatMoney(largestAmountMinor, currency)}`;
    return {
      ...refuse('invalid_request', `${most}, the largest payment the gateway takes.`),
      field: { name: 'maxQuantity', message: most },
    };
  }
  if ((price.type === 'fixed' ? price.amountMinor : price.minMinor) <= c.minimumMinor) {
    const low = `${price.type === 'fixed' ? 'amount' : 'minAmount'} is too low`;
    return refuse(
      'amount_below_minimum',
      `Every payment on a link must be greater than ${fromMinor(c.minimumMinor, currency)} ${currency}: ${low}.`,
    );
  }
  if (price.type === 'customer' && price.maxMinor < price.minMinor)
    return refuse('amount_range_invalid', 'maxAmount must not be below minAmount.');
  if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime()) return refuse('expiry_in_past', 'expiresAt must be in the future.');
  if (owner.mode !== 'test' && !c.liveProvider)
    return refuse(
      'provider_unavailable',
      'Live payment links are not available: no card or wallet provider is configured for this deployment.',
    );
  const at = now.toISOString();
  return decided({
    linkId: c.linkId,
    merchantId: owner.merchantId,
    mode: owner.mode,
    active: true,
    currency,
    description: input.description,
    price,
    quantity: input.maxQuantity ? { max: input.maxQuantity } : null,
    maxPayments: input.maxPayments,
    expiresAt: input.expiresAt,
    collect: [...new Set(input.collect)],
    returnUrl: input.returnUrl,
    createdAt: at,
    updatedAt: at,
    usesHeld: 0,
    paidCount: 0,
    paidMinor: 0,
  });
}
