import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limits, mixLoad, type OperationResult, prices, shardFamilies, summarise, targetMix } from './heat-model.ts';
import { type OperationDriver, OperationTagger, runOperations } from './heat-operations.ts';
import { benchCleanups, startBenchStack, startLocalApi } from './local-stack.ts';

/**
 * `npm run bench -- heat`: ONE merchant, mode and currency at volume. A realistic, bounded mix runs
 * through the real handlers (local API Gateway emulation) on DynamoDB Local, sequentially, each
 * instance of an operation tagged, with `ReturnConsumedCapacity: INDEXES` on every call
 * (captureConsumedCapacity in shared/store/client.ts):
 *   checkout.paid       POST initiate-checkout, the hosted page, the card form, the sweeps to Completed
 *   deposit.approved    POST deposit, the sandbox wallet's approval (sweeps) to Completed
 *   withdrawal.auto     POST withdraw (autoProcessPayout), the bank rail (sweeps) to Completed
 *   refund.approved     POST /Refunds on a paid checkout, operator approval, the rail (sweeps) to Completed
 *   webhook.delivery    the outbox relay and the dispatcher delivering every event above to a 127.0.0.1 receiver
 * Per operation: read and write units in total (table and each index) and on the hottest partition
 * key of each; the ceiling (operations per second before a key passes 1,000 WCU/s or 3,000 RCU/s);
 * the cost per million at on-demand prices; the round trips of each step. Then the target mix
 * (2,000 paid checkouts/s with 500 payouts/s, and the webhooks they cause). The model:
 * docs/scaling.md. Results: bench/results/heat.json. Knobs: BENCH_HEAT_OPS (25 per operation),
 * BENCH_HEAT_SHARDS (wallet shards of the merchant, default: the runs listed in `shardRuns`).
 */
const perOperation = Number(process.env.BENCH_HEAT_OPS ?? 25);
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

interface Run {
  shards: number;
  operations: OperationResult[];
  targetMix: ReturnType<typeof mixLoad>;
  /** Each operation alone with the webhooks it causes (its outbox events delivered). */
  withWebhooks: Record<string, { ceilingPerSecond: number; limitedBy: string }>;
}

