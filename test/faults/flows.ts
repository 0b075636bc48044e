import { randomUUID } from 'node:crypto';
import { toChecksumAddress } from '#shared/domain/usdt-address.ts';
import { creditTestWallet, setFee, setWebhook } from '#shared/services/merchants.ts';
import { refundsOfTransaction } from '#shared/services/refund-requests.ts';
import { approveRefund } from '#shared/services/refunds.ts';
import { approveSettlement } from '#shared/services/settlements.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { rebalanceWallet } from '#shared/store/wallets.ts';
import { getSettlement, listSettlements } from '#shared/store/settlements.ts';
import { checkoutBody, getPage, postForm } from '../support/checkout.ts';
import { call, newMerchant } from '../support/gateway.ts';
import { completedPayment } from '../support/money.ts';
import { sweepMerchant } from '../support/sweeps.ts';

/**
 * The money flows the fault-point test crashes (test/faults/harness.ts), written
 * without vitest so that a child process can run `act` too (test/fixtures/faults/flow-process.ts,
 * killed with SIGKILL at a fault point). Each flow:
 *   setup    a merchant (webhooks to the test's 127.0.0.1 receiver) and what the flow needs, unarmed
 *   act      the flow as it happens: the merchant's requests, the customer's page, the operator's
 *            commands and the sweeps on a test clock. A crash is an exception (or the process dying);
 *            `answer` is told about every request that got an answer.
 *   recover  what happens next in production: the merchant re-sends with the same Idempotency-Key
 *            (and looks the object up by its reference when the key is still in flight), the customer
 *            reloads the page, the operator runs the command again, the sweeps keep running with
 *            time moving on past every window.
 *   expect   what the flow must come to: the one object's final status and the wallet.
 */
export interface Ctx {
  flow: string;
  merchantId: string;
  apiKey: string;
  secretKey: string;
  orderRef: string;
  key: string;
  amount: number;
  /** Ids the flow created: payment intents, refunds, settlements. */
  intents: string[];
  refunds: string[];
  settlements: string[];
  /** The paid checkout a refund flow refunds. */
  paymentId?: string;
  fundedMinor: number;
}

export interface Answer {
  what: string;
  status: number;
  id?: string;
}

export interface Flow {
  name: string;
  /** The fees that are not zero in this flow: the expected available balance after it. */
  expected: {
    status: string | number;
    available: (ctx: Ctx) => number;
    kind: 'intent' | 'refund' | 'settlement';
    /**
     * The outcome when the crash fell between recording the submission and calling the rail: the
     * rail never received it, so its status inquiry answers NotFound and after the grace the
     * payment fails with its funds released (it is never submitted a second time).
     */
    neverReceived?: { status: string | number; available: (ctx: Ctx) => number };
  };
  setup(webhookUrl: string): Promise<Ctx>;
  act(baseUrl: string, ctx: Ctx, answer: (a: Answer) => void): Promise<void>;
  recover(baseUrl: string, ctx: Ctx): Promise<void>;
}

