import type { Mode } from '#shared/domain/credentials.ts';
import { can, type DashboardRole } from '#shared/domain/dashboard-roles.ts';
import { basePath, Html, html, styledDocument, styleSource } from './pages.ts';

/**
 * The dashboard's page frame: styles (one inline stylesheet allowed by its hash; no script at
 * all), the header with the merchant, the visible test/live toggle, navigation by role and the
 * sign-out forms. Pages render their content into it (functions/dashboard/views.ts). Below 40rem
 * the navigation and the session's forms fold behind a "Menu" button (a <details>, so no script):
 * wider, the button is hidden and the closed <details> shows them anyway (`::details-content`); a
 * browser without that pseudo-element keeps the button at every width, which still works.
 */
export const dashboardCss = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
[hidden]{display:none!important}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
body{margin:0;overflow-wrap:anywhere;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a2e;background:#f4f5f7}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
header.top{position:relative;background:#fff;border-bottom:1px solid #dcdfe6;padding:.75rem 1rem;display:flex;flex-wrap:wrap;\
gap:.5rem 1rem;align-items:center}
header.top .brand{font-weight:700;margin:0;flex:1 1 auto}
.mode{font-size:.8rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;border-radius:.25rem;padding:.15rem .5rem;\
border:1px solid}
.mode.test{background:#fff3cd;color:#5c4300;border-color:#c9a227}
.mode.live{background:#e6f4ea;color:#0a5524;border-color:#5fa86f}
.menu{flex:1 1 100%}
.menu>summary{list-style:none;display:flex;align-items:center;gap:.5rem;min-height:44px;padding:.4rem .8rem;border:1px solid #1f47c8;\
border-radius:.5rem;color:#1f47c8;font-weight:700;cursor:pointer}
.menu>summary::-webkit-details-marker{display:none}
.menu>summary::before{content:"";width:1.1rem;height:.8rem;border-block:2px solid;\
background:linear-gradient(currentColor,currentColor) center/100% 2px no-repeat}
.menu[open]>summary{background:#e8edff}
.menu-panel{display:flex;flex-direction:column;gap:.5rem}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
nav a{display:inline-block;padding:.5rem .75rem;border-radius:.4rem;color:#1f47c8;text-decoration:none;font-weight:600}
nav a[aria-current=page]{background:#e8edff;color:#1a1a2e}
.session{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;font-size:.9rem;width:100%}
@media (max-width:40rem){.menu{flex:none;margin-left:auto}\
.menu-panel{position:absolute;z-index:10;top:100%;left:0;right:0;padding:.5rem 1rem 1rem;background:#fff;border-bottom:1px solid #dcdfe6;\
box-shadow:0 .75rem 1.5rem rgb(26 26 46/.15)}\
nav ul{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr))}\
nav a{display:flex;align-items:center;min-height:44px}}
@supports selector(::details-content){@media (min-width:40.0625rem){.menu>summary{display:none}\
.menu::details-content{display:block;content-visibility:visible}}}
.session form{margin:0}
.session button{width:auto;margin:0;padding:.4rem .7rem;min-height:44px;font-size:.9rem}
main{max-width:72rem;margin:0 auto;padding:1rem}
main.narrow{max-width:30rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}
h2{font-size:1.1rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #dcdfe6;border-radius:.75rem;padding:1rem;margin:0 0 1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem;margin:0 0 1rem}
.grid .card{margin:0}
.big{font-size:1.5rem;font-weight:700;margin:0}
.muted{color:#4f5567;font-size:.9rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{display:block;width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #767c8c;border-radius:.5rem;background:#fff;\
color:inherit;min-height:44px}
input:focus-visible,button:focus-visible,a:focus-visible,select:focus-visible,summary:focus-visible,textarea:focus-visible,\
.table-wrap:focus-visible{outline:3px solid #2f5bea;outline-offset:2px}
button{display:block;width:100%;margin:1rem 0 0;font:inherit;font-weight:700;padding:.7rem 1rem;border:0;border-radius:.5rem;\
background:#2f5bea;color:#fff;cursor:pointer;min-height:44px}
button.secondary{background:#fff;color:#1f47c8;border:1px solid #1f47c8}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:0 1rem;align-items:end}
.filters button{margin-top:.75rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:.75rem 0}
.actions a{font-weight:600}
.table-wrap{position:relative;overflow-x:auto;background:#fff;border:1px solid #dcdfe6;border-radius:.75rem;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid #e6e8ee;overflow-wrap:anywhere}
th,td.num,td button{white-space:nowrap}
.nowrap{white-space:nowrap}
td button,td.word{overflow-wrap:normal}
@media (max-width:40rem){.table-wrap table,.table-wrap tbody,.table-wrap tr,.table-wrap td{display:block}\
.table-wrap thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}\
.table-wrap tr{border-bottom:1px solid #e6e8ee;padding:.35rem 0}\
.table-wrap td{display:grid;grid-template-columns:7.5rem minmax(0,1fr);gap:.75rem;border:0;padding:.25rem .75rem;text-align:left;\
white-space:normal;overflow-wrap:anywhere}\
.table-wrap td::before{content:attr(data-label);font-weight:600;color:#4f5567}\
.table-wrap td.num{text-align:left}\
.table-wrap caption{display:block;text-align:left;padding:.5rem .75rem 0}}
th{background:#f8f9fb;font-weight:700}
td.num,th.num{text-align:right}
dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;margin:0}
dt{font-weight:600;color:#4f5567}
dd{margin:0}
@media (max-width:40rem){dl{grid-template-columns:minmax(0,1fr);gap:0}dd{margin:0 0 .6rem}}
.alert{border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem;background:#fdecee;color:#7a0016;border:1px solid #f1b5be}
.notice{border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem;background:#eef3ff;border:1px solid #c3d2fb}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1rem;background:#f8f9fb;border:1px solid #dcdfe6;border-radius:.4rem;\
padding:.5rem;word-break:break-all}
textarea.codes{display:block;width:100%;margin:0 0 .75rem;font:1.05rem/1.6 ui-monospace,Menlo,Consolas,monospace;padding:.5rem .75rem;\
border:1px solid #767c8c;border-radius:.5rem;background:#f8f9fb;color:inherit;resize:none}
a.button{display:inline-flex;align-items:center;min-height:44px;padding:.4rem 1rem;border:1px solid #1f47c8;border-radius:.5rem;\
font-weight:700;text-decoration:none}
.qr{max-width:14rem;margin:.5rem 0;background:#fff}
.qr svg{display:block;width:100%;height:auto}
.status-Completed{color:#0a5524;font-weight:600}
.status-Failed,.status-Expired,.status-Cancelled{color:#a0001c;font-weight:600}
fieldset{border:1px solid #dcdfe6;border-radius:.5rem;margin:.75rem 0 0;padding:.25rem .75rem .5rem}
legend{font-weight:600;padding:0 .25rem}
label.check{display:flex;align-items:center;gap:.5rem;margin:.35rem 0;font-weight:400}
label.check input{width:1.25rem;height:1.25rem;min-height:0;flex:none;margin:0}
.inline{display:inline;margin:0}
.inline button{display:inline-block;width:auto;margin:0;padding:.35rem .7rem;min-height:44px}
.chart svg{display:block;width:100%;height:8rem;margin:.5rem 0 0}
.chart .bar{fill:#2f5bea}
.chart .axis{stroke:#767c8c;stroke-width:1}
.chart-axis{display:flex;justify-content:space-between;gap:.5rem;flex-wrap:wrap;margin:.25rem 0 .5rem}
.chart h3{font-size:1rem;margin:0}
.chart details summary,.help>summary{cursor:pointer;font-weight:600;color:#1f47c8;padding:.65rem 0}
.help{margin:.75rem 0 0}
a{color:#1f47c8}
`.trim();
export const dashboardStyleSource = /* @__PURE__ */ styleSource(dashboardCss);

/** A dashboard URL path: path('/payments') → `/prod/dashboard/payments`. */
export const path = (p = '') => `${basePath()}/dashboard${p}`;

export function errorDocument(title: string, message: string): string {
  return styledDocument({
    title: `${title} · Dashboard`,
    css: dashboardCss,
    body: html`<main class="narrow" id="main"><div class="card" role="alert"><h1>${title}</h1><p>${message}</p><p>\
<a href="${path('')}">Dashboard home</a></p></div></main>`,
  });
}

/** A page outside the signed-in frame (invitation, enrolment, sign-in). */
export function plainPage(title: string, body: Html): string {
  return styledDocument({ title: `${title} · Dashboard`, css: dashboardCss, body: html`<main class="narrow" id="main">${body}</main>` });
}

export interface Frame {
  merchantName: string;
  /** The merchant is suspended: every page says so, above its content (docs/security-and-limits.md). */
  suspended?: boolean;
  /** The signed-in user (their own payouts show what they wait for, not Approve / Reject). */
  userId: string;
  email: string;
  role: DashboardRole;
  mode: Mode;
  csrf: string;
  /** Which navigation entry is this page. */
  current:
    | 'home'
    | 'balance'
    | 'payments'
    | 'refunds'
    | 'links'
    | 'payouts'
    | 'settlements'
    | 'statements'
    | 'developers'
    | 'team'
    | 'settings';
}

/**
 * Each body cell of a table gets its column's header as `data-label`, which narrow screens show
 * beside the value when rows stack (the CSS above): every table then fits a 375 px screen with its
 * actions in view, and no view has to repeat its headers per cell. Hand-written because it runs on
 * our own escaped markup only (no parser needed): cell text can never contain a literal `<td`.
 */
export function labelTableCells(markup: string): string {
  return markup.replace(/<table>[\s\S]*?<\/table>/g, (table) => {
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(table)?.[1] ?? '';
    const labels = [...head.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map((m) =>
      m[1]!
        .replace(/<[^>]*>/g, '')
        .replace(/"/g, '&quot;')
        .trim(),
    );
    return table.replace(/<tr>([\s\S]*?)<\/tr>/g, (row, cells: string) => {
      if (cells.includes('<th')) return row;
      let column = 0;
      return `<tr>${cells.replace(/<td\b/g, () => `<td data-label="${labels[column++] ?? ''}"`)}</tr>`;
    });
  });
}

/** A signed-in page. */
/** A suspended merchant's pages: what is paused, and that nothing already accepted is lost. */
const suspendedBanner = html`<div class="alert" role="alert"><strong>This account is suspended.</strong> Payments, payouts, \
settlements and refunds are paused until the operator reactivates it; nothing already accepted is lost.</div>`;

export function framedPage(title: string, frame: Frame, body: Html): string {
  const nav: [Frame['current'], string, string, boolean][] = [
    ['home', 'Home', path(''), can(frame.role, 'balances:read')],
    ['balance', 'Balance', path('/balance'), can(frame.role, 'balances:read')],
    ['payments', 'Payments', path('/payments'), can(frame.role, 'payments:read')],
    ['refunds', 'Refunds', path('/refunds'), can(frame.role, 'payments:read')],
    ['links', 'Payment links', path('/links'), can(frame.role, 'payments:read')],
    ['payouts', 'Payouts', path('/payouts'), can(frame.role, 'payouts:create') || can(frame.role, 'payouts:approve')],
    ['settlements', 'Settlements', path('/settlements'), can(frame.role, 'payments:read')],
    ['statements', 'Statements', path('/statements'), can(frame.role, 'balances:read')],
    ['developers', 'Developers', path('/developers'), can(frame.role, 'keys:manage')],
    ['team', 'Team', path('/team'), can(frame.role, 'team:manage')],
    ['settings', 'Settings', path('/settings'), can(frame.role, 'settings:manage')],
  ];
  const other = frame.mode === 'test' ? 'live' : 'test';
  const links = nav
    .filter(([, , , shown]) => shown)
    .map(([id, label, href]) => html`<li><a href="${href}"${id === frame.current ? html` aria-current="page"` : ''}>${label}</a></li>`);
  return styledDocument({
    title: `${title} · ${frame.merchantName} · Dashboard`,
    css: dashboardCss,
    body: html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand">${frame.merchantName}</p>
<span class="mode ${frame.mode}">${frame.mode === 'test' ? 'Test mode' : 'Live mode'}</span>
<details class="menu"><summary>Menu</summary><div class="menu-panel">
<nav aria-label="Dashboard"><ul>${links}</ul></nav>
<div class="session">
<span>${frame.email} (${frame.role})</span>
<form method="post" action="${path('/mode')}"><input type="hidden" name="csrf" value="${frame.csrf}">\
<input type="hidden" name="mode" value="${other}"><button type="submit" class="secondary">Switch to ${other} mode</button></form>
<form method="post" action="${path('/sign-out')}"><input type="hidden" name="csrf" value="${frame.csrf}">\
<button type="submit" class="secondary">Sign out</button></form>
<form method="post" action="${path('/sign-out')}"><input type="hidden" name="csrf" value="${frame.csrf}">\
<input type="hidden" name="everywhere" value="1"><button type="submit" class="secondary">Sign out everywhere</button></form>
</div>
</div></details>
</header>
<main id="main">${frame.suspended ? suspendedBanner : ''}<h1>${title}</h1>${new Html(labelTableCells(body.text))}</main>`,
  });
}
