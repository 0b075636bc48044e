import { checkoutDetails, holdsLinkUse } from '../checkout.ts';
import type { PaymentIntent } from '../intent.ts';
import type { Mode } from '../credentials.ts';
import { formatMoney, fromMinor, largestAmountMinor, type Currency } from '../money.ts';
import type { CustomerField, LinkPrice, PaymentLink } from '../payment-link.ts';
import { decided, refuse, type Decided, type Decision, type Refusal } from './decision.ts';
import { isTerminal } from './machines.ts';

/**
 * Payment-link uses: a link with a limit of payments counts the uses its checkouts hold (`usesHeld`: payments under
 * way and paid ones). A payment attempt takes a use when it starts, only while one is left; an attempt that ends
 * unpaid gives it back; Completed counts the payment. So a link never takes more payments than its limit.
 */

/**
 * What a change of a link's checkout (`current` → `next`, in one transaction) does to its link: `uses` taken (+1) or
 * given back (−1), `paidMinor` a payment counted (null: none), and `limited`: the use is taken now, only while one is
 * left (refused otherwise).
 */
export interface LinkUse {
  uses: number;
  paidMinor: number | null;
  limited: boolean;
}

export const linkOf = (intent: PaymentIntent): string | undefined =>
  intent.intentType === 'checkout' ? ((intent.details as { paymentLinkId?: string }).paymentLinkId ?? undefined) : undefined;

/**
 * The link use of a checkout's change: the uses its checkout holds after less before, and its payment. A payment
 * attempt takes a use as it starts (the session marked as holding one), only while one is left, and so does a payment
 * that takes it as it is made (a sandbox card paid in one step); an attempt that ends unpaid (the mark cleared, or
 * Failed, Cancelled, Expired) gives it back; Completed counts the payment and keeps its use for good, taking one
 * whatever the limit if it held none (none should: the money has moved, the count follows it). Undefined when nothing
 * moves, and for checkouts not made from a link.
 */
export function linkUseOf(current: PaymentIntent, next: PaymentIntent): LinkUse | undefined {
  if (!linkOf(current) || isTerminal(current.status)) return undefined;
  const holds = (intent: PaymentIntent) => holdsLinkUse(checkoutDetails(intent));
  const paid = next.status === 'Completed';
  const before = holds(current);
  const after = paid || (!isTerminal(next.status) && holds(next));
  const uses = (after ? 1 : 0) - (before ? 1 : 0);
  if (paid || uses) return { uses, paidMinor: paid ? current.amountMinor : null, limited: !before && holds(next) };
  return undefined;
}

/** What a use moves on a link: its counters, and its limit (null: none) that a use taken now must stay within. */
export type LinkCounters = Pick<PaymentLink, 'usesHeld' | 'paidCount' | 'paidMinor' | 'maxPayments'>;

/**
 * The link after a use (its counters; the commit ADDs what moved: shared/store/payment-links.ts linkUseWrites), or the
 * refusal when the use is taken now and none is left (the customer is told limitReachedMessage). So a link never takes
 * more payments than its limit. A use changes only the counters: the link's updatedAt is the merchant's.
 */
export function decideLinkUse<L extends LinkCounters>(link: L, use: LinkUse): Decision<L> {
  if (use.limited && link.maxPayments !== null && link.usesHeld >= link.maxPayments)
    return refuse('invalid_status', 'No use of this link is left.');
  const paid = use.paidMinor === null ? {} : { paidCount: link.paidCount + 1, paidMinor: link.paidMinor + use.paidMinor };
  return decided({ ...link, usesHeld: link.usesHeld + use.uses, ...paid });
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
