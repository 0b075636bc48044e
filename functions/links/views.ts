import type { PaymentLink } from '#shared/domain/payment-link.ts';
import { html, htmlDocument, type Html, type PageResult } from '#shared/http/pages.ts';
import type { LinkForm, LinkPage, LinkRefusal } from '#shared/services/payment-link-checkout.ts';
import { formatMoney } from '#shared/domain/money.ts';

/**
 * The payment link's page (docs/payment-links.md, The customer's page): what is sold, the amount
 * or quantity where the link lets the customer choose, the details the merchant asks for, and one
 * button that continues to the hosted checkout. No script; labelled fields with autocomplete
 * tokens; one submit button. A link that takes no payment shows why, with no form (410), and the
 * way back to the merchant (the link's returnUrl) when it has one.
 */
interface Ctx extends LinkPage {
  csrf: string;
  refusal?: LinkRefusal;
  form?: LinkForm;
}

const fieldInputs: Record<string, { label: string; autocomplete: string; inputmode?: string; type?: string }> = {
  name: { label: 'Your name', autocomplete: 'name' },
  email: { label: 'E-mail address', autocomplete: 'email', inputmode: 'email' },
  phone: { label: 'Phone number', autocomplete: 'tel', type: 'tel' },
  address: { label: 'Delivery address', autocomplete: 'street-address' },
};

function header(ctx: Ctx): Html {
  return html`<header class="merchant"><p>${ctx.merchantName}</p>${
    ctx.link.mode === 'test' ? html`<span class="badge">Test mode</span>` : ''
  }</header>`;
}

function document(ctx: Ctx, title: string, body: Html, status: number): PageResult {
  return {
    status,
    html: htmlDocument({ title: `${title} · ${ctx.merchantName}`, body: html`<main>${header(ctx)}${body}</main>` }),
  };
}

function price(link: PaymentLink): Html {
  if (link.price.type === 'fixed') {
    const each = formatMoney(link.price.amountMinor, link.currency);
    return html`<p class="amount">${each}</p>${link.quantity ? html`<p class="muted">per item</p>` : ''}`;
  }
  return html`<p class="muted">You choose the amount: ${formatMoney(link.price.minMinor, link.currency)} to \
${formatMoney(link.price.maxMinor, link.currency)}</p>`;
}

/** One labelled text field with its error, if the refusal names it. */
function field(ctx: Ctx, name: string, label: string, attrs: Html, hint?: string, fallback = ''): Html {
  const error = ctx.refusal?.fields[name];
  const errorId = `${name}-error`;
  const hintId = `${name}-hint`;
  const described = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ');
  const value = (ctx.form as Record<string, string | null | undefined> | undefined)?.[name] ?? fallback;
  return html`<label for="${name}">${label}</label>${hint ? html`<p class="muted" id="${hintId}">${hint}</p>` : ''}\
<input id="${name}" name="${name}" value="${value}" required${attrs}${
    described ? html` aria-describedby="${described}"` : ''
  }${error ? html` aria-invalid="true"` : ''}>${error ? html`<p class="field-error" id="${errorId}">${error}</p>` : ''}`;
}

/** The link's page: the form, or why it takes no payment. */
export function linkPage(ctx: Ctx, status = 200): PageResult {
  const { link } = ctx;
  const summary = html`<section class="card summary" aria-label="What you are paying for">
<p class="muted">${link.description}</p>${price(link)}</section>`;
  if (ctx.unavailable) {
    return document(
      ctx,
      'Payment link unavailable',
      html`<section class="card" role="alert"><h1>This payment link is not available</h1><p>${ctx.unavailable}</p></section>${summary}${
        link.returnUrl
          ? html`<a class="button-link" href="${link.returnUrl}">Return to ${ctx.merchantName}</a>`
          : html`<p class="muted" id="close-page">You can close this page now and go back to ${ctx.merchantName}.</p>`
      }`,
      410,
    );
  }
  // A message about a field the page does not show (a tampered form) goes into the alert itself.
  const shown = new Set([...(link.price.type === 'customer' ? ['amount'] : []), ...(link.quantity ? ['quantity'] : []), ...link.collect]);
  const unshown = Object.entries(ctx.refusal?.fields ?? {}).filter(([name]) => !shown.has(name));
  const alert = ctx.refusal
    ? html`<p class="alert" role="alert">${ctx.refusal.message}${unshown.map(([, message]) => html` ${message}`)}</p>`
    : html``;
  const amount =
    link.price.type === 'customer'
      ? field(
          ctx,
          'amount',
          `Amount (${link.currency})`,
          html` type="text" inputmode="decimal" autocomplete="transaction-amount"`,
          `From ${formatMoney(link.price.minMinor, link.currency)} to ${formatMoney(link.price.maxMinor, link.currency)}.`,
        )
      : html``;
  const quantity = link.quantity
    ? // Filled in with 1: a customer who buys one need not type it (the field is required).
      field(ctx, 'quantity', 'Quantity', html` type="text" inputmode="numeric" autocomplete="off"`, `1 to ${link.quantity.max}.`, '1')
    : html``;
  const details = link.collect.map((name) => {
    const input = fieldInputs[name]!;
    return field(
      ctx,
      name,
      input.label,
      html` type="${input.type ?? 'text'}" autocomplete="${input.autocomplete}"${
        input.inputmode ? html` inputmode="${input.inputmode}"` : ''
      }`,
    );
  });
  return document(
    ctx,
    link.description,
    html`${summary}${alert}
<section class="card" aria-labelledby="pay-heading">
<h1 id="pay-heading">Pay ${ctx.merchantName}</h1>
<form method="post" action="${link.linkId}">
<input type="hidden" name="csrf" value="${ctx.csrf}">
${amount}${quantity}${details}
<button type="submit">Continue to payment</button>
</form>
<p class="muted">You pay by card or mobile wallet on the next page.</p>
</section>`,
    status,
  );
}
