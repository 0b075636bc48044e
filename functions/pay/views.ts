import {
  attemptsLeft,
  attemptsOf,
  checkoutDetails,
  customerRedirectUrl,
  customerReturnBase,
  offeredMethods,
  type CheckoutAttempt,
} from '#shared/domain/checkout.ts';
import { heldApprovalDeclinedReason, isTerminal, type PaymentIntent } from '#shared/domain/intent.ts';
import { formatMoney } from '#shared/domain/money.ts';
import { walletProviders } from '#shared/domain/providers.ts';
import { sandboxCards } from '#shared/domain/sandbox.ts';
import { sandboxOtp } from '#shared/providers/wallet-sandbox.ts';
import { html, htmlDocument, type Html, type PageResult } from '#shared/http/pages.ts';
import { cnicAskedFor, notAcceptingPaymentsMessage, type CheckoutRefusal } from '#shared/services/checkout.ts';
import { isHeld } from '#shared/services/held-approvals.ts';
import { heldMethod } from '#shared/domain/core/intent.ts';
import { problemFor } from '#shared/http/problem.ts';

/**
 * The hosted checkout's HTML (docs/merchant-guide.md, Hosted checkout): one page per state of the session. Mobile first, no
 * script; every field labelled, with the standard autocomplete tokens; every form has exactly one
 * submit button. Form actions and links are absolute paths under the prefix the request came in
 * under (`ctx.base`: the stage, a custom domain's base path, or nothing), so every form posts to
 * its route whichever URL the page is shown at: `/pay/{id}`, or `/pay/{id}/card` when a refused
 * submit is shown again in place.
 */
export interface PageContext {
  intent: PaymentIntent;
  merchantName: string;
  csrf: string;
  /** The path prefix of the request (`requestBase`): '' locally, `/prod` on the execute-api URL. */
  base: string;
  refusal?: CheckoutRefusal;
  /** What the customer typed in the refused form, kept where it was valid (never a card number, CVC or code). */
  entered?: Entered;
}

/** The fields a refused form is shown again with. The card number, CVC and wallet code are never echoed back. */
export interface Entered {
  name?: string;
  expiry?: string;
  provider?: string;
  mobileNumber?: string;
  cnicLast6?: string;
}

/** `/pay/{id}` and its actions (`/pay/{id}/card`), under the request's prefix. */
export const checkoutPath = (base: string, paymentIntentId: string, action?: string) =>
  `${base}/pay/${encodeURIComponent(paymentIntentId)}${action ? `/${action}` : ''}`;
const payUrl = (ctx: PageContext, action?: string) => checkoutPath(ctx.base, ctx.intent.paymentIntentId, action);

/** What the customer typed into `field` of the refused `form`, unless that field was the mistake. */
function kept(ctx: PageContext, form: string, field: keyof Entered): string {
  if (ctx.refusal?.form !== form || ctx.refusal.fields[field]) return '';
  return ctx.entered?.[field] ?? '';
}
const keptValue = (ctx: PageContext, form: string, field: keyof Entered) => {
  const value = kept(ctx, form, field);
  return value ? html` value="${value}"` : html``;
};

const reasons: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  authentication_failed: 'Your card issuer could not verify you (3-D Secure).',
  customer_declined: 'The payment was declined in your wallet app.',
  wallet_declined: 'The wallet provider declined the payment.',
  otp_failed: 'The verification code was entered wrongly too many times.',
  customer_cancelled: 'You cancelled the payment.',
  expired: 'The payment session expired.',
  [heldApprovalDeclinedReason]: 'The merchant was not accepting payments, so your payment was not accepted.',
};

function header(ctx: PageContext): Html {
  return html`<header class="merchant"><p>${ctx.merchantName}</p>${
    ctx.intent.mode === 'test'
      ? html`<span class="badge">Test \
mode</span>`
      : ''
  }</header>`;
}

/** How many items a payment link's session pays for (the link's quantity field), when it is more than one. */
function linkQuantity(intent: PaymentIntent): number | undefined {
  if (!checkoutDetails(intent).paymentLinkId || !intent.metadataJson) return undefined;
  try {
    const quantity = (JSON.parse(intent.metadataJson) as { quantity?: unknown }).quantity;
    return Number.isSafeInteger(quantity) && (quantity as number) > 1 && intent.amountMinor % (quantity as number) === 0
      ? (quantity as number)
      : undefined;
  } catch {
    return undefined;
  }
}

