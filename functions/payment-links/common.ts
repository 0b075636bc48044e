import * as z from 'zod/mini';
import { paymentLinkIdPattern } from '#shared/domain/payment-link.ts';

/** The `{id}` of the payment link routes (docs/payment-links.md): `pl_` and 24 hex characters. */
export const linkIdPath = z.object({
  id: z.string().check(z.regex(paymentLinkIdPattern, 'must be a payment link id (pl_ and 24 hex characters)')),
});
export const linkIdQuery = z.string().check(z.regex(paymentLinkIdPattern, 'must be a payment link id (pl_ and 24 hex characters)'));
