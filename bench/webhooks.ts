import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobs, type Job } from '#functions/jobs.ts';
import type { Route } from '#functions/routes.ts';
import { bundleRoute } from './bundles.ts';
import { benchCleanups, processCpuMs, startBenchStack } from './local-stack.ts';
import { keepRun } from './report.ts';
import { targets } from './targets.ts';

/**
 * `npm run bench -- webhooks`: the webhook pipeline on the local stack. DynamoDB Local (in memory),
 * local SQS and a receiver on 127.0.0.1 run in their own processes (bench/webhook-peers.ts); this
 * process commits the status changes and runs the stream relay and the dispatcher of
 * functions/jobs.ts through the local job runner, as `npm start` does.
 *
 *   1. commit-to-receiver latency: BENCH_WEBHOOK_EVENTS (200) status changes committed with
 *      changeStatus() (test/support/intents.ts), one every BENCH_WEBHOOK_GAP_MS (20) ms; latency = the receiver has the whole
 *      body − changeStatus() returned (the commit), by the wall clock. Targets p50 ≤ 1 s, p99 ≤ 3 s.
 *   2. deliveries per second of one dispatcher process: BENCH_WEBHOOK_DELIVERIES (2000) messages
 *      queued first, then the dispatcher alone (BENCH_WEBHOOK_POLLERS = 20 queue pollers of 10, the job's maxConcurrency)
 *      until the receiver has them all. Target ≥ 1,000/s. Then the same number handed straight to the
 *      dispatcher's handler in batches of 10, BENCH_WEBHOOK_POLLERS at once, without the queue (what an
 *      event source mapping does in AWS): the difference is the local queue's share.
 *      Besides the rate, the CPU per delivery of this process and of DynamoDB Local, local SQS and the
 *      receiver (/proc), since on a shared 2-core machine the wall-clock rate says more about the
 *      machine than about the dispatcher. And the DynamoDB calls per delivery by command, with the keys
 *      read, the items written and the capacity units DynamoDB Local answers (docs/scaling.md).
 * Also the bundle sizes of the two job functions. Results: bench/results/webhooks.json.
 */