function summary(intent: PaymentIntent): Html {
  const quantity = linkQuantity(intent);
  return html`<section class="card summary" aria-label="Order summary">
<p class="muted">${isTerminal(intent.status) || isHeld(intent) ? 'Amount' : 'Amount to pay'}</p>
<p class="amount">${formatMoney(intent.amountMinor, intent.currency)}</p>
<p>${intent.description}</p>
${
  quantity
    ? html`<p class="muted">${quantity} × ${formatMoney(intent.amountMinor / quantity, intent.currency)}</p>
`
    : ''
}\
<p class="muted">Order ${intent.orderRef.orderRef}</p>
</section>`;
}

const csrfField = (ctx: PageContext) => html`<input type="hidden" name="csrf" value="${ctx.csrf}">`;

/** A field error for `field` of `form`, with the ids aria-describedby points at. */
function fieldError(ctx: PageContext, form: string, field: string): { attrs: Html; message: Html } {
  const message = ctx.refusal?.form === form ? ctx.refusal.fields[field] : undefined;
  if (!message) return { attrs: html``, message: html`` };
  const id = `${form}-${field}-error`;
  return { attrs: html` aria-invalid="true" aria-describedby="${id}"`, message: html`<p class="field-error" id="${id}">${message}</p>` };
}

function formAlert(ctx: PageContext, form: string): Html {
  return ctx.refusal?.form === form ? html`<p class="alert" role="alert">${ctx.refusal.message}</p>` : html``;
}

function cardForm(ctx: PageContext): Html {
  const e = (field: string) => fieldError(ctx, 'card', field);
  const [name, number, expiry, cvc] = [e('name'), e('number'), e('expiry'), e('cvc')];
  // A refused card form comes back with the name and expiry; the number and code are never sent back to the browser.
  const again =
    ctx.refusal?.form === 'card'
      ? html`<p class="muted" id="card-again">For your security the card number and security code are not kept: enter them again.</p>`
      : html``;
  return html`<section class="card" aria-labelledby="card-heading">
<h2 id="card-heading">Pay by card</h2>
${formAlert(ctx, 'card')}${again}
<p class="muted" id="card-required">Every field is required.</p>
<form method="post" action="${payUrl(ctx, 'card')}" autocomplete="on" aria-describedby="card-required">
${csrfField(ctx)}
<label for="cc-name">Name on card <span class="muted">(as printed on the card)</span></label>
<input type="text" id="cc-name" name="name" autocomplete="cc-name" required maxlength="100"${keptValue(ctx, 'card', 'name')}${name.attrs}>
${name.message}
<label for="cc-number">Card number</label>
<input type="text" id="cc-number" name="number" autocomplete="cc-number" inputmode="numeric" required maxlength="23" placeholder="1234 \
1234 1234 1234"${number.attrs}>
${number.message}
<div class="row">
<div>
<label for="cc-exp">Expiry (MM/YY)</label>
<input type="text" id="cc-exp" name="expiry" autocomplete="cc-exp" inputmode="numeric" required maxlength="7" \
placeholder="MM/YY"${keptValue(ctx, 'card', 'expiry')}${expiry.attrs}>
${expiry.message}
</div>
<div>
<label for="cc-csc">Security code</label>
<input type="text" id="cc-csc" name="cvc" autocomplete="cc-csc" inputmode="numeric" required maxlength="4" placeholder="CVC"${cvc.attrs}>
${cvc.message}
</div>
</div>
<button type="submit">Pay ${formatMoney(ctx.intent.amountMinor, ctx.intent.currency)}</button>
</form>
</section>`;
}

