import type { Mode } from '#shared/domain/credentials.ts';
import { BusinessRuleError, DomainError, NotFoundError } from '#shared/domain/errors.ts';
import { formatMoney, fromMinor, largestAmountMinor, type Currency } from '#shared/domain/money.ts';
import {
  linkUnavailable,
  newPaymentLinkId,
  paymentLinkIdPattern,
  remainingUses,
  type CustomerField,
  type LinkPrice,
  type PaymentLink,
  type Unavailable,
} from '#shared/domain/payment-link.ts';
import { getIntent, getIntentsOf } from '#shared/store/intents.ts';
import {
  createLinkWrite,
  getLink,
  linkCursor,
  linkOf,
  linkPaymentCursor,
  pageLinkPayments,
  pageLinks,
  setLinkActiveWrite,
} from '#shared/store/payment-links.ts';
import type { FinalChange } from '#shared/store/request.ts';
import { checkoutMinimumMinor } from '#shared/domain/core/intent.ts';
import { liveWalletConfigured } from '#shared/providers/wallet.ts';
import { transactionView } from './transactions.ts';

/**
 * Payment links (docs/payment-links.md): create, read, list, deactivate and reactivate them (API
 * and dashboard). The customer's side (the link's page and QR code) is payment-link-checkout.ts.
 */

const publicBase = () => {
  const base = process.env.PUBLIC_BASE_URL;
  if (!base) throw new Error('PUBLIC_BASE_URL is not set');
  return base.replace(/\/+$/, '');
};
/** The short URL a merchant shares: `{checkout_url}/l/{id}`. */
export const paymentLinkUrl = (linkId: string) => `${publicBase()}/l/${linkId}`;

export type LinkStatus = 'active' | Unavailable;

/** The payment link object of the API (docs/payment-links.md). */
export function paymentLinkView(link: PaymentLink, now = new Date()) {
  const money = (minor: number) => fromMinor(minor, link.currency);
  const url = paymentLinkUrl(link.linkId);
  return {
    id: link.linkId,
    url,
    qrCode: { png: `${url}/qr?format=png`, svg: `${url}/qr?format=svg` },
    status: (linkUnavailable(link, now) ?? 'active') as LinkStatus,
    active: link.active,
    isLive: link.mode === 'live',
    currency: link.currency,
    description: link.description,
    amount: link.price.type === 'fixed' ? money(link.price.amountMinor) : null,
    minAmount: link.price.type === 'customer' ? money(link.price.minMinor) : null,
    maxAmount: link.price.type === 'customer' ? money(link.price.maxMinor) : null,
    maxQuantity: link.quantity?.max ?? null,
    maxPayments: link.maxPayments,
    expiresAt: link.expiresAt,
    collect: link.collect,
    returnUrl: link.returnUrl,
    paymentCount: link.paidCount,
    pendingCount: link.usesHeld - link.paidCount,
    totalAmount: money(link.paidMinor),
    remainingUses: remainingUses(link),
    createdAt: link.createdAt,
    updatedAt: link.updatedAt,
  };
}
export type PaymentLinkView = ReturnType<typeof paymentLinkView>;

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

/**
 * The business rules of a new link (422): amounts above the checkout minimum, a future expiry, a
 * live provider; and (400, naming the field) a fixed price whose largest order (amount ×
 * maxQuantity) would be more than one payment can be.
 */
function assertLinkRules(mode: Mode, input: NewPaymentLink, now: Date): void {
  if (input.price.type === 'fixed' && input.price.amountMinor * (input.maxQuantity ?? 1) > largestAmountMinor) {
    const most = `amount × maxQuantity must be at most ${formatMoney(largestAmountMinor, input.currency)}`;
    throw new DomainError('invalid', `${most}, the largest payment the gateway takes.`, {
      errors: { maxQuantity: [most] },
      field: 'maxQuantity', // the dashboard's form marks the field
    });
  }
  const lowest = input.price.type === 'fixed' ? input.price.amountMinor : input.price.minMinor;
  // A payment on a link must be a checkout the API would accept (the core's checkout minimum).
  if (lowest <= checkoutMinimumMinor(input.currency))
    throw new BusinessRuleError(
      `Every payment on a link must be greater than 10 ${input.currency}: ` +
        `${input.price.type === 'fixed' ? 'amount' : 'minAmount'} is too low.`,
      'amount_below_minimum',
    );
  if (input.price.type === 'customer' && input.price.maxMinor < input.price.minMinor)
    throw new BusinessRuleError('maxAmount must not be below minAmount.', 'amount_range_invalid');
  if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime())
    throw new BusinessRuleError('expiresAt must be in the future.', 'expiry_in_past');
  if (mode !== 'test' && !liveWalletConfigured())
    throw new BusinessRuleError(
      'Live payment links are not available: no card or wallet provider is configured for this deployment.',
      'provider_unavailable',
    );
}

