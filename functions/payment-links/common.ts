import * as z from 'zod/mini';
import { paymentLinkIdPattern } from '#shared/domain/payment-link.ts';

/** The `{id}` of the payment link routes (docs/payment-links.md): `pl_` and 24 hex characters. */
const linkId = /* @__NO_SIDE_EFFECTS__ */ () =>
  z.string().check(z.regex(paymentLinkIdPattern, 'must be a payment link id (pl_ and 24 hex characters)'));
// Built in pure calls so a handler that takes only one of them bundles only that one (shared/http/schemas.ts says why).
export const linkIdPath = /* @__PURE__ */ (() => z.object({ id: linkId() }))();
export const linkIdQuery = /* @__PURE__ */ linkId();