function walletFields(ctx: PageContext): Html {
  const offered = offeredMethods(checkoutDetails(ctx.intent)).walletProviders;
  const provider = fieldError(ctx, 'wallet', 'provider');
  const number = fieldError(ctx, 'wallet', 'mobileNumber');
  const chosen = kept(ctx, 'wallet', 'provider');
  const checked = offered.some((p) => String(p) === chosen) ? chosen : String(offered[0]);
  const providerInput =
    offered.length === 1
      ? html`<input type="hidden" \
name="provider" value="${offered[0]}"><p>Pay with your <strong>${walletProviders[offered[0]!].name}</strong> wallet.</p>`
      : html`<fieldset${provider.attrs}>
<legend>Wallet</legend>
<div class="choice">
${offered.map(
  (p) => html`<label for="wallet-provider-${p}"><input type="radio" \
id="wallet-provider-${p}" name="provider" value="${p}"${String(p) === checked ? html` checked` : ''}> ${walletProviders[p].name}</label>`,
)}
</div>
${provider.message}
</fieldset>`;
  return html`${providerInput}
<label for="wallet-number">Mobile number</label>
<input type="tel" id="wallet-number" name="mobileNumber" autocomplete="tel" inputmode="tel" required maxlength="20" placeholder="03XX \
XXXXXXX"${keptValue(ctx, 'wallet', 'mobileNumber')}${number.attrs}>
${number.message}
${cnicField(ctx, offered.length)}
<button type="submit">Send verification code</button>`;
}

/** Live JazzCash takes the last six digits of the customer's CNIC when the merchant did not give the CNIC. */
function cnicField(ctx: PageContext, offeredCount: number): Html {
  const asked = cnicAskedFor(ctx.intent);
  if (asked.length === 0) return html``;
  const cnic = fieldError(ctx, 'wallet', 'cnicLast6');
  // With a choice of wallets only JazzCash needs it, so it is required only when JazzCash is the one offered.
  const only = asked.length === offeredCount;
  const hint = only ? html`` : html` <span>(${asked.map((p) => walletProviders[p].name).join(', ')} only)</span>`;
  return html`<label for="wallet-cnic">Last 6 digits of your CNIC${hint}</label>
<input type="text" id="wallet-cnic" name="cnicLast6" autocomplete="off" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" \
placeholder="XXXXXX"${only ? html` required` : html``}${keptValue(ctx, 'wallet', 'cnicLast6')}${cnic.attrs}>
${cnic.message}`;
}

function walletForm(ctx: PageContext): Html {
  return html`<section class="card" aria-labelledby="wallet-heading">
<h2 id="wallet-heading">Pay with mobile wallet</h2>
${formAlert(ctx, 'wallet')}
<form method="post" action="${payUrl(ctx, 'wallet')}">
${csrfField(ctx)}
${walletFields(ctx)}
</form>
</section>`;
}

function otpForm(ctx: PageContext): Html {
  const d = checkoutDetails(ctx.intent);
  const otp = fieldError(ctx, 'otp', 'otp');
  return html`<section class="card" aria-labelledby="otp-heading">
<h2 id="otp-heading">Check your phone for a code</h2>
<p>We sent a code to your ${d.walletProvider} wallet number ending <strong>${d.walletNumberLast4}</strong>.</p>
${formAlert(ctx, 'otp')}
<form method="post" action="${payUrl(ctx, 'otp')}">
${csrfField(ctx)}
<label for="wallet-otp">Verification code</label>
<input type="text" id="wallet-otp" name="otp" autocomplete="one-time-code" inputmode="numeric" required maxlength="6" \
pattern="[0-9]{6}"${otp.attrs}>
${otp.message}
<button type="submit">Confirm payment</button>
</form>
<p class="muted">The payment request already went to this number, so it cannot be changed. To use another number or pay another way, \
cancel this payment and start again from ${ctx.merchantName}.</p>
</section>`;
}

/**
 * Ending the session from the page. Before any attempt it is cancelling (Cancelled); after a declined
 * or failed attempt it is giving up, which ends the payment as Failed with that attempt's reason
 * (docs/merchant-guide.md, Hosted checkout), so the button says so and where it leads.
 */
function cancelForm(ctx: PageContext): Html {
  if (attemptsOf(checkoutDetails(ctx.intent)).length === 0)
    return html`<form class="cancel" method="post" action="${payUrl(ctx, 'cancel')}">
${csrfField(ctx)}
<button type="submit" class="secondary">Cancel payment</button>
</form>`;
  return html`<form class="cancel" method="post" action="${payUrl(ctx, 'cancel')}">
${csrfField(ctx)}
<button type="submit" class="secondary" aria-describedby="give-up-hint">Give up and return to ${ctx.merchantName}</button>
<p class="muted" id="give-up-hint">This ends the payment as failed. No money was taken.</p>
</form>`;
}

