import { awaitingApproval, checkoutDetails, customerRedirectUrl } from '#shared/domain/checkout.ts';
import { isTerminal, type PaymentIntent } from '#shared/domain/intent.ts';
import { formToken } from '#shared/crypto/form-token.ts';
import { PageError, type PageResult } from '#shared/http/pages.ts';
import { CheckoutRefusal, merchantAcceptsPayments, merchantDisplayName, openCheckout } from '#shared/services/checkout.ts';
import { notAcceptingPage, pendingPage, resultPage } from './views.ts';
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
export async function showCheckout(intent: PaymentIntent, refusal?: CheckoutRefusal): Promise<PageResult> {
  if (isTerminal(intent.status) && intent.status !== 'Expired') {
    const back = customerRedirectUrl(intent);
    if (back) return { redirect: back };
  }
  const [merchantName, csrf, accepting] = await Promise.all([
    merchantDisplayName(intent.merchantId),
    formToken(csrfSubject({ paymentIntentId: intent.paymentIntentId })),
    offersPaymentForm(intent) ? merchantAcceptsPayments(intent.merchantId) : true,
  ]);
  const ctx = { intent, merchantName, csrf, ...(refusal ? { refusal } : {}) };
  if (!accepting) return notAcceptingPage(ctx);
  return isTerminal(intent.status) ? resultPage(ctx) : pendingPage(ctx);
}

/**
 * A customer action (POST): on success POST-redirect-GET, straight to callbackUrl when the payment
 * ended (docs/merchant-guide.md, Hosted checkout), else back to the page (`../{id}` from `/pay/{id}/<action>`). A refusal
 * re-renders the page with the message, changing nothing.
 */
export async function customerAction(paymentIntentId: string, action: () => Promise<PaymentIntent>): Promise<PageResult> {
  try {
    const intent = await action();
    const back = isTerminal(intent.status) && intent.status !== 'Expired' ? customerRedirectUrl(intent) : null;
    return { redirect: back ?? `../${encodeURIComponent(intent.paymentIntentId)}` };
  } catch (error) {
    if (!(error instanceof CheckoutRefusal)) throw error;
    if (error.category === 'not_found') throw notFoundPage();
    const intent = await openCheckout(paymentIntentId);
    if (!intent) throw notFoundPage();
    return showCheckout(intent, isTerminal(intent.status) ? undefined : error);
  }
}
