import * as routes from '#functions/routes/payment-links.ts';
import { pageHandler } from '#shared/http/pages.ts';
import { openPaymentLink } from '#shared/services/payment-link-checkout.ts';
import { csrfSubject, linkNotFound, showLink } from './common.ts';

/**
 * GET /l/{linkId}: the payment link's page (docs/payment-links.md). Never cached (`Cache-Control:
 * no-store`, like every hosted page): it carries a fresh form token and the link's state as it is now.
 */
export const handler = pageHandler(
  routes.paymentLinkPage,
  async ({ path }) => {
    const page = await openPaymentLink(path.linkId!);
    if (!page) throw linkNotFound();
    return showLink(page);
  },
  { csrfSubject },
);
