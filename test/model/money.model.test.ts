import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet, setFee } from '#shared/services/merchants.ts';
import { advanceRefund, approveRefund, rejectRefund } from '#shared/services/refunds.ts';
import { approveWithdrawal, rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { processDue } from '#shared/services/due.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';

/**
 * Model-based test of the money paths (fast-check `fc.commands`): random sequences of card
 * checkouts (paid or declined), wallet credits, withdrawals (with Idempotency-Key retries, same and
 * different bodies), operator approval (bank accepts, rejects, times out then completes) and
 * rejection of withdrawals, refunds (create, approve + process,
 * reject), run against the gateway over HTTP on DynamoDB Local and the operator services the ops
 * CLI calls. A small model predicts the available and held balances, each payment's refundable and
 * refunded amounts and each request's answer; after every command the real system must agree with
 * the model AND the ledger verifier (docs/ledger-verification.md) must find no discrepancy.
 *
 * `npm test` runs MODEL_RUNS sequences (default 12, up to 24 commands each); `npm run test:deep` runs many more. The seed
 * is printed; rerun one with MODEL_SEED=<seed>.
 */
const runs = Number(process.env.MODEL_RUNS ?? 12);
const maxCommands = Number(process.env.MODEL_MAX_COMMANDS ?? 24);
const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2_147_483_647);
const major = (n: number) => n * 100;

interface Payment {
  id: string;
  amount: number;
  reserved: number;
  refunded: number;
}
interface Model {
  available: number;
  heldWithdrawal: number;
  heldRefund: number;
  payments: Payment[];
  withdrawals: { id: string; amount: number; account: Account }[];
  refunds: { id: string; paymentId: string; amount: number }[];
  /** The last withdrawal sent with an Idempotency-Key, for retries. */
  keyed?: { key: string; body: Record<string, unknown>; paymentIntentId: string | null; status: number };
}

interface Real {
  baseUrl: string;
  m: TestMerchant;
}

type Cmd = fc.AsyncCommand<Model, Real>;

