import * as z from 'zod/mini';
import * as routes from '#functions/routes/payment.ts';
import { commit, httpHandler } from '#shared/http/pipeline.ts';
import * as f from '#shared/http/schemas.ts';
import { createDeposit, recoverDeposit } from '#shared/services/deposits.ts';
import '#shared/providers/live/boot-wallets.ts';

/** POST /Gateway/v{version}/Payment/deposit — start a mobile-wallet charge (docs/merchant-guide.md, Deposits). */
const body = z
  .strictObject({
    mobileNumber: z.string().check(z.regex(/^(\+92|0)?3\d{9}$/, 'must be a mobile wallet number such as 03001234567')),
    amount: f.amount,
    walletProvider: f.optional(f.walletProviderId),
    paymentMethod: f.optional(f.walletProviderId),
    currency: f.optional(f.currencyCode),
    description: f.description,
    callbackUrl: f.optional(f.callbackUrl),
    intentType: f.optional(z.literal('deposit', 'must be "deposit" on this endpoint')),
    customerRef: f.optional(f.customerRef),
    orderRef: f.orderRef,
    metadataJson: f.optional(f.metadataJson),
    signature: f.signature,
  })
  .check(
    z.refine((b) => !(b.walletProvider && b.paymentMethod && b.walletProvider !== b.paymentMethod), {
      message: 'walletProvider and paymentMethod must agree when both are given',
      path: ['paymentMethod'],
    }),
  );

export const handler = httpHandler(routes.deposit, { body }, async (request) => {
  const { auth, body: b } = request;
  const currency = f.supportedCurrency(b.currency || auth.merchantCurrency);
  const providerId = b.walletProvider || b.paymentMethod || 1;
  const input = {
    merchantId: auth.merchantId,
    mode: auth.mode,
    traceId: request.traceId,
    currency,
    amountMinor: f.minorUnits(b.amount, currency),
    providerId,
    mobileNumber: b.mobileNumber,
    description: b.description,
    orderRef: b.orderRef,
    customerRef: (b.customerRef || null) as Record<string, string> | null,
    callbackUrl: b.callbackUrl || null,
    metadataJson: b.metadataJson || null,
    fee: auth.merchantFees.deposit,
    allowInsecureWebhooks: auth.merchantAllowInsecureWebhooks,
  };
  return commit(request, 200, () => createDeposit(input), {
    recover: () => recoverDeposit(auth.merchantId, auth.mode, b.orderRef.orderRef),
  });
});
