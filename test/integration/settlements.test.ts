import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { toChecksumAddress } from '#shared/domain/usdt-address.ts';
import { creditTestWallet, setSchedule } from '#shared/services/merchants.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { runAutoSettlement } from '#shared/services/auto-settlement.ts';
import { advanceSettlement, approveSettlement, cancelSettlement, rejectSettlement } from '#shared/services/settlements.ts';
import { getAutoSettlementRun } from '#shared/store/settlements.ts';
import { configureRateSource } from '#shared/providers/fx-rates.ts';
import type { Rail, StatusAnswer } from '#shared/providers/rail.ts';
import { configureRail } from '#shared/providers/rails.ts';
import { sandboxSettlementRail, type SettlementInstruction } from '#shared/providers/settlement-rail.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { completedPayment, expectLedgerConsistent } from '../support/money.ts';
import { opsCommand } from '../support/ops.ts';

type SettlementRail = Rail<SettlementInstruction>;
type SettlementStatusResult = StatusAnswer;
const configureSettlementRail = (mode: 'test' | 'live', rail: SettlementRail | undefined) => configureRail('settlement', mode, rail);

/** The operator CLI as an operator runs it (see ops-cli.test.ts): a separate process on the same table. */
async function ops(...args: string[]) {
  const port = new URL(inject('dynamoEndpoint')).port;
  const out = await promisify(execFile)(process.execPath, [...opsCommand(), ...args, '--json'], {
    cwd: resolve(import.meta.dirname, '..', '..'),
    env: { ...process.env, DYNAMODB_PORT: port, TABLE_NAME: inject('tableName'), DYNAMODB_ENDPOINT: '' },
  }).catch((e: { stdout: string }) => e);
  return JSON.parse(out.stdout);
}

