import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { routeList } from '#functions/routes.ts';
import { toChecksumAddress } from '#shared/domain/usdt-address.ts';
import { processDue } from '#shared/services/due.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { creditTestWallet, setFee } from '#shared/services/merchants.ts';
import { advanceRefund, approveRefund, cancelRefund, rejectRefund } from '#shared/services/refunds.ts';
import { advanceSettlement, approveSettlement, cancelSettlement, rejectSettlement } from '#shared/services/settlements.ts';
import { approveWithdrawal, rejectWithdrawal } from '#shared/services/withdrawal-operator.ts';
import { raiseShards } from '#shared/store/shards.ts';
import * as keys from '#shared/store/keys.ts';
import { ensureTable } from '../../scripts/local/dynamo.ts';
import { checkoutBody, createCheckout, getPage, pagePath, postForm } from '../support/checkout.ts';
import { call, newMerchant, useGateway, type TestMerchant } from '../support/gateway.ts';
import { changeMerchant } from '#shared/store/merchants.ts';
import { completedPayment } from '../support/money.ts';
import { sweepMerchant } from '../support/sweeps.ts';

/**
 * Model-based test of the money paths (fast-check `fc.commands`), against the gateway over HTTP on
 * DynamoDB Local and the operator services the ops CLI calls:
 *   checkouts   card (approved, declined), wallet (0000 approves, 1111 declines, 4444 never
 *               answers: expires), left open (expires after 30 min), cancelled by the customer
 *   deposits    0000 approved, 1111 declined, 4444 never approved: Expired after 5 min
 *   withdrawals operator approval (bank accepts, rejects, times out then completes), rejection
 *   settlements bank and USDT (accepted or rejected destination), approve, reject, cancel
 *   refunds     partial and full, approve + process, reject, cancel
 *   credits     of the test wallet
 *   retries     Idempotency-Key retries of the last keyed request (any endpoint), same and different body
 *   time        Advance(ms): a TEST CLOCK for the sweeps (processDue, processDueSettlementsAndRefunds
 *               take `now`): the clock moves on by ms and the sweeps run at that time; nothing waits.
 * A small model predicts the available balance, the held balance by type (Withdrawal, Settlement,
 * Refund), every object's status and each payment's refunded and refundable amounts. After every command the real
 * system must agree with the model AND the ledger verifier (docs/ledger-verification.md) must find
 * no discrepancy. Each sequence ends by draining (operator rejects what waits, the clock moves a day
 * on): every hold must be gone.
 *
 * The money rules themselves are proven in memory, in the unit loop (test/unit/money-core.model.test.ts: the pure
 * core against its reference model, 10,000 sequences with races); this file proves the MAPPING onto DynamoDB
 * (conditions, shards, idempotency, the HTTP answers), so `npm test` runs only MODEL_RUNS sequences (default 3, up
 * to MODEL_MAX_COMMANDS = 24 commands each); `npm run test:deep` runs many more. The seed is printed; rerun one with
 * MODEL_SEED=<seed>.
 */
const runs = Number(process.env.MODEL_RUNS ?? 3);
const maxCommands = Number(process.env.MODEL_MAX_COMMANDS ?? 24);
const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2_147_483_647);
const major = (n: number) => n * 100;

