import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment.ts';
import { checkoutRefusal } from '#shared/domain/core/intent.ts';
import { assertSafeCallbackUrl } from '#shared/domain/webhook-url.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import { BusinessRuleError } from '#shared/domain/errors.ts';
import * as f from '#shared/http/schemas.ts';
import { liveWalletConfigured, newCheckout, saveCheckout } from '#shared/services/checkout.ts';
import '#shared/providers/live/boot-wallet-presence.ts';

/**
 * POST /Gateway/v{version}/Payment/initiate-checkout (docs/merchant-guide.md, Hosted checkout). Shape errors are
 * 400s with `errors`; business rules (currency, amount > 10, live provider, duplicate orderRef)
 * are 422s. One transaction: the session, its orderRef claim, its reference, the Idempotency-Key.
 */
const body = z.strictObject({
  amount: f.amount,
  currency: f.optional(f.currencyCode),
  description: f.description,
  customerRef: f.optional(f.customerRef),
  orderRef: f.orderRef,
  callbackUrl: f.optional(f.callbackUrl),
  returnUrl: f.optional(f.returnUrl),
  intentType: f.optional(z.literal('checkout', 'must be "checkout" on this endpoint')),
  paymentMethod: f.optional(f.walletProviderId),
  metadataJson: f.optional(f.metadataJson),
  signature: f.signature,
});

export const handler = httpHandler(routes.initiateCheckout, { body }, async (request) => {
  const { auth, body: input } = request;
  const currency = f.supportedCurrency(input.currency || auth.merchantCurrency);
  const amountMinor = f.minorUnits(input.amount, currency);
  // The money core's minimum, asked before anything else (newCheckout asks it again).
  const refused = checkoutRefusal(amountMinor, currency);
  if (refused) throw new BusinessRuleError(refused.message, 'amount_below_minimum');
  if (auth.mode !== 'test' && !liveWalletConfigured()) {
    throw new BusinessRuleError(
      'Live checkout is not available: no card or wallet provider is configured for this deployment.',
      'provider_unavailable',
    );
  }

  const callbackUrl = input.callbackUrl || null;
  if (callbackUrl) await assertSafeCallbackUrl(callbackUrl, auth.merchantAllowInsecureWebhooks);

  const present = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? undefined : value);
  const customerRef = Object.fromEntries(
    Object.entries(input.customerRef || {}).flatMap(([k, v]) => (present(v) ? [[k, v]] : [])),
  ) as Record<string, string>;
  const intent = newCheckout({
    merchantId: auth.merchantId,
    mode: auth.mode,
    amountMinor,
    currency,
    description: input.description,
    orderRef: {
      orderRef: input.orderRef.orderRef,
      discount: present(input.orderRef.discount) ?? null,
      tax: present(input.orderRef.tax) ?? null,
    },
    customerRef: Object.keys(customerRef).length ? customerRef : null,
    callbackUrl,
    returnUrl: input.returnUrl || null,
    paymentMethod: input.paymentMethod || null,
    metadataJson: present(input.metadataJson) ?? null,
    feeRate: auth.merchantFees.checkout,
    traceId: request.traceId,
  });
  return commit(request, 200, async () => saveCheckout(intent));
});
