import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { enableWebhook } from '#shared/services/merchants.ts';
import { healthAttributes } from '#shared/domain/event-types.ts';
import { addDbMiddleware } from '#shared/store/client.ts';
import { getEndpointHealth, recordAttempts } from '#shared/store/webhook-health.ts';
import { getDelivery } from '#shared/store/webhooks.ts';
import { dispatch, type DispatchPorts } from '#shared/webhooks/dispatcher.ts';
import type { DeliveryMessage } from '#shared/webhooks/messages.ts';
import { newMerchant } from '../support/gateway.ts';
import { startReceiver, useWebhookStack, type Reply, type Receiver } from '../support/webhooks.ts';
import { expressionAttributes } from '../../scripts/rehearse/iam.ts';

/**
 * Endpoint health and Retry-After (docs/webhooks-operations.md): the dispatcher called directly
 * with an injected clock (no real waiting), delivering to real receivers on 127.0.0.1.
 */
useWebhookStack([]);
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.stop())));

const requeued: { eventId: string; delaySeconds: number }[] = [];
const ports: DispatchPorts = {
  deadLetter: async () => {
    throw new Error('not expected');
  },
  requeue: async (message, delaySeconds) => void requeued.push({ eventId: message.eventId, delaySeconds }),
};

async function endpoint(reply: () => Reply) {
  const hook = await startReceiver(reply);
  receivers.push(hook);
  const merchant = await newMerchant({ name: 'Health', webhookUrl: hook.url, allowInsecureWebhooks: true });
  return { hook, merchantId: merchant.merchantId };
}

