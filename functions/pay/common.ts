import { awaitingApproval, checkoutDetails, customerRedirectUrl } from '#shared/domain/checkout.ts';
import { isTerminal, type PaymentIntent } from '#shared/domain/intent.ts';
import { formToken } from '#shared/crypto/form-token.ts';
import { PageError, type PageResult } from '#shared/http/pages.ts';
import { CheckoutRefusal, merchantAcceptsPayments, merchantDisplayName, openCheckout } from '#shared/services/checkout.ts';
import { checkoutPath, notAcceptingPage, pendingPage, resultPage, type Entered } from './views.ts';
import '#shared/providers/live/boot-wallets.ts';
import '#shared/providers/live/boot-cards.ts';

/** What the hosted checkout handlers share: the form token's subject, rendering, PRG redirects. */
export const csrfSubject = (path: Record<string, string>) => `checkout:${path.paymentIntentId ?? ''}`;

export const notFoundPage = () =>
  new PageError(404, 'Payment not found', 'This payment link is not valid. Ask the merchant for a new one.');

/**
 * A Pending session whose page would offer a payment form (choose and pay, OTP, the card issuer's
 * challenge): not one whose money may already be moving (awaiting the wallet approval, a card
 * being confirmed), which keeps its waiting page.
 */
function offersPaymentForm(intent: PaymentIntent): boolean {
  const details = checkoutDetails(intent);
  return !isTerminal(intent.status) && !awaitingApproval(details) && details.cardAuth?.stage !== 'confirming';
}

/**
 * The page for the session as it is now; a finished payment with a callbackUrl goes back to the
 * merchant. A suspended merchant's session shows the "not accepting payments" page instead of the
 * payment forms (the cached profile: within MERCHANT_CACHE_MS of the suspension).
 */
export async function showCheckout(
  intent: PaymentIntent,
  base: string,
  refused?: { refusal: CheckoutRefusal; entered?: Entered },
): Promise<PageResult> {
  if (isTerminal(intent.status) && intent.status !== 'Expired') {
    const back = customerRedirectUrl(intent);
    if (back) return { redirect: back };
  }
  const [merchantName, csrf, accepting] = await Promise.all([
    merchantDisplayName(intent.merchantId),
    formToken(csrfSubject({ paymentIntentId: intent.paymentIntentId })),
    offersPaymentForm(intent) ? merchantAcceptsPayments(intent.merchantId) : true,
  ]);
  const ctx = { intent, merchantName, csrf, base, ...refused };
  if (!accepting) return notAcceptingPage(ctx);
  return isTerminal(intent.status) ? resultPage(ctx) : pendingPage(ctx);
}

/**
 * A customer action (POST): on success POST-redirect-GET, straight to callbackUrl when the payment
 * ended (docs/merchant-guide.md, Hosted checkout), else back to the page (`{base}/pay/{id}`).
 *
 * A refusal (a mistyped card number, an expired card, a short wallet number, a wrong code) changes
 * nothing and is answered in place: the page again, at the URL the form posted to, with the message
 * beside the field and what was valid filled in again (`entered`; never the card number, CVC or
 * code). Not a redirect: carrying the typed name and wallet number through one would need a cookie
 * or a stored record of a customer's details for every mistake; in place they are simply the
 * response. The page's forms post to absolute paths (`requestBase`), so the corrected submit reaches
 * its route from here too, and a reload re-sends a submit that changes nothing when refused.
 */
export async function customerAction(
  request: { base: string; path: Record<string, string> },
  action: (paymentIntentId: string) => Promise<PaymentIntent>,
  entered?: Entered,
): Promise<PageResult> {
  const paymentIntentId = request.path.paymentIntentId!;
  try {
    const intent = await action(paymentIntentId);
    const back = isTerminal(intent.status) && intent.status !== 'Expired' ? customerRedirectUrl(intent) : null;
    return { redirect: back ?? checkoutPath(request.base, intent.paymentIntentId) };
  } catch (error) {
    if (!(error instanceof CheckoutRefusal)) throw error;
    if (error.category === 'not_found') throw notFoundPage();
    const intent = await openCheckout(paymentIntentId);
    if (!intent) throw notFoundPage();
    return showCheckout(intent, request.base, isTerminal(intent.status) ? undefined : { refusal: error, ...(entered ? { entered } : {}) });
  }
}
