import { randomUUID } from 'node:crypto';
import { text as streamText } from 'node:stream/consumers';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { streamGroupHandler } from '#functions/dashboard/group.ts';
import * as listExport from '#functions/dashboard/list-export.ts';
import * as paymentsExport from '#functions/dashboard/payments-export.ts';
import { routeList } from '#functions/routes.ts';
import { journal } from '#shared/domain/ledger.ts';
import { incompleteMarker } from '#shared/services/csv-export.ts';
import { authenticate } from '#shared/services/dashboard-auth.ts';
import { paymentsPage } from '#shared/services/dashboard.ts';
import { balancePage } from '#shared/services/dashboard-balance.ts';
import { exportList } from '#shared/services/dashboard-exports.ts';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { addDbMiddleware, db, tableName, toItem, transact } from '#shared/store/client.ts';
import { createSettlementWrite } from '#shared/store/settlements.ts';
import * as keys from '#shared/store/keys.ts';
import { newSettlement, SettlementStatus } from '#shared/domain/settlement.ts';
import { listAudit } from '#shared/store/dashboard.ts';
import { postJournal } from '#shared/store/wallets.ts';
import { parseCsv } from '../support/csv.ts';
import { dashboardUser } from '../support/dashboard.ts';
import { newMerchant, useGateway } from '../support/gateway.ts';
import { seedJournals, seedPuts } from '../support/bulk-seed.ts';
import { seedIntents } from '../support/intents.ts';
import { readPrelude, ResponseStreamSink } from '../../scripts/local/response-stream.ts';

