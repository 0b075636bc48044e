import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment-links.ts';
import { customerFields, maxPaymentsLimit, maxQuantityLimit } from '#shared/domain/payment-link.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import { problems } from '#shared/http/problem.ts';
import { isoDateTime } from '#shared/http/query-params.ts';
import * as f from '#shared/http/schemas.ts';
import { createPaymentLink } from '#shared/services/payment-links.ts';
import '#shared/providers/live/boot-wallet-presence.ts';

/**
 * POST /Gateway/v{version}/PaymentLinks (docs/payment-links.md): a fixed `amount`, or `minAmount`
 * and `maxAmount` for an amount the customer enters; optional maxQuantity, maxPayments, expiresAt,
 * collect, returnUrl. Shape errors are 400s naming the field; amounts at or below the checkout
 * minimum, a past expiry and live mode without a provider are 422s. 201 with the link object.
 */
const whole = (min: number, max: number) =>
  z.int(`must be a whole number from ${min} to ${max}`).check(z.gte(min, `must be at least ${min}`), z.lte(max, `must be at most ${max}`));

const body = z.strictObject({
  amount: f.optional(f.amount),
  minAmount: f.optional(f.amount),
  maxAmount: f.optional(f.amount),
  currency: f.optional(f.currencyCode),
  description: f.description,
  maxQuantity: f.optional(whole(2, maxQuantityLimit)),
  maxPayments: f.optional(whole(1, maxPaymentsLimit)),
  expiresAt: f.optional(isoDateTime),
  collect: f.optional(z.array(z.enum(customerFields, `must be one of ${customerFields.join(', ')}`)).check(z.maxLength(4))),
  returnUrl: f.optional(f.returnUrl),
  signature: f.signature,
});

export const handler = httpHandler(routes.createPaymentLink, { body }, async (request) => {
  const { auth, body: b } = request;
  const given = (v: number | null | '' | undefined): v is number => typeof v === 'number';
  const fixed = given(b.amount);
  const ranged = given(b.minAmount) || given(b.maxAmount);
  if (fixed === ranged || (ranged && !(given(b.minAmount) && given(b.maxAmount)))) {
    const errors: Record<string, string[]> = fixed
      ? { amount: ['give amount, or minAmount and maxAmount, not both'] }
      : ranged
        ? { [given(b.minAmount) ? 'maxAmount' : 'minAmount']: ['required'] }
        : { amount: ['required (or minAmount and maxAmount for an amount the customer enters)'] };
    throw problems.badRequest('Give a fixed amount, or minAmount and maxAmount for an amount the customer enters.', errors);
  }
  if (ranged && given(b.maxQuantity))
    throw problems.badRequest('maxQuantity needs a fixed amount.', { maxQuantity: ['only with a fixed amount'] });
  const currency = f.supportedCurrency(b.currency || auth.merchantCurrency);
  const price = fixed
    ? { type: 'fixed' as const, amountMinor: f.minorUnits(b.amount as number, currency) }
    : {
        type: 'customer' as const,
        minMinor: f.minorUnits(b.minAmount as number, currency, 'minAmount'),
        maxMinor: f.minorUnits(b.maxAmount as number, currency, 'maxAmount'),
      };
  const input = {
    currency,
    description: b.description,
    price,
    maxQuantity: given(b.maxQuantity) ? b.maxQuantity : null,
    maxPayments: given(b.maxPayments) ? b.maxPayments : null,
    expiresAt: b.expiresAt ? new Date(b.expiresAt).toISOString() : null,
    collect: b.collect || [],
    returnUrl: b.returnUrl || null,
  };
  return commit(request, 201, async () => createPaymentLink({ merchantId: auth.merchantId, mode: auth.mode }, input));
});
