import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { payByCard } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/card: the card form. The number and CVC are never stored or logged. */
export const handler = pageHandler(
  routes.checkoutCard,
  async (request) => {
    const { form } = request;
    const [name, expiry] = [form.get('name') ?? '', form.get('expiry') ?? ''];
    return customerAction(request, (id) => payByCard(id, { name, number: form.get('number') ?? '', expiry, cvc: form.get('cvc') ?? '' }), {
      name,
      expiry,
    });
  },
  { csrfSubject },
);
