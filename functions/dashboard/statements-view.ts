import { framedPage, path, type Frame } from '#shared/http/dashboard-views.ts';
import { html } from '#shared/http/pages.ts';
import { periodName, type statementMonths } from '#shared/services/statements.ts';

/**
 * The statements page: the month to date (provisional, today included) and each closed month since the merchant was
 * created, per currency, CSV and PDF, each row saying which days it covers (docs/dashboard-guide.md).
 */
export function statementsView(frame: Frame, months: Awaited<ReturnType<typeof statementMonths>>) {
  const link = (period: string, currency: string, kind: 'csv' | 'pdf') =>
    html`<a href="${path(`/statements/${period}/${kind}`)}?currency=${currency}" download \
aria-label="${periodName(period)} ${currency} ${kind.toUpperCase()}">${kind.toUpperCase()}</a>`;
  const rows = months.flatMap(({ period, currencies, provisional, coverage }) =>
    currencies.map(
      (c) =>
        // One element per cell: a narrow screen lays each cell out as its label beside its content.
        html`<tr><td><div>${periodName(period)}${provisional ? html` <span class="mode test">Provisional</span>` : ''}\
<div class="muted">${coverage}</div></div></td><td>${c}</td><td><span>${link(period, c, 'csv')} ${link(period, c, 'pdf')}</span></td></tr>`,
    ),
  );
  return framedPage(
    'Statements',
    frame,
    html`<p class="muted">Monthly balance statements of the ${frame.mode} mode (UTC months): opening balance, every movement \
grouped by type, fees and closing balance. Each carries a SHA-256 digest of its rows; the merchant guide shows how to check one. \
The current month is provisional: up to the moment you download it, today included.</p>
${
  rows.length
    ? html`<div class="table-wrap" role="region" aria-label="Statements, newest first" tabindex="0"><table><thead><tr>\
<th scope="col">Month</th><th scope="col">Currency</th><th scope="col">Download</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p class="card">No statement in ${frame.mode} mode yet.</p>`
}`,
  );
}
