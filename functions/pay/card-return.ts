import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { completeCardReturn } from '#shared/services/checkout.ts';
import { customerAction } from './common.ts';

/**
 * POST /pay/{paymentIntentId}/card-return: the customer comes back from the card issuer's 3-D
 * Secure challenge (a cross-site form post from the provider: no form token; the provider's
 * signature is verified and the outcome asked server to server, never read from the browser).
 */
export const handler = pageHandler(
  routes.checkoutCardReturn,
  async (request) => customerAction(request, (id) => completeCardReturn(id, Object.fromEntries(request.form))),
  { crossSite: true },
);