/** What an attempt paid or tried to pay with: "VISA ending 0002", "JazzCash wallet ending 1111". */
const attemptMethod = (a: Pick<CheckoutAttempt, 'card' | 'walletProvider' | 'walletNumberLast4'>): string =>
  a.card
    ? `${a.card.brand.toUpperCase()} ending ${a.card.last4}`
    : `${a.walletProvider ?? 'Wallet'} wallet ending ${a.walletNumberLast4 ?? ''}`;

/**
 * After a declined or failed attempt the session stays payable (docs/merchant-guide.md, Hosted
 * checkout: Declined and failed attempts): what went wrong, that no money was taken, and how many
 * tries are left, above the forms.
 */
function retryNotice(intent: PaymentIntent): Html {
  const details = checkoutDetails(intent);
  const last = attemptsOf(details).at(-1);
  if (last?.outcome !== 'failed') return html``;
  const left = attemptsLeft(details);
  return html`<section class="card retry" role="alert" aria-labelledby="retry-heading">
<h2 id="retry-heading">Your payment did not go through</h2>
<p>${(last.reason && reasons[last.reason]) || 'The payment was not accepted.'} (${attemptMethod(last)})</p>
<p>No money was taken. Try again with another card or wallet: ${left} attempt${left === 1 ? '' : 's'} left.</p>
</section>`;
}

const spaced = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

function testHints(ctx: PageContext): Html {
  if (ctx.intent.mode !== 'test') return html``;
  return html`<section class="notice" aria-label="Test mode">
<p><strong>Test mode:</strong> no real money moves.</p>
<ul class="hints">
${
  offeredMethods(checkoutDetails(ctx.intent)).card
    ? html`<li>Card <code>${spaced(sandboxCards.approved)}</code> \
succeeds, <code>${spaced(sandboxCards.declined)}</code> is declined; any future expiry and CVC.</li>`
    : ''
}
<li>Wallet numbers ending 0000 approve, 1111 decline; the code is <code>${sandboxOtp}</code>.</li>
</ul>
</section>`;
}

const page = (
  ctx: PageContext,
  title: string,
  body: Html,
  options: { status?: number; refreshSeconds?: number; formActions?: string[] } = {},
): PageResult => ({
  status: options.status ?? (ctx.refusal ? problemFor(ctx.refusal).status : 200),
  html: htmlDocument({
    title: `${title} · ${ctx.merchantName}`,
    body: html`<main>${header(ctx)}${body}</main>`,
    ...(options.refreshSeconds ? { refreshSeconds: options.refreshSeconds } : {}),
  }),
  // Chromium checks form-action on the redirects a form post leads to: allow the return origin.
  formActions: [...returnOrigin(ctx.intent), ...(options.formActions ?? [])],
});

const returnOrigin = (intent: PaymentIntent): string[] => {
  const base = customerReturnBase(intent);
  return base ? [new URL(base).origin] : [];
};

/**
 * A live card payment in its 3-D Secure step: the form that takes the customer to the card
 * issuer's challenge (a plain POST of the provider's fields; no script), then, once back, the wait
 * while the payment is confirmed.
 */
function cardAuthPage(ctx: PageContext, pageAlert: Html): PageResult {
  const auth = checkoutDetails(ctx.intent).cardAuth!;
  const card = html`${auth.card.brand.toUpperCase()} ending <strong>${auth.card.last4}</strong>`;
  if (auth.stage === 'confirming') {
    return page(
      ctx,
      'Confirming your payment',
      html`${summary(ctx.intent)}${pageAlert}
<section class="card" aria-labelledby="confirm-heading" aria-live="polite">
<h1 id="confirm-heading">Confirming your card payment</h1>
<p>Your bank verified your ${card}. We are confirming the payment with the card network.</p>
<p class="muted">This page updates by itself. <a href="${payUrl(ctx)}">Check now</a></p>
</section>`,
      { refreshSeconds: 3 },
    );
  }
  return page(
    ctx,
    'Verify with your bank',
    html`${summary(ctx.intent)}${pageAlert}
<section class="card" aria-labelledby="verify-heading">
<h1 id="verify-heading">Verify the payment with your bank</h1>
<p>Your bank checks this payment with your ${card} (3-D Secure). You come back to this page afterwards.</p>
<form method="post" action="${auth.url}">
${Object.entries(auth.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">Continue to your bank</button>
</form>
</section>${cancelForm(ctx)}`,
    { formActions: [new URL(auth.url).origin] },
  );
}