/**
 * Issue 28 §3: every dashboard list exports ALL its matching rows (not one page) as CSV through the
 * one export helper, streamed page by page as it is read (no cap on rows), filters applied,
 * formula-safe cells; a file that must stop early (the platform's size or time) ends with a line
 * saying so; the Statements page offers each closed month's CSV and PDF.
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
    // The payments the export reads, seeded in bulk (the store's own items: test/support/bulk-seed.ts).
    const seeded = await seedIntents(
      m.merchantId,
      'test',
      Array.from({ length: 130 }, (_, i) => ({
        status: i % 5 === 0 ? 'Failed' : 'Completed',
        customerRef: { name: i === 7 ? '=HYPERLINK("http://evil.example","x")' : i === 8 ? '+cmd' : `Customer ${i}`, email: '@x' },
        createdAt: new Date(Date.now() - i * 1000).toISOString(),
      })),
    );
    const completed = seeded.filter((t) => t.status === 'Completed').map((t) => t.paymentIntentId);
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

    // Streamed, not gathered first: the local server sends the body chunked, without a length.
    const streamed = await fetch(`${gw.baseUrl}/dashboard/exports/payments`, { headers: { Cookie: u.cookie } });
    expect(streamed.headers.get('transfer-encoding')).toBe('chunked');
    expect(streamed.headers.get('content-length')).toBeNull();
    expect(await streamed.text()).toBe(all.text);
    expect(all.text).not.toContain(incompleteMarker); // a complete file ends with its last row

    // No cap on rows any more: what the old 4 MB cap refused (here lowered to 5 kB: 100 rows of 130) now streams
    // to the platform's limits, and a file that must stop there ends with a line that says so and where.
    const signed = (await authenticate(u.cookie.split('=')[1], null))!;
    const cut = await exportList(signed, 'payments', {}, '', Date.now() + 60_000, { maxBytes: 5_000, marginMs: 0 });
    const cutText = await streamText(cut.stream);
    expect(cutText.split('\r\n').at(-2)!.startsWith(incompleteMarker)).toBe(true); // the raw last line, not only its cell
    const cutRows = parseCsv(cutText);
    expect(cutRows).toHaveLength(1 + 100 + 1); // the header, the first page, the incomplete line
    expect(cutRows.slice(1, 101)).toEqual(rows.slice(1, 101));
    const last = cutRows.at(-1)![0]!;
    const reached = new RegExp(
      `^${incompleteMarker}: this export reached the size one download carries after 100 rows ` +
        '\\(newest first: down to (\\S+)\\); the rows above are correct but the list goes on\\. Export again with To (\\S+) for',
    ).exec(last);
    expect(reached, last).not.toBeNull();
    expect(reached![1]).toBe(rows[100]![rows[0]!.indexOf('createdAt')]); // the 100th newest payment
    expect(reached![2]).toBe(reached![1]!.slice(0, 10));
    // Out of time (the invocation's deadline less the margin): the same, with the reason.
    const late = parseCsv(
      await streamText((await exportList(signed, 'payments', {}, '', Date.now(), { maxBytes: 1e9, marginMs: 0 })).stream),
    );
    expect(late).toHaveLength(102);
    expect(late.at(-1)![0]).toMatch(new RegExp(`^${incompleteMarker}: this export reached the time a download may take after 100 rows`));
  });

  it('streams the export page by page, the list’s rows with its filters, through the export Lambda’s dispatcher', async () => {
    const m = await newMerchant();
    const u = await dashboardUser(m, 'finance');
    await seedIntents(
      m.merchantId,
      'test',
      Array.from({ length: 230 }, (_, i) => ({
        status: i % 3 === 0 ? 'Failed' : 'Completed',
        createdAt: new Date(Date.UTC(2026, 9, 1 + (i % 20), 12, 0, i % 60)).toISOString(),
      })),
    );
    const exportsLambda = streamGroupHandler('dashboardExports', [listExport, paymentsExport]);
    const invoke = async (resource: string, path: string, pathParameters: Record<string, string> | null, query: Record<string, string>) => {
      const sink = new ResponseStreamSink();
      const chunks: Buffer[] = [];
      sink.on('data', (chunk: Buffer) => chunks.push(chunk));
      const event = {
        httpMethod: 'GET',
        resource,
        path,
        headers: { Cookie: u.cookie },
        pathParameters,
        queryStringParameters: query,
        body: null,
        isBase64Encoded: false,
        requestContext: { requestId: randomUUID(), identity: { sourceIp: '127.0.0.1' } },
      } as unknown as APIGatewayProxyEvent;
      const context = { getRemainingTimeInMillis: () => 900_000 } as Context;
      await (exportsLambda as unknown as (e: APIGatewayProxyEvent, s: ResponseStreamSink, c: Context) => Promise<void>)(
        event,
        sink,
        context,
      );
      const { metadata, body } = await readPrelude(
        (async function* () {
          yield* chunks;
        })(),
      );
      let text = '';
      for await (const chunk of body) text += chunk.toString('utf8');
      return { metadata, text, chunks: chunks.length };
    };
    const query = { status: 'Completed', from: '2026-10-03', to: '2026-10-15' };
    const exported = await invoke('/dashboard/exports/{list}', '/dashboard/exports/payments', { list: 'payments' }, query);
    expect(exported.metadata.statusCode).toBe(200);
    expect(exported.metadata.headers?.['Content-Type']).toBe('text/csv; charset=utf-8');
    // The list's own pages with the same filters, every page: the export is exactly their rows, in order.
    const listed: string[] = [];
    for (let after: string | undefined; ; ) {
      const filters = { status: 'Completed', from: '2026-10-03T00:00:00.000Z', to: '2026-10-15T23:59:59.999Z' } as const;
      const page = await paymentsPage(m.merchantId, 'test', { ...filters, ...(after ? { startingAfter: after } : {}) }, 25);
      listed.push(...page.items.map((t) => t.paymentIntentId));
      if (!page.hasMore) break;
      after = page.items.at(-1)!.paymentIntentId;
    }
    const ids = parseCsv(exported.text)
      .slice(1)
      .map((r) => r[0]);
    expect(listed.length).toBeGreaterThan(100); // more than one export page
    expect(ids).toEqual(listed);
    // Written as it was read: the metadata, the delimiter, the header line and one chunk per page of 100.
    expect(exported.chunks).toBe(3 + Math.ceil(listed.length / 100));
    // The payments page's own export link is the same export, through the same Lambda.
    const same = await invoke('/dashboard/payments/export', '/dashboard/payments/export', null, {
      status: 'Completed',
      from: '2026-10-03',
      to: '2026-10-15',
    });
    expect(same.text).toBe(exported.text);
    // Refusals come before the first byte, as whole responses: a bad filter, a route the Lambda does not serve.
    expect(
      (await invoke('/dashboard/exports/{list}', '/dashboard/exports/payments', { list: 'payments' }, { status: 'Nope' })).metadata
        .statusCode,
    ).toBe(400);
    expect((await invoke('/dashboard/nowhere', '/dashboard/nowhere', null, {})).metadata.statusCode).toBe(404);
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

  it('exports every balance transaction matching the Balance page’s filters, across pages, with the running balance', async () => {
    const m = await newMerchant();
    const u = await dashboardUser(m, 'viewer'); // balances:read: every role
    const t0 = Date.now() - 3_600_000;
    const payment = (i: number) => i % 3 === 0;
    const payments = Array.from({ length: 150 }, (_, i) => i).filter(payment).length;
    const postings = Array.from({ length: 150 }, (_, i) => {
      const amount = 100_00 + i;
      return postJournal(
        journal({
          merchantId: m.merchantId,
          mode: 'test',
          currency: 'PKR',
          kind: payment(i) ? 'checkout.completed' : 'wallet.credit',
          reference: payment(i) ? `txn-${i}` : `operator:${i}`,
          movements: payment(i)
            ? [
                { account: { kind: 'external', name: 'card_network' }, amount: -amount },
                { account: { kind: 'available' }, amount: amount - 200 },
                { account: { kind: 'fees' }, amount: 200 },
              ]
            : [
                { account: { kind: 'external', name: 'sandbox_funding' }, amount: -amount },
                { account: { kind: 'available' }, amount },
              ],
          now: new Date(t0 + i * 1000),
        }),
      );
    });
    // The older 145 in bulk (postJournal's own items, few requests: test/support/bulk-seed.ts); the newest through real transactions.
    await seedJournals(postings.slice(0, 145));
    for (const posting of postings.slice(145)) await transact(posting);
    // The Balance page's own pages with the same filters, every page: the export is exactly their rows, in order.
    const listed = async (f: Record<string, string>) => {
      const rows: Awaited<ReturnType<typeof balancePage>>['items'] = [];
      for (let after: string | undefined; ; ) {
        const page = await balancePage(m.merchantId, 'test', { ...f, ...(after ? { after } : {}) }, 25);
        rows.push(...page.items);
        if (!page.hasMore) return rows;
        after = page.items.at(-1)!.id;
      }
    };
    const all = await get(u.cookie, '/dashboard/balance/export');
    expect(all.status, all.text.slice(0, 300)).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(all.text);
    const col = (name: string) => rows[0]!.indexOf(name);
    expect(rows).toHaveLength(151); // the header and all 150: more than one export page of 100
    expect(all.text).not.toContain(incompleteMarker);
    const expected = await listed({});
    expect(rows.slice(1).map((r) => r[col('id')])).toEqual(expected.map((b) => b.id));
    // The running balance on every row, as the page shows it: the newest is the wallet now (every credit, less fees).
    expect(rows.slice(1).map((r) => Number(r[col('availableBalanceAfter')]))).toEqual(expected.map((b) => b.availableBalanceAfter));
    const credited = Array.from({ length: 150 }, (_, i) => 100_00 + i - (i % 3 === 0 ? 200 : 0)).reduce((a, b) => a + b, 0);
    expect(Number(rows[1]![col('availableBalanceAfter')])).toBe(credited / 100);
    expect(rows.slice(1).every((r) => r[col('availableBalanceAfter')] !== '')).toBe(true);
    // Filters applied: a type, a source, a date range that holds nothing.
    const typed = parseCsv((await get(u.cookie, '/dashboard/balance/export?type=payment')).text);
    expect(typed.slice(1).map((r) => r[col('id')])).toEqual((await listed({ type: 'payment' })).map((b) => b.id));
    expect(typed).toHaveLength(1 + payments);
    expect(typed.slice(1).every((r) => r[col('type')] === 'payment' && r[col('sourceType')] === 'transaction')).toBe(true);
    const bySource = parseCsv((await get(u.cookie, '/dashboard/balance/export?source=txn-3')).text);
    expect(bySource.slice(1).map((r) => [r[col('type')], r[col('sourceId')], r[col('fee')]])).toEqual([['payment', 'txn-3', '2']]);
    expect(parseCsv((await get(u.cookie, '/dashboard/balance/export?to=2000-01-01')).text)).toHaveLength(1);
    // Refusals come before the first byte, as whole pages: a bad filter, an unknown settlement, an unknown name.
    expect((await get(u.cookie, '/dashboard/balance/export?type=nope')).status).toBe(400);
    expect((await get(u.cookie, `/dashboard/balance/export?settlement=${randomUUID()}`)).status).toBe(404);
    expect((await get(u.cookie, '/dashboard/balance/export?bogus=1')).status).toBe(400);
    // Audited with the filters it used; the Balance page links it with its filters.
    const audits = (await listAudit(m.merchantId, 20)).items.filter((a) => a.action === 'balance.export');
    expect(audits.map((a) => a.detail)).toEqual(expect.arrayContaining(['all', 'type=payment', 'source=txn-3']));
    expect((await get(u.cookie, '/dashboard/balance?type=payment')).text).toContain('href="/dashboard/balance/export?type=payment"');
    expect((await fetch(`${gw.baseUrl}/dashboard/balance/export`, { redirect: 'manual' })).status).not.toBe(200); // signed out
  });

  it('exports every settlement exactly once, by cursor: each index entry read once over many pages', async () => {
    const m = await newMerchant();
    const u = await dashboardUser(m, 'finance');
    const t0 = Date.UTC(2026, 8, 1);
    const completed: string[] = [];
    const ids: string[] = [];
    const writes = [];
    for (let i = 0; i < 250; i++) {
      const s = newSettlement(
        { merchantId: m.merchantId, mode: 'test', traceId: 'seed' },
        {
          amountMinor: 1000_00 + i,
          currency: 'PKR',
          payoutCurrency: 'PKR',
          destination: { type: 'bank', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'T' },
        },
        { basisPoints: 0, fixedMinor: 0 },
        false,
        new Date(t0 + i * 60_000),
        randomUUID(),
      );
      if (s === 'amount_too_small') throw new Error('seed');
      const status = i % 4 === 0 ? SettlementStatus.Completed : SettlementStatus.Pending;
      writes.push(createSettlementWrite({ ...s, status }));
      ids.push(s.id);
      if (status === SettlementStatus.Completed) completed.push(s.id);
    }
    await seedPuts(writes); // the settlements the export reads, in bulk (the store's own items: test/support/bulk-seed.ts)
    // What the export's Queries of the merchant's settlement index evaluate (ScannedCount: entries read, matched or not).
    const partition = keys.settlementsOfMerchant(m.merchantId, 'test').GSI1PK;
    let scanned = 0;
    const name = 'countSettlementReads';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          const out = await next(args);
          const input = args.input as { ExpressionAttributeValues?: Record<string, { S?: string }> };
          if (context.commandName === 'QueryCommand' && input.ExpressionAttributeValues?.[':pk']?.S === partition)
            scanned += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
          return out;
        },
        { step: 'initialize', name },
      ),
    );
    try {
      const all = parseCsv((await get(u.cookie, '/dashboard/exports/settlements')).text);
      expect(all).toHaveLength(251); // three pages of 100
      expect(all.slice(1).map((r) => r[0])).toEqual([...ids].reverse()); // newest first, every one exactly once
      expect(scanned).toBe(250); // page-numbered, it read 100 + 200 + 250 entries and counted all 250 per page (1,300)
      scanned = 0;
      const done = parseCsv((await get(u.cookie, '/dashboard/exports/settlements?status=Completed')).text);
      expect(done.slice(1).map((r) => r[0])).toEqual([...completed].reverse());
      expect(new Set(done.slice(1).map((r) => r[1]))).toEqual(new Set(['Completed']));
      expect(scanned).toBe(250); // the status is a filter: every entry evaluated once, none twice
    } finally {
      removeMiddleware();
    }
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
    // Created in October: its months are offered from then on (none before).
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.merchant(m.merchantId)),
        UpdateExpression: 'SET createdAt = :c',
        ExpressionAttributeValues: toItem({ ':c': '2026-10-10T09:00:00.000Z' }),
      }),
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
    expect(page.text).toContain('1–31 October 2026 (UTC)');
    expect(page.text).not.toContain('/dashboard/statements/2026-09/');
    // The month to date is always offered, provisional, today included.
    const now = new Date();
    const month = now.toISOString().slice(0, 7);
    expect(page.text).toContain(`/dashboard/statements/${month}/csv?currency=PKR`);
    expect(page.text).toMatch(
      /Provisional<\/span><div class="muted">1(–\d+)? \w+ \d{4} \(UTC\), today included up to the moment you download it/,
    );
    const toDate = await get(u.cookie, `/dashboard/statements/${month}/csv?currency=PKR`);
    expect(toDate.status).toBe(200);
    expect(toDate.headers.get('statement-status')).toBe('provisional');
    expect(csv.headers.get('statement-status')).toBe('final');
  });
});
