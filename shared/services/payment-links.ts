import { isRefusal } from '#shared/domain/core/decision.ts';
import { decideLinkCreate, type LinkCreateRefusal, type NewPaymentLink } from '#shared/domain/core/payment-link.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import type { ErrorCode } from '#shared/domain/error-codes.ts';
import { BusinessRuleError, DomainError, NotFoundError } from '#shared/domain/errors.ts';
import { fromMinor } from '#shared/domain/money.ts';
import {
  linkUnavailable,
  newPaymentLinkId,
  paymentLinkIdPattern,
  remainingUses,
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

/** A new link's refusal as the API and the dashboard answer it. */
const refusalError = (r: LinkCreateRefusal) =>
  r.field
    ? new DomainError('invalid', r.message, { errors: { [r.field.name]: [r.field.message] }, field: r.field.name })
    : new BusinessRuleError(r.message, r.refused as ErrorCode);

/** Creates a payment link as the core decides it (one Put; with the request's Idempotency-Key record when there is one). */
export function createPaymentLink(
  owner: { merchantId: string; mode: Mode },
  input: NewPaymentLink,
  now = new Date(),
): FinalChange<PaymentLinkView> {
  const minimumMinor = checkoutMinimumMinor(input.currency);
  const d = decideLinkCreate({ linkId: newPaymentLinkId(), owner, input, minimumMinor, liveProvider: liveWalletConfigured() }, now);
  if (isRefusal(d)) throw refusalError(d);
  return { writes: [createLinkWrite(d.state)], response: paymentLinkView(d.state, now) };
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
