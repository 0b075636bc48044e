import { framedPage, path, type Frame } from '#shared/http/dashboard-views.ts';
import { html } from '#shared/http/pages.ts';
import type { statementMonths } from '#shared/services/statements.ts';

/** The statements page: the month to date (provisional) and each closed month and currency, CSV and PDF (docs/dashboard-guide.md). */
export function statementsView(frame: Frame, months: Awaited<ReturnType<typeof statementMonths>>) {
  const link = (period: string, currency: string, kind: 'csv' | 'pdf') =>
    html`<a href="${path(`/statements/${period}/${kind}`)}?currency=${currency}" download>${kind.toUpperCase()}</a>`;
  const month = (period: string, through: string | null) =>
    through ? html`${period} <span class="muted">to date, provisional (through ${through.slice(0, 10)})</span>` : period;
  const rows = months.flatMap(({ period, currencies, provisionalThrough }) =>
    currencies.map(
      (c) =>
        html`<tr><td>${month(period, provisionalThrough)}</td><td>${c}</td>\
<td>${link(period, c, 'csv')} ${link(period, c, 'pdf')}</td></tr>`,
    ),
  );
  return framedPage(
    'Statements',
    frame,
    html`<p class="muted">Monthly balance statements of the ${frame.mode} mode (UTC months): opening balance, every movement \
grouped by type, fees and closing balance. Each carries a SHA-256 digest of its rows; the merchant guide shows how to check one. \
The current month is given to date and marked provisional: it runs through the last full UTC day and grows until the month ends.</p>
${
  rows.length
    ? html`<div class="table-wrap" role="region" aria-label="Statements, newest first" tabindex="0"><table><thead><tr>\
<th scope="col">Month</th><th scope="col">Currency</th><th scope="col">Download</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p class="card">No balance in ${frame.mode} mode yet.</p>`
}`,
  );
}
