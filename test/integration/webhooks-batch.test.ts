import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { metricNames } from '#shared/metrics.ts';
import { addDbMiddleware } from '#shared/store/client.ts';
import { getEndpointHealth } from '#shared/store/webhook-health.ts';
import { getDelivery } from '#shared/store/webhooks.ts';
import { dispatch, dispatchBatch, type DispatchPorts } from '#shared/webhooks/dispatcher.ts';
import type { DeliveryMessage } from '#shared/webhooks/messages.ts';
import { newMerchant } from '../support/gateway.ts';
import { captureJsonLines } from '../support/output.ts';
import { startReceiver, useWebhookStack, type Receiver, type Reply } from '../support/webhooks.ts';

/**
 * What one dispatcher batch costs (issue 26, docs/scaling.md): the DynamoDB calls it makes and
 * the EMF lines it writes, with the dispatcher called directly against DynamoDB Local and a real
 * receiver on 127.0.0.1. Metrics are on, as inside Lambda.
 */
useWebhookStack([]);
const metricsSetting = process.env.POWERTOOLS_METRICS_DISABLED;
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
const receivers: Receiver[] = [];
afterAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = metricsSetting;
  await Promise.all(receivers.map((r) => r.stop()));
});

const ports: DispatchPorts = {
  deadLetter: async () => {
    throw new Error('not expected');
  },
  requeue: async () => {
    throw new Error('not expected');
  },
};

function message(merchantId: string): DeliveryMessage {
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const paymentIntentId = randomUUID();
  return {
    v: 1,
    eventId,
    paymentIntentId,
    merchantId,
    mode: 'test',
    callbackUrl: null,
    eventCreatedAt: new Date().toISOString(),
    roundId: 'initial',
    event: {
      id: eventId,
      type: 'TransactionStatusChanged',
      created: 0,
      livemode: false,
      api_version: 'v1',
      data: { TransactionId: paymentIntentId },
    } as DeliveryMessage['event'],
  };
}

/** The commands the shared DynamoDB client sends while `run` runs. */
async function commandsOf<T>(run: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const commands: string[] = [];
  const name = 'webhooksBatchTestCounter';
  const removeMiddleware = addDbMiddleware(name, (stack) =>
    stack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName).replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize', name },
    ),
  );
  try {
    return { result: await run(), commands };
  } finally {
    removeMiddleware();
  }
}