export async function runHeatBench(): Promise<number> {
  const { cleanups, cleanup } = benchCleanups();
  try {
    const { peer, queues } = await startBenchStack('payment-gateway-heat-bench', cleanups);
    const arrivals = new Set<string>();
    const receiver = await peer(['receiver']);
    receiver.child.on('message', (m: { arrivals?: [string, number][] }) => {
      for (const [id] of m.arrivals ?? []) arrivals.add(id);
    });

    const { db, captureConsumedCapacity } = await import('#shared/store/client.ts');
    cleanups.push(() => db().destroy());
    const { jobs } = await import('#functions/jobs.ts');
    const { startJobs } = await import('../scripts/local/jobs.ts');
    const { createMerchant, creditTestWallet, setWebhook } = await import('#shared/services/merchants.ts');
    const { processDue } = await import('#shared/services/due.ts');
    const { processDueSettlementsAndRefunds } = await import('#shared/services/money-sweep.ts');
    const { approveRefund } = await import('#shared/services/refunds.ts');
    const { getIntent } = await import('#shared/store/intents.ts');
    const { getRefund } = await import('#shared/store/refunds.ts');
    const { signBody } = await import('#shared/domain/body-signature.ts');
    const { raiseShards } = await import('#shared/store/shards.ts');

    const baseUrl = await startLocalApi(cleanups);

    // Every call is tagged with the operation and step running (bench/heat-operations.ts).
    const tag = new OperationTagger();
    cleanups.push(captureConsumedCapacity(tag.record));

    const runs: Run[] = [];
    const shardRuns = process.env.BENCH_HEAT_SHARDS ? process.env.BENCH_HEAT_SHARDS.split(',').map(Number) : [1, 16];
    for (const shards of shardRuns) {
      tag.tallies = new Map();
      arrivals.clear();
      console.log(`\n== one merchant on ${shards} shard(s) — ${perOperation} of each operation ==`);
      const merchant = await createMerchant({ name: `Heat ${shards}` });
      await setWebhook(merchant.merchantId, 'test', receiver.ready, true);
      if (shards > 1) await raiseShards(merchant.merchantId, 'test', shards, { immediate: true });
      // Funded as a busy merchant's wallet is, by many credits (each on a shard chosen by its journal
      // id), not one: then a payout's hold finds its amount on most shards (shared/store/wallets.ts).
      const fundings = shards > 1 ? shards * 8 : 1;
      for (let i = 0; i < fundings; i++) await creditTestWallet(merchant.merchantId, 'test', Math.floor(10_000_000_00 / fundings), 'PKR');
      const keys = merchant.test;
      const driver: OperationDriver = {
        async api(path, body) {
          const headers: Record<string, string> = {
            'Svc-API-Key': keys.apiKey,
            'Idempotency-Key': randomUUID(),
            'Content-Type': 'application/json',
          };
          const payload = JSON.stringify({ ...body, signature: signBody(body, keys.secretKey) });
          const response = await fetch(`${baseUrl}/Gateway/v1${path}`, { method: 'POST', headers, body: payload });
          const text = await response.text();
          if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
          return JSON.parse(text);
        },
        async form(path, fields) {
          const response = await fetch(`${baseUrl}${path}`, {
            method: fields ? 'POST' : 'GET',
            redirect: 'manual',
            ...(fields
              ? {
                  headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
                  body: new URLSearchParams(fields).toString(),
                }
              : {}),
          });
          const html = await response.text();
          return { status: response.status, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] };
        },
        // The sweeps as the sweeper runs them: every due shard, this merchant's intents and every money item.
        async sweep(_ids, _kind, laterMs) {
          for (const at of laterMs) {
            await processDue(new Date(Date.now() + at), (i) => i.merchantId === merchant.merchantId);
            await processDueSettlementsAndRefunds(new Date(Date.now() + at));
          }
        },
        approveRefund: (id) => approveRefund(id),
        intentStatus: async (id) => (await getIntent(id))?.status,
        refundStatus: async (id) => (await getRefund(id))?.status,
      };

      // The relay and the dispatcher, started in their own context.
      const relayAndDispatcher = tag.inJobs('webhook.delivery', () =>
        startJobs({ queueUrl: queues.queueUrl, sqsEndpoint: queues.endpoint, deadLetterQueueUrl: queues.deadLetterQueueUrl }, [
          jobs.webhookRelay,
          jobs.webhookDispatcher,
        ]),
      );
      cleanups.push(() => relayAndDispatcher.stop());

      await runOperations(tag, driver, perOperation);

      // Every event committed above delivered to the receiver.
      const events = tag.eventsCommitted('webhook.delivery');
      const deadline = Date.now() + 120_000;
      while (arrivals.size < events && Date.now() < deadline) await sleep(50);
      await relayAndDispatcher.stop();
      if (arrivals.size < events) throw new Error(`only ${arrivals.size} of ${events} events reached the receiver`);
      tag.tally('webhook.delivery').count = arrivals.size;

      // The relay and the dispatcher run concurrently, not one event at a time: a key is shared by
      // events when it names no object of its own (DUE#2, WEBHOOKDUE#1) or only the merchant.
      const merchantWide = (key: string) =>
        !/[0-9a-f]{8}-[0-9a-f]{4}|evt_|_[0-9A-Za-z]{16,}/.test(key.replaceAll(merchant.merchantId, 'M'));
      // Hash-placed shards: the expected load of one is its family's total over the member count.
      const families = shardFamilies(merchant.merchantId, shards);
      const operations = [...tag.tallies].map(([op, t]) =>
        summarise(op, t, op === 'webhook.delivery' ? merchantWide : undefined, families),
      );
      const byName = new Map(operations.map((o) => [o.operation, o]));
      const delivery = byName.get('webhook.delivery');
      const withWebhooks = Object.fromEntries(
        operations
          .filter((o) => o.operation !== 'webhook.delivery')
          .map((o) => {
            const m = mixLoad(operations, { [o.operation]: 1, 'webhook.delivery': o.outboxEventsPerOperation });
            return [o.operation, { ceilingPerSecond: Math.floor(1 / m.factor), limitedBy: `${m.hottest.where} ${m.hottest.pattern}` }];
          }),
      );
      const target = mixLoad(operations, {
        ...targetMix,
        'webhook.delivery': Object.entries(targetMix).reduce(
          (a, [op, rate]) => a + rate * (byName.get(op)?.outboxEventsPerOperation ?? 0),
          0,
        ),
      });
      runs.push({ shards, operations, targetMix: target, withWebhooks });
      print(runs.at(-1)!, delivery);
    }

    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      operationsEach: perOperation,
      limits,
      prices,
      targetMix,
      runs: runs.map((r) => ({ ...r, operations: r.operations.map((o) => ({ ...o, keys: o.keys.filter((k) => k.rcu + k.wcu >= 0.05) })) })),
    };
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'heat.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log('\nwrote bench/results/heat.json');
    return 0;
  } catch (error) {
    console.error('heat bench crashed:', error);
    return 1;
  } finally {
    await cleanup();
  }
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const padStart = (s: string | number, n: number) => String(s).padStart(n);

