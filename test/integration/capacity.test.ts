import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { processDue } from '#shared/services/due.ts';
import { creditTestWallet } from '#shared/services/merchants.ts';
import { processDueSettlementsAndRefunds } from '#shared/services/money-sweep.ts';
import { approveRefund } from '#shared/services/refunds.ts';
import { captureConsumedCapacity } from '#shared/store/client.ts';
import { getIntent } from '#shared/store/intents.ts';
import { getMerchantCached } from '#shared/store/merchants.ts';
import * as keys from '#shared/store/keys.ts';
import { getRefund } from '#shared/store/refunds.ts';
import { raiseShards } from '#shared/store/shards.ts';
import { startJobs, type RunningJobs } from '../../scripts/local/jobs.ts';
import { mixLoad, type OperationResult, operationTargets, shardFamilies, summarise, targetMix } from '../../bench/heat-model.ts';
import { OperationTagger, runOperations } from '../../bench/heat-operations.ts';
import { getPage, postForm } from '../support/checkout.ts';
import { call, newMerchant, type TestMerchant, useGateway } from '../support/gateway.ts';
import { startReceiver, useWebhookStack, type Receiver } from '../support/webhooks.ts';

/**
 * Capacity as a test (issue 40, docs/scaling.md): ONE merchant on the shard count docs/scaling.md
 * names (16) runs each business operation twice through the real handlers on DynamoDB Local, every
 * call with `ReturnConsumedCapacity: INDEXES` (captureConsumedCapacity), and the relay and the
 * dispatcher deliver every event it causes to a receiver on 127.0.0.1. From those real writes the
 * heat bench's model (bench/heat-model.ts) gives the units per operation on every partition key the
 * operations share (hash-placed shard families as their expected load per member), and from them,
 * analytically, each operation's ceiling and the target mix's load. Not a load test: DynamoDB Local
 * does not throttle; the limits are DynamoDB's 1,000 WCU/s and 3,000 RCU/s per partition key.
 * A new index or entity that puts an operation's writes on one merchant-wide key fails it here: a
 * key counts as one partition unless it is a member of a family `shardFamilies` knows, whose spreading
 * the sharding tests prove (shards, dashboard-lists, wallet-shards).
 */
const shards = 16;
const instances = 2;
const targets = operationTargets;
/**
 * What an operator pays DynamoDB per operation: write and read units over the table and every index
 * (GSI writes are billed as writes), with the budget each may not exceed (about 10 % over today's).
 * A delivery's attempt at most 3 write units (issue 40): its delivery item (under 1 KB) and its move
 * in the feed's state index, nothing else (docs/scaling.md, cost per operation).
 */
const budgets: Record<keyof typeof targets, { wcu: number; rcu: number }> = {
  'checkout.paid': { wcu: 62, rcu: 6 },
  // 90 measured since a deposit takes its orderRef before the charge request (two commits: the request recorded, then
  // the provider's answer with the stored response; 68 before, one commit after the call).
  'deposit.approved': { wcu: 99, rcu: 7.5 },
  'withdrawal.auto': { wcu: 105, rcu: 52 },
  'refund.approved': { wcu: 129, rcu: 20.5 },
  'webhook.delivery': { wcu: 3, rcu: 1.5 },
};

const stack = useWebhookStack([]);
const gw = useGateway();
const tag = new OperationTagger();
let receiver: Receiver;
let running: RunningJobs | undefined;
beforeAll(async () => {
  receiver = await startReceiver(() => 200);
  running = tag.inJobs('webhook.delivery', () =>
    startJobs(
      { queueUrl: stack.queues.queueUrl, sqsEndpoint: stack.queues.endpoint, deadLetterQueueUrl: stack.queues.deadLetterQueueUrl },
      [jobs.webhookRelay, jobs.webhookDispatcher],
    ),
  );
});
afterAll(async () => {
  await running?.stop();
  await receiver?.stop();
});

interface Measured {
  operations: OperationResult[];
  byName: Map<string, OperationResult>;
  mix: ReturnType<typeof mixLoad>;
  /** Every target at once: checkouts, deposits, payouts, refunds and the deliveries they cause (at least 2,500/s). */
  all: ReturnType<typeof mixLoad>;
  deliveries: number;
}

