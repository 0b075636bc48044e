import * as routes from '#functions/routes/pay.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { openCheckout } from '#shared/services/checkout.ts';
import { csrfSubject, notFoundPage, showCheckout } from './common.ts';
import { checkoutPath } from './views.ts';

/** GET /pay/{paymentIntentId}: the hosted checkout page (an overdue session is expired first). */
export const handler = pageHandler(
  routes.checkoutPage,
  async ({ path, pathname, base }) => {
    if (pathname.endsWith('/')) return { redirect: checkoutPath(base, path.paymentIntentId!) };
    const intent = await openCheckout(path.paymentIntentId!);
    if (!intent) throw notFoundPage();
    return showCheckout(intent, base);
  },
  { csrfSubject },
);
