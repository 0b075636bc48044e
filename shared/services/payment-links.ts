import type { Mode } from '#shared/domain/credentials.ts';
import { DomainError, BusinessRuleError, NotFoundError } from '#shared/domain/errors.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { currencyExponents, fromMinor, MoneyFormatError, toMinor, type Currency } from '#shared/domain/money.ts';
import {
  linkCharge,
  linkUnavailable,
  newPaymentLinkId,
  paymentLinkIdPattern,
  remainingUses,
  unavailableMessages,
  type CustomerField,
  type LinkPrice,
  type PaymentLink,
  type Unavailable,
} from '#shared/domain/payment-link.ts';
import { generatedOrderRef } from '#shared/domain/references.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { getIntentsOf } from '#shared/store/intents.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import {
  createLinkWrite,
  getLink,
  linkCursor,
  pageLinkPayments,
  pageLinks,
  setLinkActiveWrite,
  takeLinkUseWrites,
} from '#shared/store/payment-links.ts';
import type { FinalChange } from '#shared/store/request.ts';
import { liveWalletConfigured, newCheckout, saveCheckout } from './checkout.ts';
import { transactionView } from './transactions.ts';

/**
 * Payment links (docs/payment-links.md): create, read, list, deactivate and reactivate them (API
 * and dashboard), and the customer's side: the link's page creates a hosted checkout session of
 * the merchant, in ONE transaction with the link's use (shared/store/payment-links.ts), and sends
 * the customer on to /pay/{paymentIntentId}. The amount is decided here from the link as stored;
 * nothing the page showed is trusted.
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

/** A payment on a link must be a checkout the API would accept: more than 10 in the link's currency. */
const checkoutMinimum = (currency: Currency) => toMinor(10, currency);

/** The business rules of a new link (422): amounts above the checkout minimum, a future expiry, a live provider. */
function assertLinkRules(mode: Mode, input: NewPaymentLink, now: Date): void {
  const lowest = input.price.type === 'fixed' ? input.price.amountMinor : input.price.minMinor;
  if (lowest <= checkoutMinimum(input.currency))
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

/** A link's checkouts, newest first, as the transaction lookup shows them (at most `limit`). */
export async function paymentLinkPayments(merchantId: string, mode: Mode, linkId: string, limit = 50) {
  await merchantLink(merchantId, mode, linkId);
  const page = await pageLinkPayments(linkId, limit);
  const intents = await getIntentsOf(merchantId, mode, page.ids);
  return { items: intents.map(transactionView), hasMore: page.hasMore };
}

// ---------------------------------------------------------------------------------------------
// The customer's side: the link's page (functions/links)

/**
 * A request the link's page refuses, changing nothing: invalid (400, with the fields' messages),
 * gone (410: deactivated, expired, used up, or the merchant takes no payments) or not_found (404).
 */
export class LinkRefusal extends DomainError {
  constructor(
    category: 'invalid' | 'gone' | 'not_found',
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(category, message);
  }
}

export interface LinkPage {
  link: PaymentLink;
  merchantName: string;
  /** Why it takes no payment now; null: it does. */
  unavailable: string | null;
}

/** What the link's page shows: the link and its merchant, or undefined for an unknown id. */
export async function openPaymentLink(linkId: string, now = new Date()): Promise<LinkPage | undefined> {
  const link = paymentLinkIdPattern.test(linkId) ? await getLink(linkId) : undefined;
  if (!link) return undefined;
  const merchant = await getMerchantCached(link.merchantId);
  const why = linkUnavailable(link, now);
  const unavailable = why
    ? unavailableMessages[why]
    : merchant?.status !== 'active'
      ? 'This merchant is not accepting payments at the moment. No money was taken; contact the merchant.'
      : null;
  return { link, merchantName: merchant?.name ?? 'Merchant', unavailable };
}

/** The short URL a link's QR code encodes, or undefined for an unknown link (a QR code of any link, active or not). */
export async function paymentLinkQrTarget(linkId: string): Promise<string | undefined> {
  const link = paymentLinkIdPattern.test(linkId) ? await getLink(linkId) : undefined;
  return link && paymentLinkUrl(link.linkId);
}

/** What the customer entered on the link's page (form fields as posted). */
export interface LinkForm {
  amount?: string | null;
  quantity?: string | null;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  address?: string | null;
}

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const phoneShape = /^\+?[0-9][0-9 -]{6,19}$/;
const fieldRules: Record<CustomerField, { max: number; shape?: RegExp; missing: string; wrong?: string }> = {
  name: { max: 200, missing: 'Enter your name.' },
  email: { max: 254, shape: emailShape, missing: 'Enter your e-mail address.', wrong: 'Enter a valid e-mail address.' },
  phone: { max: 20, shape: phoneShape, missing: 'Enter your phone number.', wrong: 'Enter a valid phone number.' },
  address: { max: 500, missing: 'Enter your address.' },
};

/** The customer's details the link asks for, as the checkout's customerRef; refuses missing or malformed ones. */
function customerDetails(link: PaymentLink, form: LinkForm, errors: Record<string, string>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const field of link.collect) {
    const value = (form[field] ?? '').trim();
    const rule = fieldRules[field];
    if (!value) errors[field] = rule.missing;
    else if (value.length > rule.max) errors[field] = `At most ${rule.max} characters.`;
    else if (rule.shape && !rule.shape.test(value)) errors[field] = rule.wrong!;
    else out[field === 'address' ? 'shippingAddress' : field] = value;
  }
  return Object.keys(out).length ? out : null;
}

