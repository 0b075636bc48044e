import { latestFinalBoundary } from '#shared/services/balance-checkpoints.ts';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { journal } from '#shared/domain/ledger.ts';
import { ExportTooLarge } from '#shared/services/csv-export.ts';
import { authenticate } from '#shared/services/dashboard-auth.ts';
import { exportList } from '#shared/services/dashboard-exports.ts';
import { transact } from '#shared/store/client.ts';
import { listAudit } from '#shared/store/dashboard.ts';
import { postJournal } from '#shared/store/wallets.ts';
import { parseCsv } from '../support/csv.ts';
import { dashboardUser } from '../support/dashboard.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { seedIntent } from '../support/intents.ts';

/**
 * Issue 28 §3: every dashboard list exports ALL its matching rows (not one page) as CSV through the
 * one export helper, streamed page by page, filters applied, formula-safe cells, refused whole past
 * its size limit; the Statements page offers each closed month's CSV and PDF.
 */
describe('dashboard exports and statements', { timeout: 120_000 }, () => {
  const gw = useGateway(routeList);
  const get = async (cookie: string, path: string) => {
    const r = await fetch(`${gw.baseUrl}${path}`, { redirect: 'manual', headers: { Cookie: cookie } });
    return { status: r.status, headers: r.headers, text: await r.text(), bytes: 0 };
  };

  it('exports every matching payment across pages, with the filters, formula-safe', async () => {
    const m = await newMerchant();
    const u = await dashboardUser(m, 'admin');
    const completed = [];
    for (let i = 0; i < 130; i++) {
      const t = await seedIntent(m.merchantId, 'test', {
        status: i % 5 === 0 ? 'Failed' : 'Completed',
        customerRef: { name: i === 7 ? '=HYPERLINK("http://evil.example","x")' : i === 8 ? '+cmd' : `Customer ${i}`, email: '@x' },
        createdAt: new Date(Date.now() - i * 1000).toISOString(),
      });
      if (i % 5 !== 0) completed.push(t.paymentIntentId);
    }
    const all = await get(u.cookie, '/dashboard/exports/payments');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(all.text);
    expect(rows[0]![0]).toBe('paymentIntentId');
    expect(rows).toHaveLength(131); // the header and all 130: more than one page of 100
    const filtered = parseCsv((await get(u.cookie, '/dashboard/exports/payments?status=Completed')).text);
    expect(
      filtered
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual([...completed].sort());
    expect(filtered.slice(1).every((r) => r[2] === 'Completed')).toBe(true);
    // Formula-injection-safe: cells starting with = + - @ are prefixed with a quote.
    const names = rows.map((r) => r[rows[0]!.indexOf('customerName')]!);
    expect(names).toContain(`'=HYPERLINK("http://evil.example","x")`);
    expect(names).toContain("'+cmd");
    expect(rows.map((r) => r[rows[0]!.indexOf('customerEmail')])).toContain("'@x");
    // The old payments export is the same export.
    expect(parseCsv((await get(u.cookie, '/dashboard/payments/export?status=Completed')).text)).toHaveLength(filtered.length);
    expect((await get(u.cookie, '/dashboard/exports/payments?status=Nope')).status).toBe(400);
    expect((await get(u.cookie, '/dashboard/exports/nothing')).status).toBe(404);
    expect((await listAudit(m.merchantId, 10)).items.map((a) => a.action)).toContain('payments.export');

    // Past its limit an export is refused whole (never a truncated file), without reading the rest.
    const signed = (await authenticate(u.cookie.split('=')[1], null))!;
    const refused = await exportList(signed, 'payments', {}, '', { maxBytes: 5_000, maxMs: 20_000 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ExportTooLarge);
    expect((refused as ExportTooLarge).code).toBe('export_too_large');
    // It says where the cap was hit (rows read, the date of the last) and which filters take the rest.
    const message = (refused as ExportTooLarge).message;
    const reached = /cap was hit after 100 rows, newest first down to (\S+), so nothing was sent/.exec(message);
    expect(reached, message).not.toBeNull();
    expect(rows.map((r) => r[rows[0]!.indexOf('createdAt')])).toContain(reached![1]); // the 100th newest payment
    expect(message).toContain(`export From ${reached![1]!.slice(0, 10)} for the newest rows, then To ${reached![1]!.slice(0, 10)}`);
  });

  it('exports refunds, payouts, settlements and the audit log; a viewer gets no audit log', async () => {
    const m = await newMerchant();
    const admin = await dashboardUser(m, 'admin');
    for (const list of ['refunds', 'payouts', 'settlements', 'audit']) {
      const r = await get(admin.cookie, `/dashboard/exports/${list}`);
      expect(r.status, `${list}: ${r.text.slice(0, 200)}`).toBe(200);
      expect(parseCsv(r.text)[0]!.length).toBeGreaterThan(3);
    }
    const audit = parseCsv((await get(admin.cookie, '/dashboard/exports/audit')).text);
    expect(audit.slice(1).map((r) => r[2])).toEqual(expect.arrayContaining(['refunds.export', 'payouts.export']));
    const viewer = await dashboardUser(m, 'viewer');
    expect((await get(viewer.cookie, '/dashboard/exports/audit')).status).toBe(403);
  });

  it('the Statements page links each closed month’s CSV and PDF; the downloads carry the digest', async () => {
    const m = await newMerchant();
    await transact(
      postJournal(
        journal({
          merchantId: m.merchantId,
          mode: 'test',
          currency: 'PKR',
          kind: 'wallet.credit',
          reference: 'operator:oct',
          movements: [
            { account: { kind: 'external', name: 'sandbox_funding' }, amount: -500_00 },
            { account: { kind: 'available' }, amount: 500_00 },
          ],
          now: new Date(Date.UTC(2026, 9, 15)),
        }),
      ),
    );
    const u = await dashboardUser(m, 'finance');
    const page = await get(u.cookie, '/dashboard/statements');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/dashboard/statements/2026-10/csv?currency=PKR');
    expect(page.text).toContain('/dashboard/statements/2026-10/pdf?currency=PKR');
    const csv = await get(u.cookie, '/dashboard/statements/2026-10/csv?currency=PKR');
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(`# sha256=${csv.headers.get('statement-digest')!.replace('sha256=', '')}`);
    const pdf = await fetch(`${gw.baseUrl}/dashboard/statements/2026-10/pdf?currency=PKR`, { headers: { Cookie: u.cookie } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect((await get(u.cookie, '/dashboard/statements/2026-13/csv?currency=PKR')).status).toBe(400);
    // The month to date is offered, marked provisional, once its first day is final.
    const now = new Date();
    const month = now.toISOString().slice(0, 7);
    if (latestFinalBoundary(now) > `${month}-01T00:00:00.000Z`) {
      expect(page.text).toContain(`/dashboard/statements/${month}/csv?currency=PKR`);
      expect(page.text).toMatch(/to date, provisional \(through \d{4}-\d\d-\d\d\)/);
      const toDate = await get(u.cookie, `/dashboard/statements/${month}/csv?currency=PKR`);
      expect(toDate.status).toBe(200);
      expect(toDate.headers.get('statement-status')).toBe('provisional');
    } else expect(page.text).not.toContain(`/dashboard/statements/${month}/`);
    expect(csv.headers.get('statement-status')).toBe('final');
  });
});