describe('a dispatcher batch', () => {
  it('reads its delivery items and its destinations health with ONE BatchGetItem and writes with one BatchWriteItem', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const { merchantId } = await newMerchant({ name: 'Batch', webhookUrl: hook.url, allowInsecureWebhooks: true });
    // A failure first, so the destination has a health item the batch must read (failingSince).
    let status = 500;
    const failing = await startReceiver(() => status);
    receivers.push(failing);
    const other = await newMerchant({ name: 'Batch failing', webhookUrl: failing.url, allowInsecureWebhooks: true });
    const retried: DeliveryMessage[] = [];
    captureJsonLines(); // the metrics lines of this test are not its subject
    await dispatch(message(other.merchantId), { ...ports, requeue: async (m) => void retried.push(m) });
    expect(retried).toHaveLength(1);
    status = 200;
    // Warm: the merchant cache and the feed's shard count, which a first batch reads once per process.
    await dispatch(message(merchantId), ports);

    const batch = [message(merchantId), message(merchantId), message(other.merchantId)];
    const { result, commands } = await commandsOf(() =>
      dispatchBatch(
        batch.map((m, ref) => ({ ref, message: m })),
        ports,
      ),
    ).finally(() => vi.restoreAllMocks());
    expect(result.map((r) => r.result.kind)).toEqual(['delivered', 'delivered', 'delivered']);
    // The success after the failure ends the streak (the health item read in the batch's one read).
    expect(commands).toEqual(['BatchGetItem', 'UpdateItem', 'BatchWriteItem']);
    const [health] = (await getEndpointHealth([{ merchantId: other.merchantId, mode: 'test', url: failing.url }])).values();
    expect(health?.failingSince).toBeUndefined();
  });

  /** A merchant whose endpoint answers 500, after one failed delivery (its health item has a streak; the merchant cache is warm). */
  async function downDestination(name: string) {
    const down = await startReceiver(() => 500);
    receivers.push(down);
    const { merchantId } = await newMerchant({ name, webhookUrl: down.url, allowInsecureWebhooks: true });
    const retried: DeliveryMessage[] = [];
    const retrying = { ...ports, requeue: async (m: DeliveryMessage) => void retried.push(m) };
    captureJsonLines();
    await dispatch(message(merchantId), retrying).finally(() => vi.restoreAllMocks());
    const [before] = (await getEndpointHealth([{ merchantId, mode: 'test', url: down.url }])).values();
    expect(before?.failingSince).toBeDefined();
    return { down, merchantId, retried, retrying, before: before! };
  }

  it('writes the health of an endpoint that is down once per batch, not once per failed attempt', async () => {
    const { down, merchantId, retrying, before } = await downDestination('Batch down');

    const batch = [message(merchantId), message(merchantId), message(merchantId), message(merchantId)];
    captureJsonLines();
    const { result, commands } = await commandsOf(() =>
      dispatchBatch(
        batch.map((m, ref) => ({ ref, message: m })),
        retrying,
      ),
    ).finally(() => vi.restoreAllMocks());
    expect(result.map((r) => r.result.kind)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect(down.deliveries).toHaveLength(5);
    expect(commands).toEqual(['BatchGetItem', 'UpdateItem', 'BatchWriteItem']);
    const [after] = (await getEndpointHealth([{ merchantId, mode: 'test', url: down.url }])).values();
    expect(after?.failingSince).toBe(before.failingSince); // the streak keeps its first failure
    expect(after!.lastFailureAt! > before.lastFailureAt!).toBe(true);
  });

  it('records its attempts and lets its messages go even when a health write fails, so nothing is POSTed twice', async () => {
    const { down, merchantId, retried, retrying, before } = await downDestination('Batch health fails');

    // The health item's UpdateItem is refused (as a throttled write would be); every other call reaches DynamoDB Local.
    const name = 'webhooksBatchHealthRefused';
    const removeMiddleware = addDbMiddleware(name, (stack) =>
      stack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'UpdateItemCommand') {
            throw Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });
          }
          return next(args);
        },
        { step: 'initialize', name },
      ),
    );
    const batch = [message(merchantId), message(merchantId)];
    const logs = captureJsonLines();
    const result = await dispatchBatch(
      batch.map((m, ref) => ({ ref, message: m })),
      retrying,
    ).finally(() => {
      removeMiddleware();
      vi.restoreAllMocks();
    });
    expect(result.map((r) => r.result.kind)).toEqual(['retry', 'retry']);
    expect(down.deliveries).toHaveLength(3);
    expect(retried.map((m) => m.eventId).slice(-2)).toEqual(batch.map((m) => m.eventId));
    for (const m of batch) {
      const delivery = await getDelivery(m.paymentIntentId!, m.eventId);
      expect(delivery?.attempts, m.eventId).toBe(1);
      expect(delivery?.lastStatusCode).toBe(500);
    }
    expect(logs.some((l) => l.level === 'WARN' && String(l.message).includes('health not recorded'))).toBe(true);
    const [after] = (await getEndpointHealth([{ merchantId, mode: 'test', url: down.url }])).values();
    expect(after?.lastFailureAt).toBe(before.lastFailureAt); // the refused write changed nothing
  });

  it('orders a batch by when the answers came: a later success ends a streak, later failures start a new one', async () => {
    const replies: Reply[] = [];
    const flaky = await startReceiver((_, all) => replies[all.length - 1] ?? 500);
    receivers.push(flaky);
    const { merchantId } = await newMerchant({ name: 'Batch flaky', webhookUrl: flaky.url, allowInsecureWebhooks: true });
    const url = flaky.url;
    const healthNow = async () => [...(await getEndpointHealth([{ merchantId, mode: 'test', url }])).values()][0];
    const retrying = { ...ports, requeue: async () => undefined };
    const two = async (first: Reply, second: Reply) => {
      const sent = flaky.deliveries.length;
      // By arrival: whichever of the two requests comes first gets `first`.
      replies[sent] = first;
      replies[sent + 1] = second;
      const batch = [message(merchantId), message(merchantId)];
      return dispatchBatch(
        batch.map((m, ref) => ({ ref, message: m })),
        retrying,
      );
    };
    captureJsonLines();
    try {
      await dispatch(message(merchantId), retrying); // reply 0: 500, a streak begins
      const streak = (await healthNow())?.failingSince;
      expect(streak).toBeDefined();
      // A fast failure, then a slow success: the batch ends on a success.
      await two(500, { status: 200, delayMs: 300 });
      expect((await healthNow())?.failingSince).toBeUndefined();
      // A fast success, then a slow failure: a new streak, from that failure.
      await two(200, { status: 500, delayMs: 300 });
      const restarted = await healthNow();
      expect(restarted?.failingSince).toBeDefined();
      expect(restarted!.failingSince! > streak!).toBe(true);
      expect(restarted!.failingSince).toBe(restarted!.lastFailureAt);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('writes its metrics as one EMF line per dimension set, each value a sample', async () => {
    const hook = await startReceiver(() => 200);
    receivers.push(hook);
    const { merchantId } = await newMerchant({ name: 'Batch metrics', webhookUrl: hook.url, allowInsecureWebhooks: true });
    const batch = [message(merchantId), message(merchantId), message(merchantId)];
    const lines = captureJsonLines();
    try {
      await dispatchBatch(
        batch.map((m, ref) => ({ ref, message: m })),
        ports,
      );
    } finally {
      vi.restoreAllMocks();
    }
    const emf = lines.filter((l) => l._aws);
    const attempts = emf.filter((l) => metricNames.webhookAttempts in l);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ Outcome: 'delivered', [metricNames.webhookAttempts]: [1, 1, 1] });
    expect(attempts[0]._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'Outcome']]);
    const latency = emf.filter((l) => metricNames.commitToDelivery in l);
    expect(latency).toHaveLength(1);
    expect(latency[0][metricNames.commitToDelivery]).toHaveLength(3);
    expect(latency[0]._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: metricNames.commitToDelivery, Unit: 'Milliseconds' }]);
  });
});
