import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { settlementView } from '#functions/dashboard/views.ts';
import { routeList } from '#functions/routes.ts';
import { sha256Hex } from '#shared/domain/bank-file.ts';
import { journal } from '#shared/domain/ledger.ts';
import { bankFilePayoutRail } from '#shared/providers/bank-file-rail.ts';
import { configureLiveProviders } from '#shared/providers/live/index.ts';
import { exportBankFile, markBankFile } from '#shared/services/bank-file.ts';
import { settlementDetail } from '#shared/services/dashboard-settlements.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { advanceSettlement, approveSettlement } from '#shared/services/settlements.ts';
import { processDue } from '#shared/services/due.ts';
import { markBankFileLine } from '#shared/store/bank-file.ts';
import { transact } from '#shared/store/client.ts';
import { getSettlement } from '#shared/store/settlements.ts';
import { getWallet, postJournal } from '#shared/store/wallets.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { expectLedgerConsistent } from '../support/money.ts';
import { useOps } from '../support/ops.ts';

/**
 * The bank transfer file rail (docs/providers/bank-file.md) in live mode: a live payout and a live
 * settlement to bank accounts are queued, exported by the operator as one file (exported twice: the
 * same file, the same digest), marked paid (Completed) or failed (Failed, hold released), once.
 */

let seq = 0;
/** Each test its own operator bank, so its queue and files are its own. */
const newBank = () => `T${Date.now().toString(36).toUpperCase().slice(-6)}${seq++}`;

/** Funds a live wallet straight through the ledger (live wallets cannot be credited by the operator). */
async function fundLive(merchantId: string, amountMinor: number) {
  await transact(
    postJournal(
      journal({
        merchantId,
        mode: 'live',
        currency: 'PKR',
        kind: 'test.funding',
        reference: randomUUID(),
        movements: [
          { account: { kind: 'external', name: 'test_funding' }, amount: -amountMinor },
          { account: { kind: 'available' }, amount: amountMinor },
        ],
      }),
    ),
  );
}

const ledgerClean = async (m: TestMerchant) => {
  expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
  return expectLedgerConsistent(m.merchantId, 'live');
};

