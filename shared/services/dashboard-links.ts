import type { NewPaymentLink } from '#shared/domain/core/payment-link.ts';
import { userRefusal } from '#shared/domain/errors.ts';
import { isSupportedCurrency, minorUnits } from '#shared/domain/money.ts';
import { descriptionRule, textRefusal } from '#shared/domain/references.ts';
import {
  customerFields,
  maxPaymentsLimit,
  maxQuantityLimit,
  paymentLinkIdPattern,
  type CustomerField,
} from '#shared/domain/payment-link.ts';
import { auditWrite } from '#shared/store/dashboard.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import { commitRequest, withWrites } from '#shared/store/request.ts';
import { auditEntry, type Signed } from './dashboard-auth.ts';
import { changePaymentLinkActive, createPaymentLink, listPaymentLinks, paymentLinkFor, paymentLinkPayments } from './payment-links.ts';

/**
 * The dashboard's payment links (docs/dashboard.md): the same service as the API
 * (shared/services/payment-links.ts), scoped to the signed-in user's merchant and the session's
 * mode; creating, deactivating and reactivating are audited in the change's own transaction.
 */
const scope = (signed: Signed) => ({ merchantId: signed.user.merchantId, mode: signed.session.mode });

export async function linksPage(signed: Signed, after?: string) {
  const { merchantId, mode } = scope(signed);
  if (after !== undefined && !paymentLinkIdPattern.test(after)) throw userRefusal('invalid', 'That page link is not valid.');
  const page = await listPaymentLinks(merchantId, mode, { ...(after ? { startingAfter: after } : {}), limit: 25 });
  if (page === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid.');
  return page;
}

/** A link and one page of its payments (25, newest first, after the payment `after`). */
export async function linkDetail(signed: Signed, linkId: string, after?: string) {
  const { merchantId, mode } = scope(signed);
  const link = await paymentLinkFor(merchantId, mode, linkId);
  const payments = await paymentLinkPayments(merchantId, mode, linkId, { startingAfter: after, limit: 25 });
  if (payments === 'invalid_cursor') throw userRefusal('invalid', 'That page link is not valid.');
  return { link, payments };
}

/** The create form's fields, as posted. */
export type LinkFormInput = Record<
  'pricing' | 'amount' | 'minAmount' | 'maxAmount' | 'description' | 'maxQuantity' | 'maxPayments' | 'expiresAt' | 'returnUrl',
  string
> & { collect: string[] };

const wholeIn = (text: string, min: number, max: number, field: string, label: string): number | null => {
  if (!text.trim()) return null;
  if (!/^\d{1,7}$/.test(text.trim()) || Number(text) < min || Number(text) > max)
    throw userRefusal('invalid', `${label} must be a whole number from ${min} to ${max}.`, field);
  return Number(text);
};

/** Reads the create form into the service's input (the service checks the business rules). */
async function parseLinkForm(signed: Signed, f: LinkFormInput): Promise<NewPaymentLink> {
  const merchant = await getMerchantCached(signed.user.merchantId);
  const currency = merchant?.defaultCurrency ?? 'PKR';
  if (!isSupportedCurrency(currency)) throw userRefusal('invalid', 'The account currency is not supported.');
  const description = f.description.trim();
  if (!descriptionRule.pattern.test(description))
    throw userRefusal('invalid', `Description: ${textRefusal(descriptionRule, description)}.`, 'description');
  const amountOf = (text: string, field: string, label: string) => {
    if (!/^\d{1,12}(\.\d{1,6})?$/.test(text.trim())) throw userRefusal('invalid', `Enter ${label} as a number, e.g. 1500.`, field);
    return minorUnits(Number(text.trim()), currency, field);
  };
  const price =
    f.pricing === 'customer'
      ? {
          type: 'customer' as const,
          minMinor: amountOf(f.minAmount, 'minAmount', 'the minimum'),
          maxMinor: amountOf(f.maxAmount, 'maxAmount', 'the maximum'),
        }
      : { type: 'fixed' as const, amountMinor: amountOf(f.amount, 'amount', 'the amount') };
  const maxQuantity = wholeIn(f.maxQuantity, 2, maxQuantityLimit, 'maxQuantity', 'The maximum quantity');
  if (maxQuantity !== null && price.type === 'customer') throw userRefusal('invalid', 'A quantity needs a fixed amount.', 'maxQuantity');
  const expires = f.expiresAt.trim();
  if (expires && (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?$/.test(expires) || Number.isNaN(Date.parse(`${expires}Z`))))
    throw userRefusal('invalid', 'Enter the expiry as a date and time (UTC).', 'expiresAt');
  const returnUrl = f.returnUrl.trim();
  if (returnUrl && (!URL.canParse(returnUrl) || !/^https:\/\//.test(returnUrl)))
    throw userRefusal('invalid', 'The return URL must be an https address.', 'returnUrl');
  const collect = f.collect.filter((c): c is CustomerField => (customerFields as readonly string[]).includes(c));
  return {
    currency,
    description,
    price,
    maxQuantity,
    maxPayments: wholeIn(f.maxPayments, 1, maxPaymentsLimit, 'maxPayments', 'The payment limit'),
    expiresAt: expires ? new Date(`${expires.length === 10 ? `${expires}T23:59` : expires}:00Z`).toISOString() : null,
    collect,
    returnUrl: returnUrl || null,
  };
}

export async function createLinkFromDashboard(signed: Signed, form: LinkFormInput, now = new Date()) {
  const input = await parseLinkForm(signed, form);
  const { merchantId, mode } = scope(signed);
  return commitRequest(
    withWrites(
      async () => createPaymentLink({ merchantId, mode }, input, now),
      ({ response: link }) => [auditWrite(auditEntry(merchantId, signed.actor, 'paymentlink.create', { target: link.id, mode }, now))],
    ),
  );
}

export async function setLinkActiveFromDashboard(signed: Signed, linkId: string, active: boolean, now = new Date()) {
  const { merchantId, mode } = scope(signed);
  const action = active ? 'paymentlink.reactivate' : 'paymentlink.deactivate';
  return commitRequest(
    withWrites(
      () => changePaymentLinkActive(merchantId, mode, linkId, active, now),
      () => [auditWrite(auditEntry(merchantId, signed.actor, action, { target: linkId, mode }, now))],
    ),
  );
}
