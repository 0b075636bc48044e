import { describe, expect, it } from 'vitest';
import { useDashboardBrowser } from '../support/dashboard-browser.ts';
import { call, newMerchant } from '../support/gateway.ts';

/**
 * The dashboard's payment links: finance creates a link (a role that takes payments), sees it in
 * the list, its QR code, payments, totals and remaining uses; deactivates and reactivates it; a
 * viewer sees the links but no create form or button. axe and the 375 px checks on every page.
 */
describe('dashboard: payment links', () => {
  const { gw, url, checkPage, userWithRole } = useDashboardBrowser();

  it('create, list, detail with a payment, deactivate and reactivate; viewers only look', { timeout: 300_000 }, async () => {
    const m = await newMerchant({ name: 'Karachi Prints' });
    const finance = await userWithRole(m, 'finance');
    await finance.getByRole('link', { name: 'Payment links' }).click();
    await finance.getByRole('heading', { name: 'Payment links' }).waitFor();
    await checkPage(finance, 'links-empty');

    // A refused form says why and creates nothing.
    await finance.getByLabel('Description', { exact: true }).fill('Poster A3');
    await finance.getByLabel('Amount (fixed price per item)').fill('5');
    await finance.getByRole('button', { name: 'Create link' }).click();
    expect(await finance.getByRole('alert').textContent()).toMatch(/greater than 10/);

    await finance.getByLabel('Description', { exact: true }).fill('Poster A3');
    await finance.getByLabel('Amount (fixed price per item)').fill('800');
    await finance.getByLabel('Maximum quantity (optional)').fill('4');
    await finance.getByLabel('Payment limit (optional)').fill('2');
    await finance.getByLabel('Phone').check();
    await finance.getByRole('button', { name: 'Create link' }).click();
    await finance.getByRole('heading', { name: 'Poster A3' }).waitFor();
    expect(await finance.getByRole('status').textContent()).toContain('was created');
    expect(await finance.locator('figure.qr svg').count()).toBe(1);
    const linkUrl = (await finance.locator('dd a').first().getAttribute('href'))!;
    const linkId = linkUrl.split('/').pop()!;
    expect(linkId).toMatch(/^pl_[0-9a-f]{24}$/);
    await checkPage(finance, 'link-detail');

    // A customer pays 2 posters through the link's page (as the browser would post it).
    const page = await fetch(url(`/l/${linkId}`));
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const posted = await fetch(url(`/l/${linkId}`), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
      body: new URLSearchParams({ csrf, quantity: '2', phone: '03001234567' }).toString(),
    });
    expect(posted.status).toBe(303);
    const id = posted.headers.get('location')!.split('/').pop()!;
    const payPage = await fetch(url(`/pay/${id}`));
    const payCsrf = /name="csrf" value="([^"]+)"/.exec(await payPage.text())![1]!;
    await fetch(url(`/pay/${id}/card`), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
      body: new URLSearchParams({ csrf: payCsrf, name: 'Sana Ali', number: '4242424242424242', expiry: '12/39', cvc: '123' }).toString(),
    });
    await finance.reload();
    const rows = finance.locator('.table-wrap[aria-label="Payments of this link, newest first"] tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Completed');
    expect(await finance.locator('dl').textContent()).toContain('1 (PKR 1,600.00)');
    expect(await finance.locator('dl').textContent()).toContain('1 of 2');

    await finance.getByRole('button', { name: 'Deactivate link' }).click();
    expect(await finance.getByRole('status').textContent()).toContain('deactivated');
    expect((await fetch(url(`/l/${linkId}`))).status).toBe(410);
    await finance.getByRole('button', { name: 'Reactivate link' }).click();
    expect(await finance.getByRole('status').textContent()).toContain('reactivated');
    expect((await fetch(url(`/l/${linkId}`))).status).toBe(200);

    await finance.getByRole('link', { name: 'All payment links' }).click();
    const listRows = finance.locator('.table-wrap[aria-label="Payment links, newest first"] tbody tr');
    expect(await listRows.count()).toBe(1);
    expect(await listRows.first().textContent()).toContain('Poster A3');
    await checkPage(finance, 'links-list');

    const viewer = await userWithRole(m, 'viewer', 375);
    await viewer.goto(url('/dashboard/links'));
    expect(await viewer.locator('.table-wrap tbody tr').count()).toBe(1);
    expect(await viewer.getByRole('button', { name: 'Create link' }).count()).toBe(0);
    await viewer.goto(url(`/dashboard/links/${linkId}`));
    expect(await viewer.getByRole('button', { name: 'Deactivate link' }).count()).toBe(0);
    const refused = await viewer.request.post(url(`/dashboard/links/${linkId}/deactivate`), { form: { csrf: 'x' } });
    expect(refused.status()).toBe(403);
    const api = await call(gw.baseUrl, 'GET', `/Gateway/v1/PaymentLinks/${linkId}`, { key: m.test.apiKey });
    expect(api.json).toMatchObject({ active: true, paymentCount: 1 });

    // Cursor paging, 25 per page: the links list, and a link's payments on its page.
    const createLink = async (description: string) => {
      const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/PaymentLinks', {
        key: m.test.apiKey,
        secret: m.test.secretKey,
        body: { amount: 50, description },
      });
      expect(r.status, r.text).toBe(201);
      return r.json.id as string;
    };
    const busy = await createLink('Busy stall');
    for (let i = 0; i < 24; i++) await createLink(`Sticker ${i}`);
    await finance.goto(url('/dashboard/links'));
    expect(await listRows.count()).toBe(25);
    await finance.getByRole('link', { name: 'Next page' }).click();
    expect(await listRows.count()).toBe(1);
    expect(await listRows.first().textContent()).toContain('Poster A3');
    expect(await finance.getByRole('link', { name: 'Next page' }).count()).toBe(0);

    const sessions: string[] = [];
    for (let i = 0; i < 26; i++) {
      const html = await (await fetch(url(`/l/${busy}`))).text();
      const r = await fetch(url(`/l/${busy}`), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams({ csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! }).toString(),
      });
      expect(r.status).toBe(303);
      sessions.push(r.headers.get('location')!.split('/').pop()!);
    }
    await finance.goto(url(`/dashboard/links/${busy}`));
    expect(await rows.count()).toBe(25);
    expect(await rows.first().textContent()).toContain(sessions[25]!.slice(0, 8));
    await finance.getByRole('link', { name: 'Next page' }).click();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(sessions[0]!.slice(0, 8));
    await checkPage(finance, 'link-payments-page-2');
    await finance.getByRole('link', { name: 'Newest payments' }).click();
    expect(await rows.count()).toBe(25);
  });
});
