import { create } from 'qrcode/lib/core/qrcode.js';
import { render as renderSvg } from 'qrcode/lib/renderer/svg-tag.js';
import { can } from '#shared/domain/dashboard-roles.ts';
import { customerFields } from '#shared/domain/payment-link.ts';
import { type Frame, framedPage, path } from '#shared/http/dashboard-views.ts';
import { Html, html } from '#shared/http/pages.ts';
import type { linkDetail, linksPage } from '#shared/services/dashboard-links.ts';
import type { PaymentLinkView } from '#shared/services/payment-links.ts';
import { shortId } from './format.ts';
import { alert, hidden } from './views.ts';

/**
 * The dashboard's payment link pages (docs/dashboard.md): the list with the create form, and one
 * link with its short URL, QR code (inline SVG: the dashboard's CSP loads no image), payments,
 * totals and remaining uses, with Deactivate / Reactivate for the roles that take payments.
 */
const money = (amount: number, currency: string) => `${currency} ${amount.toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
const when = (iso: string | null | undefined) => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : '—');
const statusNames: Record<PaymentLinkView['status'], string> = {
  active: 'Active',
  inactive: 'Deactivated',
  expired: 'Expired',
  used_up: 'Used up',
};
const priceOf = (l: PaymentLinkView) =>
  l.amount !== null
    ? `${money(l.amount, l.currency)}${l.maxQuantity ? ` (up to ${l.maxQuantity} items)` : ''}`
    : `${money(l.minAmount!, l.currency)} to ${money(l.maxAmount!, l.currency)}`;
const fieldNames = { name: 'Name', email: 'E-mail', phone: 'Phone', address: 'Address' } as const;
const usesOf = (l: PaymentLinkView) => (l.remainingUses === null ? 'No limit' : `${l.remainingUses} of ${l.maxPayments}`);

function createForm(frame: Frame): Html {
  if (!can(frame.role, 'links:manage')) return html``;
  const text = (name: string, label: string, hint = '', type = 'text') =>
    html`<label for="link-${name}">${label}</label>${hint ? html`<p class="muted" id="link-${name}-hint">${hint}</p>` : ''}\
<input id="link-${name}" name="${name}" type="${type}"${hint ? html` aria-describedby="link-${name}-hint"` : ''}>`;
  return html`<form method="post" action="${path('/links')}" class="card" aria-label="Create a payment link">${hidden(frame.csrf)}
<h2>Create a payment link</h2>
${text('description', 'Description', 'Letters, digits and spaces; the customer sees it.')}
<fieldset><legend>Price</legend>
<label class="check"><input type="radio" name="pricing" value="fixed" checked> A fixed amount</label>
<label class="check"><input type="radio" name="pricing" value="customer"> The customer enters the amount</label></fieldset>
${text('amount', 'Amount (fixed price per item)', 'Greater than 10.')}
${text('maxQuantity', 'Maximum quantity (optional)', 'From 2 to 100: the customer chooses how many; fixed amount only.')}
${text('minAmount', 'Minimum amount (customer enters)')}
${text('maxAmount', 'Maximum amount (customer enters)')}
${text('maxPayments', 'Payment limit (optional)', 'How many payments the link takes at most.')}
${text('expiresAt', 'Expires (optional, UTC)', '', 'datetime-local')}
${text('returnUrl', 'Return URL (optional)', 'https address the customer goes back to after paying.')}
<fieldset><legend>Ask the customer for</legend>${customerFields.map(
    (f) => html`<label class="check"><input type="checkbox" name="collect" value="${f}"> ${fieldNames[f]}</label>`,
  )}</fieldset>
