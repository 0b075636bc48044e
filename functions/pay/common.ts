import { customerRedirectUrl } from '#shared/domain/checkout.ts';
import { isTerminal, type PaymentIntent } from '#shared/domain/intent.ts';
import { formToken } from '#shared/crypto/form-token.ts';
import { PageError, type PageResult } from '#shared/http/pages.ts';
import { CheckoutRefusal, openCheckout } from '#shared/services/checkout.ts';
import { merchantDisplayName } from '#shared/services/merchants.ts';
import { pendingPage, resultPage } from './views.ts';

/** What the hosted checkout handlers share: the form token's subject, rendering, PRG redirects. */
export const csrfSubject = (path: Record<string, string>) => `checkout:${path.paymentIntentId ?? ''}`;

export const notFoundPage = () =>
  new PageError(404, 'Payment not found', 'This payment link is not valid. Ask the merchant for a new one.');

/** The page for the session as it is now; a finished payment with a callbackUrl goes back to the merchant. */
export async function showCheckout(intent: PaymentIntent, refusal?: CheckoutRefusal): Promise<PageResult> {
  if (isTerminal(intent.status) && intent.status !== 'Expired') {
    const back = customerRedirectUrl(intent);
    if (back) return { redirect: back };
  }
  const [merchantName, csrf] = await Promise.all([
    merchantDisplayName(intent.merchantId),
    formToken(csrfSubject({ paymentIntentId: intent.paymentIntentId })),
  ]);
  const ctx = { intent, merchantName, csrf, ...(refusal ? { refusal } : {}) };
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
