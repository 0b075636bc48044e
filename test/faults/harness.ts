import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { routeList } from '#functions/routes.ts';
import type { EventSubject } from '#shared/domain/events.ts';
import { armFault, recordFaultPoints } from '#shared/faults.ts';
import { logger } from '#shared/logger.ts';
import { verifyLedger } from '#shared/services/ledger-verify.ts';
import { refundsOfTransaction } from '#shared/services/refund-requests.ts';
import { listEvents } from '#shared/store/intents.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { getSettlement, listSettlements } from '#shared/store/settlements.ts';
import { getWallet } from '#shared/store/wallets.ts';
import { call, useGateway } from '../support/gateway.ts';
import { scriptBundle } from '../support/ops.ts';
import { startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';
import { flowByName, type Answer, type Ctx, type Flow } from './flows.ts';

/**
 * A fault point at every commit (shared/faults.ts): every TransactWriteItems commit and every
 * provider call (before it, and after its answer) in every money flow of test/faults/flows.ts:
 * checkout by card, by wallet and by card after a declined card,
 * deposit, automatic withdrawal (bank accepts; bank times out),
 * refund, settlement to a bank and to USDT.
 *
 * For each flow a clean run first lists the fault points it reaches, in order. Then for every
 * n, a fresh run crashes at the n-th point (InjectedFault thrown out of the handler, the operator
 * command or the due handler), recovers as production would (flows.ts `recover`), and must show:
 *   - every request that was answered is visible, and is the one object of the flow (no duplicate
 *     intent, refund or settlement);
 *   - the object reached its final status (for a payout or settlement whose crash fell between
 *     recording the submission and calling the rail: Failed with the funds released, because the
 *     rail never received it and it is never submitted twice); the bank rail, settlement rail and refund provider were
 *     asked to pay at most once;
 *   - nothing held after the flow's windows passed, the balance is what one payment makes it;
 *   - every status change of the flow's payment intents has exactly one outbox event (distinct
 *     statuses, the last one final) and each reached the webhook receiver on 127.0.0.1;
 *   - the ledger verifier (`ops ledger verify`, docs/ledger-verification.md) finds nothing.
 * Separately the local stack PROCESS (API server and sweeps, test/fixtures/faults/flow-process.ts)
 * is killed with SIGKILL at each point (FAULT_LOGS=1 shows the injected faults' error logs), and a fresh process (this one) recovers;
 * `npm test` does that
 * for the automatic withdrawal, `npm run test:deep` (DEEP_TESTS=1) for all. The number of points is printed.
 *
 * This module is the harness; the flows are crashed in groups, one test file per group
 * (test/faults/*-crashes.faults.test.ts, `crashGroups` below), so the groups run on different
 * vitest workers at the same time; test/faults/process-kill.faults.test.ts kills the process and
 * checks that the groups hold every flow of flows.ts. Importing it gives the file its own webhook
 * stack (table, local SQS, relay and dispatcher), API server and receiver.
 */
export const crashGroups = {
  checkouts: ['checkout card', 'checkout wallet', 'checkout card retry'],
  'deposits-payouts': ['deposit', 'withdrawal …0000', 'withdrawal …2222'],
  'refunds-settlements': ['refund', 'settlement bank', 'settlement usdt'],
} as const satisfies Record<string, readonly string[]>;

const stack = useWebhookStack([jobs.webhookRelay, jobs.webhookDispatcher], { queuePollers: 1 });
const gw = useGateway(routeList);
let hook: Receiver;
beforeAll(async () => {
  hook = await startReceiver();
  // Every injected fault is logged as an unhandled error or a failed due handler, by design: quiet here.
  if (!process.env.FAULT_LOGS) logger.setLogLevel('CRITICAL');
});
afterAll(() => hook.stop());

const root = resolve(import.meta.dirname, '..', '..');
const submitCalls = ['provider:bank_rail.submit', 'provider:settlement_rail.submit', 'provider:refund_provider.refund'];
const covered = new Map<string, Set<string>>();
let crashes = 0;
/** Outbox events every run must see delivered; waited for at the end of each flow (delivery runs meanwhile). */
const awaitingDelivery: { e: string; at: string }[] = [];
async function expectAllDelivered() {
  const waiting = awaitingDelivery.splice(0);
  const delivered = () => new Set(hook.deliveries.map((d) => d.event.id));
  await hook.waitFor(() => waiting.every((w) => delivered().has(w.e)), 120_000).catch(() => undefined);
  const missing = waiting.filter((w) => !delivered().has(w.e));
  expect(missing.map((w) => `${w.at}: event ${w.e} never reached the receiver`)).toEqual([]);
  return waiting.length;
}

/** What a run left, checked against the flow's rules (see above). */
async function verify(flow: Flow, ctx: Ctx, answers: Answer[], fired: string | null, points: string[]) {
  const at = `${flow.name}, crash at ${fired ?? 'nowhere'}`;
  // Did the rail receive the submission? A submit call was reached that was not the crash itself.
  const received = submitCalls.some((s) => points.filter((p) => p === s).length - (fired === s ? 1 : 0) > 0);
  const expected = !received && flow.expected.neverReceived ? flow.expected.neverReceived : flow.expected;
  // Exactly one object, and it is the one any answered request named.
  const objects =
    flow.expected.kind === 'intent'
      ? ctx.intents
      : flow.expected.kind === 'refund'
        ? (await refundsOfTransaction(ctx.merchantId, 'test', ctx.paymentId!, 1, 50)).items.map((r) => r.id)
        : (await listSettlements(ctx.merchantId, 'test', { page: 1, pageSize: 50 })).items.map((s) => s.id);
  expect(objects, `${at}: one object`).toHaveLength(1);
  const id = objects[0]!;
  for (const a of answers) if (a.status < 400 && a.id) expect(a.id, `${at}: answered ${a.what} is the object`).toBe(id);
  if (flow.expected.kind === 'intent') {
    const byRef = await call(gw.baseUrl, 'GET', `/Gateway/v1/Transaction/by-ref/${ctx.orderRef}`, { key: ctx.apiKey });
    expect(byRef.json?.paymentIntentId, `${at}: visible by its reference`).toBe(id);
    expect(byRef.json.status, `${at}: final status`).toBe(expected.status);
    const listed = await call(gw.baseUrl, 'GET', '/Gateway/v1/Transactions', { key: ctx.apiKey });
    expect(
      listed.json.items.map((t: { paymentIntentId: string }) => t.paymentIntentId),
      `${at}: the merchant's only transaction`,
    ).toEqual([id]);
  } else if (flow.expected.kind === 'refund') {
    expect((await getRefund(id))?.status, `${at}: final status`).toBe(expected.status);
  } else {
    expect((await getSettlement(id))?.status, `${at}: final status`).toBe(expected.status);
  }
  // Paid out at most once.
  for (const submit of submitCalls) {
    const calls = points.filter((p) => p === submit).length - (fired === submit ? 1 : 0);
    expect(calls, `${at}: ${submit} calls`).toBeLessThanOrEqual(1);
  }
  // No hold left, one payment's worth of money.
  const wallet = await getWallet(ctx.merchantId, 'test', 'PKR', true);
  expect(wallet.heldByType, `${at}: holds`).toMatchObject({ Withdrawal: 0, Settlement: 0, Refund: 0 });
  expect(wallet.available, `${at}: available`).toBe(expected.available(ctx));
  // One outbox event per status change, each delivered to the receiver at least once: the
  // intents' events, and the refund's or settlement's own (RefundStatusChanged, SettlementStatusChanged).
  const subjects: EventSubject[] = [...ctx.intents, ...(ctx.paymentId ? [ctx.paymentId] : [])].map((id) => ({ kind: 'transaction', id }));
  if (flow.expected.kind !== 'intent') subjects.push({ kind: flow.expected.kind, id });
  const eventIds: string[] = [];
  for (const subject of subjects) {
    const events = await listEvents(subject);
    const statuses = events.map((e) => e.event.data.CurrentStatus);
    expect(new Set(statuses).size, `${at}: events ${statuses}`).toBe(statuses.length);
    expect(statuses.length, `${at}: an event per change`).toBeGreaterThan(0);
    eventIds.push(...events.map((e) => e.event.id));
  }
  awaitingDelivery.push(...eventIds.map((e) => ({ e, at })));
  expect((await verifyLedger({ merchantId: ctx.merchantId, mode: 'test' })).discrepancies, `${at}: ledger verify`).toEqual([]);
}

/** The points a clean run reaches, in order (and that clean run verified). */
async function pointsOf(flow: Flow) {
  const ctx = await flow.setup(hook.url);
  const rec = recordFaultPoints();
  const answers: Answer[] = [];
  await flow.act(gw.baseUrl, ctx, (a) => answers.push(a));
  await flow.recover(gw.baseUrl, ctx);
  rec.stop();
  await verify(flow, ctx, answers, null, rec.points);
  return rec.points;
}

const note = (flow: Flow, point: string) => {
  const set = covered.get(flow.name) ?? new Set();
  set.add(point);
  covered.set(flow.name, set);
};

/** Runs `act` in its own process (the local stack), SIGKILLed at the n-th point; returns what it said. */
async function actInProcess(flow: Flow, ctx: Ctx, n: number) {
  const script = await scriptBundle('test/fixtures/faults/flow-process.ts', { handlers: 'routes and jobs' }); // bundled once per run
  return new Promise<{ answers: Answer[]; points: string[]; killed: string | null; ctx: Ctx }>((ok, fail) => {
    const child = spawn(process.execPath, ['--enable-source-maps', script], {
      cwd: root,
      env: { ...process.env, FLOW: flow.name, CTX: JSON.stringify(ctx), FAULT_NTH: String(n) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      const lines = out.split('\n');
      const answers = lines.filter((l) => l.startsWith('answer ')).map((l) => JSON.parse(l.slice(7)) as Answer);
      const points = lines.filter((l) => l.startsWith('point ')).map((l) => l.slice(6));
      const killed = /fault point killed the process: (.+)/.exec(out)?.[1] ?? null;
      const final = lines.find((l) => l.startsWith('ctx '));
      if (signal !== 'SIGKILL' && code !== 0) return fail(new Error(`flow process exited ${code}: ${err.slice(-2000)}`));
      ok({ answers, points, killed, ctx: final ? (JSON.parse(final.slice(4)) as Ctx) : ctx });
    });
  });
}

/** The throw-at-every-point test of the named flows (one `it` per flow). */
export function describeCrashes(names: readonly string[]) {
  describe('fault points: crash (throw) at every point of every money flow, recover, nothing lost or doubled', () => {
    it.each(names)(
      '%s',
      async (name) => {
        expect(stack.tableName).toBeTruthy();
        const flow = flowByName(name);
        const points = await pointsOf(flow);
        expect(points.length, `${name} reaches fault points`).toBeGreaterThan(0);
        for (let n = 1; n <= points.length; n++) {
          const ctx = await flow.setup(hook.url);
          const answers: Answer[] = [];
          const rec = recordFaultPoints();
          const fault = armFault(n);
          await flow.act(gw.baseUrl, ctx, (a) => answers.push(a)).catch(() => undefined);
          fault.disarm();
          const fired = fault.fired();
          expect(fired, `${name}: point #${n} (${points[n - 1]}) fired`).toBe(points[n - 1]);
          await flow.recover(gw.baseUrl, ctx);
          rec.stop();
          await verify(flow, ctx, answers, fired, rec.points);
          note(flow, fired!);
          crashes++;
        }
        const waitFrom = Date.now();
        const events = await expectAllDelivered();
        console.log(
          `fault points (${name}): ${events} outbox events delivered (waited ${Date.now() - waitFrom} ms); ` +
            `${points.length} crashes over ${new Set(points).size} distinct points: ${[...new Set(points)].join(', ')}`,
        );
      },
      600_000,
    );
  });
}

/**
 * The kill-at-every-point test of the named flows: `npm test` kills the automatic withdrawal's
 * process, `npm run test:deep` (DEEP_TESTS=1) every flow's.
 */
export function describeKills(names: readonly string[]) {
  describe('fault points: the local stack process killed (SIGKILL) at every point, a new process recovers', () => {
    it.each(names)(
      '%s',
      async (name) => {
        const flow = flowByName(name);
        const points = await pointsOf(flow);
        for (let n = 1; n <= points.length; n++) {
          const ctx = await flow.setup(hook.url);
          const child = await actInProcess(flow, ctx, n);
          expect(child.killed, `${name}: killed at point #${n}`).toBe(points[n - 1]);
          // The ids the dead process learnt are lost with it, except what it answered.
          for (const a of child.answers)
            if (a.status < 400 && a.id)
              (flow.expected.kind === 'intent' ? ctx.intents : flow.expected.kind === 'refund' ? ctx.refunds : ctx.settlements).push(a.id);
          ctx.intents = [...new Set(ctx.intents)];
          const rec = recordFaultPoints();
          await flow.recover(gw.baseUrl, ctx);
          rec.stop();
          await verify(flow, ctx, child.answers, child.killed, [...child.points, ...rec.points]);
          note(flow, `kill ${child.killed}`);
          crashes++;
        }
        await expectAllDelivered();
        console.log(`fault points (${name}, process killed): ${points.length} kills`);
      },
      900_000,
    );
  });
}

afterAll(() => {
  const distinct = new Set([...covered.values()].flatMap((s) => [...s].filter((p) => !p.startsWith('kill '))));
  console.log(`fault points covered: ${crashes} crash runs over ${distinct.size} distinct fault points in ${covered.size} flows`);
});
