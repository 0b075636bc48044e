import { randomBytes } from 'node:crypto';
import type { Mode } from './credentials.ts';
import { formatMoney, largestAmountMinor, type Currency } from './money.ts';

/**
 * Payment links (docs/payment-links.md): a merchant creates a link once (API or dashboard) and
 * shares its short URL or QR code; every customer who opens it pays through a hosted checkout
 * session of its own. Pure rules: what a link is, when it takes payments and what a payment costs.
 */
export const customerFields = ['name', 'email', 'phone', 'address'] as const;
export type CustomerField = (typeof customerFields)[number];

/** `pl_` and 24 lower-case hex characters (96 random bits): the short URL's last segment. */
export const paymentLinkIdPattern = /^pl_[0-9a-f]{24}$/;
export const newPaymentLinkId = () => `pl_${randomBytes(12).toString('hex')}`;

/** The most a customer may choose as the quantity of a link with an adjustable quantity. */
export const maxQuantityLimit = 100;
/** The most payments a link may be limited to. */
export const maxPaymentsLimit = 1_000_000;

export type LinkPrice =
  /** Every payment is `amountMinor` × the quantity. */
  | { type: 'fixed'; amountMinor: number }
  /** The customer enters the amount, from minMinor to maxMinor inclusive (no quantity). */
  | { type: 'customer'; minMinor: number; maxMinor: number };

export interface PaymentLink {
  linkId: string;
  merchantId: string;
  mode: Mode;
  active: boolean;
  currency: Currency;
  description: string;
  price: LinkPrice;
  /** null: quantity 1; else the customer chooses 1..max. */
  quantity: { max: number } | null;
  /** At most this many payments (Completed, plus attempts under way); null: no limit. */
  maxPayments: number | null;
  expiresAt: string | null;
  collect: CustomerField[];
  returnUrl: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * Uses held: payments under way (a checkout of the link whose payment attempt started: a card
   * being verified, a wallet charge awaiting its code or approval) and paid ones. An attempt takes
   * one when it starts (only while below maxPayments) and gives it back when it ends unpaid;
   * opening a checkout takes none (shared/store/payment-links.ts).
   */
  usesHeld: number;
  paidCount: number;
  paidMinor: number;
}

/**
 * The attributes a change of a link's checkout may name on the link (shared/store/payment-links.ts linkUseWrites: its
 * counters, and maxPayments in the condition): all the hosted pages and the provider callback may update of a link
 * (functions/routes/pay.ts `attributeUpdates`), so none of them can switch a link on or change its amount.
 */
export const linkCounterAttributes = ['usesHeld', 'paidCount', 'paidMinor', 'maxPayments'] as const;

export type Unavailable = 'inactive' | 'expired' | 'used_up';

/** Why a link takes no payment now (null: it does). */
export function linkUnavailable(link: PaymentLink, now: Date): Unavailable | null {
  if (!link.active) return 'inactive';
  if (link.expiresAt && Date.parse(link.expiresAt) <= now.getTime()) return 'expired';
  if (link.maxPayments !== null && link.usesHeld >= link.maxPayments) return 'used_up';
  return null;
}

export const unavailableMessages: Record<Unavailable, string> = {
  inactive: 'This payment link has been deactivated by the merchant. No payment can be made with it.',
  expired: 'This payment link has expired. No payment can be made with it; ask the merchant for a new one.',
  used_up: 'This payment link has reached its limit of payments. No payment can be made with it.',
};

/** Every use left is held by a payment under way, none paid yet: one may come back if that payment fails. */
const busyMessage =
  'Every payment this link still takes is being made by another customer right now. No money was taken; try again in a few minutes.';

/** What the customer is told about a link that takes no payment now (`why`: linkUnavailable's answer). */
export function unavailableMessage(link: PaymentLink, why: Unavailable): string {
  return why === 'used_up' && link.maxPayments !== null && link.paidCount < link.maxPayments ? busyMessage : unavailableMessages[why];
}

/**
 * Refused when a payment on a link's checkout starts and the link has no use left (paid, or held by
 * other customers' payments under way): the hosted checkout's message. No money was taken.
 */
export function limitReachedMessage(link: Pick<PaymentLink, 'maxPayments' | 'paidCount'> | undefined): string {
  if (link && link.maxPayments !== null && link.paidCount < link.maxPayments) return busyMessage;
  return 'This payment link has reached its limit of payments, so this payment cannot be made. No money was taken.';
}

/** What the customer asks to pay: the amount (links with a customer-entered amount) and quantity. */
export interface LinkOrder {
  amountMinor: number | null;
  quantity: number;
}

/** The amount of a payment on `link`, or the refusal of the order (field → message). */
export function linkCharge(link: PaymentLink, order: LinkOrder): { amountMinor: number } | { field: string; message: string } {
  const quantityMax = link.quantity?.max ?? 1;
  if (!Number.isSafeInteger(order.quantity) || order.quantity < 1 || order.quantity > quantityMax)
    return { field: 'quantity', message: quantityMax === 1 ? 'The quantity is 1.' : `Choose a quantity from 1 to ${quantityMax}.` };
  if (link.price.type === 'fixed') {
    const amountMinor = link.price.amountMinor * order.quantity;
    // Refused at creation (a link stored before that rule): too large for one payment.
    if (amountMinor > largestAmountMinor) return { field: 'quantity', message: 'That quantity is too large for one payment.' };
    return { amountMinor };
  }
  const { minMinor, maxMinor } = link.price;
  const range = `${formatMoney(minMinor, link.currency)} to ${formatMoney(maxMinor, link.currency)}`;
  if (order.amountMinor === null) return { field: 'amount', message: `Enter an amount from ${range}.` };
  if (order.amountMinor < minMinor || order.amountMinor > maxMinor)
    return { field: 'amount', message: `The amount must be from ${range}.` };
  return { amountMinor: order.amountMinor };
}

/** Uses left (null: unlimited): the limit less the payments paid and under way. */
export const remainingUses = (link: PaymentLink) => (link.maxPayments === null ? null : Math.max(0, link.maxPayments - link.usesHeld));