/** Creates a payment link (one Put; with the request's Idempotency-Key record when there is one). */
export function createPaymentLink(
  caller: { merchantId: string; mode: Mode },
  input: NewPaymentLink,
  now = new Date(),
): FinalChange<PaymentLinkView> {
  assertLinkRules(caller.mode, input, now);
  const link: PaymentLink = {
    linkId: newPaymentLinkId(),
    merchantId: caller.merchantId,
    mode: caller.mode,
    active: true,
    currency: input.currency,
    description: input.description,
    price: input.price,
    quantity: input.maxQuantity ? { max: input.maxQuantity } : null,
    maxPayments: input.maxPayments,
    expiresAt: input.expiresAt,
    collect: [...new Set(input.collect)],
    returnUrl: input.returnUrl,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    usesHeld: 0,
    paidCount: 0,
    paidMinor: 0,
  };
  return { writes: [createLinkWrite(link)], response: paymentLinkView(link, now) };
}

/** The merchant's link in this mode, else 404 (another merchant's link is "not found" too). */
export async function merchantLink(merchantId: string, mode: Mode, linkId: string): Promise<PaymentLink> {
  const link = paymentLinkIdPattern.test(linkId) ? await getLink(linkId) : undefined;
  if (!link || link.merchantId !== merchantId || link.mode !== mode) throw new NotFoundError(`No payment link ${linkId} in this mode.`);
  return link;
}

export async function paymentLinkFor(merchantId: string, mode: Mode, linkId: string) {
  return paymentLinkView(await merchantLink(merchantId, mode, linkId));
}

/** Deactivates (active false) or reactivates a link: the link object as it is now. */
export async function changePaymentLinkActive(
  merchantId: string,
  mode: Mode,
  linkId: string,
  active: boolean,
  now = new Date(),
): Promise<FinalChange<PaymentLinkView>> {
  const link = await merchantLink(merchantId, mode, linkId);
  const changed = { ...link, active, updatedAt: now.toISOString() };
  return { writes: [setLinkActiveWrite(link, active, now)], response: paymentLinkView(changed, now) };
}

/**
 * The merchant's links in one mode, newest first: `{ items, hasMore }`; `startingAfter` is the last
 * id of the previous page (a link that is not this merchant's in this mode: 'invalid_cursor').
 */
export async function listPaymentLinks(merchantId: string, mode: Mode, q: { startingAfter?: string; limit: number }) {
  let before: string | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = paymentLinkIdPattern.test(q.startingAfter) ? await getLink(q.startingAfter) : undefined;
    if (!cursor || cursor.merchantId !== merchantId || cursor.mode !== mode) return 'invalid_cursor' as const;
    before = linkCursor(cursor);
  }
  const page = await pageLinks(merchantId, mode, { ...(before ? { before } : {}), limit: q.limit });
  const now = new Date();
  return { items: page.items.map((l) => paymentLinkView(l, now)), hasMore: page.hasMore };
}

/**
 * A link's checkouts, newest first, as the transaction lookup shows them: `{ items, hasMore }`;
 * `startingAfter` is the last paymentIntentId of the previous page (a payment not made through
 * this link: 'invalid_cursor').
 */
export async function paymentLinkPayments(
  merchantId: string,
  mode: Mode,
  linkId: string,
  q: { startingAfter?: string | undefined; limit: number },
) {
  await merchantLink(merchantId, mode, linkId);
  let before: string | undefined;
  if (q.startingAfter !== undefined) {
    const cursor = await getIntent(q.startingAfter);
    if (!cursor || linkOf(cursor) !== linkId) return 'invalid_cursor' as const;
    before = linkPaymentCursor(cursor);
  }
  const page = await pageLinkPayments(linkId, { ...(before ? { before } : {}), limit: q.limit });
  const intents = await getIntentsOf(merchantId, mode, page.ids);
  return { items: intents.map(transactionView), hasMore: page.hasMore };
}
