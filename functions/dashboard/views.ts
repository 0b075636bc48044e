import { can, keyScopesOf, mintNoticeDays } from '#shared/domain/dashboard-roles.ts';
import { dashboardRoles } from '#shared/domain/dashboard-roles.ts';
import { framedPage, path, plainPage, type Frame } from '#shared/http/dashboard-views.ts';
import { html, type Html as HtmlT } from '#shared/http/pages.ts';
import type { homeSummary, paymentDetail, PaymentFilters, settingsOf, teamPage, TransactionView } from '#shared/services/dashboard.ts';
import type { payoutDecisionPreview, payoutsPage } from '#shared/services/dashboard-payouts.ts';
import type { eventDeliveries, webhookHealth, webhooksPage } from '#shared/services/dashboard-developers.ts';
import type { apiKeysOf, mintedMoneyOutKeys } from '#shared/services/dashboard-keys.ts';
import type { refundDecisionPreview, refundsPage } from '#shared/services/dashboard-refunds.ts';
import type {
  settlementDecisionPreview,
  settlementDetail,
  settlementPreview,
  settlementsList,
  SettlementForm,
} from '#shared/services/dashboard-settlements.ts';
import { intentStatuses, intentTypes } from '#shared/domain/intent.ts';
import type { CheckoutAttempt } from '#shared/domain/checkout.ts';
import { settlementStatusNames } from '#shared/domain/settlement.ts';
import { refundStatusNames } from '#shared/domain/refund.ts';
import type { Approvals } from '#shared/services/approvals.ts';
import { isMoneyOut } from '#shared/domain/scopes.ts';
import { deliveryStates, webhookEventTypes } from '#shared/domain/events.ts';
import { bankCodes, resolveBankCode } from '#shared/domain/bank-codes.ts';
import { breakdownSection } from './balance-views.ts';
import { money, paymentLink, payoutTo, shortId, when } from './format.ts';

/** The dashboard's pages (server-rendered HTML, no script; forms post with the session's CSRF token). */
const kindName = (intentType: string) => (intentType === 'withdrawal' ? 'Payout' : intentType === 'deposit' ? 'Deposit' : 'Payment');
export const hidden = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;
export const alert = (message?: string) => (message ? html`<div class="alert" role="alert">${message}</div>` : '');
const notice = (message?: string) => (message ? html`<div class="notice" role="status">${message}</div>` : '');

export function invitePage(o: { email: string; merchantName: string; csrf: string; error?: string; field?: string }) {
  return plainPage(
    'Set your password',
    html`<div class="card"><h1>Set your password</h1>
<p>You were invited to the ${o.merchantName} dashboard as <strong>${o.email}</strong>. Choose a password of at least 12 characters; next \
you will set up two-factor authentication.</p>
${alert(o.error)}
<form method="post">${hidden(o.csrf)}
<input type="email" name="username" autocomplete="username" value="${o.email}" aria-label="E-mail address" hidden readonly>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" \
required${o.field === 'password' ? html` aria-invalid="true"` : ''}>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" \
required${o.field === 'confirm' ? html` aria-invalid="true"` : ''}>
<button type="submit">Set password</button>
</form></div>`,
  );
}

/**
 * The recovery codes, shown this once (only their keyed digests are stored): in a read-only text box
 * to select and copy, and as a text file to download from a `data:` link, so no URL of ours ever
 * serves them again. The CSP allows it as it is: `default-src 'none'` governs what the page fetches,
 * and a download link is a navigation (browsers refuse top-level navigation to `data:`, not downloads).
 */
export function recoveryCodesPage(codes: string[], email: string, now = new Date()) {
  const file = [
    `Recovery codes of ${email} for the merchant dashboard (${now.toISOString().slice(0, 10)}).`,
    'Each one signs you in once instead of the 6-digit code from your authenticator app.',
    '',
    ...codes,
    '',
  ].join('\r\n');
  return plainPage(
    'Save your recovery codes',
    html`<div class="card"><h1>Save your recovery codes</h1>
<p>Two-factor authentication is on. If you lose your authenticator, each of these codes signs you in once instead of a 6-digit code. \
<strong>They are shown only now</strong>: store them in your password manager.</p>
<label for="recovery-codes">Your ${codes.length} recovery codes</label>
<textarea class="codes" id="recovery-codes" readonly rows="${codes.length}" spellcheck="false" autocapitalize="off" \
aria-describedby="codes-hint">${codes.join('\n')}</textarea>
<p class="muted" id="codes-hint">Select them all and copy them, or download them as a text file.</p>
<p><a class="button" href="data:text/plain;charset=utf-8,${encodeURIComponent(file)}" download="dashboard-recovery-codes.txt">\
Download as a text file</a></p>
<p><a href="${path('')}">Continue to the dashboard</a></p></div>`,
  );
}

export function signInPage(o: { csrf: string; email?: string; error?: string; message?: string }) {
  return plainPage(
    'Sign in',
    html`<div class="card"><h1>Sign in to the dashboard</h1>
${notice(o.message)}${alert(o.error)}
<form method="post" action="${path('/sign-in')}">${hidden(o.csrf)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" value="${o.email ?? ''}" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authentication code</label>
<input id="code" name="code" autocomplete="one-time-code" aria-describedby="code-hint" maxlength="11">
<p class="muted" id="code-hint">The 6-digit code from your authenticator app, or a recovery code.</p>
<button type="submit">Sign in</button>
</form>
<details class="help" id="lost-authenticator"><summary>Lost your authenticator app?</summary>
<p>Enter one of the recovery codes you saved when you set up two-factor authentication (they look like \
<code>abcde-fghij</code>) as the authentication code. Each code signs you in once.</p>
<p>No recovery code left? Ask an admin of your team to have the payment gateway's operator reset your two-factor \
authentication. Your password stays the same: at your next sign-in you set up an authenticator app again and get new recovery \
codes.</p>
</details></div>`,
  );
}

export function homeView(
  frame: Frame,
  s: Awaited<ReturnType<typeof homeSummary>>,
  w: Awaited<ReturnType<typeof webhookHealth>>,
  minted: MintedKeys = [],
) {
  const e = w.endpoint;
  const state = !e
    ? 'no endpoint configured'
    : e.disabledAt
      ? `disabled (${e.disabledReason ?? ''}) since ${when(e.disabledAt)}`
      : e.failingSince
        ? `failing since ${when(e.failingSince)}`
        : 'healthy';
  return framedPage(
    'Home',
    frame,
    html`${mintedKeysNotice(minted)}<h2>Balances</h2>
<div class="grid">${s.balances.map(
      (b) => html`<section class="card" aria-label="${b.currency} balance"><h3 class="muted">${b.currency}</h3>
<p class="big">${money(b.availableBalance, b.currency)}</p><p class="muted">available</p>
<dl><dt>Current</dt><dd>${money(b.currentBalance, b.currency)}</dd><dt>Pending</dt><dd>${money(b.pendingBalance, b.currency)}</dd></dl>\
</section>`,
    )}</div>
<h2>Today</h2>
<div class="grid"><section class="card" aria-label="Today's payments">\
<p class="big">${s.today.count}</p><p class="muted">completed payments today (UTC)</p>
${s.today.volume.map((v) => html`<p>${money(v.amount, v.currency)}</p>`)}</section></div>
<h2>Last 30 days</h2>
${s.volume.map(volumeChart)}
<h2>Recent failures</h2>
${s.failures.length ? paymentsTable(s.failures, 'Recent failed payments') : html`<p class="muted">No failed payments.</p>`}
<h2>Webhooks</h2>
<section class="card" aria-label="Webhook health"><dl>
<dt>Endpoint</dt><dd id="webhook-health">${state}</dd>
<dt>Latest events</dt><dd id="webhook-latest">${
      w.latest ? `${w.delivered} of the latest ${w.latest} delivered` : 'none in the last 30 days'
    }${w.troubles
      .filter((t) => t.count > 0)
      .map((t) =>
        can(frame.role, 'webhooks:manage')
          ? html`, <a href="${path('/developers/webhooks')}?state=${t.state}">${t.count} ${t.label}</a>`
          : html`, ${t.count} ${t.label}`,
      )}</dd>
</dl>${
      can(frame.role, 'webhooks:manage')
        ? html`<p><a href="${path('/developers/webhooks')}">Webhook endpoint and delivery \
log</a></p>`
        : ''
    }</section>`,
  );
}

