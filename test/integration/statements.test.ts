import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { balanceMovement, balanceTransactionId, balanceTransactionTypes } from '#shared/domain/balance-transaction.ts';
import { journal } from '#shared/domain/ledger.ts';
import { fromMinor } from '#shared/domain/money.ts';
import { LedgerRefusal } from '#shared/services/balance-checkpoints.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { statementPdf } from '#shared/services/statement-pdf.ts';
import {
  buildStatement,
  statementCoverage,
  statementCsvFile,
  statementDigest,
  statementFileName,
  statementMonths,
} from '#shared/services/statements.ts';
import { addDbMiddleware, db, tableName, toItem, transact } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { getWallet, listJournals, postJournal } from '#shared/store/wallets.ts';
import { Gateway, verifyStatementCsv } from '../../sdk/node/src/index.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { parseCsv } from '../support/csv.ts';
import { mixedHistory } from '../support/mixed-history.ts';

/**
 * Monthly statements (issue 28 §3): equal to the journal for a mixed history on one and four shards,
 * opening + movements = closing by the verifier's rules, refused when the journal was altered, a
 * digest that changes with any row, a CSV that parses and a PDF that loads and holds the totals.
 */

/** The text a PDF draws (pdf-lib writes standard-font text as hex strings: `<48656C6C6F> Tj`). */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes);
  const out: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents];
    for (const s of streams) {
      const raw = s instanceof PDFRawStream ? decodePDFRawStream(s).decode() : new Uint8Array();
      for (const [, hex] of Buffer.from(raw)
        .toString('latin1')
        .matchAll(/<([0-9A-Fa-f]*)> Tj/g))
        out.push(Buffer.from(hex!, 'hex').toString('latin1'));
    }
  }
  return out.join('\n');
}

const monthOf = (d: Date) => d.toISOString().slice(0, 7);
/** Two hours into the next month: the current month is closed and final. */
const afterMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 2));

