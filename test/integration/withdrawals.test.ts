import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import type { Mode } from '#shared/domain/credentials.ts';
import { journal, type Journal } from '#shared/domain/ledger.ts';
import { sandboxBankRail, sandboxRejection, sandboxSubmissionCount, type PayoutInstruction } from '#shared/providers/bank-rail.ts';
import type { Rail } from '#shared/providers/rail.ts';
import { configureRail } from '#shared/providers/rails.ts';
import { processDue } from '#shared/services/due.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { approveWithdrawal, rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { transact } from '#shared/store/client.ts';
import { listEvents } from '#shared/store/intents.ts';
import { getWallet, listJournals, postJournal } from '#shared/store/wallets.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useOps } from '../support/ops.ts';

type BankRail = Rail<PayoutInstruction>;
const configureBankRail = (mode: Mode, rail: BankRail | undefined) => configureRail('payout', mode, rail);

/**
 * Withdrawals over HTTP, as a merchant calls them, on this file's own table in the run's DynamoDB
 * Local, so that processDue() (the due sweeper's pass) sees only this file's payouts.
 */
const tableName = `withdrawals-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  process.env.TABLE_NAME = tableName;
  await ensureTable(inject('dynamoEndpoint'), tableName);
});

const path = '/Gateway/v1/Payment/withdraw';
const account = (last4: string) => `PK36SCBL000000112345${last4}`;
const newRef = () => `WD${randomUUID().replaceAll('-', '').slice(0, 16)}`;

function payout(overrides: Record<string, unknown> = {}, customer: Record<string, unknown> = {}) {
  return {
    amount: 300,
    currency: 'PKR',
    description: 'Payout for order 7',
    autoProcessPayout: true,
    customerRef: { bankAccountNumber: account('0000'), bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan', ...customer },
    orderRef: { orderRef: newRef() },
    ...overrides,
  };
}

const seconds = (s: number) => new Date(Date.now() + s * 1000);

/** Funds a wallet in either mode straight through the ledger (live wallets cannot be credited by the operator). */
async function fund(merchantId: string, mode: Mode, amountMinor: number) {
  if (mode === 'test') return creditTestWallet(merchantId, mode, amountMinor, 'PKR');
  await transact(
    postJournal(
      journal({
        merchantId,
        mode,
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

/** Every journal sums to zero, and the wallet equals the sum of its accounts' lines. */
async function ledgerTotals(merchantId: string, mode: Mode = 'test') {
  const journals: Journal[] = await listJournals(merchantId, mode);
  const byAccount: Record<string, number> = {};
  for (const j of journals) {
    expect(j.lines.reduce((s, l) => s + l.amount, 0)).toBe(0);
    for (const l of j.lines) byAccount[l.account] = (byAccount[l.account] ?? 0) + l.amount;
  }
  const wallet = await getWallet(merchantId, mode, 'PKR', true);
  expect(byAccount[`merchant:${merchantId}:available`] ?? 0).toBe(wallet.available);
  expect(byAccount[`merchant:${merchantId}:held:Withdrawal`] ?? 0).toBe(wallet.heldByType.Withdrawal);
  expect(Object.values(byAccount).reduce((s, v) => s + v, 0)).toBe(0);
  return { journals, byAccount, wallet };
}

describe('withdrawals (payouts)', () => {
  const gw = useGateway(routeList);
  const withdraw = (m: TestMerchant, body: Record<string, unknown>, options: { mode?: Mode; headers?: Record<string, string> } = {}) =>
    call(gw.baseUrl, 'POST', path, {
      key: m[options.mode ?? 'test'].apiKey,
      secret: m[options.mode ?? 'test'].secretKey,
      body,
      ...(options.headers ? { headers: options.headers } : {}),
    });
  const lookup = (m: TestMerchant, ref: string, mode: Mode = 'test') =>
    call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ref}`, { key: m[mode].apiKey });
  const balance = async (m: TestMerchant) =>
    (await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey })).json;

  afterEach(() => configureBankRail('live', undefined));

  it('recovers a withdrawal whose request died between its two commits instead of answering 409 for a day', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 1000_00);
    const body = payout();
    const { signBody } = await import('#shared/domain/body-signature.ts');
    const raw = JSON.stringify({ ...body, signature: signBody(body, m.test.secretKey) });
    // The first request: it committed (the withdrawal and its hold) and then its Lambda stopped, so
    // the key's claim stayed in flight; its lease has lapsed.
    const first = await call(gw.baseUrl, 'POST', path, { key: m.test.apiKey, raw, headers: { 'Content-Type': 'application/json' } });
    expect(first.status).toBe(200);
    const { requestFingerprint } = await import('#shared/http/idempotency.ts');
    const requestHash = requestFingerprint(
      { httpMethod: 'POST', path, queryStringParameters: null, multiValueQueryStringParameters: null },
      raw,
    );
    const { claimWrite } = await import('#shared/store/idempotency.ts');
    const scope = { mode: 'test' as const, merchantId: m.merchantId, key: 'died-mid-way', requestHash };
    await transact([claimWrite(scope, { requestHash, state: 'in_flight', leaseExpiresAt: new Date(Date.now() - 1000).toISOString() })]);

    const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': 'died-mid-way' };
    const retry = await call(gw.baseUrl, 'POST', path, { key: m.test.apiKey, raw, headers });
    expect(retry.status).toBe(200);
    expect(retry.json.paymentIntentId).toBe(first.json.paymentIntentId);
    const again = await call(gw.baseUrl, 'POST', path, { key: m.test.apiKey, raw, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retry.text);
    const wallet = await getWallet(m.merchantId, 'test', 'PKR', true);
    expect(wallet.available + wallet.held).toBe(1000_00); // held once: no second withdrawal
    expect(wallet.pendingCount).toBe(1);

    // A claim still within its lease is a twin in flight: 409.
    await transact([
      claimWrite(
        { ...scope, key: 'in-flight-now' },
        { requestHash, state: 'in_flight', leaseExpiresAt: new Date(Date.now() + 60_000).toISOString() },
      ),
    ]);
    const busy = await call(gw.baseUrl, 'POST', path, {
      key: m.test.apiKey,
      raw,
      headers: { ...headers, 'Idempotency-Key': 'in-flight-now' },
    });
    expect(busy.status).toBe(409);
  });

  it('pays out automatically: held at once, submitted once, completed by the bank, balance moved once', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 1000_00);
    const body = payout(
      { metadataJson: '{"batch":3}' },
      { bankCode: 'Meezan Bank', bankName: 'Meezan', email: 'a@example.com', cnic: '3520212345671' },
    );
    const r = await withdraw(m, body);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      paymentIntentId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: 300,
      currency: 'PKR',
      merchantReference: body.orderRef.orderRef,
      isLive: false,
      fee: 13, // default 1 % + 10.00
      totalRequired: 313,
      availableBalance: 687,
      payoutInfo: {
        status: 'Processing',
        provider: sandboxBankRail.name,
        transactionReference: expect.stringMatching(/^WD[0-9A-F]{20}$/),
        message: expect.any(String),
        isSuccess: true,
        errorCode: null,
        errorDetails: null,
        traceId: r.headers.get('svc-trace-id'),
        estimatedCompletionTime: expect.any(String),
        customerBankName: 'Meezan Bank',
        customerAccountNumber: '********************0000',
      },
      traceId: r.headers.get('svc-trace-id'),
    });
    const reference = r.json.payoutInfo.transactionReference;
    expect(sandboxSubmissionCount(reference)).toBe(1);
    expect(Date.parse(r.json.payoutInfo.estimatedCompletionTime) - Date.now()).toBeLessThanOrEqual(10_000);
    expect(await balance(m)).toMatchObject({
      availableBalance: 687,
      pendingBalance: 313,
      currentBalance: 1000,
      pendingByTransactionType: { Withdrawal: 313 },
    });

    const before = await lookup(m, body.orderRef.orderRef);
    expect(before.json).toMatchObject({
      status: 'Processing',
      intentType: 'withdrawal',
      fee: 13,
      payoutInfo: r.json.payoutInfo,
      metadataJson: '{"batch":3}',
    });
    expect(before.json.customerRef).toMatchObject({
      bankCode: 'MEEZAN',
      bankAccountNumber: '********************0000',
      bankName: 'Meezan',
      cnic: '3520212345671',
    });
    expect(before.text).not.toContain(account('0000'));

    expect(await processDue(seconds(10))).toBeGreaterThanOrEqual(1); // the sandbox bank completes within 10 s
    const after = await lookup(m, r.json.paymentIntentId);
    expect(after.json).toMatchObject({
      status: 'Completed',
      payoutInfo: { status: 'Completed', isSuccess: true, errorCode: null, traceId: r.json.traceId },
    });
    expect(await balance(m)).toMatchObject({ availableBalance: 687, pendingBalance: 0, currentBalance: 687 });
    await processDue(seconds(60));
    expect(sandboxSubmissionCount(reference)).toBe(1);

    const { journals, byAccount } = await ledgerTotals(m.merchantId);
    expect(journals.map((j) => j.kind).sort()).toEqual(['wallet.credit', 'withdrawal.completed', 'withdrawal.hold']);
    expect(byAccount['external:bank_rail']).toBe(300_00);
    expect(byAccount['platform:fees']).toBe(13_00);
    const events = await listEvents(r.json.paymentIntentId);
    expect(events.map((e) => `${e.event.data.PreviousStatus}>${e.event.data.CurrentStatus}`)).toEqual(['Processing>Completed']);
    expect(events[0]!.event.data.TraceId).toBe(r.json.traceId);
  });

  it('rejects at the bank (1111): Failed with WP_REQUEST_REJECTED, funds released', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 500_00);
    const r = await withdraw(m, payout({}, { bankAccountNumber: account('1111') }));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ availableBalance: 500, totalRequired: 313 });
    expect(r.json.payoutInfo).toMatchObject({
      status: 'Failed',
      isSuccess: false,
      errorCode: 'WP_REQUEST_REJECTED',
      errorDetails: sandboxRejection,
      traceId: r.json.traceId,
    });
    expect(sandboxSubmissionCount(r.json.payoutInfo.transactionReference)).toBe(1);
    const found = await lookup(m, r.json.paymentIntentId);
    expect(found.json).toMatchObject({ status: 'Failed', reason: sandboxRejection, payoutInfo: r.json.payoutInfo });
    // The event carries a stable code; the bank's text is the detail (the lookup's reason is unchanged).
    expect((await listEvents(r.json.paymentIntentId)).at(-1)!.event.data).toMatchObject({
      CurrentStatus: 'Failed',
      Reason: 'bank_rejected',
      ReasonDetail: sandboxRejection,
    });
    expect(await balance(m)).toMatchObject({ availableBalance: 500, pendingBalance: 0 });
    const { journals } = await ledgerTotals(m.merchantId);
    expect(journals.map((j) => j.kind).sort()).toEqual(['wallet.credit', 'withdrawal.hold', 'withdrawal.released']);
    expect((await listEvents(r.json.paymentIntentId)).map((e) => e.event.data.CurrentStatus)).toEqual(['Failed']);
  });

  it('times out at the bank (2222): Processing with WP_OUTCOME_PENDING, never resubmitted, settled by the reconciler', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 1000_00);
    const body = payout({}, { bankAccountNumber: account('2222') });
    const idem = { 'Idempotency-Key': `k-${randomUUID()}` };
    const r = await withdraw(m, body, { headers: idem });
    expect(r.status).toBe(200);
    expect(r.json.payoutInfo).toMatchObject({
      status: 'Processing',
      isSuccess: false,
      errorCode: 'WP_OUTCOME_PENDING',
      errorDetails: expect.stringMatching(/Do not submit it again/),
    });
    const reference = r.json.payoutInfo.transactionReference;
    expect(sandboxSubmissionCount(reference)).toBe(1);

    // The merchant retries: the same key replays, the same orderRef is refused. Nothing is resubmitted.
    const replay = await withdraw(m, body, { headers: idem });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(r.text);
    const again = await withdraw(m, body);
    expect(again.status).toBe(422);
    expect(again.json.code).toBe('duplicate_order_ref');

    await processDue(seconds(10)); // not yet due for the reconciler
    expect((await lookup(m, body.orderRef.orderRef)).json.payoutInfo.errorCode).toBe('WP_OUTCOME_PENDING');
    expect(await processDue(seconds(60))).toBeGreaterThanOrEqual(1); // settled within 60 s
    await processDue(seconds(120));
    const settled = await lookup(m, body.orderRef.orderRef);
    expect(settled.json).toMatchObject({ status: 'Completed', payoutInfo: { status: 'Completed', errorCode: null, isSuccess: true } });
    expect(sandboxSubmissionCount(reference)).toBe(1);
    expect(await balance(m)).toMatchObject({ availableBalance: 687, pendingBalance: 0 });
    await ledgerTotals(m.merchantId);
  });

  it('holds manual withdrawals Pending until the operator approves or rejects them', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 1000_00);
    const a = await withdraw(m, payout({ autoProcessPayout: false }));
    const b = await withdraw(m, payout({ autoProcessPayout: undefined })); // default false
    for (const r of [a, b]) {
      expect(r.status).toBe(200);
      expect(r.json.payoutInfo).toMatchObject({ status: 'Pending', isSuccess: true, errorCode: null, estimatedCompletionTime: null });
      expect(sandboxSubmissionCount(r.json.payoutInfo.transactionReference)).toBe(0);
    }
    expect(b.json.availableBalance).toBe(374);
    expect(await balance(m)).toMatchObject({ availableBalance: 374, pendingBalance: 626, pendingTransactionCount: 2 });
    await processDue(seconds(120));
    expect((await lookup(m, a.json.paymentIntentId)).json.status).toBe('Pending'); // nothing happens by itself

    // Five operators approve at once: one wins, one submission.
    const approvals = await Promise.allSettled(Array.from({ length: 5 }, () => approveWithdrawal(a.json.paymentIntentId)));
    expect(approvals.filter((x) => x.status === 'fulfilled').length).toBe(1);
    // The losers, refused before or by the core's decision alike: the operator's answer, byte for byte.
    const notPending = (id: string, status: string, action: string) => ({
      code: 'not_pending',
      message: `withdrawal ${id} is ${status}; only a Pending withdrawal can be ${action}`,
    });
    for (const lost of approvals.filter((x) => x.status === 'rejected'))
      expect(lost.reason).toMatchObject(notPending(a.json.paymentIntentId, 'Processing', 'approved'));
    expect(sandboxSubmissionCount(a.json.payoutInfo.transactionReference)).toBe(1);
    expect((await lookup(m, a.json.paymentIntentId)).json).toMatchObject({
      status: 'Processing',
      payoutInfo: { status: 'Processing', isSuccess: true },
    });
    await expect(rejectWithdrawal(a.json.paymentIntentId)).rejects.toMatchObject(
      notPending(a.json.paymentIntentId, 'Processing', 'rejected'),
    );
    await processDue(seconds(10));
    expect((await lookup(m, a.json.paymentIntentId)).json.status).toBe('Completed');

    const rejected = await rejectWithdrawal(b.json.merchantReference, 'Account title does not match', {
      merchantId: m.merchantId,
      mode: 'test',
    });
    expect(rejected).toMatchObject({
      status: 'Cancelled',
      reason: 'Account title does not match',
      payoutInfo: { status: 'Cancelled', errorCode: 'WP_REQUEST_REJECTED', errorDetails: 'Account title does not match' },
    });
    expect((await listEvents(b.json.paymentIntentId)).at(-1)!.event.data).toMatchObject({
      CurrentStatus: 'Cancelled',
      Reason: 'rejected_by_operator',
      ReasonDetail: 'Account title does not match',
    });
    await expect(approveWithdrawal(b.json.paymentIntentId)).rejects.toMatchObject(
      notPending(b.json.paymentIntentId, 'Cancelled', 'approved'),
    );
    expect(sandboxSubmissionCount(b.json.payoutInfo.transactionReference)).toBe(0);
    expect(await balance(m)).toMatchObject({ availableBalance: 687, pendingBalance: 0, pendingTransactionCount: 0 });
    const { journals } = await ledgerTotals(m.merchantId);
    expect(journals.map((j) => j.kind).sort()).toEqual([
      'wallet.credit',
      'withdrawal.completed',
      'withdrawal.hold',
      'withdrawal.hold',
      'withdrawal.released',
    ]);
    expect((await listEvents(a.json.paymentIntentId)).map((e) => e.event.data.CurrentStatus)).toEqual(['Processing', 'Completed']);
    expect((await listEvents(b.json.paymentIntentId)).map((e) => e.event.data.CurrentStatus)).toEqual(['Cancelled']);
  });

  it('never overdraws: of 50 concurrent withdrawals against a balance for 10, exactly 10 are accepted', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 10 * 313_00);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => withdraw(m, payout({ autoProcessPayout: i % 2 === 0 }))));
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 422);
    expect(accepted.length).toBe(10);
    expect(refused.length).toBe(40);
    for (const r of refused) expect(r.json.code).toBe('insufficient_balance');
    for (const r of accepted) expect(r.json.availableBalance).toBeGreaterThanOrEqual(0);
    expect(await balance(m)).toMatchObject({ availableBalance: 0, pendingBalance: 3130 });

    for (const r of accepted) if (r.json.payoutInfo.status === 'Pending') await approveWithdrawal(r.json.paymentIntentId);
    // Past the first inquiry of a submit that outlived its timeout on a loaded machine (the sandbox
    // records what it receives in the table), so every accepted payout is settled by this sweep.
    await processDue(seconds(40));
    const { wallet, byAccount, journals } = await ledgerTotals(m.merchantId);
    expect(wallet).toMatchObject({ available: 0, held: 0, pendingCount: 0 });
    expect(byAccount['external:bank_rail']).toBe(10 * 300_00);
    expect(byAccount['platform:fees']).toBe(10 * 13_00);
    expect(journals.filter((j) => j.kind === 'withdrawal.hold').length).toBe(10);
    for (const r of accepted) expect(sandboxSubmissionCount(r.json.payoutInfo.transactionReference)).toBe(1);
  }, 60_000);

  it('answers a twin 409 while the first is at the bank, then replays it; the provider sees one submission', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'live', 1000_00);
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    let submissions = 0;
    const slow: BankRail = {
      ...sandboxBankRail,
      name: 'Slow Live Rail',
      async submit(p) {
        submissions++;
        await gate;
        return { outcome: 'accepted', providerReference: 'LIVE1', estimatedCompletionAt: new Date(Date.parse(p.submittedAt) + 60_000) };
      },
    };
    configureBankRail('live', slow);
    const body = payout();
    const headers = { 'Idempotency-Key': `twin-${randomUUID()}` };
    const first = withdraw(m, body, { mode: 'live', headers });
    while (submissions === 0) await new Promise((ok) => setTimeout(ok, 10));
    const twin = await withdraw(m, body, { mode: 'live', headers });
    expect(twin.status).toBe(409);
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ isLive: true, payoutInfo: { status: 'Processing', provider: 'Slow Live Rail', isSuccess: true } });
    const replay = await withdraw(m, body, { mode: 'live', headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(done.text);
    const different = await withdraw(m, { ...body, amount: 301 }, { mode: 'live', headers });
    expect(different.status).toBe(422);
    expect(submissions).toBe(1);
  });

  it('reports WP_INTERNAL_ERROR with only the trace id when the provider adapter could not send', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'live', 1000_00);
    configureBankRail('live', {
      ...sandboxBankRail,
      name: 'Broken Rail',
      submit: async () => ({ outcome: 'rejected', reason: 'TLS handshake to 10.1.2.3 failed: secret-diagnostic', internal: true }),
    });
    const r = await withdraw(m, payout(), { mode: 'live' });
    expect(r.status).toBe(200);
    expect(r.json.payoutInfo).toMatchObject({ status: 'Failed', errorCode: 'WP_INTERNAL_ERROR', isSuccess: false });
    expect(r.json.payoutInfo.errorDetails).toContain(r.json.traceId);
    expect(r.text).not.toMatch(/TLS|10\.1\.2\.3|secret-diagnostic/);
    expect(r.json.availableBalance).toBe(1000);
    await ledgerTotals(m.merchantId, 'live');
  });

  it('refuses live withdrawals with a clear 422 when no payout provider is configured', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'live', 1000_00);
    for (const autoProcessPayout of [true, false]) {
      const r = await withdraw(m, payout({ autoProcessPayout }), { mode: 'live' });
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ code: 'payout_provider_unavailable', detail: expect.stringMatching(/^Payout provider unavailable/) });
    }
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00);
  });

  it('validates every field: 400 for malformed input, 422 for business rules, and changes nothing', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 400_00);
    const malformed: [string, Record<string, unknown>, string][] = [
      ['amount missing', { amount: undefined }, 'amount'],
      ['amount not a number', { amount: '300' }, 'amount'],
      ['three decimals', { amount: 300.001 }, 'amount'],
      ['currency of 2', { currency: 'PK' }, 'currency'],
      ['currency of 4', { currency: 'USDT' }, 'currency'],
      ['description symbols', { description: 'Payout #7!' }, 'description'],
      ['description missing', { description: undefined }, 'description'],
      ['intentType', { intentType: 'deposit' }, 'intentType'],
      ['autoProcessPayout', { autoProcessPayout: 'yes' }, 'autoProcessPayout'],
      ['metadataJson', { metadataJson: '{not json' }, 'metadataJson'],
      ['callbackUrl', { callbackUrl: 'not a url' }, 'callbackUrl'],
      ['orderRef pattern', { orderRef: { orderRef: 'has space' } }, 'orderRef.orderRef'],
      ['orderRef missing', { orderRef: undefined }, 'orderRef'],
      ['customerRef missing', { customerRef: undefined }, 'customerRef'],
    ];
    const customer: [string, Record<string, unknown>, string][] = [
      ['account of 9', { bankAccountNumber: '123456789' }, 'customerRef.bankAccountNumber'],
      ['account of 25', { bankAccountNumber: 'PK36SCBL00000011234567020' }, 'customerRef.bankAccountNumber'],
      ['account missing', { bankAccountNumber: undefined }, 'customerRef.bankAccountNumber'],
      ['bankCode of 1', { bankCode: 'H' }, 'customerRef.bankCode'],
      ['bankCode of 21', { bankCode: 'A'.repeat(21) }, 'customerRef.bankCode'],
      ['bankCode missing', { bankCode: undefined }, 'customerRef.bankCode'],
      ['accountTitle of 1', { accountTitle: 'A' }, 'customerRef.accountTitle'],
      ['accountTitle of 101', { accountTitle: 'A'.repeat(101) }, 'customerRef.accountTitle'],
      ['accountTitle missing', { accountTitle: undefined }, 'customerRef.accountTitle'],
      ['bankName of 1', { bankName: 'M' }, 'customerRef.bankName'],
      ['bankName of 101', { bankName: 'M'.repeat(101) }, 'customerRef.bankName'],
      ['email', { email: 'not-an-email' }, 'customerRef.email'],
      ['cnic of 12', { cnic: '352021234567' }, 'customerRef.cnic'],
    ];
    for (const [name, override, field] of [
      ...malformed.map(([n, o, f]) => [n, payout(o), f] as const),
      ...customer.map(([n, o, f]) => [n, payout({}, o), f] as const),
    ]) {
      const r = await withdraw(m, JSON.parse(JSON.stringify(override)));
      expect(r.status, name).toBe(400);
      expect(Object.keys(r.json.errors), name).toContain(field);
    }

    const rules: [string, Record<string, unknown>, string, RegExp][] = [
      ['below 300', payout({ amount: 299.99 }), 'amount_below_minimum', /minimum withdrawal is 300/],
      ['negative', payout({ amount: -300 }), 'amount_below_minimum', /greater than 0/],
      ['unknown bank code', payout({}, { bankCode: 'NOSUCHBANK' }), 'unsupported_bank_code', /HBL, UBL, .*JAZZCASH, EASYPAISA/],
      ['unsupported currency', payout({ currency: 'XYZ' }), '', /XYZ is not supported/],
      ['insufficient balance', payout({ amount: 400 }), 'insufficient_balance', /Insufficient balance/],
      ['unsafe callbackUrl', payout({ callbackUrl: 'https://169.254.169.254/latest' }), 'callback_url_refused', /callbackUrl/],
    ];
    for (const [name, body, code, detail] of rules) {
      const r = await withdraw(m, body);
      expect(r.status, name).toBe(422);
      expect(r.json.detail, name).toMatch(detail);
      if (code) expect(r.json.code, name).toBe(code);
    }
    expect((await listJournals(m.merchantId, 'test')).length).toBe(1);
    expect(await balance(m)).toMatchObject({ availableBalance: 400, pendingBalance: 0 });

    // Accepted as well: the boundaries, optional members null or "", lower-case currency, bank names.
    const ok = await withdraw(
      m,
      payout(
        { amount: 300, currency: 'pkr', autoProcessPayout: false, intentType: 'withdrawal', callbackUrl: null },
        { bankAccountNumber: '1234567890', bankCode: 'bank al habib', accountTitle: 'AK', bankName: '', email: null },
      ),
    );
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({
      currency: 'PKR',
      payoutInfo: { customerBankName: 'Bank AL Habib', customerAccountNumber: '******7890' },
    });
    const dup = await withdraw(m, payout({ orderRef: { orderRef: ok.json.merchantReference } }));
    expect(dup.status).toBe(422);
    expect(dup.json.code).toBe('duplicate_order_ref');
  });

  it('approves and rejects from the operator tool (npm run ops -- withdrawal ...)', async () => {
    const m = await newMerchant();
    await fund(m.merchantId, 'test', 1000_00);
    const a = await withdraw(m, payout({ autoProcessPayout: false }));
    const b = await withdraw(m, payout({ autoProcessPayout: false }));
    const pending = await ops('withdrawal', 'list', '--merchant', m.merchantId, '--mode', 'test', '--json');
    expect(pending.json.map((w: { paymentIntentId: string }) => w.paymentIntentId).sort()).toEqual(
      [a.json.paymentIntentId, b.json.paymentIntentId].sort(),
    );
    const approved = await ops('withdrawal', 'approve', a.json.paymentIntentId, '--json');
    expect(approved.json).toMatchObject({
      paymentIntentId: a.json.paymentIntentId,
      status: 'Processing',
      payoutInfo: { status: 'Processing', isSuccess: true },
    });
    const rejected = await ops(
      'withdrawal',
      'reject',
      b.json.merchantReference,
      '--merchant',
      m.merchantId,
      '--mode',
      'test',
      '--reason',
      'Beneficiary not verified',
      '--json',
    );
    expect(rejected.json).toMatchObject({
      status: 'Cancelled',
      payoutInfo: { errorCode: 'WP_REQUEST_REJECTED', errorDetails: 'Beneficiary not verified' },
    });
    const twice = await ops('withdrawal', 'approve', b.json.paymentIntentId, '--json');
    expect(twice.json.error).toMatch(/Cancelled/);
    await processDue(seconds(10));
    expect((await lookup(m, a.json.paymentIntentId)).json.status).toBe('Completed');
    expect(await balance(m)).toMatchObject({ availableBalance: 687, pendingBalance: 0 });
  }, 60_000);
});

const ops = useOps(() => tableName);