const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/**
 * One currency's completed volume per day as an SVG bar chart (a named image, each bar titled with
 * its day, amount and count) and the same figures as a table behind a disclosure, for screen
 * readers and anyone who wants the numbers. No script: the page's CSP allows none.
 */
function volumeChart(v: Awaited<ReturnType<typeof homeSummary>>['volume'][number]): HtmlT {
  const id = `volume-${v.currency.toLowerCase()}`;
  const width = v.days.length * 10;
  const bars = v.days.map((d, i) => {
    const height = v.peak > 0 ? Math.max(d.amount > 0 ? 1 : 0, Math.round((d.amount / v.peak) * 96)) : 0;
    return html`<rect class="bar" x="${i * 10 + 1}" y="${100 - height}" width="8" height="${height}"><title>${dayLabel(d.day)}: \
${money(d.amount, v.currency)}, ${d.count} payment${d.count === 1 ? '' : 's'}</title></rect>`;
  });
  const best = v.days.reduce((a, d) => (d.amount > a.amount ? d : a), v.days[0]!);
  return html`<section class="card chart" aria-labelledby="${id}-heading">
<h3 id="${id}-heading">${v.currency}: ${money(v.total, v.currency)} in ${v.count} completed payment${v.count === 1 ? '' : 's'}</h3>
<svg role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${width} 100" preserveAspectRatio="none" focusable="false">\
<title id="${id}-title">Completed payment volume in ${v.currency} per day, ${dayLabel(v.days[0]!.day)} to \
${dayLabel(v.days.at(-1)!.day)}</title>\
<desc id="${id}-desc">${
    v.count
      ? `Highest day ${dayLabel(best.day)} with ${money(best.amount, v.currency)}. The table below lists every day.`
      : 'No completed payments in these days.'
  }</desc>\
<line class="axis" x1="0" y1="100" x2="${width}" y2="100" vector-effect="non-scaling-stroke"></line>${bars}</svg>
<p class="chart-axis muted" aria-hidden="true"><span>${dayLabel(v.days[0]!.day)}</span><span>highest day \
${money(v.peak, v.currency)}</span><span>today</span></p>
<details><summary>The ${v.days.length} days as a table</summary>
<div class="table-wrap" role="region" aria-label="${v.currency} volume per day" tabindex="0"><table>\
<caption class="muted">Completed payments per day (UTC), ${v.currency}</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Payments</th><th scope="col" class="num">Volume</th></tr></thead>
<tbody>${[...v.days]
    .reverse()
    .map(
      (d) => html`<tr><td>${d.day}</td><td class="num">${d.count}</td><td class="num">${money(d.amount, v.currency)}</td></tr>`,
    )}</tbody></table></div></details></section>`;
}