const api = (r: Real, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(r.baseUrl, method, `/Gateway/v1${path}`, { key: r.m.test.apiKey, ...(body !== undefined ? { body, secret: r.m.test.secretKey } : {}), headers });

/** The real system agrees with the model, and the books add up. */
let executed = 0;
async function check(model: Model, r: Real, touched?: Payment) {
  executed++;
  const balance = await api(r, 'POST', '/Account/query-balance');
  expect(balance.json.availableBalance, 'available').toBe(model.available / 100);
  const wallet = await getWallet(r.m.merchantId, 'test', 'PKR', true);
  expect(wallet.heldByType, 'held').toMatchObject({ Withdrawal: model.heldWithdrawal, Refund: model.heldRefund, Settlement: 0 });
  if (touched) {
    const t = await api(r, 'GET', `/Transaction/${touched.id}`);
    expect(t.json.refundedAmount, 'refunded').toBe(touched.refunded / 100);
  }
  const verified = await verifyLedger({ merchantId: r.m.merchantId, mode: 'test' });
  expect(verified.discrepancies, 'ledger verify').toEqual([]);
}

class Credit implements Cmd {
  constructor(readonly amount: number) {}
  check = () => true;
  async run(model: Model, r: Real) {
    await creditTestWallet(r.m.merchantId, 'test', this.amount, 'PKR');
    model.available += this.amount;
    await check(model, r);
  }
  toString = () => `Credit(${this.amount})`;
}

class PayByCard implements Cmd {
  constructor(readonly amount: number, readonly declined: boolean) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const created = await createCheckout(r.baseUrl, r.m, checkoutBody({ amount: this.amount / 100 }));
    expect(created.status, created.text).toBe(200);
    const path = pagePath(created.json.checkoutUrl);
    const page = await getPage(r.baseUrl, path);
    const number = this.declined ? '4000000000000002' : '4242424242424242';
    expect((await postForm(r.baseUrl, `${path}/card`, { csrf: page.csrf!, name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' })).status).toBe(303);
    if (!this.declined) {
      const fee = Math.round(this.amount * 0.025); // default checkout fee 2.5 %; amounts are multiples of 40.00
      model.available += this.amount - fee;
      model.payments.push({ id: created.json.paymentIntentId, amount: this.amount, reserved: 0, refunded: 0 });
    }
    const t = await api(r, 'GET', `/Transaction/${created.json.paymentIntentId}`);
    expect(t.json.status).toBe(this.declined ? 'Failed' : 'Completed');
    await check(model, r);
  }
  toString = () => `PayByCard(${this.amount}, ${this.declined ? 'declined' : 'approved'})`;
}

/** The sandbox bank rail's outcome follows the account's last four: accepted, rejected, times out (then completes). */
type Account = '0000' | '1111' | '2222';
const payoutBody = (amount: number, account: Account = '0000') => ({
  amount: amount / 100,
  currency: 'PKR',
  description: 'Payout',
  autoProcessPayout: false,
  customerRef: { bankAccountNumber: `PK36SCBL000000112345${account}`, bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
  orderRef: { orderRef: `MW${randomUUID().replaceAll('-', '').slice(0, 16)}` },
});

class Withdraw implements Cmd {
  constructor(readonly amount: number, readonly keyed: boolean, readonly account: Account) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const body = payoutBody(this.amount, this.account);
    const key = randomUUID();
    const res = await api(r, 'POST', '/Payment/withdraw', body, this.keyed ? { 'Idempotency-Key': key } : {});
    if (this.amount > model.available) {
      expect(res.status, res.text).toBe(422);
    } else {
      expect(res.status, res.text).toBe(200);
      model.available -= this.amount;
      model.heldWithdrawal += this.amount;
      model.withdrawals.push({ id: res.json.paymentIntentId, amount: this.amount, account: this.account });
    }
    if (this.keyed) model.keyed = { key, body, paymentIntentId: res.json?.paymentIntentId ?? null, status: res.status };
    await check(model, r);
  }
  toString = () => `Withdraw(${this.amount}, ${this.account}${this.keyed ? ', keyed' : ''})`;
}

class RetryWithdraw implements Cmd {
  constructor(readonly sameBody: boolean) {}
  check = (model: Readonly<Model>) => Boolean(model.keyed);
  async run(model: Model, r: Real) {
    const keyed = model.keyed!;
    const body = this.sameBody ? keyed.body : { ...keyed.body, amount: (keyed.body.amount as number) + 1 };
    const res = await api(r, 'POST', '/Payment/withdraw', body, { 'Idempotency-Key': keyed.key });
    if (this.sameBody) {
      expect(res.status).toBe(keyed.status);
      if (keyed.paymentIntentId) expect(res.json.paymentIntentId).toBe(keyed.paymentIntentId);
    } else {
      expect(res.status, res.text).toBe(422);
    }
    await check(model, r);
  }
  toString = () => `RetryWithdraw(${this.sameBody ? 'same body' : 'different body'})`;
}

class RejectWithdrawal implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.withdrawals.length > 0;
  async run(model: Model, r: Real) {
    const [w] = model.withdrawals.splice(this.pick % model.withdrawals.length, 1);
    const result = await rejectWithdrawal(w!.id, 'model test');
    expect(result.status).toBe('Cancelled');
    model.available += w!.amount;
    model.heldWithdrawal -= w!.amount;
    await check(model, r);
  }
  toString = () => `RejectWithdrawal(#${this.pick})`;
}

class ApproveWithdrawal implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.withdrawals.length > 0;
  async run(model: Model, r: Real) {
    const [w] = model.withdrawals.splice(this.pick % model.withdrawals.length, 1);
    await approveWithdrawal(w!.id);
    // The due sweeper's passes, with time moved on (bank completion, then reconciliation of a timeout).
    for (const seconds of [15, 45, 120]) {
      if ((await api(r, 'GET', `/Transaction/${w!.id}`)).json.status !== 'Processing') break;
      await processDue(new Date(Date.now() + seconds * 1000), (i) => i.paymentIntentId === w!.id);
    }
    const status = (await api(r, 'GET', `/Transaction/${w!.id}`)).json.status;
    expect(status).toBe(w!.account === '1111' ? 'Failed' : 'Completed');
    if (w!.account === '1111') model.available += w!.amount;
    model.heldWithdrawal -= w!.amount;
    await check(model, r);
  }
  toString = () => `ApproveWithdrawal(#${this.pick})`;
}

class Refund implements Cmd {
  constructor(readonly pick: number, readonly amount: number) {}
  check = (model: Readonly<Model>) => model.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.pick % model.payments.length]!;
    const res = await api(r, 'POST', '/Refunds', { trxnRef: p.id, amount: this.amount / 100 });
    if (this.amount <= p.amount - p.reserved) {
      expect(res.status, res.text).toBe(201);
      p.reserved += this.amount;
      model.refunds.push({ id: res.json.id, paymentId: p.id, amount: this.amount });
    } else {
      expect(res.status, res.text).toBe(422);
    }
    await check(model, r, p);
  }
  toString = () => `Refund(#${this.pick}, ${this.amount})`;
}

class ApproveRefund implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.refunds.length > 0;
  async run(model: Model, r: Real) {
    const i = this.pick % model.refunds.length;
    const refund = model.refunds[i]!;
    const p = model.payments.find((x) => x.id === refund.paymentId)!;
    if (refund.amount > model.available) {
      await expect(approveRefund(refund.id)).rejects.toThrow();
    } else {
      await approveRefund(refund.id);
      model.refunds.splice(i, 1);
      // What the due sweeper does every 2 s, with time moved on instead of waited for.
      let at = Date.now();
      let done: Awaited<ReturnType<typeof advanceRefund>>;
      for (let step = 0; step < 8 && !(done && done.status >= 3); step++) done = await advanceRefund(refund.id, new Date((at += 3_000)));
      expect(done?.status, 'refund completed').toBe(3);
      model.available -= refund.amount;
      p.refunded += refund.amount;
    }
    await check(model, r, p);
  }
  toString = () => `ApproveRefund(#${this.pick})`;
}