function message(merchantId: string): DeliveryMessage {
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const paymentIntentId = randomUUID();
  const at = new Date().toISOString();
  return {
    v: 1,
    eventId,
    paymentIntentId,
    merchantId,
    mode: 'test',
    callbackUrl: null,
    eventCreatedAt: at,
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

const at = (t: number) => () => new Date(t);
const day = 24 * 3600 * 1000;

describe('endpoint health', () => {
  it('a 410 Gone disables the endpoint at once; its events are recorded endpoint_disabled until re-enabled', async () => {
    let status = 410;
    const { hook, merchantId } = await endpoint(() => status);
    const first = message(merchantId);
    expect(await dispatch(first, ports)).toMatchObject({ kind: 'endpoint_disabled' });
    const second = message(merchantId);
    expect(await dispatch(second, ports)).toMatchObject({ kind: 'endpoint_disabled' });
    expect(hook.deliveries).toHaveLength(1); // nothing sent to a disabled endpoint
    const record = await getDelivery(second.paymentIntentId!, second.eventId);
    expect(record).toMatchObject({ state: 'endpoint_disabled', nextAttemptAt: null });
    expect(record!.log.at(-1)).toMatchObject({ outcome: 'endpoint_disabled', statusCode: null });
    expect(record!.log.at(-1)!.error).toMatch(/endpoint disabled \(gone\)/);

    status = 200;
    await enableWebhook(merchantId, 'test');
    const third = message(merchantId);
    expect(await dispatch(third, ports)).toMatchObject({ kind: 'delivered' });
    expect(hook.deliveries.map((d) => d.event.id)).toEqual([first.eventId, third.eventId]);
  });

  it('an endpoint failing every attempt for 5 days is disabled; a success in between restarts the count', async () => {
    let status = 500;
    const { hook, merchantId } = await endpoint(() => status);
    const t0 = Date.now();
    expect(await dispatch(message(merchantId), ports, at(t0))).toMatchObject({ kind: 'retry' });
    status = 200;
    expect(await dispatch(message(merchantId), ports, at(t0 + 2 * day))).toMatchObject({ kind: 'delivered' });
    status = 500;
    expect(await dispatch(message(merchantId), ports, at(t0 + 3 * day))).toMatchObject({ kind: 'retry' });
    expect(await dispatch(message(merchantId), ports, at(t0 + 7 * day))).toMatchObject({ kind: 'retry' }); // 4 days failing
    expect(await dispatch(message(merchantId), ports, at(t0 + 8 * day + 1000))).toMatchObject({ kind: 'endpoint_disabled' }); // 5 days
    expect(hook.deliveries).toHaveLength(5);
    const [health] = (await getEndpointHealth([{ merchantId, mode: 'test', url: hook.url }])).values();
    expect(health).toMatchObject({ disabledReason: 'failing' });
    expect(await dispatch(message(merchantId), ports, at(t0 + 9 * day))).toMatchObject({ kind: 'endpoint_disabled' });
    expect(hook.deliveries).toHaveLength(5);
  });
});

describe('Retry-After', () => {
  it('is honoured on 429 and 503: never sooner than asked, never later than the next step of the schedule', async () => {
    let reply: Reply = 503;
    const { merchantId } = await endpoint(() => reply);
    reply = { status: 503, headers: { 'Retry-After': '120' } };
    // schedule: 5 s, then 300 s
    expect(await dispatch(message(merchantId), ports)).toMatchObject({ kind: 'retry', delaySeconds: 120, parked: false });
    reply = { status: 429, headers: { 'Retry-After': '86400' } };
    expect(await dispatch(message(merchantId), ports)).toMatchObject({ kind: 'retry', delaySeconds: 300 });
    reply = { status: 429, headers: { 'Retry-After': new Date(Date.now() + 60_000).toUTCString() } };
    const dated = await dispatch(message(merchantId), ports);
    expect(dated.kind === 'retry' && dated.delaySeconds).toBeGreaterThanOrEqual(58);
    expect(dated.kind === 'retry' && dated.delaySeconds).toBeLessThanOrEqual(61);
    reply = { status: 503, headers: { 'Retry-After': '1' } };
    expect(await dispatch(message(merchantId), ports)).toMatchObject({ kind: 'retry', delaySeconds: 5 });
    reply = { status: 500, headers: { 'Retry-After': '120' } }; // only 429 and 503 carry it
    expect(await dispatch(message(merchantId), ports)).toMatchObject({ kind: 'retry', delaySeconds: 5 });
    expect(requeued.slice(-5).map((r) => r.delaySeconds)).toEqual([120, 300, (dated as { delaySeconds: number }).delaySeconds, 5, 5]);
  });
});

describe("the dispatcher's health update names only the attributes its grant allows (functions/jobs.ts updates)", () => {
  it('failures, a disable and a success name the key and healthAttributes only', async () => {
    const named: string[][] = [];
    const stop = addDbMiddleware('healthAttributes', (stack) =>
      stack.add(
        (next, context) => async (args) => {
          const input = args.input as {
            UpdateExpression?: string;
            ConditionExpression?: string;
            ExpressionAttributeNames?: Record<string, string>;
          };
          if (context.commandName === 'UpdateItemCommand')
            named.push([
              ...expressionAttributes(input.UpdateExpression, input.ExpressionAttributeNames),
              ...expressionAttributes(input.ConditionExpression, input.ExpressionAttributeNames),
            ]);
          return next(args);
        },
        { step: 'initialize', name: 'healthAttributes' },
      ),
    );
    try {
      const target = { merchantId: randomUUID(), mode: 'test' as const, url: 'https://example.invalid/hook' };
      const at = new Date().toISOString();
      await recordAttempts(target, { failures: { firstAt: at, lastAt: at, restart: false } }, new Date());
      await recordAttempts(target, { failures: { firstAt: at, lastAt: at, restart: true }, disable: { reason: 'gone', at } }, new Date());
      await recordAttempts(target, { succeeded: true }, new Date());
    } finally {
      stop();
    }
    expect(named).toHaveLength(3);
    const allowed = new Set<string>(['PK', 'SK', ...healthAttributes]);
    expect(named.flat().filter((a) => !allowed.has(a))).toEqual([]);
  });
});