function paymentsTable(items: TransactionView[], caption: string): HtmlT {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table><caption class="muted">${caption}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col" class="num">Amount</th>\
<th scope="col">Payment id</th><th scope="col">Your reference</th></tr></thead>
<tbody>${items.map(
    (t) =>
      html`<tr><td>${when(t.createdAt)}</td><td>${t.intentType}</td><td class="status-${t.status}">${t.status}</td>\
<td class="num">${money(t.amount, t.currency)}</td><td>${paymentLink(
        t.paymentIntentId,
        `${kindName(t.intentType).toLowerCase()} \
${t.orderRef.orderRef}`,
      )}</td><td>${t.orderRef.orderRef}</td></tr>`,
  )}</tbody></table></div>`;
}

export function paymentsView(
  frame: Frame,
  o: { filters: Record<string, string>; page: { items: TransactionView[]; hasMore: boolean; moreReferences?: boolean } },
) {
  const f = o.filters;
  const query = (extra: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ ...f, ...extra }).filter(([, v]) => v));
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  const option = (value: string, selected: string | undefined, label = value) =>
    html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  const last = o.page.items.at(-1);
  return framedPage(
    'Payments',
    frame,
    html`<form method="get" action="${path('/payments')}" class="card" role="search" aria-label="Filter payments"><div class="filters">
<div><label for="q">Search</label><input id="q" name="q" type="search" value="${f.q ?? ''}" placeholder="orderRef, payment or transaction \
id (or how it begins), customer e-mail or phone"></div>
<div><label for="status">Status</label>\
<select id="status" name="status">${option('', f.status, 'Any')}${intentStatuses.map((s) => option(s, f.status))}</select></div>
<div><label for="type">Type</label>\
<select id="type" name="type">${option('', f.type, 'Any')}${intentTypes.map((s) => option(s, f.type))}</select></div>
<div><label for="from">From</label><input id="from" name="from" type="date" value="${f.from ?? ''}"></div>
<div><label for="to">To</label><input id="to" name="to" type="date" value="${f.to ?? ''}"></div>
<div><button type="submit">Apply</button></div>
</div></form>
<div class="actions"><a href="${path('/payments/export')}${query({ after: '' })}" download>Export every matching payment \
(CSV)</a>${f.after ? html`<a href="${path('/payments')}${query({ after: '' })}">First page</a>` : ''}</div>
${
  o.page.moreReferences
    ? html`<p class="card" id="more-references" role="status">More payments have a reference beginning with \
“${f.q ?? ''}” than one page shows: type more of it.</p>`
    : ''
}
${
  o.page.items.length
    ? paymentsTable(o.page.items, f.q ? 'Payments found' : 'Payments, newest first')
    : html`<p class="card">No payments match.</p>`
}
${
  o.page.hasMore && last
    ? html`<p><a href="${path('/payments')}${query({ after: last.paymentIntentId })}" rel="next">Next \
page</a></p>`
    : ''
}`,
  );
}

/**
 * A checkout's payment attempts (docs/merchant-guide.md, Hosted checkout: Declined and failed
 * attempts): every card or wallet the customer tried, with its outcome and reason.
 */
function attemptsSection(attempts: Omit<CheckoutAttempt, 'reference'>[]) {
  if (!attempts.some((a) => a.outcome === 'failed')) return html``; // one attempt that paid: the summary says it all
  const paidWith = (a: Omit<CheckoutAttempt, 'reference'>) =>
    a.card ? `${a.card.brand} ending ${a.card.last4}` : `${a.walletProvider ?? 'wallet'} ending ${a.walletNumberLast4 ?? ''}`;
  return html`<h2>Payment attempts</h2>
<div class="table-wrap" role="region" aria-label="Payment attempts" tabindex="0"><table><thead><tr><th scope="col" class="num">#</th>\
<th scope="col">At</th><th scope="col">Method</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead><tbody>${attempts.map(
    (a) =>
      html`<tr><td class="num">${a.number}</td><td>${when(a.at)}</td><td>${a.method}: ${paidWith(a)}</td><td>${a.outcome}</td>\
<td>${a.reason ?? '—'}</td></tr>`,
  )}</tbody></table></div>`;
}

export function paymentView(frame: Frame, d: Awaited<ReturnType<typeof paymentDetail>>, o: { error?: string; message?: string }) {
  const p = d.payment;
  const c = (p.customerRef ?? {}) as Record<string, string>;
  const card = (p as { card?: { brand?: string; last4?: string } | null }).card;
  const mayRefund = can(frame.role, 'refunds:create') && d.refunds && p.status === 'Completed' && d.refunds.refundableAmount > 0;
  return framedPage(
    `${kindName(p.intentType)} ${shortId(p.paymentIntentId)}`,
    frame,
    html`${notice(o.message)}${alert(o.error)}
<section class="card" aria-label="Summary"><dl>
<dt>Status</dt><dd class="status-${p.status}">${p.status}${p.reason ? ` (${p.reason})` : ''}</dd>
<dt>Type</dt><dd>${p.intentType}</dd>
<dt>Amount</dt><dd>${money(p.amount, p.currency)}</dd>
<dt>Fee</dt><dd>${money(p.fee, p.currency)}</dd>
<dt>Refunded</dt><dd>${money(p.refundedAmount, p.currency)}</dd>
<dt>Payment id</dt><dd><code>${p.paymentIntentId}</code></dd>
<dt>Your reference (orderRef)</dt><dd>${p.orderRef.orderRef}</dd>
<dt>Gateway reference</dt><dd>${p.transactionReference ?? '—'}</dd>
<dt>Created</dt><dd>${when(p.createdAt)}</dd>
<dt>Updated</dt><dd>${when(p.updatedAt)}</dd>
${card ? html`<dt>Card</dt><dd>${card.brand ?? ''} ending ${card.last4 ?? ''}</dd>` : ''}
${c.name ? html`<dt>Customer</dt><dd>${c.name}</dd>` : ''}${
  c.email
    ? html`<dt>E-mail</dt>\
<dd>${c.email}</dd>`
    : ''
}${c.phone ? html`<dt>Phone</dt><dd>${c.phone}</dd>` : ''}
${p.description ? html`<dt>Description</dt><dd>${p.description}</dd>` : ''}
</dl></section>
${attemptsSection(p.attempts ?? [])}
${
  d.refunds
    ? html`<h2>Refunds</h2>
<p>Refundable: <strong>${money(d.refunds.refundableAmount, p.currency)}</strong></p>
${
  d.refunds.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Refunds" tabindex="0"><table><thead><tr><th scope="col">Requested</th>\
<th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Reason</th></tr></thead><tbody>${d.refunds.items.map(
        (r) =>
          html`<tr><td>${when(r.requestedAt)}</td><td class="num">${money(r.amount, r.currency)}</td>\
<td>${['Pending', 'Approved', 'Processing', 'Completed', 'Failed', 'Cancelled', 'Rejected', 'Expired'][r.status]}</td>\
<td>${r.reason ?? ''}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No refunds.</p>`
}
${
  mayRefund
    ? html`<form method="post" \
action="${path(`/payments/${p.paymentIntentId}/refund`)}" class="card" aria-label="Refund">${hidden(frame.csrf)}
<h2>Refund</h2>
<label for="amount">Amount (${p.currency}; empty refunds everything left)</label>
<input id="amount" name="amount" inputmode="decimal" autocomplete="off">
<label for="reason">Reason</label>
<input id="reason" name="reason" maxlength="500" autocomplete="off">
<button type="submit">Refund</button>
</form>`
    : ''
}`
    : ''
}
<h2>Webhook events</h2>
${
  d.events.length
    ? html`<div class="table-wrap" role="region" aria-label="Webhook events" tabindex="0"><table><thead><tr><th scope="col">Created</th>\
<th scope="col">Event</th><th scope="col">Status change</th><th scope="col">Delivery</th><th scope="col" class="num">Attempts</th>\
<th scope="col">Last attempt</th><th scope="col">Resend</th></tr></thead><tbody>${d.events.map(
        (e) =>
          html`<tr><td>${eventTime(e.created)}</td><td><a href="${path(`/events/${e.eventId}`)}">${e.eventId}</a></td>\
<td>${e.previousStatus ?? '—'} → ${e.currentStatus}</td><td>${e.delivery.state}</td><td class="num">${e.delivery.attempts}</td>\
<td>${
            e.delivery.lastAttemptAt
              ? `${when(e.delivery.lastAttemptAt)}${e.delivery.lastStatusCode ? ` (HTTP ${e.delivery.lastStatusCode})` : ''}` +
                (e.delivery.lastError ? ` ${e.delivery.lastError}` : '')
              : '—'
          }</td><td>${resendButton(frame, e.eventId)}</td></tr>`,
      )}</tbody></table></div>
${d.events
  .filter((e) => e.attempts.length)
  .map(
    (e) => html`<h3>Attempts \
of ${e.eventId}</h3>${attemptsTable(e.attempts, `Delivery attempts of ${e.eventId}`)}`,
  )}`
    : html`<p class="muted">No events.</p>`
}
<p><a href="${path('/payments')}">Back to payments</a></p>`,
  );
}

export function teamView(
  frame: Frame,
  t: Awaited<ReturnType<typeof teamPage>>,
  o: { invited?: { email: string; inviteUrl: string }; error?: string; message?: string } = {},
) {
  return framedPage(
    'Team',
    frame,
    html`${
      o.invited
        ? html`<div class="notice" role="status">\
<p>Invited ${o.invited.email}. Pass on this link (it works once, for 72 hours; it is not shown again):</p>\
<p class="secret" id="invite-url">${o.invited.inviteUrl}</p></div>`
        : ''
    }${alert(o.error)}${notice(o.message)}
<div class="table-wrap" role="region" aria-label="Users" tabindex="0"><table><thead><tr><th scope="col">E-mail</th>\
<th scope="col">Role</th><th scope="col">Status</th><th scope="col">2FA</th><th scope="col">Since</th><th scope="col">Change</th></tr>\
</thead>
<tbody>${t.users.map(
      (u) =>
        html`<tr><td>${u.email}</td><td>${u.role}</td><td>${u.status === 'disabled' ? 'removed or disabled' : u.status}</td>\
<td>${u.twoFactor ? 'on' : 'not set up'}</td><td>${when(u.createdAt)}</td><td>${
          u.status === 'disabled'
            ? '—'
            : html`<div class="actions">\
<form method="post" action="${path(`/team/${u.userId}/role`)}" class="inline">${hidden(frame.csrf)}<label for="role-${u.userId}" \
class="vh">New role of ${u.email}</label><select id="role-${u.userId}" name="role">${dashboardRoles.map(
                (r) => html`<option \
value="${r}"${r === u.role ? html` selected` : ''}>${r}</option>`,
              )}</select>\
<button type="submit" class="secondary" aria-label="Change role of ${u.email}">Change role</button></form>
<form method="post" action="${path(`/team/${u.userId}/remove`)}" class="inline">${hidden(frame.csrf)}<button type="submit" \
class="secondary" aria-label="Remove ${u.email}">Remove</button></form></div>`
        }</td></tr>`,
    )}</tbody></table></div>
<form method="post" action="${path('/team/invite')}" class="card" aria-label="Invite a user">${hidden(frame.csrf)}<h2>Invite a user</h2>
<label for="invite-email">E-mail address</label><input id="invite-email" name="email" type="email" autocomplete="off" required>
<label for="invite-role">Role</label>\
<select id="invite-role" name="role">${dashboardRoles.map((r) => html`<option value="${r}">${r}</option>`)}</select>
<button type="submit">Create invitation link</button></form>
<h2>Audit log</h2>
<div class="table-wrap" role="region" aria-label="Audit log" tabindex="0"><table><thead><tr><th scope="col">When</th>\
<th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Mode</th><th scope="col">IP</th>\
<th scope="col">Outcome</th></tr></thead>
<tbody>${t.audit.items.map(
      (a) => html`<tr><td>${when(a.at)}</td><td>${a.actorEmail}</td><td>${a.action}</td><td>${a.target ?? ''}</td>\
<td class="word">${a.mode ?? ''}</td><td class="word">${a.ip ?? ''}</td><td>${a.outcome}${a.detail ? `: ${a.detail}` : ''}</td></tr>`,
    )}</tbody></table></div>
${t.audit.next ? html`<p><a href="${path('/team')}?before=${encodeURIComponent(t.audit.next)}" rel="next">Older entries</a></p>` : ''}
${exportLink('audit', 'the whole audit log')}`,
  );
}

type MintedKeys = Awaited<ReturnType<typeof mintedMoneyOutKeys>>;

/** Admins' notice (Home, Developers): the keys that move money out minted lately, by whom. */
export const mintedKeysNotice = (minted: MintedKeys) =>
  minted.length
    ? html`<section class="notice" role="status" aria-label="Money-out keys minted lately"><p><strong>API keys that \
move money out, minted in the last ${mintNoticeDays} days:</strong></p><ul>${minted.map(
        (k) => html`<li>${k.keyId} (${k.mode}): ${k.scopes.join(', ')}, minted by ${k.mintedBy} on ${when(k.createdAt)}\
${k.active ? '' : ' (no longer active)'}</li>`,
      )}</ul><p>Revoke any you do not recognise on the Developers page of its mode.</p></section>`
    : '';

/** The step-up field of a key form (admins): a fresh authenticator code, needed for money-out scopes. */
const stepUpField = (id: string, invalid: boolean) => html`<label for="${id}">Authentication code</label>
<p class="muted" id="${id}-hint">Needed for keys with payouts, settlements or refunds: a fresh code from your authenticator app.</p>
<input id="${id}" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" \
aria-describedby="${id}-hint${invalid ? ' key-error' : ''}"${invalid ? html` aria-invalid="true"` : ''}>`;

export function developersView(
  frame: Frame,
  keys: Awaited<ReturnType<typeof apiKeysOf>>,
  o: {
    issued?: { keyId: string; apiKey: string; secretKey: string; mode?: string };
    error?: string;
    field?: string;
    minted?: MintedKeys;
  } = {},
) {
  const admin = frame.role === 'admin';
  const scopes = keyScopesOf(frame.role);
  const invalid = (field: string) => o.field === field;
  return framedPage(
    'Developers',
    frame,
    html`${
      o.issued
        ? html`<div class="notice" role="status"><p>\
<strong>New ${o.issued.mode ?? frame.mode} key ${o.issued.keyId}. Copy both values now: they are shown only this once.</strong></p>
<p>API key (Svc-API-Key):</p><p class="secret" id="new-api-key">${o.issued.apiKey}</p>
<p>Secret key (body signatures):</p><p class="secret" id="new-secret-key">${o.issued.secretKey}</p></div>`
        : ''
    }${o.error ? html`<div class="alert" role="alert" id="key-error">${o.error}</div>` : ''}${mintedKeysNotice(o.minted ?? [])}
${
  can(frame.role, 'webhooks:manage')
    ? html`<p class="actions">\
<a href="${path('/developers/webhooks')}">Webhook endpoint and delivery log</a></p>`
    : ''
}
<h2>API keys (${frame.mode} mode)</h2>
<p class="muted">Last used: when the key last authenticated a request, to within 5 minutes.</p>
<div class="table-wrap" role="region" aria-label="API keys" tabindex="0"><table><thead><tr><th scope="col">Key id</th>\
<th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th>\
<th scope="col">Expires</th><th scope="col">Revoke</th></tr></thead>
<tbody>${keys.map(
      (k) =>
        html`<tr><td>${k.keyId}</td><td>${k.scopes.join(', ')}</td><td class="word">${k.status}</td><td>${when(k.createdAt)}</td>\
<td class="last-used">${k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td><td>${when(k.expiresAt)}</td><td>${
          k.status === 'active' || k.status === 'expiring'
            ? html`<form method="post" \
action="${path('/developers/keys/revoke')}">${hidden(frame.csrf)}<input type="hidden" name="keyId" value="${k.keyId}">\
<button type="submit" class="secondary" aria-label="Revoke ${k.keyId}">Revoke</button></form>`
            : '—'
        }</td></tr>`,
    )}</tbody></table></div>
<form method="post" action="${path('/developers/keys')}" class="card" aria-label="Create a key">${hidden(frame.csrf)}<h2>Create a key</h2>
<p>A new key pair with the scopes you choose; the other keys keep working. You may choose the scopes your role uses in the \
dashboard${admin ? '' : '; keys that move money out (payouts, settlements, refunds) are minted by an admin'}.</p>
<label for="key-mode">Mode</label>\
<select id="key-mode" name="mode">${(['test', 'live'] as const).map(
      (m) => html`<option \
value="${m}"${m === frame.mode ? html` selected` : ''}>${m}</option>`,
    )}</select>
<fieldset${invalid('scopes') ? html` aria-describedby="key-error"` : ''}><legend>Scopes</legend>${scopes.map(
      (sc) => html`<label class="check">\
<input type="checkbox" name="scopes" value="${sc}"${isMoneyOut(sc) ? '' : html` checked`}> ${sc}</label>`,
    )}</fieldset>
${admin ? stepUpField('key-code', invalid('code')) : ''}
<button type="submit">Create key</button></form>
<form method="post" action="${path('/developers/keys/roll')}" class="card" \
aria-label="Roll keys">${hidden(frame.csrf)}<h2>Roll the ${frame.mode} keys</h2>
<p>Creates a new key pair with the same scopes. The current keys keep working for the days you choose, then stop.\
${admin ? '' : ' Keys that move money out are rolled by an admin.'}</p>
<label for="grace">Old keys keep working for</label>\
<select id="grace" name="graceDays">${[0, 1, 2, 3, 4, 5, 6, 7].map(
      (d) => html`<option \
value="${d}"${d === 1 ? html` selected` : ''}>${d === 0 ? 'no time: revoke now' : `${d} day${d > 1 ? 's' : ''}`}</option>`,
    )}</select>
${admin ? stepUpField('roll-code', invalid('code')) : ''}
<button type="submit">Create a new key pair</button></form>`,
  );
}

const eventTime = (created: unknown) => when(typeof created === 'number' ? new Date(created * 1000).toISOString() : String(created ?? ''));

/** The Resend button of one event (webhooks:manage). */
export const resendButton = (frame: Frame, eventId: string) =>
  can(frame.role, 'webhooks:manage')
    ? html`<form method="post" \
action="${path(`/events/${eventId}/resend`)}" class="inline">${hidden(frame.csrf)}<button type="submit" class="secondary" \
aria-label="Resend ${eventId}">Resend</button></form>`
    : '';

export function webhooksView(
  frame: Frame,
  w: Awaited<ReturnType<typeof webhooksPage>>,
  filters: { type?: string; deliveryState?: string },
  o: {
    secret?: string;
    test?: { ok: boolean; statusCode: number | null; durationMs: number; error: string | null; eventId: string };
    message?: string;
    error?: string;
  } = {},
) {
  const e = w.endpoint;
  const option = (value: string, selected: string | undefined, label = value) =>
    html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  const query = new URLSearchParams(Object.entries({ type: filters.type ?? '', state: filters.deliveryState ?? '' }).filter(([, v]) => v));
  const last = w.log.items.at(-1);
  return framedPage(
    'Webhooks',
    frame,
    html`${
      o.secret
        ? html`<div class="notice" role="status"><p>\
<strong>New signing secret. Copy it now: it is shown only this once.</strong></p>\
<p class="secret" id="new-webhook-secret">${o.secret}</p></div>`
        : ''
    }
${
  o.test
    ? html`<div class="${o.test.ok ? 'notice' : 'alert'}" role="status" id="test-result">Test \
event ${o.test.eventId}: ${
        o.test.ok
          ? `delivered (HTTP ${o.test.statusCode}) in ${o.test.durationMs} ms`
          : `failed: ${o.test.error ?? 'error'}${o.test.statusCode ? ` (HTTP ${o.test.statusCode})` : ''}`
      }.</div>`
    : ''
}
${notice(o.message)}${alert(o.error)}
<h2>Endpoint (${frame.mode} mode)</h2>
${
  e
    ? html`<section class="card" aria-label="Endpoint"><dl>
<dt>URL</dt><dd id="endpoint-url">${e.url}</dd>
<dt>State</dt><dd id="endpoint-state">${
        e.disabledAt
          ? `disabled (${e.disabledReason ?? ''}) since ${when(e.disabledAt)}`
          : e.failingSince
            ? `enabled, failing since ${when(e.failingSince)}`
            : 'enabled'
      }</dd>
<dt>Event types</dt><dd>${e.events ? e.events.join(', ') : 'every type'}</dd>
<dt>Signing secrets</dt><dd>${e.secrets.map((s) => (s.expiresAt ? `one until ${when(s.expiresAt)}` : 'current')).join('; ')}</dd>
</dl>
<div class="actions">
<form method="post" action="${path('/developers/webhooks/test')}" class="inline">${hidden(frame.csrf)}<button type="submit">Send a test \
event</button></form>
<form method="post" action="${path('/developers/webhooks/state')}" class="inline">${hidden(frame.csrf)}<input type="hidden" \
name="enabled" value="${e.disabledAt ? '1' : '0'}"><button type="submit" \
class="secondary">${e.disabledAt ? 'Enable' : 'Disable'} the endpoint</button></form>
</div></section>
<form method="post" action="${path('/developers/webhooks/rotate')}" class="card" aria-label="Rotate the signing \
secret">${hidden(frame.csrf)}<h2>Rotate the signing secret</h2>
<p>A new secret signs every delivery from now on; the old one signs too for the hours you choose, so your receiver can switch without \
failures.</p>
<label for="overlap">The old secret keeps signing for</label>\
<select id="overlap" name="overlapHours">${[0, 1, 24, 72, 168].map(
        (h) => html`<option \
value="${h}"${h === 24 ? html` selected` : ''}>${h === 0 ? 'no time: stop now' : `${h} hours`}</option>`,
      )}</select>
<button type="submit">Rotate the secret</button></form>`
    : html`<p class="muted">No endpoint for ${frame.mode} mode yet.</p>`
}
<form method="post" action="${path('/developers/webhooks')}" class="card" aria-label="Endpoint \
settings">${hidden(frame.csrf)}<h2>${e ? 'Change the endpoint' : 'Add an endpoint'}</h2>
<label for="webhook-url">URL</label><input id="webhook-url" name="url" type="url" autocomplete="off" required value="${e?.url ?? ''}">
<fieldset><legend>Event types</legend>${webhookEventTypes.map(
      (t) => html`<label class="check">\
<input type="checkbox" name="events" value="${t}"${!e?.events || e.events.includes(t) ? html` checked` : ''}> ${t}</label>`,
    )}</fieldset>
<button type="submit">Save the endpoint</button></form>
<h2>Delivery log</h2>
<form method="get" action="${path('/developers/webhooks')}" class="card" role="search" aria-label="Filter the delivery log">\
<div class="filters">
<div><label for="log-type">Event type</label>\
<select id="log-type" name="type">${option('', filters.type, 'Any')}${webhookEventTypes.map((t) => option(t, filters.type))}</select></div>
<div><label for="log-state">Delivery</label>\
<select id="log-state" name="state">${option('', filters.deliveryState, 'Any')}\
${deliveryStates.map((t) => option(t, filters.deliveryState))}</select></div>
<div><button type="submit">Apply</button></div></div></form>
${
  w.log.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Delivery log" tabindex="0"><table><thead><tr><th scope="col">Created</th>\
<th scope="col">Event</th><th scope="col">Type</th><th scope="col">Delivery</th><th scope="col">Resend</th></tr>\
</thead><tbody>${w.log.items.map(
        (ev) =>
          html`<tr><td>${eventTime(ev.created)}</td><td>\
<a href="${path(`/events/${ev.eventId}`)}">${ev.eventId}</a></td><td>${ev.type}</td><td>${ev.deliveryState}</td>\
<td>${resendButton(frame, ev.eventId)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="card">No events match (the log keeps 30 days).</p>`
}
${
  w.log.hasMore && last
    ? html`<p><a href="${path('/developers/webhooks')}?${new URLSearchParams([...query, ['after', last.eventId]]).toString()}" \
rel="next">Older events</a></p>`
    : ''
}`,
  );
}

export function eventView(frame: Frame, d: Awaited<ReturnType<typeof eventDeliveries>>, o: { message?: string } = {}) {
  return framedPage(
    `Event ${d.eventId}`,
    frame,
    html`${notice(o.message)}<section class="card" aria-label="Event"><dl>
<dt>Event</dt><dd>${d.eventId}</dd>
<dt>Payment</dt><dd>${d.paymentIntentId ? html`<a href="${path(`/payments/${d.paymentIntentId}`)}">${d.paymentIntentId}</a>` : '—'}</dd>
<dt>Delivery</dt><dd id="event-state">${d.delivery.state}</dd>
<dt>Attempts</dt><dd>${d.delivery.attempts}</dd>
<dt>Next attempt</dt><dd>${when(d.delivery.nextAttemptAt)}</dd>
</dl><div class="actions">${resendButton(frame, d.eventId)}</div></section>
${attemptsTable(d.items, `Delivery attempts of ${d.eventId}`)}`,
  );
}

export function attemptsTable(items: Awaited<ReturnType<typeof eventDeliveries>>['items'], label: string) {
  return items.length
    ? html`<div class="table-wrap" role="region" \
aria-label="${label}" tabindex="0"><table><thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Trigger</th>\
<th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col" class="num">ms</th><th scope="col">Error</th><th scope="col">URL</th>\
</tr></thead><tbody>${items.map(
        (a) =>
          html`<tr><td>${a.attempt}</td><td>${when(a.attemptedAt)}</td><td>${a.trigger}</td><td>${a.outcome}</td>\
<td>${a.statusCode ?? '—'}</td><td class="num">${a.durationMs}</td><td>${a.error ?? ''}</td><td>${a.url ?? ''}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No delivery attempt yet.</p>`;
}

/** Who approved so far, when both the merchant's approver and the operator must approve. */
const approvalsText = (a: Approvals | undefined) =>
  a && (a.merchant || a.operator)
    ? [
        a.merchant ? `approved by ${a.merchant.email ?? 'an approver'}` : "waiting for the merchant's approver",
        a.operator ? 'approved by the operator' : 'waiting for the operator',
      ].join('; ')
    : 'no approval yet';

/**
 * Under the setting both, once the merchant's approval is in, the merchant's approvers are told what
 * it waits for instead of being offered Approve again (Reject stays: they may still refuse it).
 */
const approveOrWaiting = (a: Approvals | undefined, approve: HtmlT): HtmlT =>
  a?.merchant ? html`<p class="muted waiting">The merchant's approval is in: it waits for the operator.</p>` : approve;

/** What a payout's creator waits for, by the approval setting. */
const waitsFor = (policy: Awaited<ReturnType<typeof payoutsPage>>['policy']) =>
  ({
    operator: 'the operator',
    both: 'another approver and the operator',
    merchant: 'another approver',
    either: 'another approver or the operator',
  })[policy];

export function payoutsView(frame: Frame, p: Awaited<ReturnType<typeof payoutsPage>>, o: { message?: string; error?: string } = {}) {
  const approver = can(frame.role, 'payouts:approve') && p.policy !== 'operator';
  return framedPage(
    'Payouts',
    frame,
    html`${notice(o.message)}${alert(o.error)}
${exportLink('payouts', 'every payout')}
<h2>Awaiting approval</h2>
<p class="muted" id="approval-policy">Manual payouts are approved by ${p.policyText}.</p>
${
  p.pending.length
    ? html`<div class="table-wrap" role="region" aria-label="Payouts awaiting approval" tabindex="0"><table><thead><tr>\
<th scope="col">Created</th><th scope="col" class="num">Amount</th><th scope="col">To</th>\
<th scope="col">Payment id</th><th scope="col">Your reference</th>${p.policy === 'both' ? html`<th scope="col">Approvals</th>` : ''}\
${approver ? html`<th scope="col">Decision</th>` : ''}</tr></thead>
<tbody>${p.pending.map(
        (t) =>
          html`<tr><td>${when(t.createdAt)}</td><td class="num">${money(t.amount, t.currency)}</td><td>${payoutTo(t)}</td>\
<td>${paymentLink(t.paymentIntentId, 'payout')}</td><td>${t.orderRef.orderRef}</td>\
${p.policy === 'both' ? html`<td class="approvals">${approvalsText(p.approvals[t.paymentIntentId])}</td>` : ''}${
  approver && p.makers[t.paymentIntentId] === frame.userId
    ? html`<td class="muted">You created this payout: it waits for ${waitsFor(p.policy)}.</td>`
    : approver
      ? html`<td><div class="actions">${approveOrWaiting(
          p.policy === 'both' ? p.approvals[t.paymentIntentId] : undefined,
          html`<form method="post" action="${path(`/payouts/${t.paymentIntentId}/approve`)}">${hidden(frame.csrf)}<button type="submit" \
aria-label="Approve payout ${shortId(t.paymentIntentId)}">Approve</button></form>`,
        )}
<form method="post" action="${path(`/payouts/${t.paymentIntentId}/reject`)}">${hidden(frame.csrf)}<label \
for="reason-${t.paymentIntentId}">Reason (required)</label><input id="reason-${t.paymentIntentId}" name="reason" maxlength="255" \
autocomplete="off" required>\
<button type="submit" class="secondary" aria-label="Reject payout ${shortId(t.paymentIntentId)}">Reject</button></form>\
</div></td>`
      : ''
}</tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">Nothing awaits approval.</p>`
}
${
  can(frame.role, 'payouts:create')
    ? html`<form method="post" \
action="${path('/payouts')}" class="card" aria-label="Create a payout">${hidden(frame.csrf)}<h2>Create a payout</h2>
<p class="muted">Paid from the ${frame.mode} wallet to a bank account after another user approves it. The fee is held with the amount.</p>
<label for="payout-amount">Amount</label><input id="payout-amount" name="amount" inputmode="decimal" autocomplete="off" required>
<label for="payout-bank">Bank</label>\
<select id="payout-bank" name="bankCode">${bankCodes.map(
        (c) => html`<option \
value="${c}">${resolveBankCode(c)?.name ?? c}</option>`,
      )}</select>
<label for="payout-account">Account number or IBAN</label><input id="payout-account" name="accountNumber" autocomplete="off" required>
<label for="payout-title">Account title</label><input id="payout-title" name="accountTitle" autocomplete="off" required>
<label for="payout-cnic">Receiver CNIC <span class="muted">(13 digits; needed for JazzCash wallets in live mode)</span></label>\
<input id="payout-cnic" name="receiverCnic" inputmode="numeric" autocomplete="off" maxlength="15">
<label for="payout-description">Description</label><input id="payout-description" name="description" maxlength="255" autocomplete="off">
<button type="submit">Create payout</button></form>`
    : ''
}
<h2>Recent payouts</h2>
${p.recent.length ? paymentsTable(p.recent, 'Recent payouts') : html`<p class="muted">No other payouts.</p>`}`,
  );
}

const settlementStatus = (status: number) => settlementStatusNames[status] ?? String(status);
const destinationText = (v: {
  bankName: string | null;
  iban: string | null;
  accountTitle: string | null;
  usdtAddress: string | null;
  usdtNetwork: string | null;
}) => (v.usdtAddress ? `USDT ${v.usdtNetwork ?? ''} ${v.usdtAddress}` : `${v.bankName ?? ''} ${v.iban ?? ''} (${v.accountTitle ?? ''})`);

export function settlementsView(
  frame: Frame,
  list: Awaited<ReturnType<typeof settlementsList>>,
  o: { error?: string; form?: Partial<SettlementForm> } = {},
) {
  const f = o.form ?? {};
  return framedPage(
    'Settlements',
    frame,
    html`${alert(o.error)}
${
  list.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Settlements" tabindex="0"><table><thead><tr><th scope="col">Requested</th>\
<th scope="col" class="num">Amount</th><th scope="col" class="num">Payout</th><th scope="col">Status</th><th scope="col">To</th>\
<th scope="col">Settlement</th></tr></thead><tbody>${list.items.map(
        (v) =>
          html`<tr><td>${when(v.requestedAt)}</td><td class="num">${money(v.amount, v.currency)}</td><td \
class="num">${v.payoutAmount === null ? `${v.payoutCurrency} at approval` : money(v.payoutAmount, v.payoutCurrency)}</td>\
<td>${settlementStatus(v.status)}</td><td>${destinationText(v)}</td><td>\
<a href="${path(`/settlements/${v.id}`)}">${v.id.slice(0, 8)}…<span class="vh"> settlement of ${money(v.amount, v.currency)}</span></a>\
</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="card">No settlements in ${frame.mode} mode.</p>`
}
${list.hasMore ? html`<p><a href="${path('/settlements')}?page=${list.page + 1}" rel="next">Older settlements</a></p>` : ''}
${exportLink('settlements', 'every settlement')}
${
  can(frame.role, 'settlements:create')
    ? html`<form method="post" \
action="${path('/settlements')}" class="card" aria-label="Request a settlement">${hidden(frame.csrf)}<h2>Request a settlement</h2>
<p class="muted">Moves available funds of the ${frame.mode} wallet to your bank account, or to a USDT address (converted at the rate of \
the day). You see the fee and the rate before confirming; another user or the operator approves it (Settings).</p>
<label for="settle-amount">Amount</label><input id="settle-amount" name="amount" inputmode="decimal" autocomplete="off" \
required value="${f.amount ?? ''}">
<fieldset><legend>Pay to</legend>
<label class="check"><input type="radio" name="method" value="bank"${f.method !== 'usdt' ? html` checked` : ''}> To a bank account</label>
<label class="check"><input type="radio" name="method" value="usdt"${f.method === 'usdt' ? html` checked` : ''}> To a USDT address \
(converted)</label></fieldset>
<label for="settle-bank">Bank name (bank account)</label>\
<input id="settle-bank" name="bankName" autocomplete="off" value="${f.bankName ?? ''}">
<label for="settle-iban">IBAN (bank account)</label><input id="settle-iban" name="iban" autocomplete="off" value="${f.iban ?? ''}">
<label for="settle-title">Account title (bank account)</label>\
<input id="settle-title" name="accountTitle" autocomplete="off" value="${f.accountTitle ?? ''}">
<label for="settle-usdt">USDT address</label><input id="settle-usdt" name="usdtAddress" autocomplete="off" value="${f.usdtAddress ?? ''}">
<button type="submit">Review the settlement</button></form>`
    : ''
}`,
  );
}

export function settlementConfirmView(frame: Frame, p: Awaited<ReturnType<typeof settlementPreview>>, form: SettlementForm) {
  return framedPage(
    'Confirm the settlement',
    frame,
    html`<section class="card" aria-label="Settlement preview"><dl>
<dt>Amount</dt><dd>${money(p.amount, p.currency)}</dd>
<dt>Fee</dt><dd>${money(p.fee, p.currency)}</dd>
<dt>Net</dt><dd>${money(p.netAmount, p.currency)}</dd>
${
  p.fxRate
    ? html`<dt>Exchange rate</dt>\
<dd id="fx-rate">1 ${p.currency} = ${p.fxRate} ${p.payoutCurrency} (quoted ${when(p.fxRateAt)}; locked when it is \
approved)</dd>`
    : ''
}
<dt>You receive</dt><dd id="payout-amount">${p.fxRate ? 'about ' : ''}${money(p.payoutAmount, p.payoutCurrency)}</dd>
<dt>To</dt><dd>${
      p.destination.type === 'usdt'
        ? `USDT (${p.destination.network}) ${p.destination.address}`
        : `${p.destination.bankName} ${p.destination.iban} (${p.destination.accountTitle})`
    }</dd>
</dl></section>
<form method="post" action="${path('/settlements')}" class="card" aria-label="Confirm the \
settlement">${hidden(frame.csrf)}<input type="hidden" name="confirm" value="1">
${(['amount', 'method', 'bankName', 'iban', 'accountTitle', 'usdtAddress'] as const).map(
  (k) => html`<input type="hidden" \
name="${k}" value="${form[k]}">`,
)}
<button type="submit">Confirm the settlement</button></form>
<p><a href="${path('/settlements')}">Cancel</a></p>`,
  );
}

export function settlementView(frame: Frame, v: Awaited<ReturnType<typeof settlementDetail>>, o: { message?: string } = {}) {
  return framedPage(
    `Settlement ${v.id.slice(0, 8)}`,
    frame,
    html`${notice(o.message)}<section class="card" aria-label="Settlement"><dl>
<dt>Status</dt><dd id="settlement-status">${settlementStatus(v.status)}${v.failureReason ? ` (${v.failureReason})` : ''}</dd>
<dt>Amount</dt><dd>${money(v.amount, v.currency)}</dd>
<dt>Fee</dt><dd>${money(v.fee, v.currency)}</dd>
<dt>Net</dt><dd>${money(v.netAmount, v.currency)}</dd>
<dt>Payout</dt><dd>${
      v.payoutAmount === null ? `${v.payoutCurrency}, converted when approved` : money(v.payoutAmount, v.payoutCurrency)
    }</dd>
${v.fxRate !== null ? html`<dt>Exchange rate</dt><dd>${v.fxRate} (${when(v.fxRateTimestamp)})</dd>` : ''}
<dt>To</dt><dd>${destinationText(v)}</dd>
<dt>Requested</dt><dd>${when(v.requestedAt)}</dd>
<dt>Approved</dt><dd>${when(v.approvedAt)}</dd>
<dt>Processed</dt><dd>${when(v.processedAt)}</dd>
${v.bankFile ? html`<dt>Bank transfer</dt><dd id="settlement-bank-file">${v.bankFile}</dd>` : ''}
<dt>Automatic</dt><dd>${v.isAuto ? 'yes (schedule)' : 'no'}</dd>
<dt>Requested by</dt><dd>${
      v.maker ? `${v.maker.email}${v.maker.keyId ? ` (API key ${v.maker.keyId})` : ''}` : 'the API or the schedule'
    }</dd>
${
  v.status === 0
    ? html`<dt>Approved by</dt>\
<dd id="settlement-approvals">${v.policyText}${v.policy === 'both' ? ` (${approvalsText(v.approvals)})` : ''}</dd>`
    : ''
}
<dt>Id</dt><dd>${v.id}</dd>
</dl></section>
${breakdownSection(v)}
${
  v.status === 0 && can(frame.role, 'settlements:approve') && v.policy !== 'operator' && v.maker?.email !== frame.email
    ? html`<section class="card" aria-label="Decide"><h2>Approve or reject</h2><div class="actions">${approveOrWaiting(
        v.policy === 'both' ? v.approvals : undefined,
        html`<form method="post" action="${path(`/settlements/${v.id}/approve`)}">${hidden(frame.csrf)}\
<button type="submit">Approve settlement</button></form>`,
      )}
<form method="post" action="${path(`/settlements/${v.id}/reject`)}">${hidden(frame.csrf)}\
<label for="settle-reason">Reason (required)</label>\
<input id="settle-reason" name="reason" maxlength="255" autocomplete="off" required>\
<button type="submit" class="secondary">Reject settlement</button></form>
</div></section>`
    : ''
}
<p><a href="${path('/settlements')}">Back to settlements</a></p>`,
  );
}

/**
 * The step between a click on Approve or Reject and the decision: what is decided (the rows), the reason a rejection
 * gives, and one button that carries confirm=1. Nothing changes until it is pressed.
 */
export function decisionConfirmView(
  frame: Frame,
  o: {
    kind: 'payout' | 'settlement' | 'refund';
    id: string;
    decision: 'approve' | 'reject';
    rows: [string, string | HtmlT][];
    reason: string;
    back: string;
  },
) {
  const verb = o.decision === 'approve' ? 'Approve' : 'Reject';
  const action = path(`/${o.kind}s/${encodeURIComponent(o.id)}/${o.decision}`);
  return framedPage(
    `${verb} this ${o.kind}?`,
    frame,
    html`<section class="card" aria-label="The ${o.kind}"><dl>${o.rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}\
${o.decision === 'reject' ? html`<dt>Reason</dt><dd id="decision-reason">${o.reason}</dd>` : ''}</dl></section>
<p>${
      o.kind === 'refund'
        ? o.decision === 'approve'
          ? 'Approving holds the amount and the refund fee from the balance and sends the refund to the customer when every approval \
the setting asks for is in. This cannot be undone.'
          : 'Rejecting makes the payment refundable again and tells the requester the reason. This cannot be undone.'
        : o.decision === 'approve'
          ? `Approving sends the money when every approval the setting asks for is in. This cannot be undone.`
          : `Rejecting releases the held money back to the balance and tells the ${o.kind === 'payout' ? 'creator' : 'requester'} \
the reason. This cannot be undone.`
    }</p>
<form method="post" action="${action}" aria-label="${verb} the ${o.kind}">${hidden(frame.csrf)}\
<input type="hidden" name="confirm" value="1"><input type="hidden" name="reason" value="${o.reason}">
<div class="actions"><button type="submit"${o.decision === 'reject' ? html` class="secondary"` : ''}>${verb} ${o.kind}</button>\
<a href="${o.back}">Keep it pending</a></div></form>`,
  );
}

export function payoutDecisionView(frame: Frame, p: Awaited<ReturnType<typeof payoutDecisionPreview>>, decision: 'approve' | 'reject') {
  const t = p.payout;
  return decisionConfirmView(frame, {
    kind: 'payout',
    id: t.paymentIntentId,
    decision,
    reason: p.reason,
    back: path('/payouts'),
    rows: [
      ['Amount', money(t.amount, t.currency)],
      ['To', payoutTo(t)],
      ['Your reference', t.orderRef.orderRef],
      ['Created', `${when(t.createdAt)}${p.makerEmail ? ` by ${p.makerEmail}` : ''}`],
      ['Payment id', t.paymentIntentId],
    ],
  });
}

export function settlementDecisionView(
  frame: Frame,
  p: Awaited<ReturnType<typeof settlementDecisionPreview>>,
  decision: 'approve' | 'reject',
) {
  const v = p.settlement;
  return decisionConfirmView(frame, {
    kind: 'settlement',
    id: v.id,
    decision,
    reason: p.reason,
    back: path(`/settlements/${encodeURIComponent(v.id)}`),
    rows: [
      ['Amount', money(v.amount, v.currency)],
      ['Fee', money(v.fee, v.currency)],
      ['Net', money(v.netAmount, v.currency)],
      ['To', destinationText(v)],
      ['Requested', `${when(v.requestedAt)}${p.makerEmail ? ` by ${p.makerEmail}` : ''}`],
    ],
  });
}

/** The "Export CSV" link of a list: every row, as the one list export gives it (GET /dashboard/exports/{list}). */
const exportLink = (list: string, what: string) => html`<p><a href="${path(`/exports/${list}`)}" download>Export ${what} as CSV</a></p>`;

/** What a Pending refund waits for, as its requester sees it, by the approval setting. */
const refundWaitsFor = (p: Awaited<ReturnType<typeof refundsPage>>) =>
  p.policy === 'both' ? 'another approver and the operator' : p.policy === 'merchant' ? 'another approver' : p.policyText;

/**
 * The decision cell of a Pending refund: its requester is told what it waits for (maker-checker);
 * an approver or admin gets Approve and Reject (each confirmed on the next page) when the setting
 * lets the merchant's approvers decide refunds; everyone else sees who decides.
 */
function refundDecisionCell(frame: Frame, p: Awaited<ReturnType<typeof refundsPage>>, r: (typeof p.items)[number]): HtmlT {
  if (r.status !== 0) return html`<td>—</td>`;
  const approvals = p.policy === 'both' ? html`<p class="muted approvals">${approvalsText(p.approvals[r.id])}</p>` : '';
  if (p.makers[r.id] === frame.userId)
    return html`<td class="muted">You requested this refund: it waits for ${refundWaitsFor(p)}.${approvals}</td>`;
  if (!p.merchantDecides || !can(frame.role, 'refunds:approve')) return html`<td class="muted">Waits for ${p.policyText}.${approvals}</td>`;
  return html`<td>${approvals}<div class="actions">${approveOrWaiting(
    p.policy === 'both' ? p.approvals[r.id] : undefined,
    html`<form method="post" action="${path(`/refunds/${r.id}/approve`)}">${hidden(frame.csrf)}<button type="submit" \
aria-label="Approve refund ${shortId(r.id)}">Approve</button></form>`,
  )}
<form method="post" action="${path(`/refunds/${r.id}/reject`)}">${hidden(frame.csrf)}<label \
for="reason-${r.id}">Reason (required)</label><input id="reason-${r.id}" name="reason" maxlength="255" autocomplete="off" required>\
<button type="submit" class="secondary" aria-label="Reject refund ${shortId(r.id)}">Reject</button></form></div></td>`;
}

export function refundDecisionView(frame: Frame, p: Awaited<ReturnType<typeof refundDecisionPreview>>, decision: 'approve' | 'reject') {
  const r = p.refund;
  return decisionConfirmView(frame, {
    kind: 'refund',
    id: r.id,
    decision,
    reason: p.reason,
    back: path('/refunds'),
    rows: [
      ['Amount', money(r.amount, r.currency)],
      ['Refund fee', money(r.fee, r.currency)],
      ['Customer’s reason', r.reason ?? '—'],
      ['Payment id', r.paymentIntentId],
      ['Requested', `${when(r.requestedAt)}${p.makerEmail ? ` by ${p.makerEmail}` : ''}`],
      ['Refund id', r.id],
    ],
  });
}

export function refundsView(frame: Frame, p: Awaited<ReturnType<typeof refundsPage>>, o: { after?: string | undefined; message?: string }) {
  const last = p.items.at(-1);
  const decisions = p.items.some((r) => r.status === 0);
  return framedPage(
    'Refunds',
    frame,
    html`${notice(o.message)}<p class="muted">Every refund of the ${frame.mode} mode, newest first. Refund a payment from its page.</p>
<p class="muted" id="refund-policy">Refunds are approved by ${p.policyText} (approval setting, Settings).</p>
${
  p.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Refunds, newest first" tabindex="0"><table><thead><tr>\
<th scope="col">Requested</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Reason</th>\
<th scope="col">Payment id</th>${decisions ? html`<th scope="col">Decision</th>` : ''}</tr></thead>
<tbody>${p.items.map(
        (r) =>
          html`<tr><td>${when(r.requestedAt)}</td><td class="num">${money(r.amount, r.currency)}</td>\
<td>${refundStatusNames[r.status] ?? String(r.status)}${r.failureReason ? ` (${r.failureReason})` : ''}</td><td>${r.reason ?? '—'}</td>\
<td>${paymentLink(r.paymentIntentId, `refund ${r.id}`)}</td>${decisions ? refundDecisionCell(frame, p, r) : ''}</tr>`,
      )}</tbody></table></div>`
    : html`<p class="card">No refunds in ${frame.mode} mode.</p>`
}
${exportLink('refunds', 'every refund')}
<div class="actions">${o.after ? html`<a href="${path('/refunds')}">First page</a>` : ''}\
${p.hasMore && last ? html`<a href="${path('/refunds')}?after=${last.id}" rel="next">Next page</a>` : ''}</div>`,
  );
}

const policyChoices = [
  ['either', 'Either side', 'Your approvers or the operator, whichever decides first (the setting of a new account).'],
  [
    'merchant',
    'Your approvers',
    'An approver or admin approves in the dashboard (never the user who created it). The operator can still reject.',
  ],
  ['operator', 'The operator', 'The gateway operator approves; your approvers cannot approve or reject.'],
  ['both', 'Both', 'One of your approvers and the operator must both approve, in either order.'],
] as const;

export function settingsView(frame: Frame, s: Awaited<ReturnType<typeof settingsOf>>, o: { message?: string; error?: string } = {}) {
  return framedPage(
    'Settings',
    frame,
    html`${notice(o.message)}${alert(o.error)}
<form method="post" action="${path('/settings')}" class="card" aria-label="Payout approvals">${hidden(frame.csrf)}\
<h2>Who approves manual payouts and settlements</h2>
<p class="muted" id="current-policy">Now: ${s.policyText}.</p>
<fieldset><legend>Approved by</legend>${policyChoices.map(
      ([value, label, help]) =>
        html`<label class="check"><input type="radio" name="payoutApprovals" value="${value}"${s.policy === value ? html` checked` : ''}>\
<span><strong>${label}:</strong> <span class="muted">${help}</span></span></label>`,
    )}</fieldset>
<button type="submit">Save</button></form>`,
  );
}

export type { PaymentFilters };
