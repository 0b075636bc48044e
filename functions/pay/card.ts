import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { payByCard } from '#shared/services/checkout.ts';
import { csrfSubject, customerAction } from './common.ts';

/** POST /pay/{paymentIntentId}/card: the card form. The number and CVC are never stored or logged. */
export const handler = pageHandler(
  routes.checkoutCard,
  async ({ path, form }) =>
    customerAction(path.paymentIntentId!, () =>
      payByCard(path.paymentIntentId!, {
        name: form.get('name') ?? '',
        number: form.get('number') ?? '',
        expiry: form.get('expiry') ?? '',
        cvc: form.get('cvc') ?? '',
      }),
    ),
  { csrfSubject },
);