/**
 * The page of a Pending session: choose and pay, enter the OTP, or wait for the approval. Once a
 * wallet charge was started only that charge can pay (no card, no other number); while it awaits
 * approval on the handset it cannot be cancelled either (only the provider's answer ends it).
 */
export function pendingPage(ctx: PageContext): PageResult {
  const d = checkoutDetails(ctx.intent);
  const methods = offeredMethods(d);
  // The forms this state shows; a refusal about any other is shown at the top of the page.
  const shown =
    d.cardAuth || d.wallet?.stage === 'approval' ? [] : d.wallet?.stage === 'otp' ? ['otp'] : [...(methods.card ? ['card'] : []), 'wallet'];
  const pageAlert =
    ctx.refusal && !shown.includes(ctx.refusal.form) ? html`<p class="alert" role="alert">${ctx.refusal.message}</p>` : html``;
  if (isHeld(ctx.intent)) return heldPage(ctx);
  if (d.cardAuth) return cardAuthPage(ctx, pageAlert);
  if (d.wallet?.stage === 'approval') {
    return page(
      ctx,
      'Approve the payment',
      html`${summary(ctx.intent)}${pageAlert}
<section class="card" aria-labelledby="approve-heading" aria-live="polite">
<h1 id="approve-heading">Approve the payment on your phone</h1>
<p>Open your ${d.walletProvider} app for the number ending <strong>${d.walletNumberLast4}</strong> and approve the \
payment of ${formatMoney(ctx.intent.amountMinor, ctx.intent.currency)}.</p>
<p>Waiting for your approval on your phone. The payment can no longer be cancelled here: approve or decline it in your wallet app. If you \
do nothing, it ends by itself and no money is taken.</p>
<p class="muted">This page updates by itself. <a href="${payUrl(ctx)}">Check now</a></p>
</section>`,
      { refreshSeconds: 3 },
    );
  }
  const body =
    d.wallet?.stage === 'otp'
      ? html`${otpForm(ctx)}`
      : html`${methods.card ? cardForm(ctx) : ''}${methods.walletProviders.length ? walletForm(ctx) : ''}`;
  const retry = retryNotice(ctx.intent);
  return page(
    ctx,
    'Pay',
    html`<h1>Complete your payment</h1>${summary(ctx.intent)}${retry}${pageAlert}${body}${cancelForm(ctx)}${testHints(ctx)}`,
  );
}

/** What paid, as the held and failed pages name it: the card, or the wallet. */
function paidWithName(intent: PaymentIntent): { what: Html; kind: 'card' | 'wallet' } {
  const d = checkoutDetails(intent);
  const card = d.card ?? (heldMethod(intent) === 'card' ? d.cardAuth?.card : undefined);
  if (card) return { what: html`${card.brand.toUpperCase()} card ending <strong>${card.last4}</strong>`, kind: 'card' };
  return { what: html`${d.walletProvider} wallet ending <strong>${d.walletNumberLast4}</strong>`, kind: 'wallet' };
}

/**
 * A session whose card was captured or whose wallet charge was approved while the merchant was
 * suspended (held for the operator, shared/services/held-approvals.ts): not complete and not
 * payable; the operator's release completes it, a decline fails it and the customer is refunded.
 * The same page for a card and a wallet.
 */
function heldPage(ctx: PageContext): PageResult {
  const { what, kind } = paidWithName(ctx.intent);
  return page(
    ctx,
    'Payment on hold',
    html`<section class="card" role="status" aria-labelledby="held-heading">
<h1 id="held-heading">Your payment is on hold</h1>
<p>Your payment of ${formatMoney(ctx.intent.amountMinor, ctx.intent.currency)} with your ${what} reached us, but ${ctx.merchantName} \
is not accepting payments at the moment, so the payment is on hold and not complete.</p>
<p>It is reviewed by the payment service: either it goes through to the merchant, or it is refunded to your ${kind}. Do not pay \
again for this order; contact the merchant about it.</p>
<p class="muted">Reference ${ctx.intent.transactionReference}. <a href="${payUrl(ctx)}">Check again</a></p>
</section>${summary(ctx.intent)}${wayBack(ctx).link}`,
  );
}

