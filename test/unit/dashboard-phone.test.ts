import { describe, expect, it } from 'vitest';
import { recoveryCodesPage, signInPage } from '#functions/dashboard/views.ts';
import { dashboardCss, framedPage, type Frame } from '#shared/http/dashboard-views.ts';
import { html } from '#shared/http/pages.ts';

const frame: Frame = {
  merchantName: 'Acme',
  userId: 'u1',
  email: 'a@acme.test',
  role: 'admin',
  mode: 'test',
  csrf: 't',
  current: 'payments',
};
const codes = ['abcde-fghij', 'klmno-pqrst', '23456-7abcd'];

describe('dashboard on a phone (issue 38; Chromium proves it in test/browser/dashboard-phone.browser.test.ts)', () => {
  it('puts the navigation and the session forms in a "Menu" disclosure, folded below 40rem and always shown wider', () => {
    const page = framedPage('Payments', frame, html`<p>x</p>`);
    const menu = /<details class="menu"><summary>Menu<\/summary>([\s\S]*?)<\/details>\n<\/header>/.exec(page)?.[1] ?? '';
    expect(menu).toContain('<nav aria-label="Dashboard">');
    expect(menu).toContain('aria-current="page">Payments</a>');
    expect(menu).toContain('>Sign out everywhere</button>');
    expect(page).not.toMatch(/<details class="menu" open/); // closed as served: a phone shows the page first
    // Narrow: the panel drops below the header over the page. Wide: no button, and the closed <details> shows its content.
    expect(dashboardCss).toContain('@media (max-width:40rem){.menu{flex:none;margin-left:auto}.menu-panel{position:absolute;');
    expect(dashboardCss).toContain(
      '@supports selector(::details-content){@media (min-width:40.0625rem){.menu>summary{display:none}' +
        '.menu::details-content{display:block;content-visibility:visible}}}',
    );
  });

  it('shows the recovery codes in a read-only box and as a text file to download (a data: link, nothing served again)', () => {
    const page = recoveryCodesPage(codes, 'a@acme.test', new Date('2026-11-28T12:00:00Z'));
    expect(page).toContain(`readonly rows="3"`);
    expect(/<textarea[^>]*id="recovery-codes"[^>]*>([^<]*)<\/textarea>/.exec(page)?.[1]).toBe(codes.join('\n'));
    const href = /href="data:text\/plain;charset=utf-8,([^"]*)" download="dashboard-recovery-codes.txt"/.exec(page)?.[1];
    const file = decodeURIComponent(href!.replaceAll('&#39;', "'"));
    expect(file.split('\r\n')).toEqual([
      'Recovery codes of a@acme.test for the merchant dashboard (2026-11-28).',
      'Each one signs you in once instead of the 6-digit code from your authenticator app.',
      '',
      ...codes,
      '',
    ]);
    expect(dashboardCss).toContain('textarea.codes{display:block;width:100%;');
  });

  it('tells a user without their authenticator to use a recovery code, or to ask an admin for an operator reset', () => {
    const page = signInPage({ csrf: 't' });
    const help =
      /<details class="help" id="lost-authenticator"><summary>Lost your authenticator app\?<\/summary>([\s\S]*?)<\/details>/.exec(
        page,
      )?.[1];
    expect(help).toContain('Enter one of the recovery codes you saved');
    expect(help).toMatch(/Ask an admin of your team to have the payment gateway's operator reset your two-factor\s+authentication/);
  });
});