class RejectRefund implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.refunds.length > 0;
  async run(model: Model, r: Real) {
    const [refund] = model.refunds.splice(this.pick % model.refunds.length, 1);
    const p = model.payments.find((x) => x.id === refund!.paymentId)!;
    await rejectRefund(refund!.id, 'model test');
    p.reserved -= refund!.amount;
    await check(model, r, p);
  }
  toString = () => `RejectRefund(#${this.pick})`;
}

const commands = [
  fc.integer({ min: 1, max: 5_000 }).map((n) => new Credit(major(n))),
  fc.tuple(fc.integer({ min: 1, max: 100 }), fc.boolean()).map(([n, declined]) => new PayByCard(major(40 * n), declined)),
  fc.tuple(fc.integer({ min: 300, max: 3_000 }), fc.boolean(), fc.constantFrom<Account>('0000', '0000', '1111', '2222')).map(([n, keyed, account]) => new Withdraw(major(n), keyed, account)),
  fc.nat().map((i) => new ApproveWithdrawal(i)),
  fc.boolean().map((same) => new RetryWithdraw(same)),
  fc.nat().map((i) => new RejectWithdrawal(i)),
  fc.tuple(fc.nat(), fc.integer({ min: 10, max: 2_000 })).map(([i, n]) => new Refund(i, major(n))),
  fc.nat().map((i) => new ApproveRefund(i)),
  fc.nat().map((i) => new RejectRefund(i)),
];

describe('money paths against a model', () => {
  const gw = useGateway(routeList);

  it(`agree with the model after every command (${runs} sequences of up to ${maxCommands}, seed ${seed})`, async () => {
    console.log(`model-based money test: ${runs} sequences, up to ${maxCommands} commands each, seed ${seed} (rerun with MODEL_SEED=${seed})`);
    let sequences = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands, size: 'max' }), async (cmds) => {
        sequences++;
        const m = await newMerchant();
        for (const product of ['withdrawal', 'refund'] as const) await setFee(m.merchantId, product, { basisPoints: 0, fixedMinor: 0 });
        const model: Model = { available: 0, heldWithdrawal: 0, heldRefund: 0, payments: [], withdrawals: [], refunds: [] };
        await fc.asyncModelRun(() => ({ model, real: { baseUrl: gw.baseUrl, m } }), cmds);
        if (process.env.MODEL_VERBOSE) console.log(`${[...cmds].length} generated; ran: ${String(cmds)}`);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
    console.log(`model-based money test: ${executed} commands executed and checked over ${sequences} sequences`);
    expect(sequences).toBe(runs);
  }, 600_000);

  let acceptedTotal = 0;
  it(`never overdraws under interleaved withdrawals and credits (fc.scheduler, ${Math.max(3, Math.round(runs / 3))} runs, seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom<'withdraw' | 'credit'>('withdraw', 'withdraw', 'credit'), { minLength: 2, maxLength: 10 }),
        async (s, funded, ops) => {
          const m = await newMerchant();
          await setFee(m.merchantId, 'withdrawal', { basisPoints: 0, fixedMinor: 0 });
          const unit = major(300); // the minimum withdrawal
          await creditTestWallet(m.merchantId, 'test', funded * unit, 'PKR');
          const real: Real = { baseUrl: gw.baseUrl, m };
          // The scheduler decides the order in which the requests start; they then overlap for real.
          const start = s.scheduleFunction(async (op: 'withdraw' | 'credit') => op);
          const results = ops.map((op) =>
            start(op).then(async () => {
              if (op === 'credit') {
                await creditTestWallet(m.merchantId, 'test', unit, 'PKR');
                return 'credited';
              }
              const res = await api(real, 'POST', '/Payment/withdraw', payoutBody(unit));
              expect([200, 409, 422], res.text).toContain(res.status);
              return res.status;
            }),
          );
          await s.waitAll();
          const outcomes = await Promise.all(results);
          const credits = outcomes.filter((o) => o === 'credited').length;
          const accepted = outcomes.filter((o) => o === 200).length;
          const conflicts = outcomes.filter((o) => o === 409).length;
          acceptedTotal += accepted;
          // Never more than the money there was; all of it when nothing conflicted and nothing was refused.
          expect(accepted).toBeLessThanOrEqual(funded + credits);
          if (conflicts === 0 && outcomes.every((o) => o !== 422)) expect(accepted).toBe(outcomes.length - credits);
          const model: Model = { available: (funded + credits - accepted) * unit, heldWithdrawal: accepted * unit, heldRefund: 0, payments: [], withdrawals: [], refunds: [] };
          await check(model, real);
        },
      ),
      { numRuns: Math.max(3, Math.round(runs / 3)), seed, endOnFailure: true },
    );
    expect(acceptedTotal, 'some withdrawals were accepted').toBeGreaterThan(0);
  }, 600_000);
});
