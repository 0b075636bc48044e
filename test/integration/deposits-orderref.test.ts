import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { armFault } from '#shared/faults.ts';
import { easypaisaPaths } from '#shared/providers/live/easypaisa-protocol.ts';
import { jazzCashPaths } from '#shared/providers/live/jazzcash-protocol.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { createDeposit, recoverDeposit } from '#shared/services/deposits.ts';
import { IdempotencyKeyTaken } from '#shared/store/client.ts';
import { getRecord } from '#shared/store/idempotency.ts';
import { getIntent } from '#shared/store/intents.ts';
import { commitRequest, type Decide } from '#shared/store/request.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { commit } from '#shared/http/idempotency.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { useEmulatedLive } from '../support/live.ts';
import { sweepIntentsOf } from '../support/sweeps.ts';

/**
 * A deposit takes its orderRef BEFORE the charge request (shared/services/deposits.ts createDeposit, the protocol of
 * requestedCharge): concurrent deposits with one orderRef reach the provider once, and a crash after the orderRef was
 * taken is settled by the reconciler's inquiry, never charged twice. Live mode against the provider emulators.
 */
let seq = 0;
const ref = (p: string) => `${p}${Date.now()}${seq++}`;
const sweep = (m: TestMerchant, at: Date) => sweepIntentsOf(at, m.merchantId); // over its intents' due partitions (test/support/sweeps.ts)
const later = (ms: number) => new Date(Date.now() + ms);