/** The amount the customer typed, in minor units (null when the link has a fixed amount or nothing was typed). */
function enteredAmount(link: PaymentLink, form: LinkForm, errors: Record<string, string>): number | null {
  const text = (form.amount ?? '').trim().replaceAll(',', '');
  if (link.price.type === 'fixed' || !text) return null;
  if (!/^\d{1,15}(\.\d+)?$/.test(text)) {
    errors.amount = 'Enter the amount as a number, for example 1500 or 1500.50.';
    return null;
  }
  try {
    return toMinor(Number(text), link.currency);
  } catch (error) {
    if (!(error instanceof MoneyFormatError)) throw error;
    const decimals = error.message.includes('decimal') ? currencyExponents[link.currency] : null;
    errors.amount = decimals !== null ? `Enter the amount with at most ${decimals} decimal places.` : 'Enter the amount as a number.';
    return null;
  }
}

/**
 * The customer pays through the link: checks everything again from the link as stored (active,
 * unexpired, uses left, merchant accepting payments, amount within min/max, quantity within its
 * maximum, the details asked for), then creates the hosted checkout session and takes one use in
 * ONE transaction. Its orderRef is generated (`PL` + 32 hex characters, the API's orderRef rule),
 * its metadataJson names the link. Returns the session: the page sends the customer on to it.
 */
export async function payWithLink(linkId: string, form: LinkForm, traceId: string, now = new Date()): Promise<PaymentIntent> {
  const page = await openPaymentLink(linkId, now);
  if (!page) throw new LinkRefusal('not_found', 'This payment link does not exist. Check the address or ask the merchant for a new one.');
  const { link } = page;
  if (page.unavailable) throw new LinkRefusal('gone', page.unavailable);
  if (link.mode !== 'test' && !liveWalletConfigured())
    throw new LinkRefusal('gone', 'Live payments are not available: no payment provider is configured. No money was taken.');
  const errors: Record<string, string> = {};
  const quantityText = (form.quantity ?? '1').trim() || '1';
  const quantity = /^\d{1,6}$/.test(quantityText) ? Number(quantityText) : Number.NaN;
  const amountMinor = enteredAmount(link, form, errors);
  const customerRef = customerDetails(link, form, errors);
  const charge = errors.amount ? null : linkCharge(link, { amountMinor, quantity });
  if (charge && 'field' in charge) errors[charge.field] = charge.message;
  if (Object.keys(errors).length || !charge || 'field' in charge)
    throw new LinkRefusal('invalid', 'Check the details below and try again.', errors);
  if (charge.amountMinor <= checkoutMinimum(link.currency))
    throw new LinkRefusal('invalid', `The amount must be greater than 10 ${link.currency}.`, { amount: 'Enter a larger amount.' });
  const merchant = await getMerchantCached(link.merchantId);
  const intent = newCheckout(
    {
      merchantId: link.merchantId,
      mode: link.mode,
      amountMinor: charge.amountMinor,
      currency: link.currency,
      description: link.description,
      orderRef: { orderRef: generatedOrderRef('PL'), discount: null, tax: null },
      customerRef,
      callbackUrl: null,
      returnUrl: link.returnUrl,
      paymentLinkId: link.linkId,
      paymentMethod: null,
      metadataJson: JSON.stringify({ paymentLinkId: link.linkId, quantity }),
      feeRate: merchant!.fees.checkout,
      traceId,
    },
    now,
  );
  try {
    await transact([...saveCheckout(intent).writes, ...takeLinkUseWrites(link, intent, now)]);
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on('linkUse'))) throw error;
    // Deactivated, expired or used up meanwhile (another customer took the last use): no session, no payment.
    const latest = await openPaymentLink(linkId, now);
    throw new LinkRefusal('gone', latest?.unavailable ?? unavailableMessages.used_up);
  }
  return intent;
}
