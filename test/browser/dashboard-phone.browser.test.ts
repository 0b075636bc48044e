import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { newMerchant } from '../support/gateway.ts';

/** Where the recovery codes' box lies in its card (content box: inside the padding), and how far its text scrolls sideways. */
const codesBox = (page: Page) =>
  page.evaluate<{ left: number; right: number; cardLeft: number; cardRight: number; overflow: number }>(
    `(() => { const box = document.querySelector('#recovery-codes'); const card = box.closest('.card');
      const b = box.getBoundingClientRect(), c = card.getBoundingClientRect(), s = getComputedStyle(card);
      return { left: b.left, right: b.right, cardLeft: c.left + parseFloat(s.paddingLeft), cardRight: c.right - parseFloat(s.paddingRight),
        overflow: box.scrollWidth - box.clientWidth }; })()`,
  );

/**
 * The dashboard on a 375 px phone and on a 1280 px screen (issue 38): on the phone the navigation
 * and the session's buttons fold behind a Menu button (no script: a <details>), which opens by
 * keyboard and by tap; on the wide screen they are always shown and the button is not. The recovery
 * codes fit their card at 375 px and download as a text file whose codes sign in; the sign-in page
 * tells a user without their authenticator what to do.
 */
describe('dashboard on a phone: menu, recovery codes, lost authenticator', () => {
  const { ops, newPage, url, checkPage, onboard } = useDashboardBrowser();

  it('collapses the navigation at 375 px only; recovery codes fit and download; the sign-in page shows the way back in', {
    timeout: 300_000,
  }, async () => {
    const m = await newMerchant({ name: 'Acme Phones and Accessories Ltd' });
    const email = `admin-${m.merchantId.slice(0, 8)}@phone.test`;
    const invited = await ops('user', 'invite', '--merchant', m.merchantId, '--email', email, '--role', 'admin', '--json');
    expect(invited.json, invited.stderr).toMatchObject({ inviteUrl: expect.any(String) });
    const page = await newPage(375);
    const password = 'a passphrase typed on a phone';
    let file = '';
    const { codes } = await onboard(page, new URL(invited.json.inviteUrl).pathname, password, false, async () => {
      // The codes lie inside their card's padding and none is cut off: at 375 px and at 1280 px.
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        const box = await codesBox(page);
        expect(box.left, `${width} px`).toBeGreaterThanOrEqual(box.cardLeft - 0.5);
        expect(box.right, `${width} px`).toBeLessThanOrEqual(box.cardRight + 0.5);
        expect(box.overflow, `${width} px`).toBe(0);
      }
      await page.setViewportSize({ width: 375, height: 800 });
      await checkPage(page, 'phone-recovery-codes');
      // Downloaded as a text file (a data: link, so no URL of ours serves them again).
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download as a text file' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('dashboard-recovery-codes.txt');
      file = await readFile(await download.path(), 'utf8');
    });
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(file.split('\r\n').filter((line) => /^[a-z2-7]{5}-[a-z2-7]{5}$/.test(line))).toEqual(codes);
    expect(file).toContain(email);

    // Home at 375 px: the merchant, the mode and a Menu button; the links and the session's buttons are folded away.
    // A disclosure button (Playwright's getByRole gives <summary> no role).
    const menu = page.locator('header details.menu > summary', { hasText: /^Menu$/ });
    const link = (name: string) => page.locator('nav[aria-label=Dashboard] a', { hasText: new RegExp(`^${name}$`) });
    expect(await menu.isVisible()).toBe(true);
    expect(await page.locator('.menu').getAttribute('open')).toBeNull();
    expect(await link('Payments').isVisible()).toBe(false);
    expect(await page.locator('button', { hasText: /^Sign out$/ }).isVisible()).toBe(false);
    expect(await page.locator('.mode').isVisible()).toBe(true);
    // The page's heading is in the first screenful (before: below some 400 px of links and buttons).
    const header = (await page.locator('header.top').boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(120);
    expect((await page.getByRole('heading', { name: 'Home' }).boundingBox())!.y).toBeLessThan(200);
    await checkPage(page, 'phone-home');

    // By keyboard: Tab past the skip link to the Menu button, Enter opens it, Tab reaches the first link.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Menu');
    await page.keyboard.press('Enter');
    expect(await page.locator('.menu').getAttribute('open')).toBe('');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Home');
    expect(await link('Payments').isVisible()).toBe(true);
    expect(await page.locator('button', { hasText: /^Sign out$/ }).isVisible()).toBe(true);
    await checkPage(page, 'phone-menu-open');
    // Closed again by the button; then opened by a tap, and a link in it works.
    await menu.click();
    expect(await link('Payments').isVisible()).toBe(false);
    await menu.click();
    await link('Payments').click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await link('Payments').isVisible()).toBe(false); // the next page starts folded
    await checkPage(page, 'phone-payments');

    // At 1280 px: no Menu button, every link and the session's buttons shown, and they work.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await menu.isVisible()).toBe(false);
    for (const name of ['Home', 'Balance', 'Payments', 'Refunds', 'Team', 'Settings'])
      expect(await link(name).isVisible(), name).toBe(true);
    expect((await page.locator('header.top').boundingBox())!.height).toBeLessThanOrEqual(160);
    await link('Refunds').click();
    await page.getByRole('heading', { name: 'Refunds' }).waitFor();
    expect(await menu.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();

    // The sign-in page at 375 px: a lost authenticator leads to the recovery codes, or to an admin.
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await page.setViewportSize({ width: 375, height: 800 });
    const help = page.getByText(/Ask an admin of your team/);
    expect(await help.isVisible()).toBe(false);
    await page.getByText('Lost your authenticator app?').click();
    expect(await page.getByText(/^Enter one of the recovery codes you saved/).isVisible()).toBe(true);
    expect(await help.isVisible()).toBe(true);
    expect(await help.textContent()).toContain('operator reset your two-factor authentication');
    await checkPage(page, 'phone-sign-in-help');
    // A code from the downloaded file signs in.
    const fromFile = file.split('\r\n').filter((line) => /^[a-z2-7]{5}-[a-z2-7]{5}$/.test(line))[3]!;
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Authentication code').fill(fromFile);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(await page.goto(url('/dashboard/payments')).then((r) => r!.status())).toBe(200);
  });
});