describe('deposits: one orderRef, one charge', { timeout: 120_000 }, () => {
  const gw = useGateway(routeList);
  const live = useEmulatedLive(gw);
  const body = (orderRef: string, over: Record<string, unknown> = {}) => ({
    mobileNumber: '03451230000',
    amount: 1000,
    walletProvider: 2,
    description: 'Top up',
    orderRef: { orderRef },
    customerRef: { name: 'Ayesha Khan', cnic: '3520212345671' },
    ...over,
  });
  const deposit = (m: TestMerchant, b: Record<string, unknown>, mode: 'test' | 'live' = 'live', key?: string) =>
    call(gw.baseUrl, 'POST', '/Gateway/v1/Payment/deposit', {
      key: m[mode].apiKey,
      secret: m[mode].secretKey,
      body: b,
      ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
    });
  const lookup = async (m: TestMerchant, reference: string) =>
    (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${reference}`, { key: m.live.apiKey })).json;
  const providers = [
    { walletProvider: 2, name: 'Easypaisa', emulator: () => live.providers.easypaisa, charge: easypaisaPaths.initiate },
    { walletProvider: 1, name: 'JazzCash', emulator: () => live.providers.jazzcash, charge: jazzCashPaths.charge },
  ] as const;

  it.each(providers)(
    '$name: five deposits at once with one orderRef (other keys or none): one charge reaches the provider, four 422s',
    async ({ walletProvider, emulator, charge }) => {
      const m = await live.merchant('Deposit Race');
      const orderRef = ref('RACE');
      const before = emulator().hits(charge);
      emulator().failNext(charge, 'slow'); // the first charge request is still running when the others arrive
      const answers = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => deposit(m, body(orderRef, { walletProvider }), 'live', i % 2 ? `race-${orderRef}-${i}` : undefined)),
      );
      expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join('\n')).toEqual([200, 422, 422, 422, 422]);
      for (const refused of answers.filter((a) => a.status === 422)) expect(refused.json.code).toBe('duplicate_order_ref');
      expect(emulator().hits(charge) - before).toBe(1);
      const paid = answers.find((a) => a.status === 200)!;
      expect((await lookup(m, orderRef)).paymentIntentId).toBe(paid.json.paymentIntentId);

      // Settled once: Completed, credited once; the refused requests created nothing.
      await sweep(m, later(60_000));
      const done = await lookup(m, orderRef);
      expect(done).toMatchObject({ status: 'Completed', paymentIntentId: paid.json.paymentIntentId });
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - Math.round(done.fee * 100));
      const listed = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: m.live.apiKey });
      expect(listed.json.items.map((t: { paymentIntentId: string }) => t.paymentIntentId)).toEqual([paid.json.paymentIntentId]);
      expect(emulator().hits(charge) - before).toBe(1);
      expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
    },
  );

  // Live mode never credits a charge it never requested: the provider answers "no such charge" about it (JazzCash's
  // recorded 109, Easypaisa's 0003), read as not received for a charge recorded unanswered, until the window ends.
  it.each(providers)(
    '$name: a crash after the orderRef was taken, before the charge request: a retry is refused, the sweep expires it',
    async ({ walletProvider, emulator, charge }) => {
      const m = await live.merchant('Deposit Crash Before');
      const orderRef = ref('CRB');
      const ep = emulator();
      const before = ep.hits(charge);
      const point = `provider:wallet_${walletProvider}.startCharge`;
      const fault = armFault(1, (p) => p === point);
      let crashed: Awaited<ReturnType<typeof deposit>>;
      try {
        crashed = await deposit(m, body(orderRef, { walletProvider }), 'live', `crash-${orderRef}`);
      } finally {
        fault.disarm();
      }
      expect(fault.fired()).toBe(point);
      // The orderRef was taken before the crash, with the charge recorded as requested and unanswered (the request then
      // answers from what it recorded: 200 Pending).
      const taken = await lookup(m, orderRef);
      expect(taken.status).toBe('Pending');
      expect(crashed.json.paymentIntentId).toBe(taken.paymentIntentId);
      const stored = (await getIntent(taken.paymentIntentId))!;
      expect(stored).toMatchObject({ details: { requesting: true, chargeUnanswered: true } });
      expect(ep.hits(charge)).toBe(before);

      // The merchant tries again with the same orderRef (another key): refused, and nothing reaches Easypaisa.
      const again = await deposit(m, body(orderRef, { mobileNumber: '03451239999', walletProvider }), 'live', `again-${orderRef}`);
      expect(again.status).toBe(422);
      expect(again.json.code).toBe('duplicate_order_ref');
      expect(ep.hits(charge)).toBe(before);

      // The reconciler asks the inquiry ("no such charge") until the approval window ends: Expired, nothing credited.
      await sweep(m, later(30_000));
      expect((await lookup(m, orderRef)).status).toBe('Pending');
      await sweep(m, later(6 * 60_000));
      expect(await lookup(m, orderRef)).toMatchObject({ status: 'Expired', paymentIntentId: taken.paymentIntentId });
      expect(ep.hits(charge)).toBe(before);
      expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(0);
    },
  );

  it('a crash after the provider took the charge, before its answer was recorded: Completed by the sweep, credited once', async () => {
    const m = await live.merchant('Deposit Crash After');
    const orderRef = ref('CRA');
    const ep = live.providers.easypaisa;
    const before = ep.hits(easypaisaPaths.initiate);
    const fault = armFault(1, (point) => point === 'provider-done:wallet_2.startCharge');
    let crashed: Awaited<ReturnType<typeof deposit>>;
    try {
      crashed = await deposit(m, body(orderRef));
    } finally {
      fault.disarm();
    }
    expect(fault.fired()).toBe('provider-done:wallet_2.startCharge');
    expect(ep.hits(easypaisaPaths.initiate)).toBe(before + 1);
    const taken = await lookup(m, orderRef);
    // Pending, or already Completed when the emulator's payment notification came in first (a race the run decides).
    expect(['Pending', 'Completed']).toContain(taken.status);
    expect(crashed.json.paymentIntentId).toBe(taken.paymentIntentId);
    const again = await deposit(m, body(orderRef));
    expect(again.json.code).toBe('duplicate_order_ref');
    expect(ep.hits(easypaisaPaths.initiate)).toBe(before + 1);

    await sweep(m, later(60_000));
    const done = await lookup(m, orderRef);
    expect(done).toMatchObject({ status: 'Completed', paymentIntentId: taken.paymentIntentId });
    await sweep(m, later(10 * 60_000)); // nothing more happens
    expect((await getWallet(m.merchantId, 'live', 'PKR', true)).available).toBe(1000_00 - Math.round(done.fee * 100));
    expect(ep.hits(easypaisaPaths.initiate)).toBe(before + 1);
    expect((await verifyLedger({ merchantId: m.merchantId })).discrepancies).toEqual([]);
  });

  it('a charge the provider refuses gives the orderRef back: 422 (replayed for its key), and the orderRef pays afterwards', async () => {
    const m = await newMerchant();
    const orderRef = ref('REF');
    const key = `refused-${orderRef}`;
    const poor = body(orderRef, { mobileNumber: '03001232222', walletProvider: 1 });
    const refused = await deposit(m, poor, 'test', key);
    expect(refused.status).toBe(422);
    expect(refused.json.code).toBe('insufficient_customer_balance');
    const replayed = await deposit(m, poor, 'test', key);
    expect(replayed.status).toBe(422);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${orderRef}`, { key: m.test.apiKey })).status).toBe(404);
    const paid = await deposit(m, body(orderRef, { mobileNumber: '03001230000', walletProvider: 1 }), 'test');
    expect(paid.status, paid.text).toBe(200);
  });
  it.each(['2222', '3333'])(
    'sandbox: a charge to …%s (refused at request time) whose refusal was never recorded is never credited by the sweep',
    async (last4) => {
      const m = await newMerchant();
      const orderRef = ref(`SBX${last4}`);
      const fault = armFault(1, (point) => point === 'provider-done:wallet_1.startCharge');
      let crashed: Awaited<ReturnType<typeof deposit>>;
      try {
        crashed = await deposit(m, body(orderRef, { mobileNumber: `0300123${last4}`, walletProvider: 1 }), 'test');
      } finally {
        fault.disarm();
      }
      expect(fault.fired()).toBe('provider-done:wallet_1.startCharge');
      // The refusal was lost with the crash: the request answers from what it recorded (requesting, unanswered).
      expect(crashed.status, crashed.text).toBe(200);
      const byRef = async () => (await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${orderRef}`, { key: m.test.apiKey })).json;
      await sweep(m, later(60_000));
      expect((await byRef()).status).toBe('Pending');
      // The sandbox, like a live provider, has no charge it refused: Expired when the window ends, nothing credited.
      await sweep(m, later(6 * 60_000));
      expect(await byRef()).toMatchObject({ status: 'Expired', paymentIntentId: crashed.json.paymentIntentId });
      expect((await getWallet(m.merchantId, 'test', 'PKR', true)).available).toBe(0);
    },
  );

  it('two retries recovering one dead request at once: the second replays the first answer, never stores another', async () => {
    const m = await newMerchant();
    const orderRef = ref('REC');
    const input = {
      merchantId: m.merchantId,
      mode: 'test' as const,
      traceId: 'trace-original',
      currency: 'PKR' as const,
      amountMinor: 1000_00,
      providerId: 1 as const,
      mobileNumber: '03001230000',
      description: 'Top up',
      orderRef: { orderRef },
      customerRef: null,
      callbackUrl: null,
      metadataJson: null,
      fee: { basisPoints: 0, fixedMinor: 0 },
      allowInsecureWebhooks: false,
    };
    const scope = { mode: 'test' as const, merchantId: m.merchantId, key: `rec-${orderRef}`, requestHash: `hash-${orderRef}` };
    // The original request: its first commit (orderRef and the key's in-flight claim), the charge asked, then it dies
    // before recording the answer, its fallback too (a Lambda that timed out): the key stays in flight.
    const dying: Decide<unknown> = async () => {
      const change = await createDeposit(input);
      if (!('next' in change)) throw new Error('a deposit is a two-step request');
      const dead = async (): Promise<never> => {
        throw new Error('the request died');
      };
      const askThenDie = async (): Promise<never> => {
        await change.next(); // the provider is asked; its answer is never recorded
        return dead();
      };
      return { ...change, next: askThenDie, fallback: dead };
    };
    await expect(commitRequest(dying, { scope, statusCode: 200, traceId: 'trace-original' })).rejects.toThrow('the request died');
    expect(await getRecord(scope)).toMatchObject({ state: 'in_flight' });

    // Two retries both found the claim lapsed (the middleware's `recovering`); the first answers from the deposit as stored.
    const recovering = (traceId: string) =>
      commit({ traceId, idempotency: { ...scope, recovering: true } }, 200, dying, {
        recover: () => recoverDeposit(m.merchantId, 'test', orderRef),
      });
    const first = (await recovering('trace-first')).body as { paymentIntentId: string; walletChargeInfo: { status: string } };
    expect(first.walletChargeInfo.status).toBe('Pending');
    // The sweep settles the charge meanwhile: the stored deposit now says Completed.
    await sweep(m, later(60_000));
    expect((await getIntent(first.paymentIntentId))?.status).toBe('Completed');
    // The second retry must not record another answer for the key: it is answered by replay of the first.
    await expect(recovering('trace-second')).rejects.toBeInstanceOf(IdempotencyKeyTaken);
    const stored = await getRecord(scope);
    expect(stored).toMatchObject({ state: 'completed', response: { body: JSON.stringify(first), traceId: 'trace-first' } });
  });
});