<button type="submit">Create link</button>
</form>`;
}

export function linksView(frame: Frame, p: Awaited<ReturnType<typeof linksPage>>, o: { after?: string | undefined; error?: string } = {}) {
  const last = p.items.at(-1);
  return framedPage(
    'Payment links',
    frame,
    html`${alert(o.error)}<p class="muted">Links of the ${frame.mode} mode, newest first. Share a link's URL or QR code; each payment \
is a checkout of yours.</p>
${
  p.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Payment links, newest first" tabindex="0"><table><thead><tr>\
<th scope="col">Link</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col" class="num">Payments</th>\
<th scope="col" class="num">Total</th><th scope="col">Uses left</th><th scope="col">Created</th></tr></thead>
<tbody>${p.items.map(
        (l) =>
          html`<tr><td><a href="${path(`/links/${l.id}`)}">${l.description}<span class="vh"> (${l.id})</span></a></td>\
<td>${priceOf(l)}</td><td>${statusNames[l.status]}</td><td class="num">${l.paymentCount}</td>\
<td class="num">${money(l.totalAmount, l.currency)}</td><td>${usesOf(l)}</td><td>${when(l.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="card">No payment links in ${frame.mode} mode.</p>`
}
<div class="actions">${o.after ? html`<a href="${path('/links')}">First page</a>` : ''}\
${p.hasMore && last ? html`<a href="${path('/links')}?after=${last.id}" rel="next">Next page</a>` : ''}</div>
${createForm(frame)}`,
  );
}

export function linkView(
  frame: Frame,
  d: Awaited<ReturnType<typeof linkDetail>>,
  o: { created?: boolean; changed?: string | undefined; after?: string | undefined },
) {
  const l = d.link;
  const lastPayment = d.payments.items.at(-1);
  const next =
    d.payments.hasMore && lastPayment
      ? html`<a href="${path(`/links/${l.id}`)}?after=${lastPayment.paymentIntentId}" rel="next">Next page</a>`
      : html``;
  const svg = renderSvg(create(l.url, { errorCorrectionLevel: 'M' }), { margin: 2 });
  const notice = o.created
    ? 'The payment link was created. Share its URL or QR code.'
    : o.changed === 'deactivate'
      ? 'The link was deactivated: it takes no payment until you reactivate it.'
      : o.changed === 'reactivate'
        ? 'The link was reactivated.'
        : '';
  const toggle = can(frame.role, 'links:manage')
    ? html`<form method="post" action="${path(`/links/${l.id}/${l.active ? 'deactivate' : 'reactivate'}`)}">${hidden(frame.csrf)}\
<button type="submit"${l.active ? html` class="secondary"` : ''}>${l.active ? 'Deactivate link' : 'Reactivate link'}</button></form>`
    : html``;
  return framedPage(
    l.description,
    frame,
    html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
<div class="grid"><section class="card" aria-label="The link"><dl>
<dt>Status</dt><dd>${statusNames[l.status]}</dd>
<dt>URL</dt><dd><a href="${l.url}">${l.url}</a></dd>
<dt>Price</dt><dd>${priceOf(l)}</dd>
<dt>Payments</dt><dd>${l.paymentCount} (${money(l.totalAmount, l.currency)})</dd>
<dt>Under way</dt><dd>${l.pendingCount}</dd>
<dt>Uses left</dt><dd>${usesOf(l)}</dd>
<dt>Expires</dt><dd>${when(l.expiresAt)}</dd>
<dt>Asks for</dt><dd>${l.collect.length ? l.collect.join(', ') : '—'}</dd>
</dl>${toggle}</section>
<section class="card" aria-label="QR code"><figure class="qr" role="img" aria-label="QR code of ${l.url}">${new Html(svg)}</figure>
<div class="actions"><a href="${l.qrCode.png}" download>Download PNG</a>\
<a href="${l.qrCode.svg}" download>Download SVG</a></div></section></div>
<h2>Payments</h2>
${
  d.payments.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Payments of this link, newest first" tabindex="0"><table><thead><tr>\
<th scope="col">Created</th><th scope="col">Payment id</th><th scope="col" class="num">Amount</th><th scope="col">Status</th></tr></thead>
<tbody>${d.payments.items.map(
        (t) =>
          html`<tr><td>${when(t.createdAt)}</td>\
<td><a href="${path(`/payments/${t.paymentIntentId}`)}"><code>${shortId(t.paymentIntentId)}</code></a></td>\
<td class="num">${money(t.amount, t.currency)}</td><td>${t.status}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="card">${o.after ? 'No more payments.' : 'No payments yet.'}</p>`
}
<div class="actions">${o.after ? html`<a href="${path(`/links/${l.id}`)}">Newest payments</a>` : ''}${next}\
<a href="${path('/links')}">All payment links</a></div>`,
  );
}
