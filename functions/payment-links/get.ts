import * as routes from '#functions/routes/payment-links.ts';
import { httpHandler, ok } from '#shared/http/pipeline.ts';
import '#shared/http/schemas.ts';
import { paymentLinkFor } from '#shared/services/payment-links.ts';
import { linkIdPath as path } from './common.ts';

/**
 * GET /Gateway/v{version}/PaymentLinks/{id} — one link with its payment count, totals and remaining
 * uses (404 if it is not this merchant's in this mode).
 */
export const handler = httpHandler(routes.getPaymentLink, { path }, async ({ auth, path: p }) =>
  ok(await paymentLinkFor(auth.merchantId, auth.mode, p.id)),
);