const trc20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const erc20Rejected = toChecksumAddress('0x00000000000000000000000000000000abcd1111'); // sandbox: ends 1111 → rejected
const bank = { bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' };

describe('settlements', () => {
  const gw = useGateway(routeList);
  const post = (m: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', { key: m.test.apiKey, secret: m.test.secretKey, body, headers });
  const get = (m: TestMerchant, path: string, key = m.test.apiKey) => call(gw.baseUrl, 'GET', `/Gateway/v1${path}`, { key });
  const balance = async (m: TestMerchant) =>
    (await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey })).json;
  /** Steps a settlement until it is terminal (what the sweeper does every 2 s), with time moving on. */
  const settle = async (id: string) => {
    let t = Date.now();
    for (let i = 0; i < 6; i++) {
      const s = await advanceSettlement(id, new Date((t += 3_000)));
      if (s && s.status >= 3) return s;
    }
    throw new Error('not settled');
  };
  const funded = async (amount: number) => {
    const m = await newMerchant();
    await creditTestWallet(m.merchantId, 'test', amount * 100, 'PKR');
    return m;
  };

  it('settles to a bank account: the amount is held at creation, the fee and net leave at completion', async () => {
    const m = await funded(1000);
    const r = await post(m, { amount: 500, currency: 'PKR', ...bank });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      merchantId: m.merchantId,
      amount: 500,
      currency: 'PKR',
      payoutCurrency: 'PKR',
      fee: 2.5,
      netAmount: 497.5,
      payoutAmount: 497.5,
      fxRate: null,
      fxRateTimestamp: null,
      bankName: 'HBL',
      iban: 'PK36SCBL0000001123456702',
      accountTitle: 'Acme Ltd',
      usdtAddress: null,
      status: 0,
      approvedAt: null,
      processedAt: null,
      failureReason: null,
      isAuto: false,
      isLive: false,
    });
    expect(await balance(m)).toMatchObject({ availableBalance: 500, pendingBalance: 500, pendingByTransactionType: { Settlement: 500 } });

    const approved = await approveSettlement(r.json.id);
    expect(approved).toMatchObject({ status: 1, approvedAt: expect.any(String), fxRate: null, payoutAmount: 497.5 });
    const processing = await advanceSettlement(r.json.id, new Date());
    expect(processing?.status).toBe(2);
    expect(processing?.railReference).toMatch(/^SBXSTL/);
    const done = await settle(r.json.id);
    expect(done.status).toBe(3);
    const read = await get(m, `/Settlements/${r.json.id}`);
    expect(read.json).toMatchObject({ status: 3, processedAt: expect.any(String), netAmount: 497.5 });
    expect(await balance(m)).toMatchObject({ availableBalance: 500, pendingBalance: 0, currentBalance: 500 });
    const ledger = await expectLedgerConsistent(m.merchantId, 'test');
    expect(ledger.external('settlement_rail')).toBe(497_50);
    expect(ledger.fees).toBe(2_50);
  });

  it('settles to a USDT (TRC20) address with the rate locked at approval, in integer arithmetic', async () => {
    const m = await funded(2000);
    const r = await post(m, { amount: 1000, usdtAddress: trc20 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      currency: 'PKR',
      payoutCurrency: 'USDT',
      usdtAddress: trc20,
      usdtNetwork: 'TRC20',
      fee: 5,
      netAmount: 995,
      payoutAmount: null,
      fxRate: null,
      bankName: null,
      iban: null,
    });
    const approved = await approveSettlement(r.json.id);
    // Sandbox PKR→USDT = 0.0036 / 1.0008 = 0.00359712; 995 × 0.00359712 = 3.5791344 → 3.579134 (6 decimals, down)
    expect(approved).toMatchObject({ status: 1, fxRate: 0.00359712, payoutAmount: 3.579134, fxRateTimestamp: approved.approvedAt });
    expect((await settle(r.json.id)).status).toBe(3);
    const read = await get(m, `/Settlements/${r.json.id}`);
    expect(read.json).toMatchObject({ status: 3, fxRate: 0.00359712, payoutAmount: 3.579134, fxRateTimestamp: approved.fxRateTimestamp });
    expect(await balance(m)).toMatchObject({ availableBalance: 1000, pendingBalance: 0 });
    await expectLedgerConsistent(m.merchantId, 'test');
  });

  it('releases the hold when the rail rejects (ERC20 ending 1111), when rejected and when cancelled', async () => {
    const m = await funded(1000);
    const failing = await post(m, { amount: 100, usdtAddress: erc20Rejected, payoutCurrency: 'USDT' });
    expect(failing.status).toBe(200);
    expect(failing.json.usdtNetwork).toBe('ERC20');
    const rejected = await post(m, { amount: 200, ...bank });
    const cancelled = await post(m, { amount: 300, ...bank, iban: '00123456780000' });
    expect(await balance(m)).toMatchObject({ availableBalance: 400, pendingBalance: 600 });

    await approveSettlement(failing.json.id);
    const failed = await settle(failing.json.id);
    expect(failed).toMatchObject({ status: 4, failureReason: expect.stringMatching(/rejected/) });
    expect(await rejectSettlement(rejected.json.id, 'account not verified')).toMatchObject({
      status: 5,
      failureReason: 'Rejected by the operator: account not verified',
    });
    expect(await cancelSettlement(cancelled.json.id)).toMatchObject({ status: 5 });
    expect(await balance(m)).toMatchObject({ availableBalance: 1000, pendingBalance: 0 });

    // Terminal states are never left.
    await expect(approveSettlement(cancelled.json.id)).rejects.toThrow(/only a Pending settlement/);
    await expect(cancelSettlement(failing.json.id)).rejects.toThrow(/only a Pending settlement/);
    const ledger = await expectLedgerConsistent(m.merchantId, 'test');
    expect(ledger.external('settlement_rail')).toBe(0);
    expect(ledger.fees).toBe(0);
  });

  it('refuses bad requests with 400 / 422 and changes nothing', async () => {
    const m = await funded(100);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ amount: 10 }, 400, '(root)'],
      [{ amount: 10, bankName: 'HBL', iban: bank.iban }, 400, 'accountTitle'],
      [{ amount: 10, ...bank, usdtAddress: trc20 }, 400, 'bankName'],
      [{ amount: 10, usdtAddress: trc20.replace('6t', '6u') }, 400, 'usdtAddress'],
      [{ amount: 10, usdtAddress: erc20Rejected.toLowerCase() }, 400, 'usdtAddress'],
      [{ amount: 10, usdtAddress: trc20, payoutCurrency: 'PKR' }, 400, 'payoutCurrency'],
      [{ amount: 10, ...bank, payoutCurrency: 'USDT' }, 400, 'payoutCurrency'],
      [{ amount: 10, ...bank, iban: 'PK37SCBL0000001123456702' }, 400, 'iban'],
      [{ amount: 10.001, ...bank }, 400, 'amount'],
    ];
    for (const [body, status, field] of cases) {
      const r = await post(m, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(Object.keys(r.json.errors ?? {}), JSON.stringify(body)).toContain(field);
    }
    const unsupported = await post(m, { amount: 10, currency: 'JPY', ...bank });
    const zero = await post(m, { amount: 0, ...bank });
    expect(zero.json).toMatchObject({ status: 422, code: 'amount_below_minimum' });
    expect(unsupported.status).toBe(422);
    const tooMuch = await post(m, { amount: 100.01, ...bank });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json).toMatchObject({ code: 'insufficient_balance', detail: expect.stringMatching(/100 PKR available/) });
    const otherWallet = await post(m, { amount: 5, currency: 'USD', ...bank });
    expect(otherWallet.status).toBe(422);
    const live = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
      key: m.live.apiKey,
      secret: m.live.secretKey,
      body: { amount: 10, ...bank },
    });
    expect(live.status).toBe(422);
    expect(live.json.code).toBe('settlement_rail_unavailable');
    expect((await get(m, '/Settlements')).json.totalCount).toBe(0);
    expect(await balance(m)).toMatchObject({ availableBalance: 100, pendingBalance: 0 });
  });

  it('never lets concurrent settlements together exceed the available balance', async () => {
    const m = await funded(1000);
    const results = await Promise.all(Array.from({ length: 6 }, () => post(m, { amount: 300, ...bank })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 422).every((r) => r.json.code === 'insufficient_balance')).toBe(true);
    expect(await balance(m)).toMatchObject({ availableBalance: 100, pendingBalance: 900 });
    await expectLedgerConsistent(m.merchantId, 'test');
  });

  it('replays an Idempotency-Key instead of settling twice', async () => {
    const m = await funded(1000);
    const headers = { 'Idempotency-Key': 'settle-once-1' };
    const [a, b] = await Promise.all([post(m, { amount: 100, ...bank }, headers), post(m, { amount: 100, ...bank }, headers)]);
    const again = await post(m, { amount: 100, ...bank }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect([a, b].filter((r) => r.status === 200).every((r) => r.json.id === again.json.id)).toBe(true);
    expect(await balance(m)).toMatchObject({ availableBalance: 900, pendingBalance: 100 });
  });

  it('reads one settlement only with its own merchant and mode; the literal /Settlements/schedule still wins', async () => {
    const m = await funded(100);
    const s = await post(m, { amount: 10, ...bank });
    // The lookup is the created settlement plus its breakdown (merchant guide, Settlement breakdowns).
    expect((await get(m, `/Settlements/${s.json.id}`)).json).toEqual({
      ...s.json,
      breakdown: expect.objectContaining({ amount: 10 }),
      breakdownStatus: 'available',
    });
    expect((await get(m, `/Settlements/${s.json.id.toUpperCase()}`)).status).toBe(200);
    expect((await get(m, `/Settlements/${s.json.id}`, m.live.apiKey)).status).toBe(404);
    const other = await newMerchant();
    const foreign = await get(other, `/Settlements/${s.json.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain(m.merchantId);
    expect((await get(m, '/Settlements/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const bad = await get(m, '/Settlements/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toHaveProperty('path.id');
    const schedule = await get(m, '/Settlements/schedule');
    expect(schedule.status).toBe(200);
    expect(schedule.json).toMatchObject({ merchantId: m.merchantId, frequency: 'manual' });
  });

  it('lists page by page, newest first, without overlap, with Status, From, To and MerchantId filters', async () => {
    const m = await funded(1000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(m, { amount: 10 + i, ...bank })).json.id);
    await cancelSettlement(ids[1]!);
    const newestFirst = [...ids].reverse();

    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const r = await get(m, `/Settlements?Page=${page}&PageSize=2`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ page, pageSize: 2, totalCount: 5, totalPages: 3, hasMore: page < 3 });
      pages.push(...r.json.items.map((s: { id: string }) => s.id));
    }
    expect(pages).toEqual(newestFirst);
    expect(new Set(pages).size).toBe(5);
    expect((await get(m, '/Settlements?Page=4&PageSize=2')).json).toMatchObject({ items: [], totalCount: 5, hasMore: false });
    expect((await get(m, '/Settlements')).json).toMatchObject({ page: 1, pageSize: 20, totalCount: 5, totalPages: 1, hasMore: false });

    const cancelled = await get(m, '/Settlements?Status=5');
    expect(cancelled.json.items.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    expect(cancelled.json.totalCount).toBe(1);
    const pendingPage = await get(m, '/Settlements?status=0&pagesize=3&page=2'); // names are case-insensitive
    expect(pendingPage.json).toMatchObject({ totalCount: 4, totalPages: 2, hasMore: false });
    expect(pendingPage.json.items.map((s: { id: string }) => s.id)).toEqual([ids[0]]);

    const all = (await get(m, '/Settlements')).json.items as { id: string; requestedAt: string }[];
    const third = all.find((s) => s.id === ids[2])!;
    const fourth = all.find((s) => s.id === ids[3])!;
    const window = await get(m, `/Settlements?From=${encodeURIComponent(third.requestedAt)}&To=${encodeURIComponent(fourth.requestedAt)}`);
    expect(window.json.items.map((s: { id: string }) => s.id)).toEqual([ids[3], ids[2]]);
    expect((await get(m, `/Settlements?From=${encodeURIComponent(fourth.requestedAt)}`)).json.totalCount).toBe(2);
    expect((await get(m, '/Settlements?To=2000-01-01')).json.totalCount).toBe(0);
    const day = third.requestedAt.slice(0, 10); // a date alone: From = start of day, To = end of day
    const sameDay = await get(m, `/Settlements?From=${day}&To=${day}&PageSize=100`);
    expect(sameDay.json.items.map((s: { id: string }) => s.id)).toContain(ids[2]);

    expect((await get(m, `/Settlements?MerchantId=${m.merchantId}`)).json.totalCount).toBe(5);
    const other = await newMerchant();
    expect((await get(m, `/Settlements?MerchantId=${other.merchantId}`)).json).toEqual({
      items: [],
      page: 1,
      pageSize: 20,
      totalCount: 0,
      totalPages: 0,
      hasMore: false,
    });
    expect((await get(other, '/Settlements')).json.totalCount).toBe(0);
    expect((await get(m, '/Settlements', m.live.apiKey)).json.totalCount).toBe(0);

    for (const q of [
      'PageSize=0',
      'PageSize=101',
      'Page=0',
      'Status=6',
      'Status=x',
      'From=yesterday',
      'MerchantId=abc',
      'From=2025-02-01&To=2025-01-01',
    ]) {
      const r = await get(m, `/Settlements?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.errors, q).toBeDefined();
    }
  });

  it('creates automatic settlements from the schedule, once per run, to the registered bank account', async () => {
    const m = await funded(1000);
    await setSchedule(m.merchantId, { frequency: 'daily', dayOfPeriod: null, hourUtc: 3, minimumBalanceMinor: 100_00, destination: bank });
    const run = await getAutoSettlementRun(m.merchantId, 'test');
    const shown = await get(m, '/Settlements/schedule');
    expect(shown.json).toMatchObject({ enabled: true, nextRunAt: run?.runAt });

    const at = new Date(Date.parse(run!.runAt) + 1_000);
    const [a, b] = await Promise.all([runAutoSettlement(m.merchantId, 'test', at), runAutoSettlement(m.merchantId, 'test', at)]);
    const createdOnce = [a, b].filter(Boolean);
    expect(createdOnce).toHaveLength(1);
    expect(createdOnce[0]).toMatchObject({
      isAuto: true,
      amount: 900,
      fee: 4.5,
      netAmount: 895.5,
      payoutCurrency: 'PKR',
      bankName: 'HBL',
      iban: bank.iban,
      status: 0,
    });
    expect((await getAutoSettlementRun(m.merchantId, 'test'))!.runAt > run!.runAt).toBe(true);
    expect(await balance(m)).toMatchObject({ availableBalance: 100, pendingBalance: 900 });
    const listed = await get(m, '/Settlements');
    expect(listed.json.items).toHaveLength(1);
    expect(listed.json.items[0]).toMatchObject({ isAuto: true });
    await expectLedgerConsistent(m.merchantId, 'test');
    // Live mode has no rail here: its run only moves on.
    expect(await runAutoSettlement(m.merchantId, 'live', at)).toBeUndefined();
    await setSchedule(m.merchantId, { frequency: 'manual', dayOfPeriod: null, hourUtc: 0, minimumBalanceMinor: 0, destination: null });
    expect(await getAutoSettlementRun(m.merchantId, 'test')).toBeUndefined();
  });

  it('is processed by the sweep after approval (the job the local stack and AWS run every 2 s)', async () => {
    const m = await funded(100);
    const s = await post(m, { amount: 50, ...bank });
    await approveSettlement(s.json.id);
    const mine = (item: { id: string }) => item.id === s.json.id;
    let t = Date.now();
    for (let i = 0; i < 4; i++) await processDueSettlementsAndRefunds(new Date((t += 3_000)), mine);
    expect((await get(m, `/Settlements/${s.json.id}`)).json.status).toBe(3);
    expect(await processDueSettlementsAndRefunds(new Date((t += 3_000)), mine)).toBe(0); // out of the due index
  });

  it('is approved, rejected and cancelled with npm run ops (settlements and refunds)', async () => {
    const m = await funded(100);
    const a = await post(m, { amount: 10, ...bank });
    const b = await post(m, { amount: 20, ...bank });
    expect(await ops('settlement', 'approve', a.json.id)).toMatchObject({ id: a.json.id, status: 1 });
    expect(await ops('settlement', 'reject', b.json.id, '--reason', 'unverified account')).toMatchObject({
      status: 5,
      failureReason: 'Rejected by the operator: unverified account',
    });
    expect(await ops('settlement', 'cancel', b.json.id)).toMatchObject({ error: expect.stringMatching(/only a Pending settlement/) });
    const payment = await completedPayment(m.merchantId, 'test', 50_00);
    const refund = await call(gw.baseUrl, 'POST', '/Gateway/v1/Refunds', {
      key: m.test.apiKey,
      secret: m.test.secretKey,
      body: { trxnRef: payment.orderRef.orderRef },
    });
    expect(await ops('refund', 'reject', refund.json.id, '--reason', 'duplicate')).toMatchObject({ id: refund.json.id, status: 6 });
    expect(await ops('refund', 'approve', '00000000-0000-4000-8000-000000000000')).toMatchObject({
      error: expect.stringMatching(/No refund/),
    });
  }, 60_000);

  it('behaves the same in live mode once a rail and a rate source are configured, submitting once', async () => {
    const submitted: string[] = [];
    const liveRail: SettlementRail = {
      name: 'Live Rail',
      ledgerAccount: 'live_rail',
      timings: { ...sandboxSettlementRail.timings, firstCheckAfterMs: 1_000, pollIntervalMs: 1_000 },
      submit: async (i) => (submitted.push(i.reference), { outcome: 'accepted', providerReference: `LIVE${i.reference.slice(0, 8)}` }),
      status: async () => ({ status: 'Completed' }),
    };
    configureSettlementRail('live', liveRail);
    configureRateSource('live', { quote: async (from, to, now) => ({ from, to, rate: '0.0035', at: now.toISOString() }) });
    try {
      const m = await newMerchant();
      await completedPayment(m.merchantId, 'live', 1000_00);
      const r = await call(gw.baseUrl, 'POST', '/Gateway/v1/Settlements', {
        key: m.live.apiKey,
        secret: m.live.secretKey,
        body: { amount: 1000, usdtAddress: trc20 },
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ isLive: true, payoutAmount: null });
      expect(await approveSettlement(r.json.id)).toMatchObject({ fxRate: 0.0035, payoutAmount: 3.4825 }); // 995 × 0.0035
      await Promise.all([advanceSettlement(r.json.id, new Date()), advanceSettlement(r.json.id, new Date())]);
      expect((await settle(r.json.id)).status).toBe(3);
      expect(submitted).toEqual([r.json.id]);
      expect((await get(m, `/Settlements/${r.json.id}`)).status).toBe(404); // the test key never sees live objects
      const ledger = await expectLedgerConsistent(m.merchantId, 'live');
      expect(ledger.external('live_rail')).toBe(995_00);
    } finally {
      configureSettlementRail('live', undefined);
      configureRateSource('live', undefined);
    }
  });

  /** A fake rail that counts its submits; `status` answers from `answer` (default: Completed). */
  function countingRail(onSubmit: (n: number) => Promise<void>, answer: () => SettlementStatusResult = () => ({ status: 'Completed' })) {
    const submits: string[] = [];
    const inquiries: string[] = [];
    const rail: SettlementRail = {
      name: 'Fake Rail',
      ledgerAccount: 'fake_rail',
      timings: { ...sandboxSettlementRail.timings, firstCheckAfterMs: 1_000, pollIntervalMs: 1_000 },
      async submit(i) {
        submits.push(i.reference);
        await onSubmit(submits.length);
        return { outcome: 'accepted', providerReference: `FAKE${i.reference.slice(0, 8)}` };
      },
      async status(i) {
        inquiries.push(i.reference);
        return answer();
      },
    };
    return { rail, submits, inquiries };
  }
  const withRail = async (rail: SettlementRail, run: () => Promise<void>) => {
    configureSettlementRail('test', rail);
    try {
      await run();
    } finally {
      configureSettlementRail('test', sandboxSettlementRail);
    }
  };

  it('submits once when the submit throws: several sweeps later it is settled by the status inquiry', async () => {
    const statuses: SettlementStatusResult[] = [{ status: 'Processing' }, { status: 'Completed' }];
    const fake = countingRail(
      async () => {
        throw new Error('socket hang up'); // sent, answer lost
      },
      () => statuses.shift() ?? { status: 'Completed' },
    );
    await withRail(fake.rail, async () => {
      const m = await funded(1000);
      const s = await post(m, { amount: 200, ...bank });
      await approveSettlement(s.json.id);
      const mine = (item: { id: string }) => item.id === s.json.id;
      let t = Date.now() + 1_000;
      await processDueSettlementsAndRefunds(new Date(t), mine); // the one submit: unknown outcome
      expect((await get(m, `/Settlements/${s.json.id}`)).json.status).toBe(2);
      expect(await processDueSettlementsAndRefunds(new Date((t += 3_000)), mine)).toBe(0);
      await processDueSettlementsAndRefunds(new Date((t += 31_000)), mine); // inquiry: Processing
      expect((await get(m, `/Settlements/${s.json.id}`)).json.status).toBe(2);
      for (let i = 0; i < 3; i++) await processDueSettlementsAndRefunds(new Date((t += 31_000)), mine); // inquiry: Completed
      expect(fake.submits).toEqual([s.json.id]);
      expect(fake.inquiries).toEqual([s.json.id, s.json.id]);
      expect((await get(m, `/Settlements/${s.json.id}`)).json).toMatchObject({ status: 3, processedAt: expect.any(String) });
      expect(await balance(m)).toMatchObject({ availableBalance: 800, pendingBalance: 0 });
      expect((await expectLedgerConsistent(m.merchantId, 'test')).external('fake_rail')).toBe(199_00);
    });
  });

  it('fails a submission the rail never received (NotFound after the grace period), releasing the funds, not resubmitting', async () => {
    const fake = countingRail(
      async () => {
        throw new Error('connect ECONNREFUSED');
      },
      () => ({ status: 'NotFound' }),
    );
    await withRail(fake.rail, async () => {
      const m = await funded(1000);
      const s = await post(m, { amount: 300, ...bank });
      await approveSettlement(s.json.id);
      let t = Date.now();
      expect(await advanceSettlement(s.json.id, new Date((t += 1_000)))).toMatchObject({ status: 2 });
      expect(await advanceSettlement(s.json.id, new Date((t += 31_000)))).toMatchObject({ status: 2 }); // NotFound within the grace period
      expect(await advanceSettlement(s.json.id, new Date((t += 5 * 60_000)))).toMatchObject({ status: 2 });
      expect(await advanceSettlement(s.json.id, new Date((t += 15 * 60_000)))).toMatchObject({
        status: 4,
        failureReason: expect.stringMatching(/did not reach/),
      });
      expect(fake.submits).toEqual([s.json.id]);
      expect(await balance(m)).toMatchObject({ availableBalance: 1000, pendingBalance: 0 });
      expect((await expectLedgerConsistent(m.merchantId, 'test')).external('fake_rail')).toBe(0);
    });
  });

  it('times out a slow submit and never overlaps it with a second one', async () => {
    let release!: () => void;
    let executed = false;
    const fake = countingRail(
      () => new Promise<void>((resolve) => (release = () => ((executed = true), resolve()))),
      () => (executed ? { status: 'Completed' } : { status: 'Processing' }),
    );
    await withRail(fake.rail, async () => {
      const m = await funded(1000);
      const s = await post(m, { amount: 100, ...bank });
      await approveSettlement(s.json.id);
      let t = Date.now();
      const started = Date.now();
      const [a, b] = await Promise.all([advanceSettlement(s.json.id, new Date((t += 1_000))), advanceSettlement(s.json.id, new Date(t))]);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect([a?.status, b?.status]).toEqual([2, 2]);
      // the rail: Processing
      expect(await advanceSettlement(s.json.id, new Date((t += 31_000)))).toMatchObject({ status: 2, railReference: null });
      release();
      await new Promise((r) => setTimeout(r, 50));
      expect(await advanceSettlement(s.json.id, new Date((t += 31_000)))).toMatchObject({ status: 3 });
      expect(fake.submits).toEqual([s.json.id]);
      expect(await balance(m)).toMatchObject({ availableBalance: 900, pendingBalance: 0 });
      await expectLedgerConsistent(m.merchantId, 'test');
    });
  });
});