describe('statements', () => {
  const gw = useGateway(routeList);

  for (const shards of [1, 4]) {
    it(`equal the journal for a mixed history (${shards} shard(s)): opening + movements = closing, CSV, digest, PDF`, async () => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      await mixedHistory(gw.baseUrl, m, { fx: true });
      expect((await verifyLedger({ merchantId: m.merchantId, mode: 'test' })).discrepancies).toEqual([]);
      const now = new Date();
      const s = await buildStatement(m.merchantId, 'test', 'PKR', monthOf(now), afterMonth(now));

      const journals = await listJournals(m.merchantId, 'test'); // oldest first
      const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
      expect(s.opening).toEqual({ available: 0, pending: 0 });
      expect(s.closing).toEqual({ available: wallet.available, pending: wallet.held });
      // Every journal once, under its type, in journal order within the type.
      const byType = balanceTransactionTypes
        .map((type) => ({ type, ids: journals.filter((j) => balanceMovement(j).type === type).map((j) => j.journalId) }))
        .filter((g) => g.ids.length);
      expect(s.byType.map((g) => ({ type: g.type, ids: g.movements.map((x) => x.journalId) }))).toEqual(byType);
      expect(s.byType.map((g) => g.type)).toEqual(
        expect.arrayContaining(['payment', 'deposit', 'payout', 'payout_paid', 'payout_failure', 'refund_paid', 'settlement_paid']),
      );
      const moves = journals.map(balanceMovement);
      const total = (f: 'feeMinor' | 'availableChangeMinor' | 'pendingChangeMinor' | 'netMinor') => moves.reduce((a, x) => a + x[f], 0);
      expect(s.totals).toMatchObject({ count: journals.length, fee: total('feeMinor'), net: total('netMinor') });
      expect(s.opening.available + s.totals.availableChange).toBe(s.closing.available);
      expect(s.opening.pending + s.totals.pendingChange).toBe(s.closing.pending);
      // Fees: the payments', the deposit's, the refund's and both settlements' (the FX one too).
      expect(s.totals.fee).toBeGreaterThan(37_50 + 20_50 + 15_00);

      // CSV: parses, one movement row per journal with its figures, a digest over the rows.
      const file = statementCsvFile(s);
      expect(verifyStatementCsv(file)).toBe(s.digest);
      expect(statementDigest(s.csv)).toBe(s.digest);
      const rows = parseCsv(s.csv);
      const header = rows[0]!;
      const col = (r: string[], name: string) => r[header.indexOf(name)];
      const movementRows = rows.filter((r) => r[0] === 'movement');
      expect(movementRows).toHaveLength(journals.length);
      for (const j of journals) {
        const row = movementRows.find((r) => col(r, 'id') === balanceTransactionId(j.createdAt, j.journalId))!;
        expect(Number(col(row, 'fee'))).toBe(fromMinor(balanceMovement(j).feeMinor, 'PKR'));
        expect(Number(col(row, 'net'))).toBe(fromMinor(balanceMovement(j).netMinor, 'PKR'));
      }
      expect(Number(col(rows.find((r) => r[0] === 'closing')!, 'availableBalance'))).toBe(fromMinor(wallet.available, 'PKR'));
      // Any altered row changes the digest: the trailer no longer matches.
      const altered = file.replace(/,(-?\d+(\.\d+)?),/, (_, n: string) => `,${Number(n) + 1},`);
      expect(altered).not.toBe(file);
      expect(() => verifyStatementCsv(altered)).toThrow(/altered/);

      // PDF: loads, prints the totals and the digest.
      const text = await pdfText(await statementPdf(s));
      expect(text).toContain(s.digest);
      expect(text).toContain(fromMinor(s.totals.fee, 'PKR').toFixed(2));
      expect(text).toContain(`available ${fromMinor(s.closing.available, 'PKR').toFixed(2)}`);
      // The same statement again: the same digest (a closed month's rows never change).
      expect((await buildStatement(m.merchantId, 'test', 'PKR', monthOf(now), afterMonth(now))).digest).toBe(s.digest);
    }, 120_000);
  }

  /** A credit of `amount` (less `fee`) to the available balance, posted at `now` as the real flows post it. */
  const credit = (m: TestMerchant, amount: number, fee: number, now: Date) =>
    transact(
      postJournal(
        journal({
          merchantId: m.merchantId,
          mode: 'test',
          currency: 'PKR',
          kind: 'wallet.credit',
          reference: `operator:${now.toISOString()}`,
          movements: [
            { account: { kind: 'external', name: 'card_network' }, amount: -amount },
            { account: { kind: 'available' }, amount: amount - fee },
            { account: { kind: 'fees' }, amount: fee },
          ],
          now,
        }),
      ),
    );

  /** Journals posted in a past month (as the real flows post them), so the API's own clock sees the month closed. */
  async function october(m: TestMerchant) {
    const at = (day: number) => new Date(Date.UTC(2026, 9, day, 12));
    await credit(m, 900_00, 0, at(2));
    await credit(m, 250_00, 5_00, at(9));
    await credit(m, 40_00, 1_00, at(30));
  }

  it('GET /Statements/{period}: CSV and PDF with the digest header, SDK, refusals', async () => {
    const m = await newMerchant();
    await october(m);
    const get = (path: string, accept = 'text/csv') =>
      call(gw.baseUrl, 'GET', `/Gateway/v1/Statements/${path}`, { key: m.test.apiKey, headers: { Accept: accept } });
    const csv = await get('2026-10?currency=PKR');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const digest = csv.headers.get('statement-digest')!.replace('sha256=', '');
    expect(verifyStatementCsv(csv.text)).toBe(digest);
    const rows = parseCsv(csv.text.slice(0, csv.text.lastIndexOf('# sha256')));
    expect(rows.filter((r) => r[0] === 'movement')).toHaveLength(3);
    expect(rows.find((r) => r[0] === 'closing')).toContain('1184');

    const gateway = new Gateway({ apiKey: m.test.apiKey, secretKey: m.test.secretKey, baseUrl: gw.baseUrl });
    const viaSdk = await gateway.statements.csv('2026-10', { currency: 'PKR' });
    expect(viaSdk).toMatchObject({ digest, status: 'final' });
    const pdf = await gateway.statements.pdf('2026-10');
    expect(pdf.digest).toBe(digest);
    const text = await pdfText(pdf.pdf);
    expect(text).toContain(digest);
    expect(text).toContain('1184.00');
    expect(text).toContain('6.00'); // fees

    expect((await get('2026-10?currency=PKR')).headers.get('statement-status')).toBe('final');
    expect((await get('2026-13')).status).toBe(400);
    // The current month to date: provisional (once its first day is final); a month not begun: refused.
    // The current month to date: provisional, to the moment it is made (today included), from its first minute.
    const now = new Date();
    const toDate = await get(`${monthOf(now)}?currency=PKR`);
    expect(toDate.status).toBe(200);
    expect(toDate.headers.get('statement-status')).toBe('provisional');
    const through = /status=provisional through=(\S+)/.exec(toDate.text)![1]!;
    expect(Date.parse(through)).toBeGreaterThanOrEqual(now.getTime());
    expect(verifyStatementCsv(toDate.text)).toBe(toDate.headers.get('statement-digest')!.replace('sha256=', ''));
    const future = await get('2099-01');
    expect(future.status).toBe(422);
    expect(future.json.code).toBe('statement_period_open');

    // The journal altered after the fact (both lines, so each journal still sums to zero): refused, nothing sent.
    const [first] = await listJournals(m.merchantId, 'test');
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.journal(m.merchantId, 'test', first!.createdAt, first!.journalId)),
        UpdateExpression: 'SET #lines[0].amount = :ext, #lines[1].amount = :avail',
        ExpressionAttributeNames: { '#lines': 'lines' },
        ExpressionAttributeValues: toItem({ ':ext': -1_000_00, ':avail': 1_000_00 }),
      }),
    );
    const refused = await get('2026-10?currency=PKR');
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.json).toMatchObject({ code: 'ledger_unbalanced', status: 409 });
    expect(refused.headers.get('statement-digest')).toBeNull();
    expect((await get('2026-10/pdf', 'application/pdf')).status).toBe(409);
  }, 60_000);

  it.each([1, 4])(
    'gives the month to date as provisional, equal to the journal; a closed month the same (%i shard(s))',
    async (shards) => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      await october(m); // the 2nd, the 9th and the 30th
      const midMonth = new Date(Date.UTC(2026, 9, 15, 2));
      const mtd = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10', midMonth);
      expect(mtd).toMatchObject({ status: 'provisional', from: '2026-10-01T00:00:00.000Z', to: '2026-10-15T02:00:00.000Z' });
      const before = (await listJournals(m.merchantId, 'test')).filter((j) => j.createdAt < mtd.to);
      expect(before).toHaveLength(2);
      expect(mtd.byType.flatMap((g) => g.movements.map((x) => x.journalId)).sort()).toEqual(before.map((j) => j.journalId).sort());
      const added = before.reduce((a, j) => a + balanceMovement(j).availableChangeMinor, 0);
      expect(mtd.closing.available).toBe(mtd.opening.available + added);
      expect(mtd.totals).toMatchObject({ count: 2, fee: 5_00 });
      // Marked in its rows (so in its digest), its trailer, file name and PDF; the digest still checks.
      const rows = parseCsv(mtd.csv);
      expect(rows[1]!.slice(0, 6)).toEqual(['statement', 'test', m.merchantId, mtd.from, 'period_to_date', '2026-10']);
      expect(rows.find((r) => r[0] === 'closing')!.slice(3, 5)).toEqual([mtd.to, 'provisional']);
      const file = statementCsvFile(mtd);
      expect(file).toContain(`status=provisional through=${mtd.to}`);
      expect(verifyStatementCsv(file)).toBe(mtd.digest);
      expect(statementFileName(mtd, 'csv')).toBe('statement-test-PKR-2026-10-to-2026-10-15.csv');
      const pdf = await pdfText(await statementPdf(mtd));
      expect(pdf).toContain('PROVISIONAL');
      expect(pdf).toContain('1-15 October 2026 (UTC), to 02:00 UTC on 15 October: provisional');
      // Later the same day: the same movements, to a later moment. The month closed: final, every journal, identical when asked again.
      const later = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10', new Date(Date.UTC(2026, 9, 15, 23)));
      expect(later).toMatchObject({ to: '2026-10-15T23:00:00.000Z', closing: mtd.closing, totals: mtd.totals });
      const closed = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10');
      expect(closed).toMatchObject({ status: 'final', to: '2026-11-01T00:00:00.000Z', totals: { count: 3, fee: 6_00 } });
      expect(closed.opening).toEqual(mtd.opening);
      expect(parseCsv(closed.csv)[1]![4]).toBe('period');
      expect(statementCsvFile(closed)).not.toContain('provisional');
      const again = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10');
      expect(again.csv).toBe(closed.csv);
      expect(again.digest).toBe(closed.digest);
      // A month not begun: refused.
      await expect(buildStatement(m.merchantId, 'test', 'PKR', '2026-11', new Date(Date.UTC(2026, 9, 31, 23)))).rejects.toMatchObject({
        code: 'statement_period_open',
      });
    },
    60_000,
  );

  it('refuses a statement whose month holds a journal that does not sum to zero', async () => {
    const m = await newMerchant();
    await october(m);
    const [first] = await listJournals(m.merchantId, 'test');
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.journal(m.merchantId, 'test', first!.createdAt, first!.journalId)),
        UpdateExpression: 'SET #lines[0].amount = :ext',
        ExpressionAttributeNames: { '#lines': 'lines' },
        ExpressionAttributeValues: toItem({ ':ext': -1 }),
      }),
    );
    const refused = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerRefusal);
    expect((refused as LedgerRefusal).discrepancies.map((d) => d.rule)).toContain('zero-sum');
  }, 30_000);

  it.each([1, 4])(
    "a first-day merchant's month to date holds today's movements so far, reconciled with the wallet (%i shard(s))",
    async (shards) => {
      const m = await newMerchant();
      if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
      // Empty: a statement of zeros from the first minute, provisional, that says "No movements".
      const empty = await buildStatement(m.merchantId, 'test', 'PKR', monthOf(new Date()));
      expect(empty).toMatchObject({ status: 'provisional', totals: { count: 0 }, closing: { available: 0, pending: 0 } });
      const emptyPdf = await pdfText(await statementPdf(empty));
      expect(emptyPdf).toContain('No movements in this period.');
      expect(emptyPdf).toContain(statementCoverage(empty).replace('–', '-'));

      await credit(m, 1500_00, 37_50, new Date(Date.now() - 1000));
      await credit(m, 200_00, 5_00, new Date());
      const now = new Date(Date.now() + 1);
      const s = await buildStatement(m.merchantId, 'test', 'PKR', monthOf(now), now);
      const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
      expect(s).toMatchObject({ status: 'provisional', to: now.toISOString(), totals: { count: 2, fee: 42_50, amount: 1700_00 } });
      expect(s.closing).toEqual({ available: wallet.available, pending: wallet.held });
      expect(s.opening.available + s.totals.availableChange).toBe(s.closing.available);
      expect(statementCoverage(s)).toMatch(
        new RegExp(`^1(–${now.getUTCDate()})? \\w+ \\d{4} \\(UTC\\), to \\d\\d:\\d\\d UTC on ${now.getUTCDate()} \\w+: provisional$`),
      );
      expect(verifyStatementCsv(statementCsvFile(s))).toBe(s.digest);
      expect(await pdfText(await statementPdf(s))).toContain('1500.00');

      // Today's movements are checked against the live wallet: an altered one (still summing to zero) is refused.
      const [first] = await listJournals(m.merchantId, 'test');
      let altered = 0;
      for (let shard = 0; shard < shards; shard++)
        altered += await db()
          .send(
            new UpdateItemCommand({
              TableName: tableName(),
              Key: toItem(keys.journal(m.merchantId, 'test', first!.createdAt, first!.journalId, shard)),
              UpdateExpression: 'SET #lines[0].amount = :ext, #lines[1].amount = :avail',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#lines': 'lines' },
              ExpressionAttributeValues: toItem({ ':ext': -1_000_00, ':avail': 1_000_00 }),
            }),
          )
          .then(
            () => 1,
            () => 0,
          );
      expect(altered).toBe(1);
      const refused = await buildStatement(m.merchantId, 'test', 'PKR', monthOf(now)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LedgerRefusal);
      expect((refused as LedgerRefusal).discrepancies.map((d) => d.rule)).toContain('wallet-fold');
    },
    60_000,
  );

  it("gives the month's first hour to date: its opening balance the previous day's movements on, its own so far", async () => {
    const m = await newMerchant();
    await credit(m, 100_00, 0, new Date(Date.UTC(2026, 8, 30, 12)));
    await credit(m, 20_00, 1_00, new Date(Date.UTC(2026, 8, 30, 23, 59)));
    await credit(m, 7_00, 0, new Date(Date.UTC(2026, 9, 1, 0, 10)));
    await credit(m, 900_00, 0, new Date(Date.UTC(2026, 9, 1, 0, 40)));
    const s = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10', new Date(Date.UTC(2026, 9, 1, 0, 30)));
    expect(s).toMatchObject({
      status: 'provisional',
      to: '2026-10-01T00:30:00.000Z',
      opening: { available: 119_00, pending: 0 },
      closing: { available: 126_00, pending: 0 },
      totals: { count: 1, amount: 7_00 },
    });
    expect(statementCoverage(s)).toBe('1 October 2026 (UTC), to 00:30 UTC on 1 October: provisional');
    // September, less than an hour after it ended: provisional, the whole month, none of October.
    const september = await buildStatement(m.merchantId, 'test', 'PKR', '2026-09', new Date(Date.UTC(2026, 9, 1, 0, 30)));
    expect(september).toMatchObject({ status: 'provisional', to: '2026-10-01T00:00:00.000Z', closing: { available: 119_00 } });
    expect(statementCoverage(september)).toBe('1–30 September 2026 (UTC): provisional until 01:00 UTC on 1 October');
    expect(statementCoverage(await buildStatement(m.merchantId, 'test', 'PKR', '2026-09'))).toBe('1–30 September 2026 (UTC)');
  }, 30_000);

  it('offers the months from the merchant’s creation on, the current one first, in its own currency before any wallet', async () => {
    const m = await newMerchant();
    const now = new Date(Date.UTC(2026, 10, 28, 14, 5));
    const created = await statementMonths(m.merchantId, 'test', new Date(Date.now()));
    expect(created).toEqual([
      { period: monthOf(new Date()), currencies: ['PKR'], provisional: true, coverage: expect.stringContaining('today included') },
    ]);
    await db().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toItem(keys.merchant(m.merchantId)),
        UpdateExpression: 'SET createdAt = :c',
        ExpressionAttributeValues: toItem({ ':c': '2026-08-20T09:00:00.000Z' }),
      }),
    );
    const months = await statementMonths(m.merchantId, 'test', now);
    expect(months.map((x) => [x.period, x.provisional, x.coverage])).toEqual([
      ['2026-11', true, '1–28 November 2026 (UTC), today included up to the moment you download it: provisional'],
      ['2026-10', false, '1–31 October 2026 (UTC)'],
      ['2026-09', false, '1–30 September 2026 (UTC)'],
      ['2026-08', false, '1–31 August 2026 (UTC)'],
    ]);
    expect((await statementMonths(m.merchantId, 'test', now, 2)).map((x) => x.period)).toEqual(['2026-11', '2026-10', '2026-09']);
  }, 30_000);

  it('gives the month through its last final midnight when the wallet never pauses long enough to be read with today', async () => {
    const m = await newMerchant();
    await october(m); // the 2nd, the 9th and the 30th
    const midMonth = new Date(Date.UTC(2026, 9, 15, 14));
    expect((await buildStatement(m.merchantId, 'test', 'PKR', '2026-10', midMonth)).to).toBe(midMonth.toISOString());
    // A journal commits while each read of the journals is under way: the wallet differs before and after, every time.
    const name = 'busyWallet';
    let committed = 0;
    const remove = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          const out = await next(args);
          const sk = (args.input as { ExpressionAttributeValues?: Record<string, { S?: string }> }).ExpressionAttributeValues?.[':lo']?.S;
          if (context.commandName === 'QueryCommand' && sk?.startsWith('JOURNAL#') && committed < 50) {
            committed++;
            await credit(m, 1_00, 0, new Date(Date.UTC(2026, 9, 20, 0, 0, committed)));
          }
          return out;
        },
        { step: 'initialize', name },
      ),
    );
    try {
      const s = await buildStatement(m.merchantId, 'test', 'PKR', '2026-10', midMonth);
      expect(s).toMatchObject({ status: 'provisional', to: '2026-10-15T00:00:00.000Z', totals: { count: 2, fee: 5_00 } });
      expect(statementCoverage(s)).toBe('1–14 October 2026 (UTC), to 00:00 UTC on 15 October: provisional');
      expect(committed).toBeGreaterThanOrEqual(3);
      // The month's first hour has no final day to fall back on: 503, try again.
      await expect(buildStatement(m.merchantId, 'test', 'PKR', '2026-10', new Date(Date.UTC(2026, 9, 1, 0, 30)))).rejects.toMatchObject({
        code: 'balance_not_ready',
      });
    } finally {
      remove();
    }
  }, 30_000);
});