const eventsForLatency = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 200);
const gapMs = Number(process.env.BENCH_WEBHOOK_GAP_MS ?? 20);
const deliveriesForThroughput = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 2000);
/** As many pollers as the dispatcher's queue trigger may run at once in AWS (maxConcurrency, 20). */
const dispatcherTrigger: Job['trigger'] = jobs.webhookDispatcher.trigger;
const pollers = Number(
  process.env.BENCH_WEBHOOK_POLLERS ?? (dispatcherTrigger.kind === 'queue' ? dispatcherTrigger.maxConcurrency : undefined) ?? 16,
);
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function waitUntil(done: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The issue's figures before the work (issue 26, this 2-core machine, old main). */
const before = { p50Ms: 86, p99Ms: 241, perSecond: 465, cpuMsPerDelivery: 0.95 };

export async function runWebhookBench(): Promise<number> {
  const loadAtStart = loadavg();
  const { cleanups, cleanup, interrupted } = benchCleanups();
  const errors: string[] = [];
  try {
    // 1. Bundles of the two job functions, as the stack builds them.
    const outDir = mkdtempSync(join(tmpdir(), 'webhook-bench-'));
    cleanups.push(() => rmSync(outDir, { recursive: true, force: true }));
    const bundles: Record<string, { bytes: number; met: boolean } | { error: string }> = {};
    for (const job of [jobs.webhookRelay, jobs.webhookDispatcher] as Job[]) {
      try {
        const b = await bundleRoute({ id: job.id, handler: job.handler } as Route, outDir);
        bundles[job.id] = { bytes: b.bytes, met: b.bytes <= targets.bundleBytes };
      } catch (error) {
        bundles[job.id] = { error: (error as Error).message };
        errors.push(`${job.id}: bundling failed: ${(error as Error).message}`);
      }
    }

    // 2. The local stack.
    const { peer, queues, pids } = await startBenchStack('payment-gateway-webhook-bench', cleanups);
    const { startJobs } = await import('../scripts/local/jobs.ts');
    const { db, captureConsumedCapacity } = await import('#shared/store/client.ts');
    cleanups.push(() => db().destroy());
    const { createMerchant } = await import('#shared/services/merchants.ts');
    const { changeStatus } = await import('../test/support/intents.ts');
    const { publish } = await import('#shared/webhooks/queue.ts');

    const arrivals = new Map<string, number>();
    const receiver = await peer(['receiver']);
    receiver.child.on('message', (m: { arrivals?: [string, number][] }) => {
      for (const [id, at] of m.arrivals ?? []) arrivals.set(id, at);
    });
    const receiverUrl = receiver.ready;
    pids.receiver = receiver.child.pid;
    const merchant = await createMerchant({ name: 'Webhook Bench', webhookUrl: receiverUrl, allowInsecureWebhooks: true });

    const { seedIntent } = await import('../test/support/intents.ts');
    const newIntent = () => seedIntent(merchant.merchantId, 'test', { description: 'Bench order' });

    // 3. Commit-to-receiver latency.
    const relayAndDispatcher = startJobs(
      { queueUrl: queues.queueUrl, sqsEndpoint: queues.endpoint, deadLetterQueueUrl: queues.deadLetterQueueUrl },
      [jobs.webhookRelay, jobs.webhookDispatcher],
    );
    cleanups.push(() => relayAndDispatcher.stop());
    const warmup = 20;
    console.log(`latency: ${warmup} warm-up + ${eventsForLatency} status changes, one every ${gapMs} ms...`);
    const intents = [];
    for (let i = 0; i < warmup + eventsForLatency; i++) intents.push(await newIntent());
    const commits = new Map<string, number>();
    for (const [i, intent] of intents.entries()) {
      if (interrupted()) return 130;
      const started = performance.now();
      const change = await changeStatus(intent.paymentIntentId, () => ({ to: 'Completed' }));
      if (!change.changed) throw new Error('status change did not apply');
      if (i >= warmup) commits.set(change.transition.event.id, Date.now());
      await sleep(Math.max(0, gapMs - (performance.now() - started)));
    }
    await waitUntil(() => [...commits.keys()].every((id) => arrivals.has(id)), 60_000, 'every latency event at the receiver');
    const latencies = [...commits].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
    const latency = {
      events: latencies.length,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies.at(-1)!,
      meanMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    };
    await relayAndDispatcher.stop();

    // 4. Deliveries per second of one dispatcher process.
    const template = intents[0]!;
    const newMessages = (count: number) =>
      Array.from({ length: count }, (_, i) => {
        const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
        const paymentIntentId = randomUUID();
        const createdAt = new Date().toISOString();
        return {
          id: String(i),
          message: {
            v: 1 as const,
            eventId,
            paymentIntentId,
            merchantId: merchant.merchantId,
            mode: 'test' as const,
            callbackUrl: null,
            eventCreatedAt: createdAt,
            roundId: 'initial',
            event: {
              id: eventId,
              type: 'TransactionStatusChanged' as const,
              created: Math.floor(Date.now() / 1000),
              livemode: false,
              api_version: 'v1' as const,
              data: {
                TransactionId: paymentIntentId,
                PreviousStatus: 'Pending' as const,
                CurrentStatus: 'Completed' as const,
                Amount: 150,
                Currency: 'PKR',
                Reason: null,
                ReasonDetail: null,
                TransactionReference: template.transactionReference,
                CustomerRef: null,
                OrderRef: JSON.stringify({ OrderRef: template.orderRef.orderRef, Discount: null, Tax: null }),
                MerchantId: merchant.merchantId,
                Timestamp: createdAt,
                TraceId: randomUUID(),
                IntentType: 'checkout',
                MetadataJson: null,
              },
            },
          },
        };
      });
    /** Runs `deliver` until the receiver has `count` new deliveries: rate, this process's CPU and the other processes' CPU. */
    const measure = async (count: number, deliver: () => Promise<unknown>) => {
      arrivals.clear();
      // Round trips to DynamoDB per delivery, by command, with the keys read and items written and the
      // capacity units AWS would bill for them (tables and indexes, as DynamoDB Local answers
      // ReturnConsumedCapacity): what the batch costs the table in AWS, apart from any machine's load.
      const dynamo: Record<string, { calls: number; items: number; capacityUnits: number }> = {};
      const stopCapture = captureConsumedCapacity(({ command, input, consumed }) => {
        const entry = (dynamo[command] ??= { calls: 0, items: 0, capacityUnits: 0 });
        const requested = Object.values((input.RequestItems ?? {}) as Record<string, unknown[] | { Keys: unknown[] }>);
        entry.calls++;
        entry.items += requested.reduce((n, r) => n + (Array.isArray(r) ? r.length : r.Keys.length), 0) || 1;
        entry.capacityUnits += consumed.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
      });
      const started = Date.now();
      const peersBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
      const cpuBefore = process.cpuUsage();
      const running = deliver();
      await waitUntil(() => arrivals.size >= count, 300_000, 'every delivery at the receiver');
      const seconds = (Math.max(...arrivals.values()) - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      // The other processes' CPU over the same window (Linux /proc; absent elsewhere).
      const peers = Object.fromEntries(
        Object.entries(pids).flatMap(([name, pid]) => {
          const [before, after] = [peersBefore[name], processCpuMs(pid)];
          return before === undefined || after === undefined ? [] : [[name, (after - before) / count]];
        }),
      );
      await running;
      stopCapture();
      // CPU this process spent per delivery: what one dispatcher process could do if DynamoDB Local and
      // the other processes sharing the machine kept up.
      const cpuMsPerDelivery = (cpu.user + cpu.system) / 1000 / count;
      return {
        deliveries: count,
        seconds,
        perSecond: count / seconds,
        pollers,
        cpuMsPerDelivery,
        cpuBoundPerSecond: 1000 / cpuMsPerDelivery,
        /** CPU ms per delivery of the processes around the dispatcher (they share this machine's cores with it). */
        peerCpuMsPerDelivery: peers as Record<string, number>,
        /** Per delivery: DynamoDB calls, keys read or items written, capacity units, by command. */
        dynamoPerDelivery: Object.fromEntries(
          Object.entries(dynamo).map(([command, d]) => [
            command,
            { calls: d.calls / count, items: d.items / count, capacityUnits: d.capacityUnits / count },
          ]),
        ),
      };
    };

    // 4a. Through local SQS, as `npm start` runs it: the local poller receives and deletes.
    console.log(`throughput: ${deliveriesForThroughput} queued deliveries, dispatcher with ${pollers} pollers...`);
    const queued = newMessages(deliveriesForThroughput);
    for (let i = 0; i < queued.length; i += 100) {
      const failed = await publish(queued.slice(i, i + 100));
      if (failed.length) throw new Error(`could not queue ${failed.length} messages`);
    }
    let dispatcher: { stop(): Promise<void> } | undefined;
    const throughput = await measure(deliveriesForThroughput, async () => {
      dispatcher = startJobs(
        { queueUrl: queues.queueUrl, sqsEndpoint: queues.endpoint, deadLetterQueueUrl: queues.deadLetterQueueUrl, queuePollers: pollers },
        [jobs.webhookDispatcher],
      );
      cleanups.push(() => dispatcher!.stop());
    });
    await dispatcher!.stop();

    // 4b. The dispatcher's handler alone, handed batches of 10 in this process as the event source
    // mapping hands them to a Lambda (no queue): what holds in AWS, per invocation. The difference to
    // 4a is the local queue's (receive and delete calls, local-aws-sqs).
    console.log(`throughput: ${deliveriesForThroughput} deliveries handed to the dispatcher's handler, ${pollers} batches at once...`);
    const { handler } = await import('../functions/webhooks/dispatch.ts');
    const { jobContext } = await import('../scripts/local/jobs.ts');
    const { sqsEvent } = await import('../scripts/local/modules.ts');
    const direct = newMessages(deliveriesForThroughput).map(({ message }) => ({
      MessageId: randomUUID(),
      ReceiptHandle: randomUUID(),
      Body: JSON.stringify(message),
      Attributes: { ApproximateReceiveCount: '1' },
    }));
    let next = 0;
    const handlerAlone = await measure(deliveriesForThroughput, () =>
      Promise.all(
        Array.from({ length: pollers }, async () => {
          for (let i = (next += 10) - 10; i < direct.length; i = (next += 10) - 10) {
            const out = await handler(
              sqsEvent(direct.slice(i, i + 10), 'arn:aws:sqs:local:000000000000:bench', 'local'),
              jobContext(jobs.webhookDispatcher),
            );
            if (out.batchItemFailures.length) throw new Error(`${out.batchItemFailures.length} messages failed`);
          }
        }),
      ),
    );

    const t = targets.webhooks;
    const cores = cpus().length;
    /** All the processes' CPU per delivery, and the rate this machine's cores would give if nothing else ran. */
    const machineBound = (m: typeof throughput) => {
      const totalMs = m.cpuMsPerDelivery + Object.values(m.peerCpuMsPerDelivery).reduce((a, b) => a + b, 0);
      return { totalCpuMsPerDelivery: totalMs, perSecond: (cores * 1000) / totalMs };
    };
    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      machine: { cores, loadAtStart, loadAtEnd: loadavg() },
      before,
      targets: t,
      latency: { ...latency, met: latency.p50Ms <= t.p50Ms && latency.p99Ms <= t.p99Ms },
      throughput: { ...throughput, machineBound: machineBound(throughput), met: throughput.perSecond >= t.deliveriesPerSecond },
      handlerAlone: { ...handlerAlone, machineBound: machineBound(handlerAlone) },
      localQueueCpuMsPerDelivery: throughput.cpuMsPerDelivery - handlerAlone.cpuMsPerDelivery,
      bundles,
      errors,
    };
    const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    const f = (n: number) => n.toFixed(2);
    const others = (m: typeof throughput) =>
      Object.entries(m.peerCpuMsPerDelivery)
        .map(([name, cpuMs]) => `${name} ${f(cpuMs)}`)
        .join(', ');
    /** DynamoDB per delivery by command; one BatchGetItem per batch, so its calls per delivery give the batches' mean size. */
    const dynamoLine = (m: typeof throughput) => {
      const perCommand = Object.entries(m.dynamoPerDelivery)
        .map(([command, d]) => `${command} ${f(d.calls)} calls, ${f(d.items)} items, ${f(d.capacityUnits)} capacity units`)
        .join('; ');
      const gets = m.dynamoPerDelivery.BatchGetItem?.calls;
      return `${perCommand}${gets ? ` (≈ ${(1 / gets).toFixed(1)} deliveries per batch)` : ''}`;
    };
    const text = `commit → receiver latency (n=${latency.events}): p50 ${latency.p50Ms.toFixed(0)} ms (≤ ${t.p50Ms}) \
${mark(latency.p50Ms <= t.p50Ms)}, p99 ${latency.p99Ms.toFixed(0)} ms (≤ ${t.p99Ms}) ${mark(latency.p99Ms <= t.p99Ms)}, \
max ${latency.maxMs.toFixed(0)} ms (before: p50 ${before.p50Ms} ms, p99 ${before.p99Ms} ms)
deliveries per second, one dispatcher process through local SQS: ${throughput.perSecond.toFixed(0)}/s (≥ ${t.deliveriesPerSecond}) \
${mark(report.throughput.met)} (before: ${before.perSecond}/s; ${throughput.deliveries} in ${throughput.seconds.toFixed(2)} s, \
${pollers} pollers × 10)
  CPU ms per delivery: dispatcher process ${f(throughput.cpuMsPerDelivery)} (before ${before.cpuMsPerDelivery}; \
≈ ${throughput.cpuBoundPerSecond.toFixed(0)}/s if it were the only limit); ${others(throughput)}; \
all ${f(report.throughput.machineBound.totalCpuMsPerDelivery)}: ≈ ${report.throughput.machineBound.perSecond.toFixed(0)}/s \
on ${cores} idle cores
the handler alone (batches of 10 handed over in-process, ${pollers} at once, no queue): ${handlerAlone.perSecond.toFixed(0)}/s; \
CPU ms per delivery: handler ${f(handlerAlone.cpuMsPerDelivery)} (≈ ${handlerAlone.cpuBoundPerSecond.toFixed(0)}/s on one core); \
${others(handlerAlone)}
  the local queue's share of the dispatcher process: ${f(report.localQueueCpuMsPerDelivery)} ms per delivery \
(receive and delete: in AWS the event source mapping's, outside the function)
DynamoDB per delivery through local SQS: ${dynamoLine(throughput)}; handler alone: ${dynamoLine(handlerAlone)}
bundles: ${Object.entries(bundles)
      .map(([id, b]) => ('bytes' in b ? `${id} ${(b.bytes / 1000).toFixed(1)} kB ${mark(b.met)}` : `${id} ERROR`))
      .join(', ')} (≤ ${(targets.bundleBytes / 1000).toFixed(0)} kB)
machine: ${report.machine.cores} cores, load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')} at start, \
${report.machine.loadAtEnd.map((l) => l.toFixed(1)).join(' ')} at end`;
    console.log(`\n${text}`);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'webhooks.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(resultsDir, 'webhooks.md'), `# npm run bench -- webhooks, ${report.generatedAt}\n\n\`\`\`\n${text}\n\`\`\`\n`);
    const kept = keepRun(resultsDir, 'webhooks', 'npm run bench -- webhooks', text);
    console.log(`wrote bench/results/webhooks.json, webhooks.md and ${kept.slice(resultsDir.length)}`);
    return errors.length ? 1 : 0;
  } catch (error) {
    if (interrupted()) return 130;
    console.error('webhook bench crashed:', error);
    return 1;
  } finally {
    await cleanup();
  }
}