describe('bank transfer file rail (live bank payouts and settlements)', { timeout: 120_000 }, () => {
  const gw = useGateway(routeList);
  const ops = useOps();
  afterEach(() => configureLiveProviders(undefined));

  const live = async (amountMinor = 10_000_00) => {
    const bank = newBank();
    configureLiveProviders({ bankFile: { bank } });
    const m = await newMerchant();
    await fundLive(m.merchantId, amountMinor);
    return { bank, m };
  };
  const withdraw = (m: TestMerchant, amount = 1500, bankCode = 'MEEZAN') =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/withdraw', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: {
        amount,
        currency: 'PKR',
        description: 'Payout for order 7',
        autoProcessPayout: true,
        customerRef: { bankAccountNumber: 'PK36MEZN0000001123456702', bankCode, accountTitle: 'Ayesha Khan' },
        orderRef: { orderRef: `BF${Date.now()}${seq++}` },
      },
    });
  const lookup = async (m: TestMerchant, paymentIntentId: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/${paymentIntentId}`, { key: m.live.apiKey })).json;
  const settle = async (m: TestMerchant, amount: number, destination: Record<string, unknown>) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', { key: m.live.apiKey, secret: m.live.secretKey, body: { amount, ...destination } });
  const frame = {
    merchantName: 'M',
    userId: 'u',
    email: 'f@shop.test',
    role: 'finance',
    mode: 'live',
    csrf: 'x',
    current: 'settlements',
  } as const;
  const page = async (m: TestMerchant, id: string) =>
    settlementView(frame, await settlementDetail(m.merchantId, 'live', id))
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
  const bankDestination = { bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' };

  it('a live payout to a bank reaches Completed: queued with funds held, one file exported twice (same bytes), marked paid', async () => {
    const { bank, m } = await live();
    const w = await withdraw(m);
    expect(w.status, w.text).toBe(200);
    expect(w.json.payoutInfo).toMatchObject({ status: 'Processing', provider: `Bank transfer file (${bank})` });
    const wallet = await getWallet(m.merchantId, 'live', 'PKR', true);
    expect(wallet.heldByType.Withdrawal).toBeGreaterThanOrEqual(1500_00);

    const first = await ops('bank-file', 'export', '--bank', bank, '--by', 'alice', '--json');
    expect(first.json, first.stderr).toMatchObject({ created: true, batch: { bank, count: 1, totalMinor: 1500_00 } });
    const { batch, csv } = first.json as { batch: { batchId: string; digest: string; references: string[] }; csv: string };
    expect(sha256Hex(csv)).toBe(batch.digest);
    expect(csv.split('\r\n')[0]).toBe(
      'Sr,Customer Reference,Beneficiary Bank,Beneficiary Account / IBAN,Beneficiary Title,Amount,Currency,Narration,Batch',
    );
    expect(csv).toContain(`1,${batch.references[0]},MEEZAN,PK36MEZN0000001123456702,Ayesha Khan,1500.00,PKR,Payout for order 7,`);
    expect(csv).toContain(`TOTAL,1 lines,,,,1500.00,PKR,,${batch.batchId}`);

    // Exported again with nothing new: the same file, byte for byte; the line is in one file only.
    const again = await ops('bank-file', 'export', '--bank', bank, '--by', 'bob', '--json');
    expect(again.json).toMatchObject({ created: false, batch: { batchId: batch.batchId, digest: batch.digest } });
    expect(again.json.csv).toBe(csv);
    expect((await ops('bank-file', 'list', '--bank', bank, '--json')).json).toMatchObject({
      queued: [],
      batches: [{ batchId: batch.batchId }],
    });
    expect((await lookup(m, w.json.paymentIntentId)).status).toBe('Processing');

    const paid = await ops(
      'bank-file',
      'mark',
      batch.batchId,
      batch.references[0]!,
      'paid',
      '--bank-ref',
      'FT2611290001',
      '--by',
      'alice',
      '--json',
    );
    expect(paid.json, paid.stderr).toMatchObject({
      changed: true,
      status: 'Completed',
      line: { state: 'paid', bankReference: 'FT2611290001' },
    });
    expect((await lookup(m, w.json.paymentIntentId)).status).toBe('Completed');
    // The same answer again changes nothing; a different one is refused.
    expect(
      (await ops('bank-file', 'mark', batch.batchId, batch.references[0]!, 'paid', '--bank-ref', 'FT2611290001', '--json')).json,
    ).toMatchObject({
      changed: false,
      status: 'Completed',
    });
    const conflicting = await ops('bank-file', 'mark', batch.batchId, batch.references[0]!, 'failed', '--reason', 'Account closed');
    expect('failed' in conflicting && conflicting.failed).toBe(true);
    expect(conflicting.stderr).toMatch(/already paid \(bank reference FT2611290001\)/);

    const shown = (await ops('bank-file', 'show', batch.batchId, '--json')).json;
    expect(shown.audit.map((a: { action: string; actor: string; digest: string }) => [a.action, a.actor, a.digest])).toEqual([
      ['exported', 'alice', batch.digest],
      ['reprinted', 'bob', batch.digest],
      ['line.paid', 'alice', batch.digest],
    ]);
    const { wallet: after, external } = await ledgerClean(m);
    expect(after.heldByType.Withdrawal).toBe(0);
    expect(external('bank_rail')).toBe(1500_00);
  });

  it('a failed line fails the payout and releases its hold', async () => {
    const { bank, m } = await live(5_000_00);
    const w = await withdraw(m, 2000);
    expect(w.status, w.text).toBe(200);
    const file = (await exportBankFile({ bank, currency: 'PKR', actor: 'alice' }))!;
    const marked = await markBankFile({
      batchId: file.batch.batchId,
      reference: file.batch.references[0]!,
      outcome: { state: 'failed', failureReason: 'Beneficiary account closed' },
      actor: 'alice',
    });
    expect(marked.status).toBe('Failed');
    const t = await lookup(m, w.json.paymentIntentId);
    expect(t.status).toBe('Failed');
    expect(JSON.stringify(t)).toContain('Beneficiary account closed');
    const { wallet } = await ledgerClean(m);
    expect(wallet).toMatchObject({ available: 5_000_00, held: 0 });
    await expect(
      markBankFile({
        batchId: file.batch.batchId,
        reference: file.batch.references[0]!,
        outcome: { state: 'paid', bankReference: 'FT1' },
        actor: 'bob',
      }),
    ).rejects.toThrow(/already failed/);
  });

  it('a live settlement to a bank reaches Completed through the file, with the bank reference; USDT is refused live', async () => {
    const { bank, m } = await live();
    const usdt = await settle(m, 100, { usdtAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    expect(usdt.status, usdt.text).toBe(422);
    expect(usdt.json.code).toBe('settlement_rail_unavailable');

    const s = await settle(m, 3000, bankDestination);
    expect(s.status, s.text).toBe(200);
    await approveSettlement(s.json.id);
    expect((await advanceSettlement(s.json.id))?.status).toBe(2); // Processing: queued for the file
    expect((await advanceSettlement(s.json.id, new Date(Date.now() + 3_600_000)))?.status).toBe(2); // asked: still awaiting the bank

    const file = (await exportBankFile({ bank, currency: 'PKR', actor: 'alice' }))!;
    expect(file.batch.references).toEqual([s.json.id]);
    expect(file.csv).toContain(`HBL,PK36SCBL0000001123456702,Acme Ltd,`);
    // The merchant's dashboard settlement page: in which file it is, then the bank's reference.
    expect(await page(m, s.json.id)).toContain(`Bank transfer In bank file ${file.batch.batchId}, awaiting the bank.`);
    const marked = await markBankFile({
      batchId: file.batch.batchId,
      reference: s.json.id,
      outcome: { state: 'paid', bankReference: 'HBL-77812' },
      actor: 'alice',
    });
    expect(marked.status).toBe('Completed');
    expect(await getSettlement(s.json.id)).toMatchObject({ status: 3, railReference: 'HBL-77812' });
    expect(await page(m, s.json.id)).toContain(`Bank transfer Paid by the bank: reference HBL-77812 (bank file ${file.batch.batchId}).`);
    const { wallet, external } = await ledgerClean(m);
    expect(wallet.heldByType.Settlement).toBe(0);
    expect(external('settlement_rail')).toBeGreaterThan(0);
  });

  it("a mark whose step to the payout died (a crash after the line's commit) is completed by the due sweeper's inquiry", async () => {
    const { bank, m } = await live();
    const w = await withdraw(m, 900);
    expect(w.status, w.text).toBe(200);
    const file = (await exportBankFile({ bank, currency: 'PKR', actor: 'alice' }))!;
    const reference = file.batch.references[0]!;
    // The line's own commit only (what markBankFile does before it settles the payout).
    const at = new Date().toISOString();
    const audit = { batchId: file.batch.batchId, at, actor: 'alice', action: 'line.paid' as const, digest: file.batch.digest, reference };
    expect(await markBankFileLine(reference, file.batch.batchId, { state: 'paid', bankReference: 'FT9' }, audit)).toBe(true);
    expect((await lookup(m, w.json.paymentIntentId)).status).toBe('Processing');
    await processDue(new Date(Date.now() + 16 * 60_000), (i) => i.merchantId === m.merchantId);
    expect((await lookup(m, w.json.paymentIntentId)).status).toBe('Completed');
    await ledgerClean(m);
  });

  it('two exports at once make one file: a line is never in two files', async () => {
    const { bank, m } = await live();
    for (const amount of [500, 600, 700]) expect((await withdraw(m, amount)).status).toBe(200);
    const [a, b] = await Promise.all([
      exportBankFile({ bank, currency: 'PKR', actor: 'alice' }),
      exportBankFile({ bank, currency: 'PKR', actor: 'bob' }),
    ]);
    expect(a!.batch.batchId).toBe(b!.batch.batchId);
    expect([a!.created, b!.created].sort()).toEqual([false, true]);
    expect(a!.batch.count).toBe(3);
    expect(a!.csv).toBe(b!.csv);
  });

  it('a reference the rail answered NotFound for is never queued later (the contract: NotFound is final)', async () => {
    const bank = newBank();
    const rail = bankFilePayoutRail({ bank });
    const payout = {
      reference: `WD${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      paymentIntentId: randomUUID(),
      amountMinor: 300_00,
      currency: 'PKR' as const,
      bankCode: 'HBL',
      accountNumber: 'PK36SCBL0000001123456702',
      accountTitle: 'Ayesha Khan',
      description: 'x',
      submittedAt: new Date().toISOString(),
    };
    expect(await rail.status(payout)).toEqual({ status: 'NotFound' });
    expect(await rail.submit(payout)).toMatchObject({ outcome: 'rejected', internal: true });
    expect(await rail.status(payout)).toEqual({ status: 'NotFound' });
    expect(await exportBankFile({ bank, currency: 'PKR', actor: 'alice' })).toBeUndefined();
  });

  it('with JazzCash disbursements configured too, a JazzCash wallet payout is not put in the bank file', async () => {
    const bank = newBank();
    configureLiveProviders({
      bankFile: { bank },
      jazzcash: {
        baseUrl: 'http://127.0.0.1:9',
        merchantId: 'MC1',
        password: 'p',
        integritySalt: 's',
        disbursement: { baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 'c', aesKey: 'k'.repeat(16), aesIv: 'i'.repeat(16) },
      } as never,
    });
    const { payoutRail } = await import('#shared/providers/rails.ts');
    expect(payoutRail('live', { bankCode: 'JAZZCASH' })?.name).toBe('JazzCash');
    expect(payoutRail('live', { bankCode: 'MEEZAN' })?.name).toBe(`Bank transfer file (${bank})`);
  });
});