const api = (baseUrl: string, ctx: Ctx, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(baseUrl, method, `/Gateway/v1${path}`, { key: ctx.apiKey, ...(body !== undefined ? { body, secret: ctx.secretKey } : {}), headers });

const add = (list: string[], id: string | undefined) => {
  if (id && !list.includes(id)) list.push(id);
};

/** The due sweeps (intents of this merchant, its refunds and settlements) at `ms` after now. */
export async function sweepAt(ctx: Ctx, ms: number) {
  await sweepMerchant(new Date(Date.now() + ms), ctx.merchantId, 'test', [...ctx.refunds, ...ctx.settlements]);
}

/** Time moving on while the flow runs (seconds after its start, the sandbox answers in 3). */
const actSweeps = [5_000, 20_000, 60_000];
/** Time moving on past every window: approvals, grace periods, session expiry. */
const recoverySweeps = [5_000, 20_000, 60_000, 180_000, 20 * 60_000, 40 * 60_000, 3 * 3600_000];

async function sweeps(ctx: Ctx, times: number[]) {
  for (const ms of times) await sweepAt(ctx, ms);
}

/**
 * Half the flows run for a big merchant, its wallet and listings on 4 shards (docs/scaling.md), so
 * their crash points are also recovered on the sharded ledger (a hold there may add a rebalance's
 * commit point). Every run of one flow uses the same count, so its points are the same in each run.
 * FAULT_SHARDS=<n> puts every flow on n.
 */
const shardedFlows = new Set(['checkout wallet', 'withdrawal …0000', 'refund', 'settlement usdt']);
async function newCtx(flow: string, webhookUrl: string, amount: number, fundedMinor = 0): Promise<Ctx> {
  const m = await newMerchant();
  const shards = process.env.FAULT_SHARDS ? Number(process.env.FAULT_SHARDS) : shardedFlows.has(flow) ? 4 : 1;
  if (shards > 1) await raiseShards(m.merchantId, 'test', shards, { immediate: true });
  await setWebhook(m.merchantId, 'test', webhookUrl, true);
  for (const product of ['withdrawal', 'refund', 'deposit'] as const)
    await setFee(m.merchantId, product, { basisPoints: 0, fixedMinor: 0 });
  if (fundedMinor) await creditTestWallet(m.merchantId, 'test', fundedMinor, 'PKR');
  // The funding credit lands on a shard chosen by its journal id: moved into shard 1 now, so a
  // hold finds its amount on that one shard in every run (the same points each time) and its
  // completion or release moves a shard other than 0, as recorded on its object (walletShard).
  // The moves themselves are covered by test/integration/wallet-shards.test.ts and the model-based test.
  if (shards > 1) await rebalanceWallet(m.merchantId, 'test', 'PKR', { into: 1 });
  return {
    flow,
    merchantId: m.merchantId,
    apiKey: m.test.apiKey,
    secretKey: m.test.secretKey,
    orderRef: `FP${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    key: randomUUID(),
    amount,
    intents: [],
    refunds: [],
    settlements: [],
    fundedMinor,
  };
}

/**
 * The merchant's creating request, retried as a merchant would: the same Idempotency-Key; if that
 * key is still in flight (409), a lookup by the order reference, and only if nothing was created a
 * new request (the order reference keeps it unique).
 */
async function resend(baseUrl: string, ctx: Ctx, path: string, body: Record<string, unknown>) {
  const again = await api(baseUrl, ctx, 'POST', path, body, { 'Idempotency-Key': ctx.key });
  if (again.status === 200 || again.status === 201) return again.json;
  const found = await api(baseUrl, ctx, 'GET', `/Transaction/by-ref/${ctx.orderRef}`);
  if (found.status === 200) return found.json;
  const fresh = await api(baseUrl, ctx, 'POST', path, body, { 'Idempotency-Key': randomUUID() });
  if (fresh.status !== 200) throw new Error(`recovery: ${path} answered ${fresh.status} ${fresh.text}`);
  return fresh.json;
}

// ---------------------------------------------------------------------------------------------
// Checkouts: card, wallet

const checkoutFee = (amount: number) => Math.round(amount * 0.025);

/**
 * A checkout paid on its page. `declineFirst`: the customer's first card is declined (a failed
 * attempt that leaves the session payable: docs/merchant-guide.md, Hosted checkout) and the next one
 * pays, so the attempt's own commit is a crash point too.
 */
function checkoutFlow(name: string, pay: 'card' | 'wallet', declineFirst = false): Flow {
  const body = (ctx: Ctx) => checkoutBody({ amount: ctx.amount / 100, orderRef: { orderRef: ctx.orderRef } });
  /** The customer on the page: whatever it asks for next (card form, wallet number, OTP); nothing while approval is awaited. */
  const drivePage = async (baseUrl: string, ctx: Ctx, id: string, answer: (a: Answer) => void, decline = false) => {
    const path = `/pay/${id}`;
    let declining = decline;
    for (let step = 0; step < 3; step++) {
      const page = await getPage(baseUrl, path);
      if (page.status !== 200 || !page.csrf) return;
      let r: Awaited<ReturnType<typeof postForm>>;
      if (pay === 'card' && page.html.includes('name="number"')) {
        r = await postForm(baseUrl, `${path}/card`, {
          csrf: page.csrf,
          name: 'Ayesha Khan',
          number: declining ? '4000000000000002' : '4242424242424242',
          expiry: '12/39',
          cvc: '123',
        });
        declining = false;
      } else if (page.html.includes('autocomplete="one-time-code"')) {
        r = await postForm(baseUrl, `${path}/otp`, { csrf: page.csrf, otp: '123456' });
      } else if (pay === 'wallet' && page.html.includes('name="mobileNumber"')) {
        r = await postForm(baseUrl, `${path}/wallet`, { csrf: page.csrf, provider: '1', mobileNumber: '03001230000' });
      } else return;
      answer({ what: `page ${r.status}`, status: r.status, id });
      if (r.status !== 303) return;
    }
  };
  return {
    name,
    expected: { kind: 'intent', status: 'Completed', available: (ctx) => ctx.amount - checkoutFee(ctx.amount) },
    setup: (url) => newCtx(name, url, 2_000_00),
    async act(baseUrl, ctx, answer) {
      const created = await api(baseUrl, ctx, 'POST', '/Payment/initiate-checkout', body(ctx), { 'Idempotency-Key': ctx.key });
      answer({ what: 'initiate-checkout', status: created.status, id: created.json?.paymentIntentId });
      if (created.status !== 200) return;
      add(ctx.intents, created.json.paymentIntentId);
      await drivePage(baseUrl, ctx, created.json.paymentIntentId, answer, declineFirst);
      await sweeps(ctx, actSweeps);
    },
    async recover(baseUrl, ctx) {
      const t = await resend(baseUrl, ctx, '/Payment/initiate-checkout', body(ctx));
      add(ctx.intents, t.paymentIntentId);
      await sweepAt(ctx, 5_000); // a charge awaiting approval is answered first
      await drivePage(baseUrl, ctx, t.paymentIntentId, () => undefined);
      await sweeps(ctx, recoverySweeps);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Deposits and automatic withdrawals: one merchant request, then the sweeps

/** A flow of one keyed merchant request creating a payment intent, finished by the sweeps. */
function requestFlow(
  name: string,
  path: string,
  body: (ctx: Ctx) => Record<string, unknown>,
  expected: Flow['expected'],
  setup: Flow['setup'],
): Flow {
  return {
    name,
    expected,
    setup,
    async act(baseUrl, ctx, answer) {
      const r = await api(baseUrl, ctx, 'POST', path, body(ctx), { 'Idempotency-Key': ctx.key });
      answer({ what: path, status: r.status, id: r.json?.paymentIntentId });
      if (r.status === 200) add(ctx.intents, r.json.paymentIntentId);
      await sweeps(ctx, actSweeps);
    },
    async recover(baseUrl, ctx) {
      add(ctx.intents, (await resend(baseUrl, ctx, path, body(ctx))).paymentIntentId);
      await sweeps(ctx, recoverySweeps);
    },
  };
}

const depositFlow = requestFlow(
  'deposit',
  '/Payment/deposit',
  (ctx) => ({
    mobileNumber: '03001230000',
    amount: ctx.amount / 100,
    walletProvider: 1,
    description: 'Top up',
    orderRef: { orderRef: ctx.orderRef },
    customerRef: { name: 'Ayesha Khan' },
  }),
  { kind: 'intent', status: 'Completed', available: (ctx) => ctx.amount },
  (url) => newCtx('deposit', url, 1_500_00),
);

/** The bank accepts (0000), or times out and the status inquiry says Completed (2222). */
const withdrawalFlow = (account: '0000' | '2222') =>
  requestFlow(
    `withdrawal …${account}`,
    '/Payment/withdraw',
    (ctx) => ({
      amount: ctx.amount / 100,
      currency: 'PKR',
      description: 'Payout',
      autoProcessPayout: true,
      customerRef: { bankAccountNumber: `PK36SCBL000000112345${account}`, bankCode: 'MEEZAN', accountTitle: 'Ayesha Khan' },
      orderRef: { orderRef: ctx.orderRef },
    }),
    {
      kind: 'intent',
      status: 'Completed',
      available: (ctx) => ctx.fundedMinor - ctx.amount,
      neverReceived: { status: 'Failed', available: (ctx) => ctx.fundedMinor },
    },
    (url) => newCtx(`withdrawal …${account}`, url, 500_00, 1000_00),
  );

// ---------------------------------------------------------------------------------------------
// Refunds: request, operator approval, processing

const refundFlow: Flow = {
  name: 'refund',
  expected: { kind: 'refund', status: 3, available: (ctx) => ctx.fundedMinor - ctx.amount },
  async setup(url) {
    const ctx = await newCtx('refund', url, 400_00);
    const paid = await completedPayment(ctx.merchantId, 'test', 1000_00);
    await rebalanceWallet(ctx.merchantId, 'test', 'PKR', { into: 1 }); // see newCtx: the same points in every run
    ctx.paymentId = paid.paymentIntentId;
    ctx.fundedMinor = 1000_00;
    return ctx;
  },
  async act(baseUrl, ctx, answer) {
    const r = await api(
      baseUrl,
      ctx,
      'POST',
      '/Refunds',
      { trxnRef: ctx.paymentId, amount: ctx.amount / 100 },
      { 'Idempotency-Key': ctx.key },
    );
    answer({ what: 'refund', status: r.status, id: r.json?.id });
    if (r.status !== 201) return;
    add(ctx.refunds, r.json.id);
    // Test mode: the sandbox approves it at the first sweep (docs/merchant-guide.md, Refunds), so its
    // approval's commit is a crash point of this flow; the recovery's operator approval covers the other path.
    for (const ms of [3_000, 6_000, 9_000, 12_000]) await sweepAt(ctx, ms);
  },
  async recover(baseUrl, ctx) {
    const again = await api(
      baseUrl,
      ctx,
      'POST',
      '/Refunds',
      { trxnRef: ctx.paymentId, amount: ctx.amount / 100 },
      { 'Idempotency-Key': ctx.key },
    );
    if (again.status === 201) add(ctx.refunds, again.json.id);
    else {
      const listed = await refundsOfTransaction(ctx.merchantId, 'test', ctx.paymentId!, 1, 50);
      for (const x of listed.items) add(ctx.refunds, x.id);
      if (ctx.refunds.length === 0) {
        const fresh = await api(
          baseUrl,
          ctx,
          'POST',
          '/Refunds',
          { trxnRef: ctx.paymentId, amount: ctx.amount / 100 },
          { 'Idempotency-Key': randomUUID() },
        );
        if (fresh.status !== 201) throw new Error(`recovery: refund answered ${fresh.status} ${fresh.text}`);
        add(ctx.refunds, fresh.json.id);
      }
    }
    for (const id of ctx.refunds) if ((await getRefund(id))?.status === 0) await approveRefund(id); // the operator approves what waits
    await sweeps(ctx, recoverySweeps);
  },
};

// ---------------------------------------------------------------------------------------------
// Settlements: request, operator approval, the rail (bank, USDT)

function settlementFlow(to: 'bank' | 'usdt'): Flow {
  const body = (ctx: Ctx) =>
    to === 'bank'
      ? { amount: ctx.amount / 100, currency: 'PKR', bankName: 'HBL', iban: 'PK36SCBL0000001123456702', accountTitle: 'Acme Ltd' }
      : { amount: ctx.amount / 100, usdtAddress: toChecksumAddress('0x00000000000000000000000000000000abcd0000'), payoutCurrency: 'USDT' };
  const name = `settlement ${to}`;
  return {
    name,
    expected: {
      kind: 'settlement',
      status: 3,
      available: (ctx) => ctx.fundedMinor - ctx.amount,
      neverReceived: { status: 4, available: (ctx) => ctx.fundedMinor },
    },
    setup: (url) => newCtx(name, url, 600_00, 1000_00),
    async act(baseUrl, ctx, answer) {
      const r = await api(baseUrl, ctx, 'POST', '/Settlements', body(ctx), { 'Idempotency-Key': ctx.key });
      answer({ what: 'settlement', status: r.status, id: r.json?.id });
      if (r.status !== 200) return;
      add(ctx.settlements, r.json.id);
      await approveSettlement(r.json.id);
      answer({ what: 'settlement approve', status: 200, id: r.json.id });
      for (const ms of [3_000, 6_000, 9_000, 12_000]) await sweepAt(ctx, ms);
    },
    async recover(baseUrl, ctx) {
      const again = await api(baseUrl, ctx, 'POST', '/Settlements', body(ctx), { 'Idempotency-Key': ctx.key });
      if (again.status === 200) add(ctx.settlements, again.json.id);
      else {
        for (const s of (await listSettlements(ctx.merchantId, 'test', { page: 1, pageSize: 50 })).items) add(ctx.settlements, s.id);
        if (ctx.settlements.length === 0) {
          const fresh = await api(baseUrl, ctx, 'POST', '/Settlements', body(ctx), { 'Idempotency-Key': randomUUID() });
          if (fresh.status !== 200) throw new Error(`recovery: settlement answered ${fresh.status} ${fresh.text}`);
          add(ctx.settlements, fresh.json.id);
        }
      }
      for (const id of ctx.settlements) if ((await getSettlement(id))?.status === 0) await approveSettlement(id);
      await sweeps(ctx, recoverySweeps);
    },
  };
}

export const flows: Flow[] = [
  checkoutFlow('checkout card', 'card'),
  checkoutFlow('checkout wallet', 'wallet'),
  checkoutFlow('checkout card retry', 'card', true),
  depositFlow,
  withdrawalFlow('0000'),
  withdrawalFlow('2222'),
  refundFlow,
  settlementFlow('bank'),
  settlementFlow('usdt'),
];

export const flowByName = (name: string) => flows.find((f) => f.name === name)!;