// Its own table: the test clock runs far ahead, and only this file's items may become due.
const tableName = `model-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  process.env.TABLE_NAME = tableName;
  await ensureTable(inject('dynamoEndpoint'), tableName);
});

type IntentStatus = 'Pending' | 'Completed' | 'Failed' | 'Cancelled' | 'Expired';
interface Payment {
  id: string;
  amount: number;
  reserved: number;
  refunded: number;
}
/** A payment intent waiting for time (sweeps): an open or wallet checkout, a deposit. */
interface Waiting {
  id: string;
  kind: 'open-checkout' | 'wallet-checkout' | 'deposit';
  amount: number;
  /** Sandbox number's last four: 0000 approves, 1111 declines, 4444 never answers. */
  number: '0000' | '1111' | '4444' | null;
  /** Real time just before and just after the request that started it (the server's clock is in between). */
  startedFrom: number;
  startedTo: number;
}
interface Model {
  /** The test clock's lead over the real clock (ms); only ever grows. */
  offset: number;
  available: number;
  held: { Withdrawal: number; Settlement: number; Refund: number };
  payments: Payment[];
  waiting: Waiting[];
  withdrawals: { id: string; amount: number; account: Account }[];
  settlements: { id: string; amount: number; rejected: boolean }[];
  refunds: { id: string; paymentId: string; amount: number }[];
  /** Expected final status of every intent, settlement (number) and refund (number) seen. */
  statuses: Map<string, { kind: 'intent' | 'settlement' | 'refund'; status: string | number }>;
  /** The last request sent with an Idempotency-Key, for retries. */
  keyed?: { path: string; key: string; body: Record<string, unknown>; id: string | null; status: number; money: string };
}

interface Real {
  baseUrl: string;
  m: TestMerchant;
}

type Cmd = fc.AsyncCommand<Model, Real>;

const api = (r: Real, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(r.baseUrl, method, `/Gateway/v1${path}`, {
    key: r.m.test.apiKey,
    ...(body !== undefined ? { body, secret: r.m.test.secretKey } : {}),
    headers,
  });

const clock = (model: Model) => new Date(Date.now() + model.offset);

/** The real system agrees with the model, and the books add up. */
let executed = 0;
async function check(model: Model, r: Real, touched: Payment[] = [], ids: string[] = []) {
  executed++;
  const balance = await api(r, 'POST', '/Account/query-balance');
  expect(balance.json.availableBalance, 'available').toBe(model.available / 100);
  expect(balance.json.pendingByTransactionType, 'pending by type').toMatchObject({
    Withdrawal: model.held.Withdrawal / 100,
    Settlement: model.held.Settlement / 100,
    Refund: model.held.Refund / 100,
  });
  // pendingByTransactionType above is the wallet's heldByType (getWallet, shared/services/balance.ts): no second read.
  for (const p of touched) {
    const t = await api(r, 'GET', `/Transaction/${p.id}`);
    expect(t.json.refundedAmount, 'refunded').toBe(p.refunded / 100);
    const refunds = await api(r, 'GET', `/Refunds?trxnRef=${p.id}`);
    expect(refunds.json.refundableAmount, 'refundable').toBe((p.amount - p.reserved) / 100);
  }
  await expectStatuses(model, r, ids);
  const verified = await verifyLedger({ merchantId: r.m.merchantId, mode: 'test' });
  expect(verified.discrepancies, 'ledger verify').toEqual([]);
}

async function statusOf(r: Real, kind: 'intent' | 'settlement' | 'refund', id: string): Promise<string | number> {
  const path = kind === 'intent' ? `/Transaction/${id}` : kind === 'settlement' ? `/Settlements/${id}` : `/Refunds/${id}`;
  const res = await api(r, 'GET', path);
  expect(res.status, res.text).toBe(200);
  return res.json.status;
}

/**
 * Each id's status through the API. Two or more intents are read with one listing (GET /Transactions, the same
 * transaction view as GET /Transaction/{id}) instead of one request each; settlements and refunds one by one.
 */
async function expectStatuses(model: Model, r: Real, ids: string[]) {
  const intents = ids.filter((id) => model.statuses.get(id)!.kind === 'intent');
  const listed = new Map<string, string>();
  if (intents.length > 1) {
    const page = await api(r, 'GET', '/Transactions?limit=100');
    expect(page.status, page.text).toBe(200);
    expect(page.json.hasMore, 'one page holds every transaction of a sequence').toBe(false);
    for (const t of page.json.items) listed.set(t.paymentIntentId, t.status);
  }
  for (const id of ids) {
    const expected = model.statuses.get(id)!;
    const actual = intents.length > 1 && expected.kind === 'intent' ? listed.get(id) : await statusOf(r, expected.kind, id);
    expect(actual, `status of ${expected.kind} ${id}`).toBe(expected.status);
  }
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

/** Default checkout fee 2.5 %; checkout amounts are multiples of 40.00, so it is exact. */
const checkoutFee = (amount: number) => Math.round(amount * 0.025);

async function openCheckout(r: Real, amount: number, headers?: Record<string, string>) {
  const body = checkoutBody({ amount: amount / 100 });
  const created = await createCheckout(r.baseUrl, r.m, body, headers ? { headers } : {});
  expect(created.status, created.text).toBe(200);
  const path = pagePath(created.json.checkoutUrl);
  const page = await getPage(r.baseUrl, path);
  return { id: created.json.paymentIntentId as string, path, csrf: page.csrf!, body };
}

class PayByCard implements Cmd {
  constructor(
    readonly amount: number,
    readonly declined: boolean,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const { id, path, csrf } = await openCheckout(r, this.amount);
    const number = this.declined ? '4000000000000002' : '4242424242424242';
    expect((await postForm(r.baseUrl, `${path}/card`, { csrf, name: 'Ayesha Khan', number, expiry: '12/39', cvc: '123' })).status).toBe(
      303,
    );
    // A declined card is a failed attempt (the session stays payable); the customer gives up: Failed.
    if (this.declined) expect((await postForm(r.baseUrl, `${path}/cancel`, { csrf })).status).toBe(303);
    if (!this.declined) {
      model.available += this.amount - checkoutFee(this.amount);
      model.payments.push({ id, amount: this.amount, reserved: 0, refunded: 0 });
    }
    model.statuses.set(id, { kind: 'intent', status: this.declined ? 'Failed' : 'Completed' });
    await check(model, r, [], [id]);
  }
  toString = () => `PayByCard(${this.amount}, ${this.declined ? 'declined' : 'approved'})`;
}

/** A checkout left open (it expires after 30 minutes), or cancelled by the customer on the page. */
class OpenCheckout implements Cmd {
  constructor(
    readonly amount: number,
    readonly keyed: boolean,
    readonly cancel: boolean,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const key = randomUUID();
    const startedFrom = Date.now();
    const { id, path, csrf, body } = await openCheckout(r, this.amount, this.keyed ? { 'Idempotency-Key': key } : undefined);
    if (this.keyed) model.keyed = { path: '/Payment/initiate-checkout', key, body, id, status: 200, money: 'checkout' };
    if (this.cancel) {
      expect((await postForm(r.baseUrl, `${path}/cancel`, { csrf })).status).toBe(303);
      model.statuses.set(id, { kind: 'intent', status: 'Cancelled' });
    } else {
      model.waiting.push({ id, kind: 'open-checkout', amount: this.amount, number: null, startedFrom, startedTo: Date.now() });
      model.statuses.set(id, { kind: 'intent', status: 'Pending' });
    }
    await check(model, r, [], [id]);
  }
  toString = () => `OpenCheckout(${this.amount}${this.cancel ? ', cancelled' : ''}${this.keyed ? ', keyed' : ''})`;
}

/** Wallet payment on the hosted page: number, OTP; the handset's answer comes with the sweeps. */
class PayByWallet implements Cmd {
  constructor(
    readonly amount: number,
    readonly number: '0000' | '1111' | '4444',
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const startedFrom = Date.now();
    const { id, path, csrf } = await openCheckout(r, this.amount);
    expect((await postForm(r.baseUrl, `${path}/wallet`, { csrf, provider: '1', mobileNumber: `0300123${this.number}` })).status).toBe(303);
    expect((await postForm(r.baseUrl, `${path}/otp`, { csrf, otp: '123456' })).status).toBe(303);
    model.waiting.push({ id, kind: 'wallet-checkout', amount: this.amount, number: this.number, startedFrom, startedTo: Date.now() });
    model.statuses.set(id, { kind: 'intent', status: 'Pending' });
    await check(model, r, [], [id]);
  }
  toString = () => `PayByWallet(${this.amount}, …${this.number})`;
}

const depositBody = (amount: number, number: string) => ({
  mobileNumber: `0300123${number}`,
  amount: amount / 100,
  walletProvider: 1,
  description: 'Top up',
  orderRef: { orderRef: `MD${randomUUID().replaceAll('-', '').slice(0, 16)}` },
  customerRef: { name: 'Ayesha Khan' },
});

class Deposit implements Cmd {
  constructor(
    readonly amount: number,
    readonly number: '0000' | '1111' | '4444',
    readonly keyed: boolean,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const body = depositBody(this.amount, this.number);
    const key = randomUUID();
    const startedFrom = Date.now();
    const res = await api(r, 'POST', '/Payment/deposit', body, this.keyed ? { 'Idempotency-Key': key } : {});
    expect(res.status, res.text).toBe(200);
    const id = res.json.paymentIntentId as string;
    model.waiting.push({ id, kind: 'deposit', amount: this.amount, number: this.number, startedFrom, startedTo: Date.now() });
    model.statuses.set(id, { kind: 'intent', status: 'Pending' });
    if (this.keyed) model.keyed = { path: '/Payment/deposit', key, body, id, status: 200, money: 'deposit' };
    await check(model, r, [], [id]);
  }
  toString = () => `Deposit(${this.amount}, …${this.number}${this.keyed ? ', keyed' : ''})`;
}

/**
 * The test clock moves on by `ms`; the due sweeps run at the new time for this merchant's items.
 * The model decides each waiting intent by its age at that time. When the server's creation time
 * (between startedFrom and startedTo) leaves it open whether a deadline has passed, either outcome
 * is accepted and the model takes the one observed.
 */
const depositWindowMs = 5 * 60_000;
const checkoutLifetimeMs = 30 * 60_000;
class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, r: Real) {
    model.offset += this.ms;
    await sweep(model, r);
    await check(
      model,
      r,
      [],
      [...model.statuses.keys()].filter((id) => model.statuses.get(id)!.kind === 'intent'),
    );
  }
  toString = () => `Advance(${this.ms / 1000} s)`;
}

async function sweep(model: Model, r: Real) {
  const at = clock(model);
  await sweepMerchant(at, r.m.merchantId, 'test', [...model.settlements.map((s) => s.id), ...model.refunds.map((x) => x.id)]);
  const still: Waiting[] = [];
  for (const w of model.waiting) {
    // The sandbox answers 3 s after the prompt; every Advance is at least 5 s, so an answer is in.
    const deadline = w.kind === 'deposit' ? depositWindowMs : checkoutLifetimeMs;
    const surelyPast = at.getTime() - w.startedTo >= deadline + 1_000;
    const surelyBefore = at.getTime() - w.startedFrom < deadline - 1_000;
    let outcome: IntentStatus;
    // A checkout declined on the handset is a failed attempt: payable again until it expires, then Failed.
    const declinedAttempt = w.number === '1111' && w.kind === 'wallet-checkout';
    const ended: IntentStatus = declinedAttempt ? 'Failed' : 'Expired';
    if (w.number === '0000') outcome = 'Completed';
    else if (w.number === '1111' && !declinedAttempt) outcome = 'Failed';
    else if (surelyPast) outcome = ended;
    else if (surelyBefore) outcome = 'Pending';
    else {
      const seen = (await statusOf(r, 'intent', w.id)) as IntentStatus;
      expect(['Pending', ended], `${w.kind} ${w.id} at its deadline`).toContain(seen);
      outcome = seen;
    }
    model.statuses.set(w.id, { kind: 'intent', status: outcome });
    if (outcome === 'Pending') {
      still.push(w);
      continue;
    }
    if (outcome === 'Completed') {
      const fee = w.kind === 'deposit' ? 0 : checkoutFee(w.amount);
      model.available += w.amount - fee;
      model.payments.push({ id: w.id, amount: w.amount, reserved: 0, refunded: 0 });
    }
  }
  model.waiting = still;
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
  constructor(
    readonly amount: number,
    readonly keyed: boolean,
    readonly account: Account,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const body = payoutBody(this.amount, this.account);
    const key = randomUUID();
    const res = await api(r, 'POST', '/Payment/withdraw', body, this.keyed ? { 'Idempotency-Key': key } : {});
    const ids: string[] = [];
    if (this.amount > model.available) {
      expect(res.status, res.text).toBe(422);
    } else {
      expect(res.status, res.text).toBe(200);
      model.available -= this.amount;
      model.held.Withdrawal += this.amount;
      model.withdrawals.push({ id: res.json.paymentIntentId, amount: this.amount, account: this.account });
      model.statuses.set(res.json.paymentIntentId, { kind: 'intent', status: 'Pending' });
      ids.push(res.json.paymentIntentId);
    }
    if (this.keyed)
      model.keyed = {
        path: '/Payment/withdraw',
        key,
        body,
        id: res.json?.paymentIntentId ?? null,
        status: res.status,
        money: 'withdrawal',
      };
    await check(model, r, [], ids);
  }
  toString = () => `Withdraw(${this.amount}, ${this.account}${this.keyed ? ', keyed' : ''})`;
}

/** The last keyed request again, with the same key: the same answer (nothing new), or 422 for a different body. */
class RetryKeyed implements Cmd {
  constructor(readonly sameBody: boolean) {}
  check = (model: Readonly<Model>) => Boolean(model.keyed);
  async run(model: Model, r: Real) {
    const keyed = model.keyed!;
    const body = this.sameBody ? keyed.body : { ...keyed.body, amount: (keyed.body.amount as number) + 1 };
    const res = await api(r, 'POST', keyed.path, body, { 'Idempotency-Key': keyed.key });
    if (this.sameBody) {
      expect(res.status, res.text).toBe(keyed.status);
      // Settlements and refunds answer with their own `id` (a refund also names its payment's paymentIntentId).
      const replayed = keyed.money === 'settlement' || keyed.money === 'refund' ? res.json.id : res.json.paymentIntentId;
      if (keyed.id) expect(replayed).toBe(keyed.id);
    } else {
      expect(res.status, res.text).toBe(422);
    }
    await check(model, r);
  }
  toString = () => `RetryKeyed(${this.sameBody ? 'same body' : 'different body'})`;
}

class RejectWithdrawal implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.withdrawals.length > 0;
  async run(model: Model, r: Real) {
    const [w] = model.withdrawals.splice(this.pick % model.withdrawals.length, 1);
    const result = await rejectWithdrawal(w!.id, 'model test');
    expect(result.status).toBe('Cancelled');
    model.available += w!.amount;
    model.held.Withdrawal -= w!.amount;
    model.statuses.set(w!.id, { kind: 'intent', status: 'Cancelled' });
    await check(model, r, [], [w!.id]);
  }
  toString = () => `RejectWithdrawal(#${this.pick})`;
}

