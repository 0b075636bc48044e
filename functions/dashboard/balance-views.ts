import { balanceTransactionTypes } from '#shared/domain/balance-transaction.ts';
import { framedPage, path, type Frame } from '#shared/http/dashboard-views.ts';
import { html, type Html } from '#shared/http/pages.ts';
import type { BalanceFilters, BalancePage } from '#shared/services/dashboard-balance.ts';
import type { settlementDetail } from '#shared/services/dashboard-settlements.ts';
import { money, paymentLink, when } from './format.ts';

/** The Balance page and a settlement's breakdown (docs/dashboard.md, Balance): balance transactions with their sources. */
type Row = BalancePage['items'][number];

const typeNames: Record<string, string> = {
  payment: 'Payment',
  deposit: 'Deposit',
  payout: 'Payout requested',
  payout_paid: 'Payout paid',
  payout_failure: 'Payout returned',
  settlement: 'Settlement requested',
  settlement_paid: 'Settlement paid',
  settlement_failure: 'Settlement returned',
  refund: 'Refund requested',
  refund_paid: 'Refund paid',
  refund_failure: 'Refund returned',
  adjustment: 'Adjustment',
};

/** Each row's source: the page of its payment, payout or settlement; refunds on the Refunds page. */
function sourceLink(r: Row): Html | string {
  const { type, id } = r.source;
  if (type === 'transaction') return paymentLink(id, `${typeNames[r.type] ?? r.type} source`);
  if (type === 'settlement')
    return html`<a href="${path(`/settlements/${id}`)}"><code>${id.slice(0, 8)}</code><span class="vh"> settlement</span></a>`;
  if (type === 'refund') return html`<a href="${path('/refunds')}">refund <code>${id.slice(0, 8)}</code></a>`;
  return id.replace(/^operator:/, 'operator ');
}

/**
 * The Amount cell: what came in from or went out to the outside (the API's `amount`). A movement between your
 * available and held balances (a hold, or a hold given back) has none, so it shows the amount it held or released.
 */
function amountCell(r: Row): Html | string {
  if (r.amount !== 0 || r.pendingChange === 0) return money(r.amount, r.currency);
  const held = r.pendingChange > 0;
  // One element (the stacked 375 px table lays a cell's children out as grid items) with a no-break space: one line.
  return html`<span>${money(Math.abs(r.pendingChange), r.currency)}\u00a0<span class="muted">${held ? 'held' : 'released'}</span></span>`;
}

