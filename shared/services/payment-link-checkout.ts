import { DomainError } from '#shared/domain/errors.ts';
import type { PaymentIntent } from '#shared/domain/intent.ts';
import { merchantMaySubmit } from '#shared/domain/merchant.ts';
import { currencyExponents, MoneyFormatError, toMinor } from '#shared/domain/money.ts';
import {
  linkCharge,
  linkUnavailable,
  paymentLinkIdPattern,
  unavailableMessage,
  unavailableMessages,
  type CustomerField,
  type PaymentLink,
} from '#shared/domain/payment-link.ts';
import { generatedOrderRef } from '#shared/domain/references.ts';
import { liveWalletConfigured } from '#shared/providers/wallet.ts';
import { transact, TransactionFailed } from '#shared/store/client.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import { getLink, linkSessionWrites } from '#shared/store/payment-links.ts';
import { newCheckout, notAcceptingPaymentsMessage, saveCheckout } from './checkout.ts';
import { paymentLinkUrl } from './payment-links.ts';
import { checkoutMinimumMinor } from '#shared/domain/core/intent.ts';

/**
 * The customer's side of a payment link (docs/payment-links.md, The customer's page): the link's
 * page (functions/links) and its QR code. Continuing creates a hosted checkout session of the
 * merchant in ONE transaction with the check that the link still takes payments; it holds none of
 * the link's uses: the payment attempt on the hosted checkout takes one (shared/services/checkout.ts,
 * shared/store/payment-links.ts). The amount is decided here from the link as stored, nothing the
 * page showed is trusted. Apart from the merchant side
 * (./payment-links.ts), so the dashboard's bundle does not carry the checkout service.
 */

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
  const unavailable = why ? unavailableMessage(link, why) : merchantMaySubmit(merchant) ? null : notAcceptingPaymentsMessage;
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
 * maximum, the details asked for), then creates the hosted checkout session in ONE transaction with
 * the check that the link still has a use left (it takes none: the payment attempt does). Its
 * orderRef is generated (`PL` + 32 hex characters, the API's orderRef rule), its metadataJson names
 * the link. Returns the session: the page sends the customer on to it.
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
  if (charge.amountMinor <= checkoutMinimumMinor(link.currency))
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
    await transact([...saveCheckout(intent).writes, ...linkSessionWrites(link, intent)]);
  } catch (error) {
    if (!(error instanceof TransactionFailed && error.on('linkUse'))) throw error;
    // Deactivated, expired or used up meanwhile (another customer's payment took the last use): no session, no payment.
    const latest = await openPaymentLink(linkId, now);
    throw new LinkRefusal('gone', latest?.unavailable ?? unavailableMessages.used_up);
  }
  return intent;
}