/**
 * A Pending session of a merchant that takes no payments now (suspended): no form; the session
 * stays as it is (it can be paid if the merchant is reactivated before it expires).
 */
export function notAcceptingPage(ctx: PageContext): PageResult {
  return page(
    ctx,
    'Not accepting payments',
    html`<section class="card" role="alert"><h1>Not accepting payments</h1><p>${notAcceptingPaymentsMessage}</p></section>\
${summary(ctx.intent)}${wayBack(ctx).link}`,
  );
}

/**
 * The way back to the merchant from a page the payment cannot continue on (docs/merchant-guide.md,
 * Hosted checkout: Coming back): the session's return URL (returnUrl, else callbackUrl) with the
 * outcome in its query; for a payment link's session without one, the link's own page
 * (`{base}/l/{linkId}`), where the customer can pay again, unless this payment went through (a
 * paid customer is not invited to pay again); without either, the gateway knows no page of the
 * merchant's, and the page says the customer may close it.
 */
function wayBack(ctx: PageContext): { link: Html; retry: string } {
  const back = customerRedirectUrl(ctx.intent);
  if (back)
    return { link: html`<a class="button-link" href="${back}">Return to ${ctx.merchantName}</a>`, retry: `return to ${ctx.merchantName}` };
  const linkId = checkoutDetails(ctx.intent).paymentLinkId;
  if (linkId && ctx.intent.status !== 'Completed' && !isHeld(ctx.intent))
    return {
      link: html`<a class="button-link" href="${ctx.base}/l/${encodeURIComponent(linkId)}">Back to the payment page</a>`,
      retry: `go back to the payment page`,
    };
  return {
    link: html`<p class="muted" id="close-page">You can close this page now and go back to ${ctx.merchantName}.</p>`,
    retry: `return to ${ctx.merchantName}`,
  };
}

/** On the failed page: how many attempts were made, when more than one. */
function triedTimes(intent: PaymentIntent): Html {
  const tried = attemptsOf(checkoutDetails(intent)).length;
  return tried > 1 ? html`<p>${tried} attempts were made.</p>` : html``;
}

/** A terminal session: the result (Completed, Failed, Cancelled) or the expired page. */
export function resultPage(ctx: PageContext): PageResult {
  const { intent } = ctx;
  const d = checkoutDetails(intent);
  const { link: returnLink, retry } = wayBack(ctx);
  const paidWith = d.card
    ? html`<p class="muted">${d.card.brand.toUpperCase()} ending ${d.card.last4}</p>`
    : d.walletNumberLast4
      ? html`<p class="muted">${d.walletProvider} wallet ending ${d.walletNumberLast4}</p>`
      : html``;
  const reason = intent.reason ? (reasons[intent.reason] ?? '') : '';
  switch (intent.status) {
    case 'Completed':
      return page(
        ctx,
        'Payment successful',
        html`<section class="card" role="status"><h1 class="ok">Payment successful</h1>\
<p>You paid ${formatMoney(intent.amountMinor, intent.currency)} to ${ctx.merchantName}.</p>${paidWith}\
<p class="muted">Reference ${intent.transactionReference}</p></section>${summary(intent)}${returnLink}`,
      );
    case 'Failed':
      return page(
        ctx,
        'Payment failed',
        html`<section class="card" role="alert">\
<h1 class="bad">Payment failed</h1><p>${reason || 'The payment did not go through.'}</p>${paidWith}${triedTimes(intent)}${
          intent.reason === heldApprovalDeclinedReason
            ? html`<p>The amount will be refunded to your ${paidWithName(intent).kind}. For your order, contact ${ctx.merchantName}.</p>`
            : html`<p>No money was taken. To try again, ${retry} and start a new payment.</p>`
        }</section>${summary(intent)}${returnLink}`,
      );
    case 'Cancelled':
      return page(
        ctx,
        'Payment cancelled',
        html`<section class="card" role="status"><h1>Payment cancelled</h1><p>You cancelled this payment. No money was taken.</p>\
</section>${summary(intent)}${returnLink}`,
      );
    default:
      return page(
        ctx,
        'Session expired',
        html`<section class="card" role="alert"><h1>This payment session has expired</h1>\
<p>Payment sessions last 30 minutes. No money was taken.</p>\
<p>To pay, ${retry} and start the payment again.</p></section>${summary(intent)}${returnLink}`,
        { status: 410 },
      );
  }
}