export function balanceTable(items: Row[], caption: string): Html {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table><caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th>\
<th scope="col" class="num">Available change</th><th scope="col" class="num">Available after</th><th scope="col">Source</th></tr></thead>
<tbody>${items.map(
    (r) =>
      html`<tr><td>${when(r.createdAt)}</td><td>${typeNames[r.type] ?? r.type}</td><td class="num">${amountCell(r)}</td>\
<td class="num">${money(r.fee, r.currency)}</td><td class="num">${money(r.availableChange, r.currency)}</td>\
<td class="num">${r.availableBalanceAfter === null ? '—' : money(r.availableBalanceAfter, r.currency)}</td><td>${sourceLink(r)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function balanceView(frame: Frame, f: BalanceFilters, page: BalancePage) {
  const query = (extra: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ ...f, ...extra }).filter(([, v]) => v) as [string, string][]);
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  const option = (value: string, label: string) =>
    html`<option value="${value}"${value === (f.type ?? '') ? html` selected` : ''}>${label}</option>`;
  const last = page.items.at(-1);
  return framedPage(
    'Balance',
    frame,
    html`<p class="muted">Every movement of your ${frame.mode}-mode balance, newest first, with the available balance after \
each. Settlement breakdowns are on each settlement's page.</p>
<form method="get" action="${path('/balance')}" class="card" role="search" aria-label="Filter balance transactions"><div class="filters">
<div><label for="type">Type</label><select id="type" name="type">${option('', 'Any')}\
${balanceTransactionTypes.map((t) => option(t, typeNames[t] ?? t))}</select></div>
<div><label for="source">Source id</label><input id="source" name="source" value="${f.source ?? ''}" autocomplete="off" \
placeholder="payment, refund or settlement id"></div>
<div><label for="settlement">Settlement id</label>\
<input id="settlement" name="settlement" value="${f.settlement ?? ''}" autocomplete="off"></div>
<div><label for="payout">Payout id</label><input id="payout" name="payout" value="${f.payout ?? ''}" autocomplete="off"></div>
<div><label for="from">From</label><input id="from" name="from" type="date" value="${f.from ?? ''}"></div>
<div><label for="to">To</label><input id="to" name="to" type="date" value="${f.to ?? ''}"></div>
<div><button type="submit">Apply</button></div>
</div></form>
${page.items.length ? balanceTable(page.items, 'Balance transactions, newest first') : html`<p class="card">No movements match.</p>`}
<div class="actions"><a href="${path('/balance/export')}${query({ after: '' })}" download>Export every matching movement \
(CSV)</a>${f.after ? html`<a href="${path('/balance')}${query({ after: '' })}">First page</a>` : ''}\
${page.hasMore && last ? html`<a href="${path('/balance')}${query({ after: last.id })}" rel="next">Next page</a>` : ''}</div>`,
  );
}

/** A settlement's breakdown on its page: the totals (they add up to its amount) and the first movements it covers. */
export function breakdownSection(v: Awaited<ReturnType<typeof settlementDetail>>): Html | string {
  const b = v.breakdown;
  if (!b)
    return v.breakdownStatus === 'computing'
      ? html`<section class="card" aria-label="Breakdown"><h2>Breakdown</h2><p role="status">Being computed: this settlement \
covers more movements than a page adds up at once, so they are added up in the background. Reload this page in a minute or two.</p>\
<p><a href="${path('/balance')}?settlement=${v.id}">Every movement of this settlement</a></p></section>`
      : html`<p class="muted">This settlement was created before breakdowns existed: it has none.</p>`;
  const c = v.currency;
  const out = (x: number) => (x === 0 ? 0 : -x); // money out, shown negative (never -0.00)
  const rows: [string, number, string][] = [
    ['Carried in', b.carriedIn, 'carried-in'],
    ['Gross', b.gross, 'gross'],
    ['Fees', out(b.fees), 'fees'],
    ['Refunds', out(b.refunds), 'refunds'],
    ['Payouts', out(b.payouts), 'payouts'],
    ['Other', b.other, 'other'],
    ['Net', b.net, 'net'],
    ['Settled', out(b.amount), 'amount'],
    ['Carried forward', b.carriedForward, 'carried-forward'],
  ];
  const all = `${path('/balance')}?settlement=${v.id}`;
  return html`<section class="card" aria-label="Breakdown"><h2>Breakdown</h2>
<p class="muted">Covers ${b.count} balance transaction${b.count === 1 ? '' : 's'} since the previous settlement in ${c}; the list \
below also shows this settlement's own hold, the row that closes it. Carried in \
(left available after the previous settlement) + net = settled + carried forward (what stayed available). Net = gross (payments \
and deposits) − their fees − refunds − payouts + other (adjustments, returned settlements).</p>
<dl id="settlement-breakdown">${rows.map(
    ([label, amount, id]) => html`<dt>${label}</dt><dd id="breakdown-${id}">${money(amount, c)}</dd>`,
  )}</dl>
${
  v.movements?.items.length
    ? balanceTable(
        v.movements.items,
        `The ${b.count} movement${b.count === 1 ? '' : 's'} it covers and its own hold, newest first` +
          (v.movements.hasMore ? ` (the first ${v.movements.items.length})` : ''),
      )
    : ''
}
<p><a href="${all}">Every movement of this settlement</a></p></section>`;
}