/** Runs every operation `instances` times on one merchant and summarises the units they consumed. */
async function measure(): Promise<Measured> {
  // Everything runs while capturing (untagged until an operation starts), so the model knows every
  // item's size when an operation updates it.
  const stop = captureConsumedCapacity(tag.record);
  let m: TestMerchant;
  try {
    m = await newMerchant({ name: 'Capacity', webhookUrl: receiver.url, allowInsecureWebhooks: true });
    await raiseShards(m.merchantId, 'test', shards, { immediate: true });
    // Funded by many credits (each on the shard its journal id picks), as a busy merchant's wallet is.
    for (let i = 0; i < shards * 4; i++) await creditTestWallet(m.merchantId, 'test', 10_000_000, 'PKR');
    // What a busy merchant's steady state has already paid: the API key's last use (written at most
    // once per 5 minutes whatever the rate) and the hosted pages' cached profile (once per 30 s).
    expect((await call(gw.baseUrl, 'POST', '/Gateway/v1/Account/query-balance', { key: m.test.apiKey })).status).toBe(200);
    await getMerchantCached(m.merchantId);

    const merchant = m;
    await runOperations(
      tag,
      {
        async api(path, body) {
          const r = await call(gw.baseUrl, 'POST', `/Gateway/v1${path}`, {
            key: merchant.test.apiKey,
            secret: merchant.test.secretKey,
            body,
            headers: { 'Idempotency-Key': randomUUID() },
          });
          if (r.status >= 300) throw new Error(`POST ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
          return r.json;
        },
        async form(path, fields) {
          const page = fields ? await postForm(gw.baseUrl, path, fields) : await getPage(gw.baseUrl, path);
          return { status: page.status, ...(fields ? {} : { csrf: (page as { csrf?: string }).csrf }) };
        },
        // The sweeps as the sweeper runs them, on the due shards these items sit in (not all 32 of each index).
        async sweep(ids, kind, laterMs) {
          for (const ms of laterMs) {
            const at = new Date(Date.now() + ms);
            if (kind === 'money')
              await processDueSettlementsAndRefunds(at, (item) => ids.includes(item.id), [
                ...new Set(ids.map((id) => keys.moneyDue(id, '').GSI2PK)),
              ]);
            else await processDue(at, (i) => ids.includes(i.paymentIntentId), [...new Set(ids.map((id) => keys.due(id, '').GSI2PK))]);
          }
        },
        approveRefund: (id) => approveRefund(id),
        intentStatus: async (id) => (await getIntent(id))?.status,
        refundStatus: async (id) => (await getRefund(id))?.status,
      },
      instances,
    );

    // Every event the operations committed, delivered (the relay and the dispatcher run meanwhile).
    const events = tag.eventsCommitted('webhook.delivery');
    await receiver.waitFor((d) => new Set(d.map((x) => x.event.id)).size >= events, 60_000);
    // The dispatcher writes its log after the POST: let its last batch finish before stopping it.
    await new Promise((ok) => setTimeout(ok, 1_000));
    await running?.stop();
    running = undefined;
    tag.tally('webhook.delivery').count = events;
  } finally {
    stop();
  }

  // The relay and dispatcher run concurrently: a key is shared by deliveries when it names nothing
  // but the merchant (or nothing at all), not the event, its transaction or its delivery.
  const merchantWide = (key: string) =>
    !/[0-9a-f]{8}-[0-9a-f]{4}|evt_|_[0-9A-Za-z]{16,}/.test(key.replaceAll(m.merchantId, 'M').replace(/ \(each of \d+\)$/, ''));
  const families = shardFamilies(m.merchantId, shards);
  const operations = [...tag.tallies].map(([op, t]) => summarise(op, t, op === 'webhook.delivery' ? merchantWide : undefined, families));
  const byName = new Map(operations.map((o) => [o.operation, o]));
  const deliveriesPer = (rates: Record<string, number>) =>
    Object.entries(rates).reduce((a, [op, rate]) => a + rate * (byName.get(op)?.outboxEventsPerOperation ?? 0), 0);
  const mix = mixLoad(operations, { ...targetMix, 'webhook.delivery': deliveriesPer(targetMix) });
  const { 'webhook.delivery': delivered, ...operationTargets } = targets;
  const all = mixLoad(operations, { ...operationTargets, 'webhook.delivery': Math.max(delivered, deliveriesPer(operationTargets)) });
  return { operations, byName, mix, all, deliveries: tag.tally('webhook.delivery').count };
}

const total = (o: OperationResult) => ({
  wcu: Math.round(Object.values(o.perOperation).reduce((a, u) => a + u.wcu, 0) * 100) / 100,
  rcu: Math.round(Object.values(o.perOperation).reduce((a, u) => a + u.rcu, 0) * 100) / 100,
});

describe(`capacity: one merchant on ${shards} shards`, () => {
  let measured: Measured;
  beforeAll(async () => {
    measured = await measure();
    const lines = measured.operations.map((o) => {
      const t = total(o);
      const where = Object.entries(o.perOperation)
        .map(([w, u]) => `${w} ${u.rcu}/${u.wcu}`)
        .join(', ');
      const trips = Object.entries(o.roundTrips)
        .map(([s, r]) => `${s} ${r.perInstance}`)
        .join(', ');
      return (
        `${o.operation.padEnd(17)} ${String(t.wcu).padStart(6)} WCU ${String(t.rcu).padStart(6)} RCU  $${o.usdPerMillion}/M  ` +
        `events ${o.outboxEventsPerOperation}  ` +
        `ceiling ${o.ceilingPerSecond}/s (${o.limitedBy})  [${where}]  round trips: ${trips}`
      );
    });
    const hot = measured.operations.flatMap((o) =>
      o.keys
        .filter((k) => k.wcu >= 0.2 || k.rcu >= 0.5)
        .map((k) => `  ${o.operation.padEnd(17)} ${k.where.padEnd(6)} ${k.pattern.padEnd(60)} ${k.rcu}/${k.wcu}`),
    );
    const describeMix = (t: Measured['mix']) =>
      `${Object.entries(t.rates)
        .map(([op, r]) => `${op} ${Math.round(r)}/s`)
        .join(' + ')}: ${t.factor.toFixed(2)}× the hottest key's limit (${t.hottest.where} ${t.hottest.pattern}: ` +
      `${t.hottest.rcu} RCU/s, ${t.hottest.wcu} WCU/s) → ${t.sustainable ? 'sustainable' : 'NOT sustainable'}`;
    console.log(
      [
        `capacity on ${shards} shards (${instances} of each operation, ${measured.deliveries} deliveries), per operation:`,
        ...lines,
        'keys per operation (RCU/WCU, hash-placed families per member):',
        ...hot,
        `target mix ${describeMix(measured.mix)}`,
        ...measured.mix.top.map(
          (k) => `  ${(k.factor * 100).toFixed(0).padStart(3)} %  ${k.where.padEnd(6)} ${k.pattern}: ${k.rcu} RCU/s, ${k.wcu} WCU/s`,
        ),
        `every target at once ${describeMix(measured.all)}`,
      ].join('\n'),
    );
  }, 240_000);

  it('sustains the target mix: 2,000 paid checkouts/s, 500 payouts/s and the webhook deliveries they cause', () => {
    expect(measured.mix.rates['webhook.delivery']).toBeGreaterThanOrEqual(2_500);
    expect(measured.mix.sustainable, `${measured.mix.hottest.where} ${measured.mix.hottest.pattern}`).toBe(true);
  });

  it.each(Object.entries(targets))('%s: its ceiling alone is at least %i/s', (op, target) => {
    const o = measured.byName.get(op);
    expect(o, op).toBeDefined();
    expect(o!.ceilingPerSecond, `${op} limited by ${o!.limitedBy}`).toBeGreaterThanOrEqual(target);
  });

  it.each(Object.entries(budgets))('%s: its capacity units stay within the budget', (op, budget) => {
    const o = measured.byName.get(op)!;
    const t = total(o);
    expect(t.wcu, `${op} write units`).toBeLessThanOrEqual(budget.wcu);
    expect(t.rcu, `${op} read units`).toBeLessThanOrEqual(budget.rcu);
  });
});