function print(run: Run, _delivery: OperationResult | undefined) {
  const where = [...new Set(run.operations.flatMap((o) => Object.keys(o.perOperation)))].sort((a, b) =>
    a === 'table' ? -1 : b === 'table' ? 1 : a.localeCompare(b),
  );
  console.log(`\nunits per operation (RCU/WCU): total, and on the hottest partition key`);
  console.log(
    `${pad('operation', 18)}${where.map((w) => pad(`${w} total`, 14)).join('')}${padStart('ceiling/s', 11)}  $/M ops  round trips per step`,
  );
  for (const o of run.operations) {
    const cells = where.map((w) => pad(o.perOperation[w] ? `${o.perOperation[w]!.rcu}/${o.perOperation[w]!.wcu}` : '-', 14)).join('');
    const trips = Object.entries(o.roundTrips)
      .map(([s, r]) => `${s} ${r.perInstance}`)
      .join(', ');
    console.log(
      `${pad(o.operation, 18)}${cells}${padStart(o.ceilingPerSecond === Infinity ? '∞' : o.ceilingPerSecond, 11)}  ` +
        `${padStart(o.usdPerMillion.toFixed(2), 7)}  ${trips}`,
    );
  }
  console.log(`\nhottest partition key per operation (units per operation, RCU/WCU)`);
  for (const o of run.operations) {
    for (const [w, h] of Object.entries(o.hottest))
      console.log(`  ${pad(o.operation, 18)}${pad(w, 6)}${pad(h.pattern, 52)}${h.rcu}/${h.wcu}`);
    console.log(
      `  ${pad(o.operation, 18)}ceiling ${o.ceilingPerSecond}/s alone, limited by ${o.limitedBy}; ` +
        `with its webhooks ${run.withWebhooks[o.operation]?.ceilingPerSecond ?? '-'}/s`,
    );
  }
  const t = run.targetMix;
  console.log(
    `\ntarget mix ${Object.entries(t.rates)
      .map(([op, r]) => `${op} ${Math.round(r)}/s`)
      .join(' + ')}: load ${t.factor.toFixed(2)}× the hottest key's limit ` +
      `(${t.hottest.where} ${t.hottest.pattern}: ${t.hottest.rcu} RCU/s, ${t.hottest.wcu} WCU/s) → ` +
      (t.sustainable ? 'sustainable' : 'NOT sustainable'),
  );
  console.log(
    `prices: $${prices.usdPerMillionWrite}/M write units, $${prices.usdPerMillionRead}/M read units ` +
      `(on-demand, ${prices.region}, ${prices.tableClass}); limits ${limits.wcuPerKey} WCU/s, ${limits.rcuPerKey} RCU/s per partition key`,
  );
}