class ApproveWithdrawal implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.withdrawals.length > 0;
  async run(model: Model, r: Real) {
    const [w] = model.withdrawals.splice(this.pick % model.withdrawals.length, 1);
    await approveWithdrawal(w!.id);
    // The due sweeper's passes on the test clock (bank completion, then reconciliation of a timeout).
    for (const seconds of [15, 45, 120]) {
      if ((await api(r, 'GET', `/Transaction/${w!.id}`)).json.status !== 'Processing') break;
      model.offset += seconds * 1000;
      // Only the due index partition this payout sits in (keys.due), not all 32.
      await processDue(clock(model), (i) => i.paymentIntentId === w!.id, [keys.due(w!.id, '').GSI2PK]);
    }
    const status = w!.account === '1111' ? 'Failed' : 'Completed';
    if (w!.account === '1111') model.available += w!.amount;
    model.held.Withdrawal -= w!.amount;
    model.statuses.set(w!.id, { kind: 'intent', status });
    await check(model, r, [], [w!.id]);
  }
  toString = () => `ApproveWithdrawal(#${this.pick})`;
}

const bank = (rejected: boolean) => ({
  bankName: 'HBL',
  iban: rejected ? 'PK61SCBL0000001123451111' : 'PK36SCBL0000001123456702',
  accountTitle: 'Acme Ltd',
});
const usdt = (rejected: boolean) =>
  rejected
    ? { usdtAddress: toChecksumAddress('0x00000000000000000000000000000000abcd1111'), payoutCurrency: 'USDT' }
    : { usdtAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' };

class Settle implements Cmd {
  constructor(
    readonly amount: number,
    readonly to: 'bank' | 'usdt',
    readonly rejected: boolean,
    readonly keyed: boolean,
  ) {}
  check = () => true;
  async run(model: Model, r: Real) {
    const body = { amount: this.amount / 100, ...(this.to === 'bank' ? { currency: 'PKR', ...bank(this.rejected) } : usdt(this.rejected)) };
    const key = randomUUID();
    const res = await api(r, 'POST', '/Settlements', body, this.keyed ? { 'Idempotency-Key': key } : {});
    const ids: string[] = [];
    if (this.amount > model.available) {
      expect(res.status, res.text).toBe(422);
    } else {
      expect(res.status, res.text).toBe(200);
      model.available -= this.amount;
      model.held.Settlement += this.amount;
      model.settlements.push({ id: res.json.id, amount: this.amount, rejected: this.rejected });
      model.statuses.set(res.json.id, { kind: 'settlement', status: 0 });
      ids.push(res.json.id);
    }
    if (this.keyed) model.keyed = { path: '/Settlements', key, body, id: res.json?.id ?? null, status: res.status, money: 'settlement' };
    await check(model, r, [], ids);
  }
  toString = () => `Settle(${this.amount}, ${this.to}${this.rejected ? ', rejected destination' : ''}${this.keyed ? ', keyed' : ''})`;
}

class ApproveSettlement implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.settlements.length > 0;
  async run(model: Model, r: Real) {
    const [s] = model.settlements.splice(this.pick % model.settlements.length, 1);
    await approveSettlement(s!.id, () => clock(model));
    // What the money sweep does every 2 s, on the test clock.
    let status: number | undefined;
    for (let step = 0; step < 8 && !(status !== undefined && status >= 3); step++) {
      model.offset += 3_000;
      status = (await advanceSettlement(s!.id, clock(model)))?.status;
    }
    model.held.Settlement -= s!.amount;
    if (s!.rejected) model.available += s!.amount;
    model.statuses.set(s!.id, { kind: 'settlement', status: s!.rejected ? 4 : 3 });
    await check(model, r, [], [s!.id]);
  }
  toString = () => `ApproveSettlement(#${this.pick})`;
}

