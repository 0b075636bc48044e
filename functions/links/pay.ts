import * as routes from '#functions/routes/payment-links.ts';
import { problemFor } from '#shared/http/problem.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { LinkRefusal, openPaymentLink, payWithLink } from '#shared/services/payment-link-checkout.ts';
import { csrfSubject, linkNotFound, showLink } from './common.ts';
import '#shared/providers/live/boot-wallet-presence.ts';

/**
 * POST /l/{linkId}: the customer continues to payment. The service checks everything again and
 * creates the checkout session with the link's use in one transaction; the customer is sent on to
 * the hosted checkout (`../pay/{paymentIntentId}`, relative, so it works under any base path). A
 * refusal re-renders the link's page with the messages (400) or why it takes no payment (410).
 */
export const handler = pageHandler(
  routes.paymentLinkPay,
  async ({ path, form, traceId }) => {
    const linkId = path.linkId!;
    const entered = {
      amount: form.get('amount'),
      quantity: form.get('quantity'),
      name: form.get('name'),
      email: form.get('email'),
      phone: form.get('phone'),
      address: form.get('address'),
    };
    try {
      const intent = await payWithLink(linkId, entered, traceId);
      return { redirect: `../pay/${encodeURIComponent(intent.paymentIntentId)}` };
    } catch (error) {
      if (!(error instanceof LinkRefusal)) throw error;
      const page = await openPaymentLink(linkId);
      if (!page || error.category === 'not_found') throw linkNotFound();
      if (error.category === 'gone') return showLink({ ...page, unavailable: page.unavailable ?? error.message });
      return showLink(page, error, entered, problemFor(error).status);
    }
  },
  { csrfSubject },
);
