import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { cancelCheckout } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/cancel: the customer cancels (Cancelled). */
export const handler = pageHandler(routes.checkoutCancel, async (request) => customerAction(request, (id) => cancelCheckout(id)), {
  csrfSubject,
});