class CloseSettlement implements Cmd {
  constructor(
    readonly pick: number,
    readonly how: 'reject' | 'cancel',
  ) {}
  check = (model: Readonly<Model>) => model.settlements.length > 0;
  async run(model: Model, r: Real) {
    const [s] = model.settlements.splice(this.pick % model.settlements.length, 1);
    const view = this.how === 'reject' ? await rejectSettlement(s!.id, 'model test') : await cancelSettlement(s!.id);
    expect(view.status).toBe(5);
    model.held.Settlement -= s!.amount;
    model.available += s!.amount;
    model.statuses.set(s!.id, { kind: 'settlement', status: 5 });
    await check(model, r, [], [s!.id]);
  }
  toString = () => `${this.how === 'reject' ? 'Reject' : 'Cancel'}Settlement(#${this.pick})`;
}

/** A refund: partial (amount) or full (no amount: what remains refundable). */
class Refund implements Cmd {
  constructor(
    readonly pick: number,
    readonly amount: number | null,
    readonly keyed: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.payments.length > 0;
  async run(model: Model, r: Real) {
    const p = model.payments[this.pick % model.payments.length]!;
    const remaining = p.amount - p.reserved;
    const body = { trxnRef: p.id, ...(this.amount === null ? {} : { amount: this.amount / 100 }) };
    const key = randomUUID();
    const res = await api(r, 'POST', '/Refunds', body, this.keyed ? { 'Idempotency-Key': key } : {});
    const amount = this.amount ?? remaining;
    const ids: string[] = [];
    if (this.amount === null ? remaining > 0 : amount >= major(10) && amount <= remaining) {
      expect(res.status, res.text).toBe(201);
      expect(res.json.amount).toBe(amount / 100);
      p.reserved += amount;
      model.refunds.push({ id: res.json.id, paymentId: p.id, amount });
      model.statuses.set(res.json.id, { kind: 'refund', status: 0 });
      ids.push(res.json.id);
    } else {
      expect(res.status, res.text).toBe(422);
    }
    if (this.keyed && this.amount !== null)
      model.keyed = { path: '/Refunds', key, body, id: res.json?.id ?? null, status: res.status, money: 'refund' };
    await check(model, r, [p], ids);
  }
  toString = () => `Refund(#${this.pick}, ${this.amount ?? 'full'}${this.keyed ? ', keyed' : ''})`;
}

class ApproveRefund implements Cmd {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.refunds.length > 0;
  async run(model: Model, r: Real) {
    const i = this.pick % model.refunds.length;
    const refund = model.refunds[i]!;
    const p = model.payments.find((x) => x.id === refund.paymentId)!;
    if (refund.amount > model.available) {
      await expect(approveRefund(refund.id, () => clock(model))).rejects.toThrow();
    } else {
      await approveRefund(refund.id, () => clock(model));
      model.refunds.splice(i, 1);
      // What the money sweep does every 2 s, on the test clock.
      let done: Awaited<ReturnType<typeof advanceRefund>>;
      for (let step = 0; step < 8 && !(done && done.status >= 3); step++) {
        model.offset += 3_000;
        done = await advanceRefund(refund.id, clock(model));
      }
      model.available -= refund.amount;
      p.refunded += refund.amount;
      model.statuses.set(refund.id, { kind: 'refund', status: 3 });
    }
    await check(model, r, [p], [refund.id]);
  }
  toString = () => `ApproveRefund(#${this.pick})`;
}

class CloseRefund implements Cmd {
  constructor(
    readonly pick: number,
    readonly how: 'reject' | 'cancel',
  ) {}
  check = (model: Readonly<Model>) => model.refunds.length > 0;
  async run(model: Model, r: Real) {
    const [refund] = model.refunds.splice(this.pick % model.refunds.length, 1);
    const p = model.payments.find((x) => x.id === refund!.paymentId)!;
    if (this.how === 'reject') await rejectRefund(refund!.id, 'model test', () => clock(model));
    else await cancelRefund(refund!.id, () => clock(model));
    p.reserved -= refund!.amount;
    model.statuses.set(refund!.id, { kind: 'refund', status: this.how === 'reject' ? 6 : 5 });
    await check(model, r, [p], [refund!.id]);
  }
  toString = () => `${this.how === 'reject' ? 'Reject' : 'Cancel'}Refund(#${this.pick})`;
}

const walletNumber = fc.constantFrom<'0000' | '1111' | '4444'>('0000', '0000', '1111', '4444');
const commands = [
  fc.integer({ min: 1, max: 5_000 }).map((n) => new Credit(major(n))),
  fc.tuple(fc.integer({ min: 1, max: 100 }), fc.boolean()).map(([n, declined]) => new PayByCard(major(40 * n), declined)),
  fc.tuple(fc.integer({ min: 1, max: 100 }), walletNumber).map(([n, number]) => new PayByWallet(major(40 * n), number)),
  fc
    .tuple(fc.integer({ min: 1, max: 100 }), fc.boolean(), fc.boolean())
    .map(([n, keyed, cancel]) => new OpenCheckout(major(40 * n), keyed, cancel)),
  fc
    .tuple(fc.integer({ min: 100, max: 5_000 }), walletNumber, fc.boolean())
    .map(([n, number, keyed]) => new Deposit(major(n), number, keyed)),
  fc.constantFrom(5_000, 20_000, 90_000, 6 * 60_000, 31 * 60_000).map((ms) => new Advance(ms)),
  fc
    .tuple(fc.integer({ min: 300, max: 3_000 }), fc.boolean(), fc.constantFrom<Account>('0000', '0000', '1111', '2222'))
    .map(([n, keyed, account]) => new Withdraw(major(n), keyed, account)),
  fc.nat().map((i) => new ApproveWithdrawal(i)),
  fc.nat().map((i) => new RejectWithdrawal(i)),
  fc
    .tuple(fc.integer({ min: 100, max: 3_000 }), fc.constantFrom<'bank' | 'usdt'>('bank', 'usdt'), fc.boolean(), fc.boolean())
    .map(([n, to, rejected, keyed]) => new Settle(major(n), to, rejected, keyed)),
  fc.nat().map((i) => new ApproveSettlement(i)),
  fc.tuple(fc.nat(), fc.constantFrom<'reject' | 'cancel'>('reject', 'cancel')).map(([i, how]) => new CloseSettlement(i, how)),
  fc.boolean().map((same) => new RetryKeyed(same)),
  fc
    .tuple(fc.nat(), fc.option(fc.integer({ min: 5, max: 2_000 }), { freq: 4 }), fc.boolean())
    .map(([i, n, keyed]) => new Refund(i, n === null ? null : major(n), keyed)),
  fc.nat().map((i) => new ApproveRefund(i)),
  fc.tuple(fc.nat(), fc.constantFrom<'reject' | 'cancel'>('reject', 'cancel')).map(([i, how]) => new CloseRefund(i, how)),
];

/** The end of a sequence: the operator closes what waits, the clock moves a day on; nothing may stay held. */
async function drain(model: Model, r: Real) {
  for (const w of model.withdrawals.splice(0)) {
    await rejectWithdrawal(w.id, 'drain');
    model.available += w.amount;
    model.held.Withdrawal -= w.amount;
    model.statuses.set(w.id, { kind: 'intent', status: 'Cancelled' });
  }
  for (const s of model.settlements.splice(0)) {
    await cancelSettlement(s.id);
    model.available += s.amount;
    model.held.Settlement -= s.amount;
    model.statuses.set(s.id, { kind: 'settlement', status: 5 });
  }
  for (const x of model.refunds.splice(0)) {
    await rejectRefund(x.id, 'drain', () => clock(model));
    model.payments.find((p) => p.id === x.paymentId)!.reserved -= x.amount;
    model.statuses.set(x.id, { kind: 'refund', status: 6 });
  }
  model.offset += 24 * 3600_000;
  await sweep(model, r);
  expect(model.waiting, 'nothing waits after a day').toEqual([]);
  expect(model.held).toEqual({ Withdrawal: 0, Settlement: 0, Refund: 0 });
  await check(model, r, model.payments, [...model.statuses.keys()]);
}

const newModel = (): Model => ({
  offset: 0,
  available: 0,
  held: { Withdrawal: 0, Settlement: 0, Refund: 0 },
  payments: [],
  waiting: [],
  withdrawals: [],
  settlements: [],
  refunds: [],
  statuses: new Map(),
});

/**
 * Every other merchant is a big one: its wallet and listings spread over 4 shards (shared/store/shards.ts,
 * docs/scaling.md), so every property holds for the sharded ledger too. MODEL_SHARDS=<n> puts them all on n.
 */
let merchants = 0;
async function modelMerchant() {
  const m = await newMerchant();
  const shards = process.env.MODEL_SHARDS ? Number(process.env.MODEL_SHARDS) : merchants++ % 2 === 0 ? 1 : 4;
  if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
  for (const product of ['withdrawal', 'refund', 'deposit'] as const)
    await setFee(m.merchantId, product, { basisPoints: 0, fixedMinor: 0 });
  // Refunds are approved, rejected and cancelled by the model's commands: the approval setting that
  // keeps the sandbox from approving test refunds by itself (docs/merchant-guide.md, Refunds; that
  // path has its own test in test/integration/refunds.test.ts). It changes nothing else here: the
  // model approves payouts and settlements through the services, and `merchant` sends automatic payouts at once.
  await changeMerchant(m.merchantId, () => ({ patch: { payoutApprovals: 'merchant' }, result: null }));
  return m;
}

describe('money paths against a model', () => {
  const gw = useGateway(routeList);

  it(`agree with the model after every command (${runs} sequences of up to ${maxCommands}, seed ${seed})`, async () => {
    console.log(
      `model-based money test: ${runs} sequences, up to ${maxCommands} commands each, seed ${seed} (rerun with MODEL_SEED=${seed})`,
    );
    let sequences = 0;
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands, size: 'max' }), async (cmds) => {
        sequences++;
        const m = await modelMerchant();
        const model = newModel();
        const real = { baseUrl: gw.baseUrl, m };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        for (const c of cmds) kinds.add(String(c).replace(/\(.*$/, ''));
        await drain(model, real);
        if (process.env.MODEL_VERBOSE) console.log(`ran: ${String(cmds)}`);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
    console.log(
      `model-based money test: ${executed} commands executed and checked ` +
        `over ${sequences} sequences; command kinds run: ${[...kinds].sort().join(', ')}`,
    );
    expect(sequences).toBe(runs);
  }, 900_000);

  /**
   * fc.scheduler decides the order in which concurrent requests start; they then overlap for real:
   * withdrawals and settlements drawing on one balance, refunds of one payment drawing on its
   * refundable amount, credits, and retries of one Idempotency-Key.
   */
  let acceptedTotal = 0;
  type Op = 'withdraw' | 'settle' | 'credit' | 'refund' | 'keyed';
  const scheduledRuns = Math.max(3, Math.round(runs / 3));
  it(`never overdraws or over-refunds under interleaved requests (fc.scheduler, ${scheduledRuns} runs, seed ${seed})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom<Op>('withdraw', 'withdraw', 'settle', 'credit', 'refund', 'keyed'), { minLength: 2, maxLength: 12 }),
        async (s, funded, ops) => {
          const m = await modelMerchant();
          const unit = major(300); // the minimum withdrawal
          await creditTestWallet(m.merchantId, 'test', funded * unit, 'PKR');
          // A payment of 3 units (credited net of nothing), of which each refund asks one.
          const payment = await completedPayment(m.merchantId, 'test', 3 * unit);
          const real: Real = { baseUrl: gw.baseUrl, m };
          const key = randomUUID();
          const keyedBody = payoutBody(unit);
          const start = s.scheduleFunction(async (op: Op) => op);
          const results = ops.map((op) =>
            start(op).then(async (): Promise<[Op, number | 'credited']> => {
              if (op === 'credit') {
                await creditTestWallet(m.merchantId, 'test', unit, 'PKR');
                return [op, 'credited'];
              }
              const res =
                op === 'withdraw'
                  ? await api(real, 'POST', '/Payment/withdraw', payoutBody(unit))
                  : op === 'keyed'
                    ? await api(real, 'POST', '/Payment/withdraw', keyedBody, { 'Idempotency-Key': key })
                    : op === 'settle'
                      ? await api(real, 'POST', '/Settlements', { amount: unit / 100, currency: 'PKR', ...bank(false) })
                      : await api(real, 'POST', '/Refunds', { trxnRef: payment.paymentIntentId, amount: unit / 100 });
              expect([200, 201, 409, 422], res.text).toContain(res.status);
              return [op, res.status === 200 || res.status === 201 ? 200 : res.status];
            }),
          );
          await s.waitAll();
          const outcomes = await Promise.all(results);
          const count = (op: Op, what: number | 'credited') => outcomes.filter(([o, r]) => o === op && r === what).length;
          const credits = count('credit', 'credited');
          const withdrawn = count('withdraw', 200);
          const settled = count('settle', 200);
          const refunds = count('refund', 200);
          // One Idempotency-Key: one withdrawal at most, however many twins raced.
          const keyedOne = count('keyed', 200) > 0 ? 1 : 0;
          acceptedTotal += withdrawn + settled + keyedOne;
          expect(withdrawn + settled + keyedOne).toBeLessThanOrEqual(funded + 3 + credits);
          expect(refunds, 'refunds never above the payment').toBeLessThanOrEqual(3);
          const conflicts = outcomes.filter(([, r]) => r === 409).length;
          if (conflicts === 0 && ops.filter((o) => o === 'refund').length <= 3)
            expect(refunds).toBe(ops.filter((o) => o === 'refund').length);
          const pendingRefund = await api(real, 'GET', `/Transaction/${payment.paymentIntentId}`);
          expect(pendingRefund.json.status).toBe('Completed');
          const model: Model = {
            ...newModel(),
            available: (funded + 3 + credits - withdrawn - settled - keyedOne) * unit,
            held: { Withdrawal: (withdrawn + keyedOne) * unit, Settlement: settled * unit, Refund: 0 },
          };
          await check(model, real);
        },
      ),
      { numRuns: scheduledRuns, seed, endOnFailure: true },
    );
    expect(acceptedTotal, 'some requests were accepted').toBeGreaterThan(0);
  }, 600_000);
});
