import { path } from '#shared/http/dashboard-views.ts';
import { html, type Html } from '#shared/http/pages.ts';

/** How the dashboard's pages write amounts, times and payment ids (views.ts, balance-views.ts). */
export const money = (amount: number, currency: string) =>
  `${currency} ${amount.toLocaleString('en-US', { minimumFractionDigits: currency === 'USDT' ? 2 : 2, maximumFractionDigits: 6 })}`;
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : '—');
/**
 * A payment's (or payout's) one id on every page: its payment id (`paymentIntentId`, the API's and
 * the webhooks' id), shortened to its first 8 characters in lists and headings; the merchant's own
 * reference (`orderRef`) and the gateway's transaction reference are labelled as such where shown.
 */
export const shortId = (paymentIntentId: string) => paymentIntentId.slice(0, 8);
export const paymentLink = (paymentIntentId: string, what: string) =>
  html`<a href="${path(`/payments/${paymentIntentId}`)}"><code>${shortId(paymentIntentId)}</code><span class="vh"> ${what}</span></a>`;

/**
 * Where a payout goes, on the payouts list and its approve/reject page: the bank and the account's last four
 * (`•••• 6702`, kept on one line; the API's full-length mask wrapped mid-number on a phone), read aloud as
 * "account ending 6702".
 */
export function payoutTo(t: object): Html | string {
  const info = (t as { payoutInfo?: { customerBankName?: string; customerAccountNumber?: string } | null }).payoutInfo;
  if (!info) return '—';
  const last4 = (info.customerAccountNumber ?? '').slice(-4);
  // One outer span: a phone's stacked table lays each child of a cell out as a grid item of its own.
  return html`<span>${info.customerBankName ?? ''}${
    last4 ? html` <span class="nowrap"><span class="vh">account ending </span><span aria-hidden="true">•••• </span>${last4}</span>` : ''
  }</span>`;
}
